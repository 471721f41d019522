"""The audit as one JSON object: the shape is documented in docs/audit.md."""

from __future__ import annotations

from collections import Counter
from typing import Any

from automaton_rules.core.severity import SEVERITIES
from automaton_rules.report.model import AuditReport
from automaton_rules.support.output import envelope, json_text
from automaton_rules.support.version import __version__


def as_dict(report: AuditReport) -> dict[str, Any]:
    """Everything a CI job needs: summary with exit code, findings, errors, rules."""
    findings = report.findings
    severities = Counter(str(f.severity) for f in findings)
    categories = Counter(f.category for f in findings)
    body = {
        "summary": {
            "tasks": len(report.tasks),
            "violations": len(report.violations),
            "errors": len(report.errors),
            "by_severity": {s: severities.get(s, 0) for s in SEVERITIES},
            "by_category": {c: categories.get(c, 0) for c in report.categories},
            "skipped": dict(report.result.skipped),
            "skipped_rules": {
                code: {"reason": skip.reason, "tasks": list(skip.tasks)}
                for code, skip in report.result.skips.items()
            },
            "fail_on": report.fail_on,
            "exit_code": report.exit_code,
        },
        "tasks": [{"name": t.name, "state": t.state} for t in report.tasks],
        "findings": [f.as_dict() for f in findings],
        "errors": report.errors,
        "baseline": baseline(report),
        "since": {"rev": report.since[0], "commit": report.since[1]} if report.since else None,
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
    if report.durations is not None:
        from automaton_rules.report.model import slowest

        body["durations"] = [row._asdict() for row in slowest(report)]
    return envelope(
        "audit", report.exit_code, body, version=__version__, project=str(report.project.root)
    )


def baseline(report: AuditReport) -> dict[str, Any] | None:
    """With --baseline: the file, how many findings it knew (left out of `findings`), and
    its entries that no finding matched any more."""
    if report.baseline is None:
        return None
    return {
        "file": report.baseline,
        "known": len(report.known),
        "gone": [entry.as_dict(count) for entry, count in report.gone],
    }


def render(report: AuditReport) -> str:
    """Pretty-printed, keys in a stable order."""
    return json_text(as_dict(report))


def written(report: AuditReport, path: str, entries: int, text: str) -> str:
    """`--write-baseline` with `--format json`: the envelope, and what was written."""
    body = {
        "summary": {"tasks": len(report.tasks), "findings": len(report.result.findings)},
        "baseline": {"file": path, "written": True, "entries": entries, "text": text},
    }
    return json_text(
        envelope("audit", 0, body, version=__version__, project=str(report.project.root))
    )
