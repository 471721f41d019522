"""Helper processes that share the built-in task rules of a large audit.

A helper is forked after the tasks are loaded, so it starts with the command's memory;
it runs its slice of the tasks and sends back what it found through a pipe. Forking is
used only where it is safe and cheap: on Linux, in a process with no other thread.
A helper that fails in any way leaves its slice to the command itself, so the result
never depends on whether helpers ran.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

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
