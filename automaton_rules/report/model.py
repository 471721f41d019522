"""One audit as every renderer reads it: the report and the small helpers they share.

Imported by each format module and by the package's `__init__` (which re-exports
`AuditReport`); it imports no renderer, so the report package has no import cycle.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import NamedTuple

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT
from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import BUILTIN_CATEGORIES, SEVERITIES, Finding
from automaton_rules.engine.result import RunResult
from automaton_rules.engine.rule import Rule
from automaton_rules.report.baseline import Fingerprint


@dataclass
class AuditReport:
    """One audit: the tasks looked at, what the rules found, and what went wrong."""

    project: Project
    tasks: list[Task]
    result: RunResult
    rules: list[tuple[str, Rule]]
    fail_on: str = "error"
    task_errors: list[str] = field(default_factory=list)
    # With --baseline: the file, the findings of `result` it knew (shown, not counted),
    # and its entries no finding matched any more. With --since: the revision as given,
    # and its commit.
    baseline: str | None = None
    known: list[Finding] = field(default_factory=list)
    gone: list[tuple[Fingerprint, int]] = field(default_factory=list)
    since: tuple[str, str] | None = None
    # The project's `approval` mode, which says how a task awaiting approval is approved.
    approval: str = "open"
    # With --durations N: how many of the slowest rules to list (0: all).
    durations: int | None = None
    findings: list[Finding] = field(init=False, repr=False)  # what the report counts
    _known: set[int] = field(init=False, repr=False)
    _files: dict[str, str | None] = field(default_factory=dict, repr=False)
    _violations: list[Finding] | None = field(default=None, init=False, repr=False)
    _folders: dict[str, str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._known = {id(finding) for finding in self.known}
        found = self.result.findings
        self.findings = [f for f in found if id(f) not in self._known] if self._known else found

    def is_known(self, finding: Finding) -> bool:
        """The baseline knew this finding: it is shown, but neither counted nor failed on."""
        return id(finding) in self._known

    @property
    def errors(self) -> list[str]:
        """Broken tasks and broken plugins, by name: these make the exit code 2."""
        return [*self.task_errors, *(str(e) for e in self.result.errors)]

    @property
    def violations(self) -> list[Finding]:
        """Findings at or above the `fail-on` severity (worked out once: every format asks
        for them more than once, over tens of thousands of findings)."""
        if self._violations is None:
            failing = set(SEVERITIES[: SEVERITIES.index(self.fail_on) + 1])
            self._violations = [f for f in self.findings if f.severity in failing]
        return self._violations

    def below(self) -> dict[str, list[Finding]]:
        """Findings under the `fail-on` severity, by severity: reported, but not failing."""
        limit = SEVERITIES.index(self.fail_on)
        found: dict[str, list[Finding]] = {s: [] for s in SEVERITIES[limit + 1 :]}
        for finding in self.findings:
            if finding.severity in found:
                found[str(finding.severity)].append(finding)
        return found

    def real_file(self, path: str | None) -> str | None:
        """The file an annotation can point at for a finding's path: the path when it is a
        file in the project; when it is a folder, or gone, a file still in the task folder
        it lies in (its `.state` first); None when no file stands for it."""
        if not path:
            return None
        if path not in self._files:
            self._files[path] = _real_file(self.project, path)
        return self._files[path]

    def anchor(self, finding: Finding) -> str:
        """A file a dashboard can point a finding at, always: the finding's own, else one
        in its task's folder (the `.state` first), else the project's configuration; the
        path as given when none of them is there."""
        folder = self._task_folders().get(finding.task or "")
        located = self.real_file(finding.path) or self.real_file(folder)
        if located:
            return located
        for name in (CONFIG_FILE, PYPROJECT):
            if (self.project.root / name).is_file():
                return name
        return finding.path or folder or CONFIG_FILE

    def _task_folders(self) -> dict[str, str]:
        """Each task's folder relative to the project root (none when the tasks folder lies
        outside it, as `~/.automaton`'s does)."""
        if self._folders is None:
            root = self.project.root
            inside = [task for task in self.tasks if root in task.path.parents]
            self._folders = {t.name: t.path.relative_to(root).as_posix() for t in inside}
        return self._folders

    @property
    def exit_code(self) -> int:
        """2 on any error, 1 on any violation, else 0."""
        if self.errors:
            return 2
        return 1 if self.violations else 0

    @property
    def categories(self) -> list[str]:
        """The specification's four categories, then those plugins added, as they ran."""
        extra = [c for c in self.result.categories if c not in BUILTIN_CATEGORIES]
        extra += [f.category for f in self.result.findings if f.category not in extra]
        return [
            *BUILTIN_CATEGORIES,
            *dict.fromkeys(c for c in extra if c not in BUILTIN_CATEGORIES),
        ]


@dataclass(frozen=True)
class Unjudged:
    """Where one rule of a category gave no verdict: its skips and failures, the project
    wide ones (`everywhere`: a project rule's, or a task rule's on every task) apart from
    those on some tasks only, by task."""

    everywhere: list[tuple[str, str]]  # (code, "skipped: why" or "failed")
    on_task: dict[str, list[tuple[str, str]]]


def unjudged(report: AuditReport, category: str) -> Unjudged:
    """The rules of `category` that skipped or failed, and where: one rule's skip or
    failure is its own, and leaves the verdicts of the category's other rules."""
    result = report.result
    everywhere: list[tuple[str, str]] = []
    on_task: dict[str, list[tuple[str, str]]] = {}
    count = len(report.tasks)
    for planned in result.planned:
        if planned.category != category:
            continue
        skipped = result.skips.get(planned.code)
        if skipped is not None:
            said = f"skipped: {skipped.reason}"
            if not planned.per_task or len(skipped.tasks) >= count:
                everywhere.append((planned.code, said))
            else:
                for task in skipped.tasks:
                    on_task.setdefault(task, []).append((planned.code, said))
        failed, tasks = result.failed_on(planned.code)
        if failed and not tasks:
            everywhere.append((planned.code, "failed"))
        for task in tasks:
            on_task.setdefault(task, []).append((planned.code, "failed"))
    return Unjudged(everywhere, on_task)


def notes(report: AuditReport, category: str) -> list[str]:
    """`ACME202 skipped: why`, `ACME303 failed on 2 tasks (see Errors)`: the rules of a
    category that gave no verdict somewhere."""
    missing = unjudged(report, category)
    said = [f"{code} {how}" for code, how in missing.everywhere if how != "failed"]
    failed = [code for code, how in missing.everywhere if how == "failed"]
    on_task: dict[str, list[str]] = {}
    for task, rules in missing.on_task.items():
        for code, how in rules:
            on_task.setdefault(f"{code} {how.partition(':')[0]}", []).append(task)
    said += [f"{what} on {plural(len(tasks), 'task')}" for what, tasks in on_task.items()]
    said += [f"{code} failed (see Errors)" for code in failed]
    return said


class RuleTime(NamedTuple):
    """One rule's time in the run: `--durations`' line, and its entry in the JSON report."""

    code: str
    plugin: str
    seconds: float
    calls: int
    budget_spent: bool


def slowest(report: AuditReport) -> list[RuleTime]:
    """The rules by the time they took, slowest first, as many as `--durations` asks (0:
    all); whether a plugin rule's budget for the run ran out."""
    plugins = {rule.code: plugin for plugin, rule in report.rules}
    ran_out = {e.code for e in report.result.errors if "budget of" in e.message}
    timed = sorted(report.result.durations.items(), key=lambda item: (-item[1][0], item[0]))
    count = report.durations or len(timed)
    return [
        RuleTime(code, plugins.get(code, ""), round(seconds, 3), calls, code in ran_out)
        for code, (seconds, calls) in timed[:count]
    ]


def slowest_lines(report: AuditReport) -> list[str]:
    """`--durations`' lines on stderr, as pytest's: `2.00s ACME203 (plugin acme, 4 calls)`."""
    rows = slowest(report)
    shown = str(report.durations) if report.durations else "0: all"
    lines = [f"slowest rules (--durations {shown}):"]
    for row in rows:
        spent = ", its time budget spent" if row.budget_spent else ""
        calls = plural(row.calls, "call")
        lines.append(f"  {row.seconds:.2f}s {row.code} (plugin {row.plugin}, {calls}{spent})")
    return lines if rows else [*lines, "  (no rule ran)"]


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 warning`, `2 warnings`; `1 entry`, `2 entries`."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"


def _real_file(project: Project, path: str) -> str | None:
    """`AuditReport.real_file`, uncached."""
    root = project.root
    target = root / path
    if ".." in PurePosixPath(path).parts or PurePosixPath(path).is_absolute():
        return None
    if target.is_file():
        return path
    folder = target if target.is_dir() else target.parent
    tasks = project.tasks_dir
    if folder == tasks or tasks not in folder.parents or not folder.is_dir():
        return None
    try:
        names = [e.name for e in os.scandir(folder) if e.is_file(follow_symlinks=False)]
    except OSError:
        return None
    if not names:
        return None
    # The task's .state, else what a reader opens first: an artifact before a record.
    chosen = ".state" if ".state" in names else min(names, key=lambda n: (n[:1] == ".", n))
    return (folder / chosen).relative_to(root).as_posix()


def named(report: AuditReport, path: str | None, located: str | None) -> str:
    """What a message adds when its annotation is not at the finding's path: the path, and
    why (a folder, or gone)."""
    if not path or located == path:
        return ""
    kind = "a folder" if (report.project.root / path).is_dir() else "no such file"
    return f" ({path}: {kind})"
