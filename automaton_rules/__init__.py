"""automaton-rules: the workflow guard behind status.py, and the rule engine it runs on.

The public names load on first use, so the edit-time hooks of status.py, which
import this package, pay for neither the rule engine nor the modules it needs.
"""

from __future__ import annotations

__version__ = "0.1.0"

# Public name -> the module that defines it.
_LAZY = {
    "Edit": "engine.rule",
    "Rule": "engine.rule",
    "Skip": "engine.rule",
    "Transition": "engine.rule",
    "rule": "engine.rule",
    "AutomatonError": "core.errors",
    "Refusal": "core.errors",
    "Finding": "engine.findings",
    "Severity": "engine.findings",
    "Project": "core.project",
    "Task": "core.project",
    "hookimpl": "engine.hookspecs",
    "hookspec": "engine.hookspecs",
    "Engine": "engine.runner",
    "RunResult": "engine.result",
}

__all__ = [
    "AutomatonError",
    "Edit",
    "Engine",
    "Finding",
    "Project",
    "Refusal",
    "Rule",
    "RunResult",
    "Severity",
    "Skip",
    "Task",
    "Transition",
    "__version__",
    "hookimpl",
    "hookspec",
    "rule",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.core.errors import AutomatonError, Refusal
    from automaton_rules.core.project import Project, Task
    from automaton_rules.engine.findings import Finding, Severity
    from automaton_rules.engine.hookspecs import hookimpl, hookspec
    from automaton_rules.engine.result import RunResult
    from automaton_rules.engine.rule import Edit, Rule, Skip, Transition, rule
    from automaton_rules.engine.runner import Engine


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module 'automaton_rules' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
