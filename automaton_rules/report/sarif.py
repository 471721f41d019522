"""SARIF 2.1.0, for code-scanning dashboards: one run, rules as descriptors, stable ids."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from automaton_rules.engine.findings import Finding
from automaton_rules.engine.rule import Rule
from automaton_rules.report.baseline import fingerprint
from automaton_rules.report.model import AuditReport, named
from automaton_rules.support.output import json_text
from automaton_rules.support.version import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def as_dict(report: AuditReport, *, with_results: bool = True) -> dict[str, Any]:
    """The SARIF log; locations are relative to the project root (`%SRCROOT%`)."""
    index = {rule.code: number for number, (_, rule) in enumerate(report.rules)}
    descriptors = [_descriptor(plugin, rule) for plugin, rule in report.rules]
    findings = report.findings if with_results else []
    results = [_result(report, finding, index) for finding in findings]
    notifications = [{"level": "error", "message": {"text": error}} for error in report.errors]
    notifications += _skipped(report, index)
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
                "properties": _properties(report),
            }
        ],
    }


def _skipped(report: AuditReport, index: dict[str, int]) -> list[dict[str, Any]]:
    """Each rule that skipped, as a note on the rule: its verdicts are missing where it
    skipped, and the other rules' stand."""
    notes = []
    for code, skip in report.result.skips.items():
        where = f" on {', '.join(skip.tasks)}" if skip.tasks else ""
        note: dict[str, Any] = {
            "level": "note",
            "message": {"text": f"{code} skipped{where}: {skip.reason}"},
        }
        if code in index:
            note["associatedRule"] = {"id": code, "index": index[code]}
        notes.append(note)
    return notes


def _descriptor(plugin: str, rule: Rule) -> dict[str, Any]:
    """A rule as code scanning shows it: its summary, its docstring as the long
    description, and the page its `url=` names."""
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.description or rule.summary},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"category": rule.category, "plugin": plugin},
    }
    if rule.url:
        descriptor["helpUri"] = rule.url
    return descriptor


def _properties(report: AuditReport) -> dict[str, Any]:
    """What the run was held against: the baseline (and its entries no longer found), the
    revision after which the git rules read the history."""
    properties: dict[str, Any] = {}
    if report.baseline is not None:
        properties["baseline"] = {
            "file": report.baseline,
            "known": len(report.known),
            "gone": [entry.as_dict(count) for entry, count in report.gone],
        }
    if report.since is not None:
        properties["since"] = {"rev": report.since[0], "commit": report.since[1]}
    return properties


def _result(report: AuditReport, finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    """One finding as a SARIF result, pointing at its rule and at a file that exists."""
    text = f"{finding.task or '(project)'}: {finding.message}"
    located = report.real_file(finding.path)
    text += named(report, finding.path, located)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS.get(str(finding.severity), "note"),
        "message": {"text": text},
        "partialFingerprints": {"automatonFingerprint/v1": _fingerprint(finding)},
        "properties": {"task": finding.task, "category": finding.category},
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if report.baseline is not None:
        result["baselineState"] = "new"
    # Code scanning refuses a result without a location: a file that exists, else the path
    # the finding names; a finding naming none, a file of its task's folder, else the
    # configuration file.
    uri = located or finding.path or report.anchor(finding)
    location = {"uri": quote(uri), "uriBaseId": "%SRCROOT%"}
    result["locations"] = [{"physicalLocation": {"artifactLocation": location}}]
    if finding.path:
        result["properties"]["path"] = finding.path
    if finding.correction:
        result["properties"]["correction"] = finding.correction
    return result


def _fingerprint(finding: Finding) -> str:
    """The baseline's fingerprint, hashed: code scanning matches a result across runs by it
    rather than by the text around a line."""
    return fingerprint(finding).digest()


def written(report: AuditReport, path: str, entries: int, text: str) -> str:
    """`--write-baseline` with `--format sarif`: a log with no results, whose invocation
    says what was written."""
    log = as_dict(report, with_results=False)
    (run,) = log["runs"]
    run["properties"]["baseline"] = {"file": path, "written": True, "entries": entries}
    run["invocations"][0]["exitCode"] = 0
    run["invocations"][0]["toolExecutionNotifications"] = [
        {"level": "note", "message": {"text": text}}
    ]
    return json_text(log)


def render(report: AuditReport) -> str:
    """Pretty-printed SARIF."""
    return json_text(as_dict(report))
