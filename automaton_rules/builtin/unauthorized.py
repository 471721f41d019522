"""Category 3: source files changed while the task was in a phase that forbids editing.

Phase intervals come from `.state.history` (or, for tasks without one, from the
`.state` mtime, as the specification does). Commits come from one pass over the
git log. A commit with a `Task: <name>` trailer is judged against that task; one
without is a violation only when no task was in an edit phase at the time.

A commit's date is whatever its maker set (`GIT_COMMITTER_DATE`, plumbing), so a commit is
placed by its history too: never before the commits it builds on, and one that names a
task never before the task existed. AR303 reports a commit whose date says otherwise.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from automaton_rules.core import guard_files, machine, store
from automaton_rules.core.config import Config
from automaton_rules.core.project import Project, Task, task_file
from automaton_rules.engine.findings import UNAUTHORIZED, Finding
from automaton_rules.engine.rule import Rule, Skip, rule
from automaton_rules.support import clock

TYPE_CHECKING = False
if TYPE_CHECKING:  # git is read only by the audit: its reader loads with it
    from automaton_rules.engine.gitlog import Commit, GitHistory


@dataclass(frozen=True)
class Timeline:
    """When a task entered each of its states; before the first one it did not exist."""

    task: str
    starts: tuple[float, ...]
    states: tuple[str, ...]

    @classmethod
    def of(cls, task: Task) -> Timeline:
        """From the history; a task without one is known only since `.state` was written."""
        spans = list(task.entered)
        if not spans and task.state is not None and machine.is_state(task.state):
            mtime = store.state_mtime(task.path)
            if mtime is not None:
                spans.append((mtime, task.state))
        starts, states = zip(*spans) if spans else ((), ())
        return cls(task.name, tuple(starts), tuple(states))

    def judged_state(self, *moments: float, named: bool = False) -> str | None:
        """The state to hold a change against, or None to give it the benefit of the doubt.

        Times are whole seconds, so a change in a second in which the task changed state
        is judged only if every state the task held during that second forbids editing;
        a commit carries two times (written, committed) and is judged only if both are.
        A change that names the task is judged in `complete` too; others are not.
        """
        verdict = None
        for moment in moments:
            held = self.held(moment)
            if not held or not all(_judged(state, named) for state in held):
                return None
            verdict = verdict or held[-1]
        return verdict

    def held(self, moment: float) -> tuple[str, ...]:
        """Every state the task held during that second, the last one last; none before
        the task existed."""
        first = bisect.bisect_left(self.starts, moment) - 1
        last = bisect.bisect_right(self.starts, moment) - 1
        return self.states[first : last + 1] if first >= 0 else ()

    def edit_spans(self, until: float) -> Iterator[tuple[float, float]]:
        """The intervals the task spent in an edit phase."""
        ends = (*self.starts[1:], until)
        for start, end, state in zip(self.starts, ends, self.states):
            if machine.is_edit_phase(state):
                yield start, end


class EditCoverage:
    """Whether any task was in an edit phase at a moment, answered by bisection."""

    def __init__(self, timelines: Iterable[Timeline], until: float) -> None:
        spans = sorted(span for line in timelines for span in line.edit_spans(until))
        merged: list[list[float]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def covers(self, moment: float) -> bool:
        """True when some task was in an edit phase at `moment`."""
        index = bisect.bisect_right(self._starts, moment) - 1
        return index >= 0 and moment <= self._ends[index]


def _judged(state: str | None, named: bool = False) -> bool:
    """A state in which editing is a violation: outside the edit phases (and, unless the
    change names the task, outside `complete`, whose work is finished)."""
    if state is None or machine.is_edit_phase(state):
        return False
    return named or state != "complete"


@rule(
    "AR301",
    summary="No source file changed while its task was in a non-edit phase",
    category=UNAUTHORIZED,
)
def unauthorized_modifications(
    project: Project, tasks: Sequence[Task], git: GitHistory, config: Config | None
) -> Iterator[Finding]:
    """One pass over the commits, then the working tree against the current states."""
    if not git.is_repo:
        raise Skip("not a git repository")
    settings = config or Config()
    now = project.context.now()
    timelines = {task.name: Timeline.of(task) for task in tasks if task.state is not None}
    source = _source_test(project, settings, git)
    coverage = EditCoverage(timelines.values(), now)
    # One finding per task and file, for its latest change (commits are oldest first, the
    # working tree last): a baseline that knows an earlier commit still sees a new one.
    latest: dict[tuple[str, str], tuple[str, When, str | None]] = {}

    def report(name: str, state: str, path: str, how: When, commit: str | None = None) -> None:
        latest[(name, path)] = (state, how, commit)

    floors = git.floors()
    for commit in git.commits:
        files = [path for path in commit.files if source(path)]
        if not files:
            continue
        how = When(commit.time, f"commit: {commit.sha[:7]}")
        moments = placed(commit.times, floors.get(commit.sha, 0))
        named = [timelines[n] for n in commit.tasks if n in timelines]
        if named:
            suspects = named
        elif coverage.covers(moments[0]):
            continue
        else:
            suspects = list(timelines.values())
        for line in suspects:
            at = placed(moments, line.starts[0]) if named and line.starts else moments
            state = line.judged_state(*at, named=bool(named))
            if state is not None:
                for path in files:
                    report(line.task, state, path, how, commit.sha)
    changed = [path for path in git.uncommitted if source(path)]
    if changed and not coverage.covers(now):
        for line in timelines.values():
            state = line.judged_state(now)
            if state is not None:
                for path in changed:
                    report(line.task, state, path, _uncommitted(project, path))
    for (name, path), (state, how, sha) in latest.items():
        yield _modified(name, state, path, how, sha)


def placed(moments: Sequence[float], floor: float) -> tuple[float, ...]:
    """A commit's times, none before `floor`: what its history shows it cannot predate."""
    return tuple(max(moment, floor) for moment in moments)


@dataclass(frozen=True)
class When:
    """How a change is dated: the time (the commit's, or the file's mtime; None when the
    file is gone) and what follows it on the line (the commit, or `uncommitted`)."""

    time: float | None
    what: str

    def words(self, state: str) -> str:
        """The specification's `(state: research, file mtime: 2026-06-14`, then the commit:
        the day, in UTC, is the one the change is dated by; the data keeps the second."""
        day = f", file mtime: {clock.stamp(self.time)[:10]}" if self.time is not None else ""
        return f"(state: {state}{day}, {self.what})"


def _modified(name: str, state: str, path: str, how: When, commit: str | None) -> Finding:
    """AR301's finding for a task's file changed in a phase that does not edit."""
    phase = machine.base_phase(state)
    data = {"detail": f"{path} during {phase} phase", "file": path, "phase": phase}
    if how.time is not None:
        data["date"] = clock.stamp(how.time)
    if commit is not None:  # a baseline's fingerprint names the commit
        data["commit"] = commit
    return Finding(
        f"{path} was modified during {phase} phase {how.words(state)}",
        path=path,
        task=name,
        data=data,
    )


def _source_test(project: Project, settings: Config, git: GitHistory) -> Callable[[str], bool]:
    """`is_source`, once per path: a long history names the same files again and again.
    The guard's files are a person's to change, shown by AR501, not source; the rest of a
    pyproject.toml is source, so it stays one."""
    known: dict[str, bool] = {}
    guard = guard_files.named_relpaths(project, settings, git.hooks_folders(project.root))

    def source(path: str) -> bool:
        found = known.get(path)
        if found is None:
            kind = guard_files.kind_of_relpath(path, guard)
            found = settings.is_source(path) and kind in (None, guard_files.TOOL_TABLE)
            known[path] = found
        return found

    return source


def _uncommitted(project: Project, path: str) -> When:
    """How an uncommitted change is dated: by the file's modification time, if it has one."""
    try:
        mtime: float | None = (project.root / path).stat().st_mtime
    except OSError:
        mtime = None
    return When(mtime or None, "uncommitted")


@rule(
    "AR302",
    summary="No artifact was committed while its task was in an earlier phase",
    category=UNAUTHORIZED,
)
def artifacts_committed_early(
    project: Project, tasks: Sequence[Task], git: GitHistory
) -> Iterator[Finding]:
    """A phase's artifact written ahead of it and deleted before the next transition leaves
    no file for AR101 to find, but its commit stays in the history."""
    if not git.is_repo:
        raise Skip("not a git repository")
    folder = project.tasks_dir.relative_to(project.root).as_posix() + "/"
    tracked = {task.name: task for task in tasks if task.state is not None}
    reported: set[tuple[str, str]] = set()
    for commit in git.commits:
        for path in commit.files:
            place = _artifact_of(path, folder)
            if place is None or place in reported or place[0] not in tracked:
                continue
            name, artifact = place
            state = _forbidding_state(tracked[name], commit.time, artifact)
            if state is None:
                continue
            reported.add(place)
            phase = machine.ARTIFACT_PHASE[artifact]
            how = When(commit.time, f"commit: {commit.sha[:7]}")
            yield Finding(
                f"{artifact} was committed during {machine.base_phase(state)} phase "
                f"{how.words(state)}; it belongs to the {phase} phase",
                path=path,
                task=name,
                data={
                    "detail": f"{artifact} committed during {machine.base_phase(state)}",
                    "artifact": artifact,
                    "phase": phase,
                    "date": clock.stamp(commit.time),
                    "commit": commit.sha,
                },
            )


def _artifact_of(path: str, folder: str) -> tuple[str, str] | None:
    """(task name, artifact) for the path of a task's artifact, else None."""
    if not path.startswith(folder):
        return None
    found = task_file(path[len(folder) :].split("/"))
    return found if found is not None and machine.is_artifact(found[1]) else None


def _forbidding_state(task: Task, moment: float, artifact: str) -> str | None:
    """The state the task held at `moment` when every state it held in that second forbids
    `artifact`; None when one allowed it, or the task did not exist yet."""
    held = Timeline.of(task).held(moment)
    if held and all(artifact in machine.forbidden_artifacts(state) for state in held):
        return held[-1]
    return None


# Seconds a commit may be dated before its parent (two machines' clocks) before it is
# reported: a backdated commit is judged at its parent's date in any case.
CLOCK_SKEW = 300


@rule(
    "AR303",
    summary="No commit is dated before the commits it builds on, or before its task existed",
    category=UNAUTHORIZED,
)
def backdated_commits(
    project: Project, tasks: Sequence[Task], git: GitHistory
) -> Iterator[Finding]:
    """A date set by hand hides when a change was made; its place in history does not."""
    if not git.is_repo:
        raise Skip("not a git repository")
    floors = git.floors()
    # When each task was created, as its history records it (an mtime says nothing of it).
    created = {task.name: task.entered[0][:1] for task in tasks if task.entered}
    for commit in git.commits:
        floor = floors.get(commit.sha, 0)
        if commit.time + CLOCK_SKEW < floor:
            yield _backdated(commit, floor, "the commit it builds on was made", None)
        for name in commit.tasks:
            start = created.get(name)
            if start and max(commit.time, floor) + CLOCK_SKEW < start[0]:
                yield _backdated(commit, start[0], f"task {name} was created", name)


def _backdated(commit: Commit, floor: float, what: str, task: str | None) -> Finding:
    """AR303's finding: the date a commit carries, and the moment it cannot predate."""
    return Finding(
        f"commit {commit.sha[:7]} is dated {clock.stamp(commit.time)}, before {what} "
        f"({clock.stamp(floor)}): its date was set by hand or its machine's clock is wrong; "
        f"the audit judges it no earlier than {clock.stamp(floor)}",
        task=task,
        data={
            "detail": f"commit {commit.sha[:7]} dated before {what}",
            "commit": commit.sha,
            "author": commit.author,
            "date": clock.stamp(commit.time),
            "floor": clock.stamp(floor),
        },
    )


def register_rules(register: Callable[[Rule], None]) -> None:
    """The unauthorized-modification checks."""
    register(unauthorized_modifications)
    register(artifacts_committed_early)
    register(backdated_commits)
