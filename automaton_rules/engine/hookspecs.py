"""The hooks a plugin can implement. Every one is documented in docs/writing-rules.md."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

from automaton_rules.engine.rule import Rule

TYPE_CHECKING = False
if TYPE_CHECKING:  # events load only when a plugin listens
    from automaton_rules.engine.events import Event

PROJECT_NAME = "automaton_rules"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def register_rules(register: Callable[[Rule], None]) -> None:
    """Hand each of the plugin's rules to ``register``; called once, when rules are first needed."""


@hookspec
def register_settings(add: Callable[..., None]) -> None:
    """Declare the plugin's settings, each with `add(table, name, type, default, help)`:
    read from the plugin's own `[table]` of automaton.toml, checked, given to its rules."""


@hookspec
def automaton_event(event: Event) -> None:
    """Told what just happened (a task created, moved, approved, claimed, released, followed
    up or upgraded; an audit finished), once it is durable; what it raises is a warning."""


def listening(pm: pluggy.PluginManager) -> bool:
    """Whether any plugin implements `automaton_event`: without one, no event is built."""
    return bool(pm.hook.automaton_event.get_hookimpls())
