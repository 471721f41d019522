"""automaton-rules: the workflow guard behind status.py, and the rule engine it runs on.

Everything a rule touches is a public name here (`__all__`), typed (the package ships
`py.typed`) and documented in docs/writing-rules.md: the `@rule` decorator and `hookimpl`,
`Finding`, the type of every argument a rule can name (`Task`, `Project`, `Transition`,
`Edit`, `Config`, `GitHistory` with its `Commit`s), a task's records (`HistoryEntry`,
`Approval`, `Claim`, `Verdict`), the time rules compare them with (`now`), the workflow's
order (`PHASES`, `Phase`, `reached`) and the built-in categories. The public names load
on first use, so the edit-time hooks of status.py, which import this package, pay for
neither the rule engine nor the modules it needs.
"""

from __future__ import annotations

from automaton_rules.support.version import __version__

# Public name -> the module that defines it.
_LAZY = {
    "Edit": "engine.rule",
    "Rule": "engine.rule",
    "Skip": "engine.rule",
    "Transition": "engine.rule",
    "rule": "engine.rule",
    "AutomatonError": "support.errors",
    "Refusal": "support.errors",
    "Finding": "engine.findings",
    "Severity": "engine.findings",
    "Project": "core.project",
    "Task": "core.project",
    "hookimpl": "engine.hookspecs",
    # The types of the arguments rules name, and of what a task records.
    "Config": "core.config",
    "GitHistory": "engine.gitlog",
    "Commit": "engine.gitlog",
    "HistoryEntry": "core.history",
    "Claim": "core.history",
    "now": "core.history",
    "Approval": "core.store",
    # The workflow's order and the referee's verdict.
    "PHASES": "core.phases",
    "Phase": "core.phases",
    "reached": "core.phases",
    "Verdict": "core.phases",
    "verdict_of": "core.phases",
    # The built-in categories, for a rule that reports in one of them.
    "OUT_OF_ORDER": "engine.findings",
    "INCONSISTENCY": "engine.findings",
    "UNAUTHORIZED": "engine.findings",
    "MANUAL_FOLDERS": "engine.findings",
    "GUARD_CHANGES": "engine.findings",
    # What an `automaton_event` listener is told.
    "Event": "engine.events",
    # A plugin's own settings, as its rules receive them.
    "PluginSettings": "engine.settings",
}

__all__ = [
    "GUARD_CHANGES",
    "INCONSISTENCY",
    "MANUAL_FOLDERS",
    "OUT_OF_ORDER",
    "PHASES",
    "UNAUTHORIZED",
    "Approval",
    "AutomatonError",
    "Claim",
    "Commit",
    "Config",
    "Edit",
    "Event",
    "Finding",
    "GitHistory",
    "HistoryEntry",
    "Phase",
    "PluginSettings",
    "Project",
    "Refusal",
    "Rule",
    "Severity",
    "Skip",
    "Task",
    "Transition",
    "Verdict",
    "__version__",
    "hookimpl",
    "now",
    "reached",
    "rule",
    "verdict_of",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.core.config import Config
    from automaton_rules.core.history import Claim, HistoryEntry, now
    from automaton_rules.core.phases import PHASES, Phase, Verdict, reached, verdict_of
    from automaton_rules.core.project import Project, Task
    from automaton_rules.core.store import Approval
    from automaton_rules.engine.events import Event
    from automaton_rules.engine.findings import (
        GUARD_CHANGES,
        INCONSISTENCY,
        MANUAL_FOLDERS,
        OUT_OF_ORDER,
        UNAUTHORIZED,
        Finding,
        Severity,
    )
    from automaton_rules.engine.gitlog import Commit, GitHistory
    from automaton_rules.engine.hookspecs import hookimpl
    from automaton_rules.engine.rule import Edit, Rule, Skip, Transition, rule
    from automaton_rules.engine.settings import PluginSettings
    from automaton_rules.support.errors import AutomatonError, Refusal


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module 'automaton_rules' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
