"""automaton-rules: the workflow guard behind status.py, and the rule engine it runs on.

The public names load on first use, so the edit-time hooks of status.py, which
import this package, pay for neither the rule engine nor the modules it needs.
"""

from __future__ import annotations

__version__ = "0.1.0"

# Imported here, not on first use: the submodule `rule` would otherwise shadow the
# decorator `rule` once anything imported it. The module is light.
from .rule import Edit, Rule, Skip, Transition, rule

# Public name -> the module that defines it.
_LAZY = {
    "AutomatonError": "errors",
    "Refusal": "errors",
    "Finding": "findings",
    "Severity": "findings",
    "Project": "project",
    "Task": "project",
    "hookimpl": "hookspecs",
    "hookspec": "hookspecs",
    "Engine": "runner",
    "RunResult": "runner",
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
    from .errors import AutomatonError, Refusal
    from .findings import Finding, Severity
    from .hookspecs import hookimpl, hookspec
    from .project import Project, Task
    from .runner import Engine, RunResult


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module 'automaton_rules' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
