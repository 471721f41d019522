"""The specification's plain-text audit report (section 11), category by category."""

from __future__ import annotations

from automaton_rules.core.output import printable
from automaton_rules.core.project import Task
from automaton_rules.engine.findings import (
    GUARD_CHANGES,
    INCONSISTENCY,
    MANUAL_FOLDERS,
    OUT_OF_ORDER,
    UNAUTHORIZED,
    Finding,
)
from automaton_rules.report import AuditReport

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
        return "created with --create-task (.state present)"
    return "no violations"


def finding_line(finding: Finding, task: Task | None) -> str:
    """One `[FAIL]`/`[WARN]` line."""
    label = LABELS.get(str(finding.severity), "NOTE")
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
    label = SUMMARY_LABELS.get(finding.category, finding.code)
    detail = str(finding.data.get("detail") or finding.artifact or finding.message)
    return (
        f"  - {printable(finding.task or '(project)', None)}: {label} ({printable(detail, None)})"
    )


def project_wide(category: str, findings: list[Finding]) -> list[str]:
    """A project-wide category: its findings in order, or one `[PASS]` line."""
    found = [finding_line(f, None) for f in findings if f.category == category]
    return found or [f"[PASS] (project): {PROJECT_WIDE[category]}"]


def render(report: AuditReport) -> str:
    """The whole report, sections in the fixed category order, then the summary."""
    by_key: dict[tuple[str, str | None], list[Finding]] = {}
    for finding in report.result.findings:
        by_key.setdefault((finding.category, finding.task), []).append(finding)
    tasks = {task.name: task for task in report.tasks}
    codes = {rule.code: rule.category for _, rule in report.rules}
    failed = {codes[e.code]: e.code for e in report.result.errors if e.code in codes}
    out = [f"Audit Report for {printable(str(report.project.root), None)}"]
    for number, category in enumerate(report.categories, start=1):
        out += ["", f"=== Category {number}: {printable(category, None)} ==="]
        if category in report.result.skipped:
            out.append(f"Skipped: {printable(report.result.skipped[category], None)}")
            continue
        if category not in report.result.categories:
            out.append("Skipped: no rule of this category selected")
            continue
        if category in failed:
            out.append(f"Error: rule {failed[category]} failed (see Errors); no verdict")
            continue
        if category in PROJECT_WIDE:
            out += project_wide(category, report.result.findings)
            continue
        for finding in by_key.get((category, None), []):
            out.append(finding_line(finding, None))
        for task in report.tasks:
            found = by_key.get((category, task.name), [])
            if found:
                out += [finding_line(f, task) for f in found]
            elif task.state is None and category != MANUAL_FOLDERS:
                out.append(f"[SKIP] {task.name}: no .state file (see {MANUAL_FOLDERS})")
            else:
                out.append(f"[PASS] {task.name}: {pass_text(category, task)}")
        known = set(tasks) | {None}
        for (cat, name), found in by_key.items():
            if cat == category and name not in known:
                out += [finding_line(f, None) for f in found]
    listed = [f for f in report.result.findings if f.severity != "note"]
    out += [
        "",
        "=== Summary ===",
        f"{len(report.tasks)} tasks audited",
        f"{len(report.violations)} violations found",
        *(summary_line(f) for f in listed),
    ]
    if report.errors:
        out += ["", "=== Errors ===", *(f"ERROR: {printable(e, None)}" for e in report.errors)]
    return "\n".join(out)
