"""automaton-rules: the workflow guard behind status.py, and the rule engine it runs on."""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import AutomatonError, Refusal
from .findings import Finding, Severity
from .hookspecs import hookimpl, hookspec
from .project import Project, Task
from .rule import Rule, Skip, Transition, rule
from .runner import Engine, RunResult

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
