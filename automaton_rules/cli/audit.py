"""`status.py --audit`: every rule over every task, and the report in the chosen format.

`audit` runs the rules (held against a baseline, or recording one; the git rules limited
to the commits after `--since`) and tells the plugins listening that the audit finished;
`audit_view` renders the report, raw, in its format.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from automaton_rules.cli.commands import logged
from automaton_rules.cli.run import Outcome, Run, selection
from automaton_rules.core.config import Config
from automaton_rules.engine.runner import Engine, run_audit
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.engine.events import EventError
    from automaton_rules.report import AuditReport


@dataclass(frozen=True)
class Audited:
    """The audit's report in `fmt`; `failed` the listeners that failed on its end (JSON
    lists them); `written` the entries of the baseline it recorded, if asked to."""

    report: AuditReport
    fmt: str
    failed: list[EventError]
    written: int | None = None
    baseline: Path | None = None


def audit(
    *,
    run: Run,
    project: Path | None,
    config: Path | None,
    select: str | None,
    ignore: str | None,
    fail_on: str | None,
    output_format: str | None,
    as_json: bool,
    baseline: Path | None,
    write_baseline: Path | None,
    since: str | None,
    durations: str | None,
) -> Audited:
    """`--audit [--select CODES] [--ignore CODES] [--fail-on SEVERITY] [--format FORMAT]
    [--baseline FILE | --write-baseline FILE] [--since REV] [--durations N]`."""
    from automaton_rules.engine import gitlog
    from automaton_rules.report import ANSWER, DEFAULT, AuditReport
    from automaton_rules.report import baseline as baselines

    slowest = _durations(durations)
    proj, settings = run.open(project, config)
    accepted = baselines.read(baseline) if baseline is not None else None
    commit = gitlog.resolve_since(proj.root, since) if since is not None else None
    engine = run.engine(settings)
    chosen = selection(engine, settings, select, ignore)
    tasks, result, errors = run_audit(
        engine, proj, settings, chosen, commit, timed=slowest is not None
    )
    compared = None
    if accepted is not None:
        looked_at = gitlog.read_commits_after(proj.root, commit) if commit is not None else None
        compared = baselines.compare(result.findings, accepted, looked_at)
    report = AuditReport(
        project=proj,
        tasks=tasks,
        result=result,
        rules=[(p, r) for p, r in engine.rules if chosen.enabled(r.code)],
        fail_on=fail_on or settings.fail_on,
        task_errors=errors,
        baseline=None if baseline is None else str(baseline),
        known=compared.known if compared else [],
        gone=compared.gone if compared else [],
        since=(since, commit) if since is not None and commit is not None else None,
        approval=settings.approval,
        durations=slowest,
    )
    plain = output_format in (None, DEFAULT.name)
    fmt = ANSWER.name if as_json and plain else output_format or DEFAULT.name
    failed = _announce_audited(report, engine, settings)
    run.failed.extend(failed)
    written = None if write_baseline is None else _write_baseline(report, write_baseline)
    return Audited(report, fmt, failed, written, write_baseline)


def _durations(value: str | None) -> int | None:
    """`--durations N`: how many of the slowest rules to list (0: all); None: not asked."""
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()):
        raise AutomatonError(
            "usage", f"--durations takes a number of rules (0: all), not '{printable(value)}'."
        )
    return int(value)


def audit_view(audited: Audited) -> Outcome:
    """The report in its format, printed as it is; or the line that says what the baseline
    recorded."""
    from automaton_rules.report import written

    report, fmt = audited.report, audited.fmt
    if audited.written is not None:
        said = written(fmt, report, str(audited.baseline), audited.written)
        return Outcome(0, said, raw=True)
    errors = logged([*report.task_errors, *report.result.errors])
    outcome = Outcome(
        report.exit_code, _rendered(report, fmt, audited.failed), raw=True, errors=errors
    )
    if report.durations is not None:
        from automaton_rules.report.model import slowest_lines

        outcome.notes.extend(slowest_lines(report))
    return outcome


def _announce_audited(report: AuditReport, engine: Engine, settings: Config) -> list[EventError]:
    """Tell the plugins listening to events that the audit finished, with its counts."""
    from automaton_rules.engine.hookspecs import listening

    if not listening(engine.pm):
        return []
    from collections import Counter

    from automaton_rules.core.severity import SEVERITIES
    from automaton_rules.engine import events

    severities = Counter(str(f.severity) for f in report.findings)
    summary = {
        "tasks": len(report.tasks),
        "findings": len(report.findings),
        "violations": len(report.violations),
        "errors": len(report.errors),
        "by_severity": {s: severities.get(s, 0) for s in SEVERITIES},
        "fail_on": report.fail_on,
        "exit_code": report.exit_code,
    }
    root = report.project.root
    event = events.Event(events.AUDITED, root, events.recorded_time(None), summary=summary)
    return events.dispatch(engine.pm, [event], settings.plugin_timeout_seconds)


def _rendered(report: AuditReport, fmt: str, failed: list[EventError]) -> str:
    """The report in its format; in JSON, with the `event_errors` of its listeners."""
    from automaton_rules.report import format_named

    chosen = format_named(fmt)
    if not chosen.answer or not failed:
        return chosen.render(report)
    from automaton_rules.report import json_format
    from automaton_rules.support.output import json_text

    body = json_format.as_dict(report)
    body["event_errors"] = [failure.as_dict() for failure in failed]
    return json_text(body)


def _write_baseline(report: AuditReport, path: Path) -> int:
    """`--write-baseline FILE`: every finding recorded, unless the audit met an error (an
    incomplete baseline would hide what it missed); the number of entries written."""
    from automaton_rules.report import baseline as baselines
    from automaton_rules.report import plural

    if report.errors:
        raise AutomatonError(
            "audit-failed",
            f"Baseline {printable(str(path), None)} not written: the audit met "
            f"{plural(len(report.errors), 'error')}: {printable(report.errors[0], None)}",
        )
    return baselines.write(path, report.result.findings)
