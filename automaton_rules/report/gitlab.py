"""GitLab Code Quality: the audit's new findings as the JSON list a merge request widget
reads (`artifacts: reports: codequality:`), each at a file that exists."""

from __future__ import annotations

from collections import Counter
from typing import Any

from automaton_rules.engine.findings import Finding
from automaton_rules.report.baseline import Fingerprint, fingerprint
from automaton_rules.report.model import AuditReport, named
from automaton_rules.support.output import json_text

# GitLab's scale is info, minor, major, critical, blocker. An error fails the audit, as a
# major issue blocks a merge; critical and blocker are left for what a team's own tools
# judge worse than a skipped phase.
SEVERITIES = {"error": "major", "warning": "minor", "note": "info"}


def items(report: AuditReport) -> list[dict[str, Any]]:
    """One item per finding the baseline does not hold: GitLab compares the report with
    the target branch's by fingerprint, so known findings would only be noise."""
    seen: Counter[Fingerprint] = Counter()
    out = []
    for finding in report.findings:
        key = fingerprint(finding)
        seen[key] += 1
        path = report.anchor(finding)
        out.append(_item(report, finding, path, key.digest(seen[key])))
    return out


def _item(report: AuditReport, finding: Finding, path: str, digest: str) -> dict[str, Any]:
    """A finding as a Code Quality item; the line is 1, as a finding is about a file."""
    description = f"{finding.code} {finding.task or '(project)'}: {finding.message}"
    description += named(report, finding.path, path)
    if finding.correction:
        description += f" — suggested correction: {finding.correction}"
    return {
        "description": description,
        "check_name": finding.code,
        "fingerprint": digest,
        "severity": SEVERITIES.get(str(finding.severity), "info"),
        "location": {"path": path, "lines": {"begin": 1}},
    }


def render(report: AuditReport) -> str:
    """The list, pretty-printed: `[]` when nothing new was found."""
    return json_text(items(report))
