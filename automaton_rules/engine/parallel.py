"""Helper processes that share the built-in task rules of a large audit.

A helper is forked after the tasks are loaded, so it starts with the command's memory;
it runs its slice of the tasks and sends back what it found through a pipe. Forking is
used only where it is safe and cheap: on Linux, in a process with no other thread.
A helper that fails in any way leaves its slice to the command itself, and the errors
of helpers and command are put back in the order one process meets them, so the result
never depends on whether helpers ran.
"""

from __future__ import annotations

import heapq
import os
import pickle
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import Any, TypeVar

from automaton_rules.engine.calls import PlacedError, RuleCaller
from automaton_rules.engine.plan import Plan, Scheduled
from automaton_rules.engine.plugins import PluginError
from automaton_rules.engine.result import RunResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.core.project import Task

MIN_TASKS = 1000  # below this, forking costs more than it saves
MAX_PROCESSES = 8

T = TypeVar("T")


def processes(jobs: int | None, tasks: int) -> int:
    """How many processes should share `tasks` tasks: 1 means no helper at all."""
    if jobs == 1 or tasks < MIN_TASKS:
        return 1
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return 1
    usable = jobs or len(os.sched_getaffinity(0))
    return max(1, min(usable, MAX_PROCESSES, tasks // (MIN_TASKS // 2)))


def slices(items: Sequence[T], count: int, first: float = 1.0) -> list[Sequence[T]]:
    """`count` contiguous slices in order, of nearly equal length but for the first, which
    is `first` times as long as the others (the command's own, when it has more to do)."""
    each = len(items) / (first + count - 1)
    ends = [round(each * (first + index)) for index in range(count - 1)] + [len(items)]
    bounds, start = [], 0
    for end in ends:
        bounds.append(items[start:end])
        start = end
    return bounds


class Helper:
    """One forked process computing `work()`; `result()` is None if it failed."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.pid, self._read = 0, -1
        try:
            read, write = os.pipe()
        except OSError:
            return  # no pipe, no helper: the command does the work
        try:
            pid = os.fork()
        except OSError:  # a process limit, or no memory for one more
            os.close(read)
            os.close(write)
            return
        if pid == 0:
            os.close(read)
            code = 1
            try:
                data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
                code = 0
            finally:
                os._exit(code)  # no atexit, no flushing the command's buffers, no cleanup
        os.close(write)
        self.pid, self._read = pid, read

    def result(self) -> Any | None:
        """What the helper sent, once it has exited; None when it did not finish its work."""
        if not self.pid:
            return None
        with os.fdopen(self._read, "rb") as pipe:
            data = pipe.read()
        try:
            _, status = os.waitpid(self.pid, 0)
        except OSError:  # SIGCHLD ignored by whoever started us: no status to read
            return None
        if status != 0:
            return None
        try:
            return pickle.loads(data)
        except Exception:
            return None


@dataclass(frozen=True)
class HelperReport:
    """What a helper sends back: its findings, its errors by task position (kept apart, to
    be put in order), and the timelines the project-wide rules will ask of its tasks."""

    result: RunResult
    errors: list[PlacedError]
    timelines: dict[str, tuple[tuple[float, str], ...]]


def run_task_rules(
    plan: Plan,
    caller: RuleCaller,
    result: RunResult,
    jobs: int | None,
    while_waiting: Callable[[], None],
) -> None:
    """Every task rule on every task; helpers take slices of the shareable rules' work.

    The command runs every task rule on its own slice, then `while_waiting`, then, on each
    helper's slice, the rules no helper may run. Errors are put back in the order a single
    process meets them (task by task, the helper's rules first), so the report is the same.
    """
    tasks = caller.fixtures.tasks
    count = processes(jobs, len(tasks))
    # With helpers, the command takes a smaller slice: `while_waiting` is its work too.
    parts = slices(tasks, count, first=0.8 if count > 1 else 1.0)
    shared = plan.shared
    caller.fixtures.get("now", None)  # the run's one reading of the clock, before any fork
    helpers = [Helper(partial(_helper_work, caller, shared, part)) for part in parts[1:]]
    caller.on_tasks(parts[0], plan.per_task, result)
    while_waiting()
    for part, helper in zip(parts[1:], helpers):
        report = helper.result()
        if report is None:
            caller.on_tasks(part, plan.per_task, result)  # as if there had been no helper
        else:
            _finish_slice(report, part, plan.kept, caller, result)


def _helper_work(
    caller: RuleCaller, rules: Sequence[Scheduled], tasks: Sequence[Task]
) -> HelperReport:
    """Run in the helper: the shareable rules on its slice."""
    result = RunResult()
    errors: list[PlacedError] = []
    caller.on_tasks(tasks, rules, result, errors)
    timelines: dict[str, tuple[tuple[float, str], ...]] = {}
    for task in tasks:
        timeline = task.known_timeline()
        if timeline is not None:
            timelines[task.name] = timeline
    return HelperReport(result, errors, timelines)


def _finish_slice(
    report: HelperReport,
    tasks: Sequence[Task],
    kept: Sequence[Scheduled],
    caller: RuleCaller,
    result: RunResult,
) -> None:
    """Take a helper's work on its slice, and run there the rules it could not."""
    result.absorb(report.result)
    for task in tasks:
        timeline = report.timelines.get(task.name)
        if timeline is not None:
            task.adopt_timeline(timeline)
    own = RunResult()
    errors: list[PlacedError] = []
    caller.on_tasks(tasks, kept, own, errors)
    result.absorb(own)
    result.errors.extend(in_task_order(report.errors, errors))


def in_task_order(helper: Iterable[PlacedError], own: Iterable[PlacedError]) -> list[PluginError]:
    """Errors as one process meets them: each list is in task order already, so a merge
    keeps it, and on one task the helper's (built-in rules) come first."""
    return [placed.error for placed in heapq.merge(helper, own, key=attrgetter("position"))]
