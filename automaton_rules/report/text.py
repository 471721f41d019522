"""The specification's plain-text audit report (section 11), category by category."""

from __future__ import annotations

import json
import os

from automaton_rules.core import machine, store
from automaton_rules.core.project import Task
from automaton_rules.engine.findings import (
    GUARD_CHANGES,
    INCONSISTENCY,
    MANUAL_FOLDERS,
    OUT_OF_ORDER,
    UNAUTHORIZED,
    Finding,
)
from automaton_rules.report.model import AuditReport, plural, unjudged
from automaton_rules.support.output import message_lines, printable

LABELS = {"error": "FAIL", "warning": "WARN", "note": "NOTE"}
SUMMARY_LABELS = {
    OUT_OF_ORDER: "out-of-order artifact",
    INCONSISTENCY: "state-artifact mismatch",
    UNAUTHORIZED: "unauthorized modification",
    MANUAL_FOLDERS: "manually created task folder",
    GUARD_CHANGES: "the guard's history",
}
# Categories about the project's history rather than each task: their findings are listed
# as they come, and a clean one says so once, in these words.
PROJECT_WIDE = {
    GUARD_CHANGES: "no commit changed the guard's files and no task folder was removed",
}


# How a task's history begins, by the command of its first line, for category 4's PASS.
ORIGINS = {
    "--create-task": "created with --create-task",
    "--upgrade": "adopted with --upgrade",
    "--follow-up": "created with --follow-up",
}


# The first states other commands start a task in: --create-task (new), --follow-up.
UNSURE_STARTS = frozenset({"new", *(start for _, start in machine.FOLLOW_UPS.values())})


def first_command(task: Task) -> str | None:
    """The command of the first line of a task's `.state.history` when it is one of
    `ORIGINS`, read from the file's first bytes: one small read per task (a whole history
    may be long), parsed only when it names another origin than --create-task. A first
    state only --upgrade starts a task in needs no read at all."""
    timeline = task.known_timeline()
    if timeline and timeline[0][1] not in UNSURE_STARTS:
        return "--upgrade"
    try:  # a regular file only, no link followed: a pipe there must not hang the report
        head = store.read_bytes(f"{task.path}{os.sep}{store.HISTORY}", 4096)
    except OSError:
        return None
    line, newline, _ = head.partition(b"\n")
    if not newline or (b"--upgrade" not in line and b"--follow-up" not in line):
        return None
    try:
        first = json.loads(line)
    except ValueError:
        return None
    command = first.get("command") if isinstance(first, dict) else None
    return command if command in ORIGINS else None


def pass_text(category: str, task: Task) -> str:
    """What a clean task says in each category, in the specification's words."""
    if category == INCONSISTENCY:
        if task.state == "complete":
            return f'.state ("{task.state}") matches all artifacts'
        present = task.artifacts
        if not present:
            return f'.state ("{task.state}") matches artifacts (none yet)'
        verb = "exists" if len(present) == 1 else "exist"
        return f'.state ("{task.state}") matches artifacts ({", ".join(present)} {verb})'
    if category == UNAUTHORIZED:
        return "no code modifications outside implement phase"
    if category == MANUAL_FOLDERS:
        origin = ORIGINS.get(first_command(task) or "--create-task")
        return f"{origin} (.state present)"
    return "no violations"


def finding_line(finding: Finding, task: Task | None, label: str | None = None) -> str:
    """One `[FAIL]`/`[WARN]` line; `[BASE]` for a finding the baseline knows."""
    label = label or LABELS.get(str(finding.severity), "NOTE")
    name = printable(finding.task or "(project)", None)
    phase = finding.data.get("phase")
    if finding.category == OUT_OF_ORDER and finding.artifact and phase and task is not None:
        found = printable(f"{finding.artifact} ({phase} phase artifact)", None)
        return f"[{label}] {name} (phase: {task.state}): found {found}"
    line = f"[{label}] {name}: {printable(finding.message, None)}"
    if finding.correction:
        line += f" — suggested correction: {printable(finding.correction, None)}"
    return line


def summary_line(finding: Finding) -> str:
    """`  - task: out-of-order artifact (IMPLEMENTATION.md)`."""
    label = str(finding.data.get("label") or SUMMARY_LABELS.get(finding.category, finding.code))
    detail = str(finding.data.get("detail") or finding.artifact or finding.message)
    return (
        f"  - {printable(finding.task or '(project)', None)}: {label} ({printable(detail, None)})"
    )


class Lines:
    """Each finding's report line, a known one (from the baseline) labelled `[BASE]`."""

    def __init__(self, report: AuditReport) -> None:
        self.report = report
        self.by_key: dict[tuple[str, str | None], list[Finding]] = {}
        for finding in report.result.findings:
            self.by_key.setdefault((finding.category, finding.task), []).append(finding)

    def line(self, finding: Finding, task: Task | None) -> str:
        """The finding's line in its category."""
        return finding_line(finding, task, "BASE" if self.report.is_known(finding) else None)


def project_wide(category: str, lines: Lines) -> list[str]:
    """A project-wide category: its findings in order, or one `[PASS]` line."""
    found = [lines.line(f, None) for f in lines.report.result.findings if f.category == category]
    return found or [f"[PASS] (project): {PROJECT_WIDE[category]}"]


def no_verdict_line(report: AuditReport, category: str) -> str | None:
    """The one line of a category none of whose rules gave a verdict: every one skipped
    (`Skipped: why`, the specification's words) or failed; None when some rule judged."""
    if category not in report.result.categories:
        return "Skipped: no rule of this category selected"
    missing = report.result.no_verdict(category)
    if missing is None:
        return None
    if not missing.failed:
        return f"Skipped: {printable(missing.reason, None)}"
    failed = missing.failed
    rules = f"rule {failed[0]}" if len(failed) == 1 else f"rules {', '.join(failed)}"
    return f"Error: {rules} failed (see Errors); no verdict"


def _unjudged_line(label: str, name: str, code: str, said: str) -> str:
    """`[SKIP] (project): ACME202 skipped: why`, `[ERROR] login: rule ACME303 failed`."""
    if said == "failed":
        return f"[ERROR] {name}: rule {code} failed (see Errors); no verdict from it"
    return f"[{label}] {name}: {code} {printable(said, None)}"


def category_lines(report: AuditReport, category: str, lines: Lines) -> list[str]:
    """One category's section: a verdict per task, in the specification's words; a rule
    that skipped or failed says so where it did, and the other rules report as usual."""
    whole = no_verdict_line(report, category)
    if whole is not None:
        return [whole]
    missing = unjudged(report, category)
    out = [_unjudged_line("SKIP", "(project)", c, said) for c, said in missing.everywhere]
    if category in PROJECT_WIDE:
        if not out:
            return project_wide(category, lines)
        shown = [lines.line(f, None) for f in report.result.findings if f.category == category]
        judged = [p.code for p in report.result.planned if p.category == category]
        judged = [code for code in judged if code not in {c for c, _ in missing.everywhere}]
        return out + (shown or [f"[PASS] (project): no violations ({', '.join(judged)})"])
    out += [lines.line(f, None) for f in lines.by_key.get((category, None), [])]
    for task in report.tasks:
        found = lines.by_key.get((category, task.name), [])
        here = missing.on_task.get(task.name, [])
        failed = [_unjudged_line("SKIP", task.name, c, s) for c, s in here if s == "failed"]
        skips = [_unjudged_line("SKIP", task.name, c, s) for c, s in here if s != "failed"]
        # A rule that failed here leaves no PASS: the task has no verdict from it.
        if found:
            out += [lines.line(f, task) for f in found]
        elif task.state is None and category != MANUAL_FOLDERS:
            out.append(f"[SKIP] {task.name}: no .state file (see {MANUAL_FOLDERS})")
        elif not failed:
            out.append(f"[PASS] {task.name}: {pass_text(category, task)}")
        out += failed + skips
    known = {task.name for task in report.tasks} | {None}
    for (cat, name), found in lines.by_key.items():
        if cat == category and name not in known:
            out += [lines.line(f, None) for f in found]
    return out


def summary(report: AuditReport) -> list[str]:
    """The specification's count of violations with exactly those listed under it, then
    each lower severity's count (warnings listed; notes stay in their categories)."""
    out = [
        "",
        "=== Summary ===",
        f"{plural(len(report.tasks), 'task')} audited",
        f"{plural(len(report.violations), 'violation')} found",
        *(summary_line(f) for f in report.violations),
    ]
    for severity, found in report.below().items():
        if not found:
            continue
        if severity == "note":
            out.append(f"{plural(len(found), 'note')} (listed in their categories above)")
        else:
            out += [plural(len(found), severity), *(summary_line(f) for f in found)]
    if report.since is not None:
        rev, sha = report.since
        out.append(f"git rules read the commits after {printable(rev, None)} ({sha[:7]}) only")
    if report.baseline is not None:
        shown = printable(report.baseline, None)
        out.append(f"{plural(len(report.known), 'finding')} known from the baseline {shown}")
    return out


def gone_lines(report: AuditReport) -> list[str]:
    """The baseline's entries no finding matched: fixed, or their fingerprint changed."""
    if report.baseline is None or not report.gone:
        return []
    out = ["", "=== Baseline entries no longer found ==="]
    for entry, count in report.gone:
        where = printable(entry.path or entry.task or "(project)", None)
        commit = f" in {entry.commit[:7]}" if entry.commit else ""
        times = f" (x{count})" if count > 1 else ""
        task = printable(entry.task or "(project)", None)
        out.append(f"  - {task}: {printable(entry.code, None)} at {where}{commit}{times}")
    return out


def render(report: AuditReport) -> str:
    """The whole report, sections in the fixed category order, then the summary."""
    lines = Lines(report)
    out = [f"Audit Report for {printable(str(report.project.root), None)}"]
    for number, category in enumerate(report.categories, start=1):
        out += ["", f"=== Category {number}: {printable(category, None)} ==="]
        out += category_lines(report, category, lines)
    out += summary(report)
    out += gone_lines(report)
    if report.errors:
        out += ["", "=== Errors ==="]
        out += [line for error in report.errors for line in message_lines(error)]
    return "\n".join(out)
