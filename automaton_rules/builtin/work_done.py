"""Work marked done has work behind it: users of every peer tool report tasks marked
complete with nothing behind them.

AR211 (category 2) holds a decomposed task that is `complete` to its sub-tasks' verdicts:
each must say PASS, since the parent completes on its sub-tasks alone. AR304 (category 3,
the git history against the phases) reports a task that moved past `implement` with no
code committed under it: no commit naming it in a `Task:` trailer, and no change of
source committed while it was in an edit phase. It judges only tasks whose time in
`implement` the history read covers (a `--since` audit, a shallow clone), and says
nothing outside a git repository.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence

from automaton_rules.core import machine, store
from automaton_rules.core.config import Config
from automaton_rules.core.phases import reached
from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import INCONSISTENCY, UNAUTHORIZED, Finding
from automaton_rules.engine.rule import Rule, Skip, rule

TYPE_CHECKING = False
if TYPE_CHECKING:  # git is read only by the audit: its reader loads with it
    from automaton_rules.engine.gitlog import Commit, GitHistory

RECORDS = ".automaton/"  # a commit that touches only task records commits no work


@rule(
    "AR211",
    summary="A decomposed task marked complete has a PASS verdict from every sub-task",
    category=INCONSISTENCY,
)
def subtasks_passed(task: Task, project: Project) -> Iterator[Finding]:
    """A sub-task can reach `complete` from `human_intervention` whatever its verdict, and
    its parent then completes on it: the tree says done while the work failed review."""
    if task.parent is not None or task.state != "complete":
        return
    for name in project.subtask_names(task.name):
        sub = project.load(name, strict=False)
        verdict = sub.verdict
        if sub.state != "complete" or verdict == "PASS":
            continue  # an open sub-task is the workflow's gate's to refuse, not a verdict
        said = f"says {verdict}" if verdict else "names no verdict"
        if not sub.has_content(machine.ARTIFACTS["referee"]):
            said = "is missing"
        yield Finding(
            f"is complete, but VERDICT.md of sub-task {name} {said}: the tree is marked done "
            "while part of its work did not pass review",
            path=sub.relpath(machine.ARTIFACTS["referee"]),
            correction="follow the sub-task up: "
            + project.context.command("--task", name, "--follow-up", project=project.root),
            data={"detail": f"sub-task {name} without PASS", "subtask": name},
        )


@rule(
    "AR304",
    summary="A task that moved past implement has code committed under it",
    category=UNAUTHORIZED,
)
def code_behind_implement(
    project: Project, tasks: Sequence[Task], git: GitHistory, config: Config | None
) -> Iterator[Finding]:
    """A task past implement with neither a commit naming it nor a source change while it
    could edit: its implementation was never committed, whatever IMPLEMENTATION.md says."""
    if not git.is_repo:  # no history to judge by, as the category's other rules say
        raise Skip("not a git repository")
    if not git.commits:
        return
    first_read = min(commit.time for commit in git.commits)
    named = _work_by_task(git.commits)
    free = _unclaimed_source_times(git.commits, config or Config())
    for task in tasks:
        spans = _edit_spans(task)
        if not spans or not _moved_past_implement(task) or spans[0][0] < first_read:
            continue  # never implemented, sent back, or implemented before the history read
        if task.name in named or any(_any_between(free, start, end) for start, end in spans):
            continue
        yield Finding(
            f"moved past implement (it is in {task.state}) with no code committed under it: "
            f"no commit names it (Task: {task.name}) and no source change was committed "
            "while it was in implement or doc_review",
            path=task.relpath(store.STATE),
            task=task.name,
            correction=(
                f"commit its code with a 'Task: {task.name}' trailer, or take it back to "
                "implement (through human_intervention)"
            ),
            data={"detail": "no code behind implement", "label": "no code behind implement"},
        )


def _work_by_task(commits: Sequence[Commit]) -> set[str]:
    """The tasks a commit names that changed something besides the task records."""
    return {
        name
        for commit in commits
        if any(not path.startswith(RECORDS) for path in commit.files)
        for name in commit.tasks
    }


def _edit_spans(task: Task) -> list[tuple[float, float]]:
    """When the task was in an edit phase, from its history; the last span open-ended."""
    timeline = task.entered
    ends = [moment for moment, _ in timeline[1:]] + [float("inf")]
    return [
        (start, end) for (start, state), end in zip(timeline, ends) if machine.is_edit_phase(state)
    ]


def _moved_past_implement(task: Task) -> bool:
    """In a phase after implement now, having been in implement on the way."""
    if not reached(task.state, "bug_find"):
        return False
    states = [state for _, state in task.entered]
    return "implement" in states[: len(states) - 1]


def _unclaimed_source_times(commits: Sequence[Commit], settings: Config) -> list[float]:
    """Both times of every commit that changes a source file and names no task, sorted: a
    commit naming a task is that task's work, counted by `_work_by_task` alone. Each path
    is asked `is_source` once, as a long history names the same files again and again."""
    known: dict[str, bool] = {}

    def source(path: str) -> bool:
        if path not in known:
            known[path] = settings.is_source(path)
        return known[path]

    return sorted(
        moment
        for commit in commits
        if not commit.tasks and any(source(path) for path in commit.files)
        for moment in commit.times
    )


def _any_between(times: list[float], start: float, end: float) -> bool:
    """Whether a sorted list holds a time from `start` to `end`, edges included (times
    are whole seconds): one bisection, however long the history."""
    index = bisect.bisect_left(times, start)
    return index < len(times) and times[index] <= end


def register_rules(register: Callable[[Rule], None]) -> None:
    """The checks that work marked done has work behind it."""
    register(subtasks_passed)
    register(code_behind_implement)
