"""The audit as GitHub-flavoured Markdown, for a job summary or a pull request comment:
the outcome, a count per category, the findings by category, the tasks by phase, errors.

Task names, paths and messages are untrusted: each is shown as itself, on one line, with
no Markdown or HTML of its own and no `|` that could end a table cell. In tables, rule
codes, task names and paths are code spans; categories and messages are escaped text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from automaton_rules.core import machine
from automaton_rules.core.project import Task
from automaton_rules.engine.findings import SEVERITIES, Finding
from automaton_rules.report.baseline import Fingerprint
from automaton_rules.report.model import AuditReport, notes, plural
from automaton_rules.support.output import printable

# GitHub takes a job summary up to 1 MiB and a comment up to 65,536 characters: a list
# longer than this shows its first rows and counts the rest (the JSON report has all).
MAX_ROWS = 200
MAX_NAMES = 50
HEADERS = {"error": "Errors", "warning": "Warnings", "note": "Notes"}
_ESCAPES = str.maketrans(
    {**{c: "\\" + c for c in "\\`*_[]|~$"}, "&": "&amp;", "<": "&lt;", ">": "&gt;"}
)


def text(value: str) -> str:
    """Untrusted text as prose: Markdown's and HTML's special characters escaped."""
    return printable(value, None).translate(_ESCAPES)


def code(value: str | None) -> str:
    """Untrusted text as a code span in a table cell (a fence longer than any run of
    backticks in it, `|` escaped as tables need even there); `—` for nothing."""
    if not value:
        return "—"
    shown = printable(value, None).replace("|", "\\|")
    fence = "`" * (max(map(len, re.findall("`+", shown)), default=0) + 1)
    pad = " " if shown[0] in "` " or shown[-1] in "` " else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def table(header: Iterable[str], rows: Iterable[Iterable[str]], align: str = "") -> list[str]:
    """A GFM table; `align` gives each column's `-` (left) or `:` (right)."""
    header = list(header)
    marks = [("---:" if a == ":" else "---") for a in align.ljust(len(header), "-")]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def capped(items: list[str], what: str, limit: int = MAX_ROWS) -> tuple[list[str], str]:
    """The first `limit` items, and what to say of the rest ("" when there is none)."""
    if len(items) <= limit:
        return items, ""
    return items[:limit], f"…and {plural(len(items) - limit, what)} more"


def listed(lines: list[str], what: str) -> list[str]:
    """Lines of a list or table body, cut at `MAX_ROWS`, ending with a count of the rest."""
    shown, rest = capped(lines, what)
    return [*shown, "", f"{rest} (`--format json` lists them all)."] if rest else shown


def title(report: AuditReport) -> list[str]:
    """The outcome first, as a reader of a job summary looks for it: errors and violations
    both, and what made the exit code."""
    errors, violations = len(report.errors), len(report.violations)
    if errors:
        outcome = f"⛔ {plural(errors, 'error')}"
        outcome += f" and {plural(violations, 'violation')}" if violations else ""
    elif violations:
        outcome = f"❌ {plural(violations, 'violation')}"
    else:
        outcome = "✅ passed"
    lines = [
        f"## automaton-rules audit: {outcome}",
        "",
        f"{plural(len(report.tasks), 'task')} audited; findings at or above "
        f"`{report.fail_on}` fail the audit. {_exit(errors, violations)}",
    ]
    if report.since is not None:
        rev, sha = report.since
        lines[-1] += f" The git rules read the commits after {text(rev)} ({sha[:7]}) only."
    return lines


def _exit(errors: int, violations: int) -> str:
    """What made the exit code: errors (the audit could not judge everything) before
    violations, as the code itself puts them."""
    if errors:
        why = "a broken task or plugin" if errors == 1 else "broken tasks or plugins"
        also = f"; {plural(violations, 'violation')} alone would give 1" if violations else ""
        return f"Exit code 2, for {plural(errors, 'error')} ({why}: see Errors){also}."
    if violations:
        return f"Exit code 1, for {plural(violations, 'violation')}."
    return "Exit code 0: no violation."


def status(report: AuditReport, category: str, failing: set[str]) -> str:
    """A category's verdict in a few words, then each rule of it that skipped or failed:
    one rule's skip leaves the verdict of the others."""
    if category not in report.result.categories:
        return "not selected"
    missing = report.result.no_verdict(category)
    if missing is not None and missing.failed:
        return f"rule {', '.join(missing.failed)} failed (see Errors)"
    if missing is not None:
        return f"skipped: {text(missing.reason)}"
    verdict = "fail" if category in failing else "pass"
    return "; ".join([verdict, *(text(note) for note in notes(report, category))])


def summary(report: AuditReport) -> list[str]:
    """Errors, warnings and notes by category, and their totals."""
    counts = Counter((f.category, str(f.severity)) for f in report.findings)
    failing = {f.category for f in report.violations}
    rows = [
        [text(c), *(str(counts[c, s]) for s in SEVERITIES), status(report, c, failing)]
        for c in report.categories
    ]
    totals = [sum(counts[c, s] for c in report.categories) for s in SEVERITIES]
    rows.append(["**Total**", *(f"**{n}**" for n in totals), ""])
    header = ["Category", *(HEADERS[s] for s in SEVERITIES), "Status"]
    return ["", "### Summary", "", *table(header, rows, "-:::-")]


def findings(report: AuditReport) -> list[str]:
    """Each category's findings in a table, categories in the report's order."""
    out = ["", "### Findings", ""]
    if not report.findings:
        return [*out, "No findings."]
    by_category: dict[str, list[Finding]] = {}
    for finding in report.findings:
        by_category.setdefault(finding.category, []).append(finding)
    for category in report.categories:
        found = by_category.get(category)
        if not found:
            continue
        rows = table(["Severity", "Rule", "Task", "Path", "Message"], map(_row, found))
        out += [f"#### {text(category)} ({len(found)})", "", *listed(rows, "finding"), ""]
    return out[:-1]


def _row(finding: Finding) -> list[str]:
    """One finding: its severity, rule, task, path and what to do about it."""
    message = text(finding.message)
    if finding.correction:
        message += f" — suggested correction: {text(finding.correction)}"
    task = code(finding.task) if finding.task else "(project)"
    return [str(finding.severity), code(finding.code), task, code(finding.path), message]


def baseline(report: AuditReport) -> list[str]:
    """With --baseline: how many findings it knew, by rule, and its entries now gone."""
    if report.baseline is None:
        return []
    known = Counter(f.code for f in report.known)
    by_rule = ", ".join(f"{text(c)} ×{n}" for c, n in sorted(known.items()))
    out = [
        "",
        "### Baseline",
        "",
        f"{plural(len(report.known), 'finding')} known from the baseline {text(report.baseline)}"
        f" {'are' if len(report.known) != 1 else 'is'} not listed above"
        + (f" ({by_rule})." if by_rule else "."),
    ]
    if report.gone:
        out += ["", "Entries no longer found (fixed, or their fingerprint changed):", ""]
        out += listed([_gone(entry, count) for entry, count in report.gone], "entry")
    return out


def _gone(entry: Fingerprint, count: int) -> str:
    """`- AR101 at path in 3f2a9c1 (x2)`, for a baseline entry no finding matched."""
    where = text(entry.path or entry.task or "(project)")
    shown = f"- {text(entry.code)} at {where}"
    if entry.commit:
        shown += f" in {text(entry.commit[:7])}"
    return shown + (f" (x{count})" if count > 1 else "")


def phases(report: AuditReport) -> list[str]:
    """The tasks by phase in the workflow's order; those at an approval gate say so."""
    groups: dict[str, list[Task]] = {}
    for task in report.tasks:
        phase = task.phase or ("no .state" if task.state is None else "unknown state")
        groups.setdefault(phase, []).append(task)
    order = [*machine.PHASES, "unknown state", "no .state"]
    rows = [[text(p), str(len(groups[p])), _names(groups[p])] for p in order if p in groups]
    if not rows:
        return ["", "### Tasks by phase", "", "No tasks."]
    return ["", "### Tasks by phase", "", *table(["Phase", "Tasks", "Names"], rows, "-:-")]


def _names(tasks: list[Task]) -> str:
    """A phase's tasks, those awaiting approval first; a long list cut short."""
    waiting = sorted(tasks, key=lambda task: not machine.is_awaiting(task.state or ""))
    shown, rest = capped([_task(task) for task in waiting], "task", MAX_NAMES)
    return ", ".join([*shown, rest] if rest else shown)


def _task(task: Task) -> str:
    """A task's name as a code span, as in the findings, with its place at the gate."""
    name = code(task.name)
    state = task.state or ""
    if machine.is_awaiting(state):
        return f"**{name}** (awaiting approval)"
    if machine.is_approved(state):
        return f"{name} (approved)"
    return name


def errors(report: AuditReport) -> list[str]:
    """Broken tasks and plugins: why the audit could not judge everything."""
    if not report.errors:
        return []
    return ["", "### Errors", "", *listed([f"- {text(e)}" for e in report.errors], "error")]


def render(report: AuditReport) -> str:
    """The whole summary, sections in a fixed order."""
    out = [*title(report), *summary(report), *findings(report), *baseline(report)]
    out += [*phases(report), *errors(report)]
    return "\n".join(out)
