"""What a run of the rules hands to the reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from automaton_rules.engine.findings import Finding
from automaton_rules.engine.plugins import PluginError


@dataclass
class RunResult:
    """Findings sorted for stable output, plus every plugin failure met on the way."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[PluginError] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def violations(self) -> list[Finding]:
        """Findings that fail the check."""
        return [f for f in self.findings if f.severity == "error"]

    def absorb(self, other: RunResult) -> None:
        """Take in a part of the run done elsewhere, as if it had been met here."""
        self.findings.extend(other.findings)
        self.errors.extend(other.errors)
        for category, reason in other.skipped.items():
            self.skipped.setdefault(category, reason)
