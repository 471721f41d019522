"""SARIF 2.1.0, for code-scanning dashboards: one run, rules as descriptors, stable ids."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from automaton_rules import __version__
from automaton_rules.core.output import json_text
from automaton_rules.engine.findings import Finding
from automaton_rules.report import AuditReport

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def as_dict(report: AuditReport) -> dict[str, Any]:
    """The SARIF log; locations are relative to the project root (`%SRCROOT%`)."""
    index = {rule.code: number for number, (_, rule) in enumerate(report.rules)}
    descriptors = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "defaultConfiguration": {"level": LEVELS[rule.severity]},
            "properties": {"category": rule.category, "plugin": plugin},
        }
        for plugin, rule in report.rules
    ]
    results = [_result(finding, index) for finding in report.result.findings]
    notifications = [{"level": "error", "message": {"text": error}} for error in report.errors]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "automaton-rules",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/automaton-rules/",
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": report.project.root.as_uri() + "/"}},
                "invocations": [
                    {
                        "executionSuccessful": not report.errors,
                        "exitCode": report.exit_code,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
            }
        ],
    }


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    """One finding as a SARIF result, pointing at its rule and its file."""
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS.get(str(finding.severity), "note"),
        "message": {"text": f"{finding.task or '(project)'}: {finding.message}"},
        "properties": {"task": finding.task, "category": finding.category},
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.path:
        location = {"uri": quote(finding.path), "uriBaseId": "%SRCROOT%"}
        result["locations"] = [{"physicalLocation": {"artifactLocation": location}}]
    if finding.correction:
        result["properties"]["correction"] = finding.correction
    return result


def render(report: AuditReport) -> str:
    """Pretty-printed SARIF."""
    return json_text(as_dict(report))
