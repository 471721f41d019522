"""The hooks a plugin can implement. Every one is documented in docs/writing-rules.md."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

from automaton_rules.engine.rule import Rule

PROJECT_NAME = "automaton_rules"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def register_rules(register: Callable[[Rule], None]) -> None:
    """Hand each of the plugin's rules to ``register``; called once, when rules are first needed."""
