"""GitHub Actions workflow commands: one annotation per finding, errors as `::error`."""

from __future__ import annotations

from automaton_rules.engine.findings import Finding
from automaton_rules.report.model import AuditReport, named, plural
from automaton_rules.support.output import printable

COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def _data(text: str) -> str:
    """One workflow command: GitHub's encoding for `%` and line breaks, the rest escaped."""
    encoded = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(encoded, None)


def written(report: AuditReport, path: str, entries: int, text: str) -> str:
    """`--write-baseline` with `--format github`: one notice saying what was written."""
    return f"::notice title=automaton-rules baseline::{_data(text)}"


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(report: AuditReport, finding: Finding) -> str:
    """One finding: `file=` only for a file that exists (an annotation on a file GitHub
    cannot find is shown nowhere); a path that is gone, or a folder, is named in the
    message instead."""
    command = COMMANDS.get(str(finding.severity), "notice")
    props = [f"title={_property(finding.code)}"]
    message = f"{finding.task or '(project)'}: {finding.message}"
    located = report.real_file(finding.path)
    if located:
        props.insert(0, f"file={_property(located)}")
    message += named(report, finding.path, located)
    if finding.correction:
        message += f" — suggested correction: {finding.correction}"
    return f"::{command} {','.join(props)}::{_data(message)}"


def render(report: AuditReport) -> str:
    """`::error file=…,title=AR101::task: message`, then plugin errors, then a summary line."""
    lines = [annotation(report, finding) for finding in report.findings]
    lines += [f"::error title=automaton-rules::{_data(error)}" for error in report.errors]
    for entry, count in report.gone:
        times = f" (x{count})" if count > 1 else ""
        where = entry.path or entry.task or "(project)"
        commit = f" in {entry.commit[:7]}" if entry.commit else ""
        gone = f"no longer found: {entry.code} at {where}{commit}{times}"
        lines.append(f"::notice title=automaton-rules baseline::{_data(gone)}")
    counts = [f"{plural(len(report.violations), 'violation')} found"]
    counts += [plural(len(found), severity) for severity, found in report.below().items() if found]
    if report.baseline is not None:
        counts.append(f"{len(report.known)} known from the baseline")
    lines.append(
        f"{plural(len(report.tasks), 'task')} audited, {', '.join(counts)}, "
        f"{plural(len(report.errors), 'error')}"
    )
    return "\n".join(lines)
