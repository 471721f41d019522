"""A task's records checked against one another: what the history says was written.

The history is the journal `status.py` writes before every change, so the approval log
and `.state` can be held to it. The audit (AR206), the git hooks and the workflow share
these checks; they read nothing themselves and import only the core.
"""

from __future__ import annotations

from automaton_rules.core import clock, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

APPROVAL_TIME_SLACK = 5


def last_recorded(entries: Sequence[dict[str, Any]]) -> str | None:
    """The state the history says status.py last wrote, if it names one."""
    target = entries[-1].get("to") if entries else None
    return target if isinstance(target, str) else None


def _pairs(
    lines: Sequence[store.Approval | None], entries: Sequence[dict[str, Any]]
) -> Iterator[tuple[str, store.Approval | None, dict[str, Any] | None]]:
    """Pair approval lines with the history's approvals, per state, in order."""
    states = sorted({line.state for line in lines if line is not None})
    states += sorted(
        {str(e.get("to")) for e in entries if e.get("command") == "--approve"} - set(states)
    )
    for state in states:
        logged = [line for line in lines if line is not None and line.state == state]
        recorded = [e for e in entries if e.get("command") == "--approve" and e.get("to") == state]
        for index in range(max(len(logged), len(recorded))):
            yield (
                state,
                logged[index] if index < len(logged) else None,
                recorded[index] if index < len(recorded) else None,
            )


def _same(line: store.Approval, entry: dict[str, Any]) -> bool:
    """One approval, as the log and the history record it: same approver, same moment
    (or moments a few seconds apart, for a log written by an older version)."""
    if line.time == entry.get("time") and clock.timestamp(line.time) is not None:
        return line.approver == entry.get("approver")
    logged, recorded = clock.timestamp(line.time), clock.timestamp(entry.get("time"))
    if logged is None or recorded is None:
        return False
    close = abs(recorded - logged) <= APPROVAL_TIME_SLACK
    return close and line.approver == entry.get("approver")


def approval_log_problems(
    approvals: Sequence[store.Approval | None], entries: Sequence[dict[str, Any]]
) -> list[str]:
    """How an approval log differs from its history: AR206 and the git pre-commit hook
    (on the staged copies) hold both to the same standard."""
    adopted = sum(int(e.get("adopted_approvals") or 0) for e in entries)
    lines = approvals[adopted:]
    problems = [
        f".state.approvals line {number} is not in the log's format"
        for number, line in enumerate(lines, start=adopted + 1)
        if line is None
    ]
    for state, line, entry in _pairs(lines, entries):
        if line is None and entry is not None:
            problem = (
                f"the {state} approval of {entry.get('time')} is missing from .state.approvals"
            )
        elif entry is None and line is not None:
            problem = f".state.approvals line '{line.line()}' was not written by --approve"
        elif line is not None and entry is not None and not _same(line, entry):
            problem = (
                f".state.approvals line '{line.line()}' differs from the approval "
                f"recorded in .state.history ({entry.get('time')}, {entry.get('approver')})"
            )
        else:
            continue
        problems.append(problem)
    return problems
