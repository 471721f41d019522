"""Category 2: `.state` against the artifacts, the approval log and the history.

The first two rules compare the state with the files present, as the specification
asks, and AR212 its example of a task in implement without IMPLEMENTATION.md, once the
task has been there long enough to have written it. The others check the records
`status.py` keeps, so that a hand-edited `.state`, a forged approval or an artifact
rewritten after sign-off does not pass unnoticed.
Those that hold the state to the files and records in place (AR201, AR203, AR204,
AR207) also run in --validate-folder; AR202 does not, since AR101 reports the same
artifacts there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from automaton_rules.core import integrity, machine, store
from automaton_rules.core.config import Config
from automaton_rules.core.project import Task, presumed_artifacts
from automaton_rules.engine.findings import INCONSISTENCY, Finding
from automaton_rules.engine.rule import Rule, rule


def _tracked(task: Task) -> bool:
    return task.state is not None and machine.is_state(task.state)


def _mismatch(
    task: Task, message: str, detail: str, correction: str | None = None, **data: Any
) -> Finding:
    return Finding(
        message,
        path=task.relpath(store.STATE),
        correction=correction or machine.infer_phase(task.artifacts),
        data={"detail": detail, **data},
    )


@rule(
    "AR201",
    summary="The artifacts the state presumes exist and are not empty",
    category=INCONSISTENCY,
    when=("audit", "validate"),
)
def state_without_artifacts(task: Task) -> Iterator[Finding]:
    """`design:approved` without DESIGN.md, or `bug_find` without IMPLEMENTATION.md."""
    if not _tracked(task):
        return
    missing = [a for a in presumed_artifacts(task) if not task.has_content(a)]
    # The work stopped where the first missing artifact is due: the task belongs back in
    # that phase (research:awaiting_approval without SPEC.md is research, not new).
    back = machine.ARTIFACT_PHASE[missing[0]] if missing else None
    for artifact in missing:
        yield _mismatch(
            task,
            f'.state says "{task.state}" but {artifact} is missing or empty',
            f".state says {task.state}, {artifact} missing",
            back,
            artifact=artifact,
        )


@rule(
    "AR202",
    summary="No artifact is ahead of the state",
    category=INCONSISTENCY,
    severity="warning",
)
def artifacts_ahead_of_state(task: Task) -> Iterator[Finding]:
    """The specification's example: `.state` says research, IMPLEMENTATION.md exists."""
    if not _tracked(task):
        return
    ahead = [a for a in task.artifacts if a in machine.forbidden_artifacts(task.state or "")]
    if ahead:
        names = ", ".join(ahead)
        verb = "exists" if len(ahead) == 1 else "exist"
        yield _mismatch(
            task,
            f'.state says "{task.state}" but {names} {verb}',
            f".state says {machine.base_phase(task.state or '')}, {names} {verb}",
            artifacts=ahead,
        )


@rule(
    "AR203",
    summary="An approved state has its line in .state.approvals",
    category=INCONSISTENCY,
    when=("audit", "validate"),
)
def approved_without_record(task: Task) -> Iterator[Finding]:
    """`X:approved` must be backed by a `X:approved|time|approver` line."""
    if not _tracked(task) or not machine.is_approved(task.state or ""):
        return
    lines = task.approvals
    if not any(line is not None and line.state == task.state for line in lines):
        yield _mismatch(
            task,
            f'.state says "{task.state}" but .state.approvals has no {task.state} line',
            f"{task.state} without an approval record",
        )


@rule(
    "AR204",
    summary=".state was last written by status.py (it matches .state.history)",
    category=INCONSISTENCY,
    when=("audit", "validate"),
)
def state_changed_by_hand(task: Task) -> Iterator[Finding]:
    """A `.state` that differs from the last history entry was edited outside status.py."""
    if task.state is None:
        return
    entries = task.history
    if entries and entries[-1].get("to") != task.state:
        recorded = entries[-1].get("to") or "an unreadable line"
        yield _mismatch(
            task,
            f'.state says "{task.state}" but .state.history ends at "{recorded}" '
            "(.state was changed outside status.py)",
            f".state changed by hand from {recorded} to {task.state}",
            recorded=recorded,
        )


@rule(
    "AR205",
    summary=".state.history is whole: every line chained to the one before",
    category=INCONSISTENCY,
)
def history_tampered(task: Task) -> Iterator[Finding]:
    """Each line records the SHA-256 of the line before, so edits and deletions show."""
    if task.state is None:
        return
    lines, entries = task.history_lines, task.history
    for number, entry in enumerate(entries, start=1):
        previous = store.line_digest(lines[number - 2]) if number > 1 else None
        if not entry:
            problem = "is not a JSON object"
        elif entry.get("prev") != previous:
            problem = "does not follow the line before it (edited, inserted or removed lines)"
        elif number == 1 and entry.get("from") is not None:
            problem = "does not start the task's history (earlier lines were removed)"
        else:
            continue
        yield Finding(
            f".state.history line {number} {problem}",
            path=task.relpath(store.HISTORY),
            data={"detail": f".state.history line {number} tampered", "line": number},
        )
        return


@rule(
    "AR206",
    summary=".state.approvals agrees with the approvals in .state.history",
    category=INCONSISTENCY,
)
def approvals_tampered(task: Task) -> Iterator[Finding]:
    """Forged, edited and deleted approval lines: the log must match the history."""
    if task.state is None or not task.history:
        return
    for problem in integrity.approval_log_problems(task.approvals, task.history):
        yield Finding(
            problem,
            path=task.relpath(store.APPROVALS),
            data={"detail": "approval log does not match the history"},
        )


@rule(
    "AR207",
    summary="An approved artifact is unchanged since its approval",
    category=INCONSISTENCY,
    when=("audit", "validate"),
)
def approved_artifact_changed(task: Task) -> Iterator[Finding]:
    """Sign-off covers the artifact as approved; a later rewrite needs a new approval."""
    if not _tracked(task):
        return
    entries = task.history
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    entered: list[tuple[int, int]] = []  # (history index, rank of the phase entered)
    regated: dict[str, int] = {}  # phase: the last time its gate was re-requested
    for index, entry in enumerate(entries):
        target = str(entry.get("to"))
        if entry.get("command") == "--approve" and entry.get("artifact_sha256"):
            latest[machine.base_phase(target)] = (index, entry)
        elif target in machine.PHASE_RANK:  # a phase itself, not one of its sub-states
            entered.append((index, machine.PHASE_RANK[target]))
        elif machine.is_awaiting(target) and machine.is_approved(str(entry.get("from"))):
            regated[machine.base_phase(target)] = index
    for phase, (index, entry) in sorted(latest.items()):
        rank = machine.PHASE_RANK.get(phase)
        if rank is None:
            continue  # an approval of no phase at all: AR209 reports the line
        if any(later > index and reopened <= rank for later, reopened in entered):
            continue  # the task went back to this phase or before it: a new round
        if regated.get(phase, -1) > index:
            continue  # the changed artifact waits at the gate for a new approval
        artifact = str(entry.get("artifact") or machine.ARTIFACTS.get(phase))
        digest = task.digest(artifact)
        if digest == entry.get("artifact_sha256"):
            continue
        change = "was removed" if digest is None else "changed"
        yield Finding(
            f"{artifact} {change} after its approval at {entry.get('time')}",
            path=task.relpath(artifact),
            data={"detail": f"{artifact} {change} after approval", "artifact": artifact},
        )


@rule(
    "AR208",
    summary="The task has a .state.history (older versions kept none)",
    category=INCONSISTENCY,
    severity="note",
)
def no_history(task: Task) -> Iterator[Finding]:
    """Tasks from before the history existed cannot be checked for tampering; say so.

    A folder that has the lock file status.py creates with every task is no such task:
    its history was deleted, and that is reported as the error it is.
    """
    if task.state is None or store.HISTORY in task.files or (task.path / store.HISTORY).exists():
        return
    if (task.path / store.MUTEX).exists():
        yield Finding(
            ".state.history was deleted (the task was made by status.py, which keeps one)",
            path=task.relpath(store.HISTORY),
            severity="error",
            data={"detail": ".state.history deleted"},
        )
        return
    yield Finding(
        "no .state.history (task made by an older version); integrity checks skipped",
        path=task.relpath(store.HISTORY),
        data={"detail": "no history to check"},
    )


@rule(
    "AR209",
    summary="Every line of .state.history is a move status.py makes",
    category=INCONSISTENCY,
)
def history_moves(task: Task) -> Iterator[Finding]:
    """The digest chain shows lines edited or removed; a line appended by hand with a
    correct digest still has to be a move the workflow allows, or it skipped a gate."""
    if task.state is None:
        return
    entries = task.history
    subtask = task.parent is not None
    for number, (before, entry) in enumerate(zip(entries, entries[1:]), start=2):
        problem = _move_problem(before.get("to"), entry, subtask) if entry else None
        if problem is not None:
            yield Finding(
                f".state.history line {number} is not a move status.py makes: {problem}",
                path=task.relpath(store.HISTORY),
                data={"detail": f".state.history line {number} not a workflow move"},
            )
            return


def _move_problem(previous: Any, entry: dict[str, Any], subtask: bool) -> str | None:
    """Why one history line (not the first) is no change a command writes, or None."""
    command, source, target = entry.get("command"), entry.get("from"), entry.get("to")
    if command == "--upgrade" and entry.get("restored"):
        # --upgrade restores a lost or garbled .state to the state recorded last.
        return None if target == previous else f"restores '{target}', not '{previous}'"
    if source != previous:
        return f"starts at '{source}' but the line before ends at '{previous}'"
    if not isinstance(source, str) or not machine.is_state(source):
        return f"starts at unknown state '{source}'"
    if command == "--approve":
        expected = machine.approval_target(source)
        return None if target == expected else f"approves '{target}' from '{source}'"
    if command == f"--transition {target}":
        if target in machine.legal_targets(source, subtask=subtask):
            return None
        if target == machine.reapproval_target(source):
            return None  # back to the gate to approve a changed artifact again
        return f"'{source}' to '{target}' is not a legal transition"
    return f"command {command!r} does not change a task's state"


IMPLEMENTATION = machine.ARTIFACTS["implement"]


@rule(
    "AR212",
    summary="A task long in implement has written IMPLEMENTATION.md",
    category=INCONSISTENCY,
    severity="warning",
)
def implement_without_implementation(
    task: Task, config: Config, now: datetime
) -> Iterator[Finding]:
    """The specification's example: `.state` says implement but only SPEC.md exists, so
    the state may be wrong. A task that entered implement a moment ago has not written
    IMPLEMENTATION.md yet: only one in implement longer than `implementation-due-hours`
    is reported."""
    if task.state != "implement" or task.has_content(IMPLEMENTATION):
        return
    since = _in_state_since(task)
    if since is None:
        return
    waited = now.timestamp() - since
    if waited <= config.implementation_due_hours * 3600:
        return
    present = [name for name in task.artifacts if name != IMPLEMENTATION]
    if present:
        names = ", ".join(present[:-1]) + (" and " if len(present) > 1 else "") + present[-1]
        found = f"only {names} {'exists' if len(present) == 1 else 'exist'}"
    else:
        found = "no artifact exists"
    what = f"{IMPLEMENTATION} is empty" if IMPLEMENTATION in task.files else f"no {IMPLEMENTATION}"
    yield _mismatch(
        task,
        f'.state says "implement" but {found} ({what} after {_span(waited)} in implement), '
        "the state may be wrong",
        f"implement for {_span(waited)} without {IMPLEMENTATION}",
        machine.infer_phase(present),
        hours=round(waited / 3600, 1),
    )


def _in_state_since(task: Task) -> float | None:
    """When the task entered the state `.state` holds: the history's last move, where it
    ends there; else (no history, or `.state` written by hand) when `.state` was written."""
    entered = task.entered
    if entered and entered[-1][1] == task.state:
        return entered[-1][0]
    return store.state_mtime(task.path)


def _span(seconds: float) -> str:
    """A duration as a person says it: minutes below two hours, hours below three days."""
    minutes = int(seconds // 60)
    if minutes < 120:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    if minutes < 72 * 60:
        return f"{minutes // 60} hours"
    return f"{minutes // (24 * 60)} days"


RULES = (
    state_without_artifacts,
    artifacts_ahead_of_state,
    approved_without_record,
    state_changed_by_hand,
    history_tampered,
    approvals_tampered,
    approved_artifact_changed,
    no_history,
    history_moves,
    implement_without_implementation,
)


def register_rules(register: Callable[[Rule], None]) -> None:
    """The state-artifact inconsistency and integrity checks."""
    for item in RULES:
        register(item)
