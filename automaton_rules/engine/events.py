"""Events: what just happened to a task (or an audit), told to the plugins that listen.

A command tells its listeners once its change is durable (the task's files written and
its lock given back). Each listener is called on its own, under the plugin time limit;
what one raises, or a listener stopped for running too long, becomes an `EventError` the
command reports as a warning, and the change stands. The module loads only when some
plugin implements `automaton_event` (`hookspecs.listening`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pluggy

from automaton_rules.core import machine
from automaton_rules.engine.plugins import PLUGIN_FAILURES, describe, time_limit
from automaton_rules.support import clock
from automaton_rules.support.context import current

# What an event says happened, as `Event.kind`.
CREATED = "created"  # --create-task
TRANSITIONED = "transitioned"  # --transition
APPROVED = "approved"  # --approve, or `approve TASK` typed in the chat
CLAIMED = "claimed"  # --claim (multi-agent mode)
RELEASED = "released"  # --release
FOLLOWED_UP = "followed_up"  # --follow-up: a fix or review task made after a verdict
UPGRADED = "upgraded"  # --upgrade: a folder adopted, or a .state put back from its history
AUDITED = "audited"  # --audit finished
KINDS: tuple[str, ...] = (
    CREATED,
    TRANSITIONED,
    APPROVED,
    CLAIMED,
    RELEASED,
    FOLLOWED_UP,
    UPGRADED,
    AUDITED,
)


@dataclass(frozen=True)
class Event:
    """What happened, told to `automaton_event(event)` once it is durable.

    `kind` is one of `KINDS`; `task` the task it happened to (None for an audit);
    `source` and `target` the states the task moved between (`source` None for a task
    just made; both None for a claim or a release, whose task stays in `state`); `state`
    the task's state once it happened; `actor` who ran the command (for a claim or a
    release, the agent); `approver` and `via` (cli, terminal, prompt, signed) for an
    approval; `time` when it was recorded (UTC); `project` the project's root folder;
    `recovered` a change a killed command had journaled, finished now; `summary` an
    audit's counts (tasks, findings, violations, errors, by_severity, fail_on,
    exit_code); `details` what else the kind records (a follow-up's `origin` and
    `verdict`, a claim's `previous_holder`, an upgrade's `restored_from` or
    `inferred_from`).
    """

    kind: str
    project: Path
    time: datetime
    task: str | None = None
    source: str | None = None
    target: str | None = None
    state: str | None = None
    actor: str | None = None
    approver: str | None = None
    via: str | None = None
    recovered: bool = False
    summary: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def awaiting_approval(self) -> bool:
        """The task has just reached an approval gate (`PHASE:awaiting_approval`): the
        moment to tell the person who approves."""
        return self.kind == TRANSITIONED and machine.is_awaiting(self.target or "")


def recorded_time(stamp: object) -> datetime:
    """An event's time: the one its record was written with, or now (as the task files
    write it, from the one clock they share) when it has none."""
    moment = clock.parse_time(stamp) or clock.parse_time(current().utc_now())
    return moment if moment is not None else datetime.now(timezone.utc).replace(microsecond=0)


@dataclass(frozen=True)
class EventError:
    """A listener that failed or ran too long on one event (`kind` None: a plugin that could
    not be loaded to hear the command's events); the change it was told of stands."""

    plugin: str
    kind: str | None
    task: str | None
    message: str

    def __str__(self) -> str:
        """The wording of the `WARNING:` line."""
        if self.kind is None:
            return f"plugin {self.plugin}: {self.message}"
        about = f" of task '{self.task}'" if self.task is not None else ""
        return f"plugin {self.plugin}: automaton_event ({self.kind}{about}) failed: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        """The entry of `event_errors` in --json."""
        return {
            "plugin": self.plugin,
            "event": self.kind,
            "task": self.task,
            "message": self.message,
        }


def dispatch(
    pm: pluggy.PluginManager, events: Iterable[Event], timeout: float | None
) -> list[EventError]:
    """Tell every listener each event, in the order the plugins loaded; each call under
    the time limit, so a failing or hung listener is reported and the others still hear.
    What a listener prints goes to stderr: stdout is the command's answer (JSON, or the
    harness's hook answer)."""
    listeners = [
        impl
        for impl in pm.hook.automaton_event.get_hookimpls()
        if not (impl.hookwrapper or impl.wrapper)
    ]
    errors: list[EventError] = []
    for event in events:
        for impl in listeners:
            try:
                with redirect_stdout(sys.stderr), time_limit(timeout):
                    impl.function(**{name: event for name in impl.argnames})
            except PLUGIN_FAILURES as exc:
                errors.append(EventError(impl.plugin_name, event.kind, event.task, describe(exc)))
    return errors
