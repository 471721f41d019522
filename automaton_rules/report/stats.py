"""`--stats`: how long each phase took, how often work went back, who approved and how.

Every figure comes from a task's `.state.history` and nothing else: each line says when
the task entered a state, so the time in a state runs from its line to the next one —
or, for the state the task is in, to `now`, which the command reads once. A phase's time
is its own state and its `X:approved` state (the phase is done but the task has not
moved on yet); time in `X:awaiting_approval` is counted apart, as waiting for approval.
A `complete` task's clock stopped when it completed. Imports the core.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from automaton_rules.core import machine
from automaton_rules.support import clock
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from automaton_rules.core.history import HistoryEntry
    from automaton_rules.core.project import Task

FINAL_STATES: frozenset[str] = frozenset({"complete"})


@dataclass
class PhaseFigures:
    """One phase of one task (or summed over the project): `seconds` in the phase,
    `visits` (entered more than once = rework), `waiting` seconds for approval, and —
    summed over the project — how many tasks entered it more than once (`reworked`)."""

    seconds: int = 0
    visits: int = 0
    waiting: int = 0
    reworked: int = 0

    def add(self, other: PhaseFigures) -> None:
        """Sum another task's figures into these."""
        self.seconds += other.seconds
        self.visits += other.visits
        self.waiting += other.waiting
        self.reworked += other.reworked or int(other.visits > 1)


@dataclass(frozen=True)
class Approval:
    """One approval the history records: the phase whose gate opened, by whom, how, when."""

    phase: str
    approver: str
    via: str
    time: str


@dataclass
class TaskStats:
    """A task's figures; a task without history (made by hand, or by an old version) has
    none, and says so (`tracked` False)."""

    task: str
    state: str | None = None  # the state its history ends in
    started: str | None = None
    phases: dict[str, PhaseFigures] = field(default_factory=dict)
    approvals: list[Approval] = field(default_factory=list)

    @property
    def tracked(self) -> bool:
        """The task has a history to count from."""
        return self.started is not None

    @property
    def seconds(self) -> int:
        """Time in every phase, waiting for approval not included."""
        return sum(f.seconds for f in self.phases.values())

    @property
    def waiting(self) -> int:
        """Time waiting for approval, every gate together."""
        return sum(f.waiting for f in self.phases.values())

    @property
    def rework(self) -> list[str]:
        """The phases entered more than once."""
        return [phase for phase, f in self.phases.items() if f.visits > 1]


@dataclass
class ProjectStats:
    """Every task's figures, the project's sums, and the moment they were counted up to."""

    now: datetime
    tasks: list[TaskStats]

    @property
    def phases(self) -> dict[str, PhaseFigures]:
        """Each phase summed over the tasks, in workflow order."""
        summed: dict[str, PhaseFigures] = {}
        for task in self.tasks:
            for phase, figures in task.phases.items():
                summed.setdefault(phase, PhaseFigures()).add(figures)
        return _in_order(summed)

    def approvals(self) -> dict[str, Counter[str]]:
        """How many approvals each approver gave, by way (`via`)."""
        found: dict[str, Counter[str]] = {}
        for task in self.tasks:
            for approval in task.approvals:
                found.setdefault(approval.approver, Counter())[approval.via] += 1
        return found


def _in_order(phases: dict[str, PhaseFigures]) -> dict[str, PhaseFigures]:
    """Workflow order; a phase the workflow does not know (a hand-written line) last."""
    rank = {phase: index for index, phase in enumerate(machine.PHASES)}
    return dict(sorted(phases.items(), key=lambda item: rank.get(item[0], len(rank))))


def from_entries(name: str, entries: Sequence[HistoryEntry], now: datetime) -> TaskStats:
    """A task's figures from its typed history, counted up to `now`."""
    stats = TaskStats(name)
    if not entries:
        return stats
    stats.started = entries[0].time.strftime(clock.TIME_FORMAT)
    stats.state = entries[-1].target
    previous: str | None = None
    for index, entry in enumerate(entries):
        phase = machine.base_phase(entry.target)
        figures = stats.phases.setdefault(phase, PhaseFigures())
        if previous is None or machine.base_phase(previous) != phase:
            figures.visits += 1
        if entry.is_approval:
            stats.approvals.append(_approval(entry))
        following = entries[index + 1].time if index + 1 < len(entries) else None
        seconds = _lasted(entry, following, now)
        if machine.is_awaiting(entry.target):
            figures.waiting += seconds
        else:
            figures.seconds += seconds
        previous = entry.target
    stats.phases = _in_order(stats.phases)
    return stats


def _lasted(entry: HistoryEntry, following: datetime | None, now: datetime) -> int:
    """Whole seconds in the state `entry` entered: to the next line, else to `now` (not
    for a final state); a line dated before the one it follows counts as no time."""
    if following is None:
        if entry.target in FINAL_STATES:
            return 0
        following = now
    return max(0, int((following - entry.time).total_seconds()))


def _approval(entry: HistoryEntry) -> Approval:
    return Approval(
        phase=machine.base_phase(entry.source or entry.target),
        approver=entry.approver or entry.actor or "?",
        via=entry.via or "cli",
        time=entry.time.strftime(clock.TIME_FORMAT),
    )


def task_stats(task: Task, now: datetime) -> TaskStats:
    """One task's figures, from its `.state.history` alone."""
    return from_entries(task.name, task.entries, now)


def project_stats(tasks: Iterable[Task], now: datetime) -> ProjectStats:
    """Every task's figures, counted up to the same `now`."""
    return ProjectStats(now, [task_stats(task, now) for task in tasks])


# ------------------------------------------------------------------------- JSON


def _figures(figures: PhaseFigures, *, project: bool) -> dict[str, int | bool]:
    shown: dict[str, int | bool] = {
        "seconds": figures.seconds,
        "visits": figures.visits,
        "waiting_seconds": figures.waiting,
    }
    if project:
        shown["rework_tasks"] = figures.reworked
    else:
        shown["rework"] = figures.visits > 1
    return shown


def _task_dict(task: TaskStats) -> dict[str, Any]:
    return {
        "task": task.task,
        "history": task.tracked,
        "state": task.state,
        "started": task.started,
        "seconds": task.seconds,
        "waiting_seconds": task.waiting,
        "rework": task.rework,
        "phases": {p: _figures(f, project=False) for p, f in task.phases.items()},
        "approvals": [
            {"phase": a.phase, "approver": a.approver, "via": a.via, "time": a.time}
            for a in task.approvals
        ],
    }


def as_dict(stats: ProjectStats) -> dict[str, Any]:
    """The figures for `--json`: each task's, then the project's."""
    by_approver = stats.approvals()
    by_via: Counter[str] = Counter()
    for ways in by_approver.values():
        by_via.update(ways)
    return {
        "now": stats.now.strftime(clock.TIME_FORMAT),
        "tasks": [_task_dict(task) for task in stats.tasks],
        "project": {
            "tasks": len(stats.tasks),
            "seconds": sum(task.seconds for task in stats.tasks),
            "waiting_seconds": sum(task.waiting for task in stats.tasks),
            "phases": {p: _figures(f, project=True) for p, f in stats.phases.items()},
            "approvals": {
                "count": sum(by_via.values()),
                "by_approver": {name: dict(ways) for name, ways in sorted(by_approver.items())},
                "by_via": dict(sorted(by_via.items())),
            },
        },
    }


# ------------------------------------------------------------------------- text


def duration(seconds: int) -> str:
    """A span as people read it: `45s`, `7m 03s`, `2h 05m`, `3d 04h`."""
    minutes, secs = divmod(seconds, 60)
    hours, mins = divmod(minutes, 60)
    days, hrs = divmod(hours, 24)
    if days:
        return f"{days}d {hrs:02d}h"
    if hours:
        return f"{hours}h {mins:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


_HEADER = f"  {'phase':<22}{'time':>9}{'visits':>8}{'waiting':>10}  rework"


def _row(phase: str, figures: PhaseFigures, rework: str) -> str:
    """One phase's line; its waiting shows wherever some was counted, so that the rows add
    up to `all phases` (a hand-written `foo:awaiting_approval` line counts as waiting)."""
    gated = phase in machine.APPROVAL_PHASES or figures.waiting > 0
    waiting = duration(figures.waiting) if gated else "—"
    return (
        f"  {printable(phase, 22):<22}{duration(figures.seconds):>9}{figures.visits:>8}"
        f"{waiting:>10}  {rework}"
    ).rstrip()


def _total(seconds: int, waiting: int) -> str:
    return f"  {'all phases':<22}{duration(seconds):>9}{'':>8}{duration(waiting):>10}"


def _task_text(task: TaskStats) -> list[str]:
    name = printable(task.task)
    if not task.tracked:
        return [f"{name} — no history: nothing to count"]
    lines = [f"{name} — {printable(task.state or '?')}, since {task.started}", _HEADER]
    for phase, figures in task.phases.items():
        lines.append(_row(phase, figures, "yes" if figures.visits > 1 else ""))
    lines.append(_total(task.seconds, task.waiting))
    given = [
        f"{a.phase} by {printable(a.approver)} via {printable(a.via)} at {a.time}"
        for a in task.approvals
    ]
    lines.append(f"  approvals: {given[0] if given else 'none'}")
    lines += [f"             {line}" for line in given[1:]]
    return lines


def _project_text(stats: ProjectStats) -> list[str]:
    count = len(stats.tasks)
    lines = [f"All tasks ({count} task{'' if count == 1 else 's'})", _HEADER]
    for phase, figures in stats.phases.items():
        reworked = f"{figures.reworked} task{'' if figures.reworked == 1 else 's'}"
        lines.append(_row(phase, figures, reworked if figures.reworked else ""))
    seconds = sum(task.seconds for task in stats.tasks)
    lines.append(_total(seconds, sum(task.waiting for task in stats.tasks)))
    approvers = [
        f"{printable(name)} {sum(ways.values())} ("
        + ", ".join(f"{printable(via)} {n}" for via, n in sorted(ways.items()))
        + ")"
        for name, ways in sorted(stats.approvals().items())
    ]
    lines.append(f"  approvals: {'; '.join(approvers) or 'none'}")
    return lines


def render(stats: ProjectStats, *, project: bool = True) -> str:
    """The readable table: each task, then (unless `project` is False) the whole project."""
    lines = [
        f"Workflow statistics from .state.history, up to {stats.now.strftime(clock.TIME_FORMAT)}",
        "time: in the phase and its approved state; waiting: for approval; "
        "rework: entered more than once",
        "",
    ]
    for task in stats.tasks:
        lines += [*_task_text(task), ""]
    if project:
        lines += _project_text(stats)
    return "\n".join(lines).rstrip()
