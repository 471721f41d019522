"""GitLab Code Quality: the audit's new findings as the JSON list a merge request widget
reads (`artifacts: reports: codequality:`), each at a file that exists."""

from __future__ import annotations

from collections import Counter
from typing import Any

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT
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
    folders = task_folders(report)
    seen: Counter[Fingerprint] = Counter()
    out = []
    for finding in report.findings:
        key = fingerprint(finding)
        seen[key] += 1
        path = location(report, finding, folders)
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


def task_folders(report: AuditReport) -> dict[str, str]:
    """Each task's folder relative to the project root (none when the tasks folder lies
    outside it, as `~/.automaton`'s does)."""
    root = report.project.root
    inside = [task for task in report.tasks if root in task.path.parents]
    return {task.name: task.path.relative_to(root).as_posix() for task in inside}


def location(report: AuditReport, finding: Finding, folders: dict[str, str]) -> str:
    """A file GitLab can link to: the finding's own, else one in its task's folder (the
    `.state` first), else the project's configuration; the path as given when none is."""
    located = report.real_file(finding.path) or report.real_file(folders.get(finding.task or ""))
    if located:
        return located
    for name in (CONFIG_FILE, PYPROJECT):
        if (report.project.root / name).is_file():
            return name
    return finding.path or CONFIG_FILE


def render(report: AuditReport) -> str:
    """The list, pretty-printed: `[]` when nothing new was found."""
    return json_text(items(report))
