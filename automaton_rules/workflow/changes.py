"""What an operation did to a task, one record per kind of change, for the views to show."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Created:
    """A task made by --create-task, in `state` (always new)."""

    task: str
    state: str


@dataclass(frozen=True)
class Moved:
    """A task moved from `source` to `target` by --transition or, with `approver`, --approve
    (given `via` cli, terminal, prompt or signed).

    `recovered` says the move was one a killed command had journaled, finished now.
    """

    task: str
    source: str | None
    target: str
    recovered: bool = False
    approver: str | None = None
    via: str | None = None


@dataclass(frozen=True)
class FollowedUp:
    """A follow-up task made after `origin`'s referee gave `verdict` (FAIL or NEEDS_REVIEW)."""

    task: str
    state: str
    origin: str
    verdict: str


@dataclass(frozen=True)
class ClaimChanged:
    """A claim taken or given back by `agent`; `previous_holder` is who held it before."""

    task: str
    state: str
    agent: str
    previous_holder: str | None


@dataclass(frozen=True)
class Adopted:
    """A `.state` written by --upgrade (or the infer fallback): restored from the history
    (`source` is `.state.history`), inferred from an artifact, or `new` (`source` None).
    `previous` is what `.state` said before, when it said anything."""

    task: str
    state: str
    source: str | None
    previous: str | None = None
