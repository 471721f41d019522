"""What an operation did to a task, one record per kind of change, for the views to show
and, as an `Event`, for the plugins that listen (`announce`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from automaton_rules.core import store

TYPE_CHECKING = False
if TYPE_CHECKING:  # the events module loads only when a plugin listens
    from collections.abc import Sequence
    from pathlib import Path

    import pluggy

    from automaton_rules.engine.events import Event, EventError


def _event(kind: str, root: Path, time: str | None, **fields: Any) -> Event:
    """An `Event` of the kind named (the events module's constant), at the recorded time;
    the events module loads only here, when a plugin listens."""
    from automaton_rules.engine import events

    return events.Event(getattr(events, kind), root, events.recorded_time(time), **fields)


@dataclass(frozen=True)
class Created:
    """A task made by --create-task, in `state` (always new), by `actor` at `time`."""

    task: str
    state: str
    actor: str | None = None
    time: str | None = None

    def event(self, root: Path) -> Event:
        """The `created` event."""
        return _event(
            "CREATED",
            root,
            self.time,
            task=self.task,
            target=self.state,
            state=self.state,
            actor=self.actor,
        )


@dataclass(frozen=True)
class Moved:
    """A task moved from `source` to `target` by --transition or, with `approver`, --approve
    (given `via` cli, terminal, prompt or signed), by `actor` at `time`.

    `recovered` says the move was one a killed command had journaled, finished now.
    """

    task: str
    source: str | None
    target: str
    recovered: bool = False
    approver: str | None = None
    via: str | None = None
    actor: str | None = None
    time: str | None = None

    def event(self, root: Path) -> Event:
        """The `transitioned` event, or `approved` for an approval."""
        return _event(
            "APPROVED" if self.approver is not None else "TRANSITIONED",
            root,
            self.time,
            task=self.task,
            source=self.source,
            target=self.target,
            state=self.target,
            actor=self.actor or self.approver,
            approver=self.approver,
            via=self.via,
            recovered=self.recovered,
        )


@dataclass(frozen=True)
class FollowedUp:
    """A follow-up task made after `origin`'s referee gave `verdict`: a `kind` of `fix`
    (FAIL), `review` (NEEDS_REVIEW) or `tiebreak` (a PASS naming tie-breaks)."""

    task: str
    state: str
    origin: str
    verdict: str
    actor: str | None = None
    time: str | None = None
    kind: str = ""

    def event(self, root: Path) -> Event:
        """The `followed_up` event, told of the new task."""
        return _event(
            "FOLLOWED_UP",
            root,
            self.time,
            task=self.task,
            target=self.state,
            state=self.state,
            actor=self.actor,
            details={"origin": self.origin, "verdict": self.verdict, "kind": self.kind},
        )


@dataclass(frozen=True)
class ClaimChanged:
    """A claim taken (or, `released`, given back) by `agent`; `previous_holder` is who held
    it before."""

    task: str
    state: str
    agent: str
    previous_holder: str | None
    released: bool = False
    time: str | None = None

    def event(self, root: Path) -> Event:
        """The `claimed` or `released` event; the task stays in `state`."""
        return _event(
            "RELEASED" if self.released else "CLAIMED",
            root,
            self.time,
            task=self.task,
            state=self.state,
            actor=self.agent,
            details={"previous_holder": self.previous_holder},
        )


@dataclass(frozen=True)
class Adopted:
    """A `.state` written by --upgrade (or the infer fallback): restored from the history
    (`source` is `.state.history`), inferred from an artifact, or `new` (`source` None).
    `previous` is what `.state` said before, when it said anything."""

    task: str
    state: str
    source: str | None
    previous: str | None = None
    actor: str | None = None
    time: str | None = None

    def event(self, root: Path) -> Event:
        """The `upgraded` event: from what `.state` said (if anything) to what it says now."""
        restored = self.source == store.HISTORY
        return _event(
            "UPGRADED",
            root,
            self.time,
            task=self.task,
            source=self.previous,
            target=self.state,
            state=self.state,
            actor=self.actor,
            details={"restored_from" if restored else "inferred_from": self.source},
        )


# Any change an operation returns.
Change = Union[Created, Moved, FollowedUp, ClaimChanged, Adopted]


def announce(
    pm: pluggy.PluginManager, root: Path, changes: Sequence[Change], timeout: float | None
) -> list[EventError]:
    """Tell the listening plugins what changed, once it is durable (after the store's commit
    and outside the task's lock); with no listener nothing more is loaded."""
    from automaton_rules.engine.hookspecs import listening

    if not changes or not listening(pm):
        return []
    from automaton_rules.engine import events

    return events.dispatch(pm, [change.event(root) for change in changes], timeout)
