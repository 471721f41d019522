"""The audit as one JSON object: the shape is documented in docs/audit.md."""

from __future__ import annotations

from collections import Counter
from typing import Any

from automaton_rules import __version__
from automaton_rules.core.output import envelope, json_text
from automaton_rules.core.severity import SEVERITIES
from automaton_rules.report import AuditReport


def as_dict(report: AuditReport) -> dict[str, Any]:
    """Everything a CI job needs: summary with exit code, findings, errors, rules."""
    findings = report.result.findings
    severities = Counter(str(f.severity) for f in findings)
    body = {
        "summary": {
            "tasks": len(report.tasks),
            "violations": len(report.violations),
            "errors": len(report.errors),
            "by_severity": {s: severities.get(s, 0) for s in SEVERITIES},
            "by_category": {
                c: sum(1 for f in findings if f.category == c) for c in report.categories
            },
            "skipped": dict(report.result.skipped),
            "fail_on": report.fail_on,
            "exit_code": report.exit_code,
        },
        "tasks": [{"name": t.name, "state": t.state} for t in report.tasks],
        "findings": [f.as_dict() for f in findings],
        "errors": report.errors,
        "rules": [
            {
                "code": rule.code,
                "name": rule.name,
                "category": rule.category,
                "severity": rule.severity,
                "summary": rule.summary,
                "plugin": plugin,
            }
            for plugin, rule in report.rules
        ],
    }
    return envelope(
        "audit", report.exit_code, body, version=__version__, project=str(report.project.root)
    )


def render(report: AuditReport) -> str:
    """Pretty-printed, keys in a stable order."""
    return json_text(as_dict(report))
