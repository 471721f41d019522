"""A task's records typed for rules: its `.state.history` lines and its `.state.lock` claim,
and the time rules compare them with (`now`).

The files hold JSON objects and `key: value` lines with times as `...Z` text; rules read
them as `HistoryEntry` and `Claim`, with times as timezone-aware UTC `datetime`s. Loaded
only when a rule asks (`Task.entries`, `Task.claim`), never on the edit-time path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from automaton_rules.support import clock
from automaton_rules.support.context import current

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

APPROVE_COMMAND = "--approve"


def now() -> datetime:
    """The current time in UTC, as status.py records it: the test fixture's clock while its
    commands run, so a rule that compares with it is tested without waiting."""
    return _utc_now()


def _utc_now() -> datetime:
    return datetime.fromtimestamp(current().now(), timezone.utc)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class HistoryEntry:
    """One line of `.state.history`: a change of state, when, by whom, with which command.

    `time` is when it happened (UTC); `source` is the state before (None for the line that
    created the task) and `target` the state after, as in `Transition`. `actor` ran the
    `command` (`--create-task`, `--transition TARGET`, `--approve`, `--upgrade`,
    `--follow-up`). An approval (`is_approval`) also records its `approver`, the
    `artifact` approved with its `artifact_sha256`, and `via`: how it was given (`cli`,
    `terminal`, `prompt`, `signed`; `cli` for approvals recorded before `via` existed).
    `data` is the whole line as written, for the keys not typed here.
    """

    time: datetime
    source: str | None
    target: str
    actor: str = ""
    command: str = ""
    approver: str | None = None
    artifact: str | None = None
    artifact_sha256: str | None = None
    via: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.time.tzinfo is None:
            raise ValueError("HistoryEntry.time must be timezone-aware (UTC)")
        object.__setattr__(self, "time", self.time.astimezone(timezone.utc))

    @property
    def is_approval(self) -> bool:
        """The line `--approve` wrote: the user opened the gate of `source`'s phase."""
        return self.command == APPROVE_COMMAND

    @classmethod
    def parse(cls, line: Mapping[str, Any]) -> HistoryEntry | None:
        """The entry a parsed history line records; None for one with no readable `time`
        (the format the files write) or no target state: the audit reports such lines."""
        moment = clock.parse_time(line.get("time"))
        target = _text(line.get("to"))
        if moment is None or target is None:
            return None
        command = _text(line.get("command")) or ""
        via = _text(line.get("via"))
        return cls(
            time=moment,
            source=_text(line.get("from")),
            target=target,
            actor=_text(line.get("actor")) or "",
            command=command,
            approver=_text(line.get("approver")),
            artifact=_text(line.get("artifact")),
            artifact_sha256=_text(line.get("artifact_sha256")),
            via=via or ("cli" if command == APPROVE_COMMAND else None),
            data=dict(line),
        )


def entries(lines: Iterable[Mapping[str, Any]]) -> tuple[HistoryEntry, ...]:
    """The typed entries of parsed history lines, oldest first, unreadable ones left out."""
    parsed = (HistoryEntry.parse(line) for line in lines)
    return tuple(entry for entry in parsed if entry is not None)


@dataclass(frozen=True)
class Claim:
    """A multi-agent claim in `.state.lock`: which `agent` holds the task for which
    `phase`, since `claimed` until `expires` (UTC; None where the file has no readable
    time). `data` holds the file's `key: value` lines as written."""

    agent: str
    phase: str = ""
    claimed: datetime | None = None
    expires: datetime | None = None
    data: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, fields: Mapping[str, str]) -> Claim:
        """The claim the lines of `.state.lock` make."""
        return cls(
            agent=fields.get("agent", ""),
            phase=fields.get("phase", ""),
            claimed=clock.parse_time(fields.get("claimed")),
            expires=clock.parse_time(fields.get("expires")),
            data=dict(fields),
        )

    def expired(self, now: datetime | None = None) -> bool:
        """Past its expiry at `now` (default: `automaton_rules.now()`), as the workflow judges it:
        a claim with no readable expiry may be taken over, so it counts as expired."""
        moment = _utc_now() if now is None else now
        return self.expires is None or self.expires <= moment
