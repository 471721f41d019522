"""A task's records checked against one another: what the history says was written.

The history is the journal `status.py` writes before every change, so the approval log
and `.state` can be held to it. The audit (AR206), the git hooks and the workflow share
these checks; they read nothing themselves and import only the core.
"""

from __future__ import annotations

import re

from automaton_rules.core import machine, store
from automaton_rules.support import clock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

APPROVAL_TIME_SLACK = 5

# A history line as json.dumps writes it: one flat object, no spaces, scalar values. The
# live commands read `from` and `to` from such lines without json, which status.py's
# edit-time path must not load; patterns are compiled only for a line with escapes.
_STRING = r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"'
_SCALAR = rf"(?:{_STRING}|null|true|false|-?(?:0|[1-9][0-9]*))"
_PAIR = rf"({_STRING}):({_SCALAR}),?"
_FLAT = rf"\{{(?:{_STRING}:{_SCALAR}(?:,{_STRING}:{_SCALAR})*)?\}}"
MOVE_KEYS = ("from", "to")
_CONSTANTS = {"null": None, "true": True, "false": False}


def last_recorded(entries: Sequence[dict[str, Any]]) -> str | None:
    """The state the history says status.py last wrote, if it names one."""
    target = entries[-1].get("to") if entries else None
    return target if isinstance(target, str) else None


def read_move(line: str) -> dict[str, Any]:
    """The `from` and `to` of one history line, as `store.parse_history` reads them;
    json is loaded only for a line status.py would not write, or a name escaped in it."""
    move = _plain_move(line)
    if move is None and re.fullmatch(_FLAT, line) is not None:
        move = _flat_move(line)
    if move is not None:
        return move
    entry = store.parse_history([line])[0]
    return {key: entry[key] for key in MOVE_KEYS if key in entry}


def _plain_move(line: str) -> dict[str, Any] | None:
    """`from` and `to` of a flat object with no escape in it, read by splitting it at its
    quotes (no string holds one, so what lies between two strings is JSON's glue); None
    for any other line."""
    if "\\" in line or not line.isprintable() or not line.startswith('{"'):
        return None
    parts = line.split('"')
    if len(parts) % 2 == 0:
        return None
    move: dict[str, Any] = {}
    key = None  # set when a string value comes next
    for index in range(1, len(parts) - 1, 2):
        text, after, last = parts[index], parts[index + 1], index + 2 == len(parts)
        if key is not None:
            if key in MOVE_KEYS:
                move[key] = text
            key = None
        elif after == ":" and not last:
            key = text
            continue
        elif after[:1] == ":" and _is_scalar(after[1:-1]):
            if text in MOVE_KEYS:
                move[text] = _scalar(after[1:-1])
            after = after[-1:]
        else:
            return None
        if after != ("}" if last else ","):
            return None
    return move


def _is_scalar(text: str) -> bool:
    """null, true, false or an integer as JSON writes it."""
    digits = text[1:] if text[:1] == "-" else text
    plain = digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0")
    return text in _CONSTANTS or plain


def _flat_move(line: str) -> dict[str, Any] | None:
    """`from` and `to` of a line `_FLAT` matched, pair by pair; None where json must decide
    (an escape in a key or in those values)."""
    move: dict[str, Any] = {}
    position = 1
    pair = re.compile(_PAIR)
    while position < len(line) - 1:
        found = pair.match(line, position)
        if found is None:
            return None
        key, value = found.group(1)[1:-1], found.group(2)
        if "\\" in key:
            return None
        if key in MOVE_KEYS:
            if "\\" in value:
                return None
            move[key] = _scalar(value)
        position = found.end()
    return move


def _scalar(text: str) -> Any:
    """A JSON scalar without escapes, as json reads it."""
    if text[0] == '"':
        return text[1:-1]
    return _CONSTANTS[text] if text in _CONSTANTS else int(text)


def recorded_moves(task_dir: Any) -> list[dict[str, Any]]:
    """The last two moves of a task's history, read from its end: what `hand_edited` needs."""
    return [read_move(line) for line in store.history_tail(task_dir, 2)]


def hand_edited(state: str, tail: Sequence[dict[str, Any]]) -> bool:
    """Whether `.state` says something its history does not: a hand edit.

    `tail` is the history's last entries (two are enough), oldest first. No history
    (a task made by an older version) vouches for nothing and refuses nothing. A change a
    killed command left half done is no hand edit: its line starts at `.state`, which
    the line before records, and the next command that changes the task finishes it.
    """
    if not tail or last_recorded(tail) == state:
        return False
    last = tail[-1]
    target = last.get("to")
    pending = (
        last.get("from") == state
        and isinstance(target, str)
        and machine.is_state(target)
        and len(tail) > 1
        and tail[-2].get("to") == state
    )
    return not pending


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
    if line.via != (entry.get("via") or "cli"):
        return False
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


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "approval_log_problems",
    "hand_edited",
    "last_recorded",
    "recorded_moves",
]
