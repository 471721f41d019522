"""GitHub Actions workflow commands: one annotation per finding, errors as `::error`."""

from __future__ import annotations

from automaton_rules.core.output import printable
from automaton_rules.report import AuditReport

COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def _data(text: str) -> str:
    """One workflow command: GitHub's encoding for `%` and line breaks, the rest escaped."""
    encoded = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(encoded, None)


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: AuditReport) -> str:
    """`::error file=…,title=AR101::task: message`, then plugin errors, then a summary line."""
    lines = []
    for finding in report.result.findings:
        command = COMMANDS.get(str(finding.severity), "notice")
        props = [f"title={_property(finding.code)}"]
        if finding.path:
            props.insert(0, f"file={_property(finding.path)}")
        message = f"{finding.task or '(project)'}: {finding.message}"
        lines.append(f"::{command} {','.join(props)}::{_data(message)}")
    lines += [f"::error title=automaton-rules::{_data(error)}" for error in report.errors]
    lines.append(
        f"{len(report.tasks)} tasks audited, {len(report.violations)} violations found, "
        f"{len(report.errors)} errors"
    )
    return "\n".join(lines)
