"""Audit reports: the data every renderer shares, and the renderers by format name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import BUILTIN_CATEGORIES, SEVERITIES, Finding
from automaton_rules.engine.result import RunResult
from automaton_rules.engine.rule import Rule

FORMATS: tuple[str, ...] = ("text", "json", "sarif", "github")


@dataclass
class AuditReport:
    """One audit: the tasks looked at, what the rules found, and what went wrong."""

    project: Project
    tasks: list[Task]
    result: RunResult
    rules: list[tuple[str, Rule]]
    fail_on: str = "error"
    task_errors: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Broken tasks and broken plugins, by name: these make the exit code 2."""
        return [*self.task_errors, *(str(e) for e in self.result.errors)]

    @property
    def violations(self) -> list[Finding]:
        """Findings at or above the `fail-on` severity."""
        limit = SEVERITIES.index(self.fail_on)
        return [f for f in self.result.findings if SEVERITIES.index(f.severity) <= limit]

    @property
    def exit_code(self) -> int:
        """2 on any error, 1 on any violation, else 0."""
        if self.errors:
            return 2
        return 1 if self.violations else 0

    @property
    def categories(self) -> list[str]:
        """The specification's four categories, then those plugins added, as they ran."""
        extra = [c for c in self.result.categories if c not in BUILTIN_CATEGORIES]
        extra += [f.category for f in self.result.findings if f.category not in extra]
        return [
            *BUILTIN_CATEGORIES,
            *dict.fromkeys(c for c in extra if c not in BUILTIN_CATEGORIES),
        ]


def renderer(name: str) -> Callable[[AuditReport], str]:
    """The function that renders a report in a format."""
    from automaton_rules.report import github, json_format, sarif, text

    return {
        "text": text.render,
        "json": json_format.render,
        "sarif": sarif.render,
        "github": github.render,
    }[name]
