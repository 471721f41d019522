"""automaton-rules: the workflow guard behind status.py, and the rule engine it runs on.

The public names load on first use, so the edit-time hooks of status.py, which
import this package, do not pay for the rule engine they do not need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from .errors import AutomatonError, Refusal
from .findings import Finding, Severity
from .project import Project, Task
from .rule import Rule, Skip, Transition, rule

# These need pluggy, which the edit-time hooks never load.
_LAZY = {
    "hookimpl": "hookspecs",
    "hookspec": "hookspecs",
    "Engine": "runner",
    "RunResult": "runner",
}

__all__ = [
    "AutomatonError",
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

if TYPE_CHECKING:
    from .hookspecs import hookimpl, hookspec
    from .runner import Engine, RunResult


def __getattr__(name: str) -> Any:
    """Import a public name's module the first time the name is asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module 'automaton_rules' has no attribute {name!r}")
    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
