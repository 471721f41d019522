"""JUnit XML, for the CI systems that show test results (Jenkins, GitLab, Azure): one
testsuite per category, one testcase per rule and task, a violation its failure, and a
rule that crashed on a task that testcase's error; a broken task, or a plugin that did not
load, is an error in a last suite of its own.

JUnit knows no severity, so only the findings that fail the audit (at or above
`fail-on`) are failures; the others, and those a baseline knows, are listed in the
testcase's `<system-out>`, which passes. A rule that runs over the project rather than
task by task is one testcase named after the project, plus one for each task it found
something in.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from automaton_rules.engine.findings import MANUAL_FOLDERS, SEVERITIES, Finding
from automaton_rules.engine.plugins import PluginError
from automaton_rules.engine.rule import Rule
from automaton_rules.report.model import AuditReport
from automaton_rules.support.output import printable

COUNTS = ("tests", "failures", "errors", "skipped")


class Cases:
    """The findings by rule and task, and what a testcase of each says."""

    def __init__(self, report: AuditReport) -> None:
        self.report = report
        self.project = report.project.root.name or "(project)"
        self.failing = {id(finding) for finding in report.violations}
        self.stateless = {task.name for task in report.tasks if task.state is None}
        self.found: dict[tuple[str, str | None], list[Finding]] = {}
        for finding in report.result.findings:
            self.found.setdefault((finding.code, finding.task), []).append(finding)
        self.crashed: dict[tuple[str, str | None], list[PluginError]] = {}
        in_cases, self.unplaced = split(report)
        for error in in_cases:  # a rule that failed on several tasks: in each one's case
            for task, each in _per_task(error):
                self.crashed.setdefault((str(error.code), task), []).append(each)

    def of(self, rule: Rule) -> Iterator[ET.Element]:
        """A rule's testcases: every task for a task rule, else the project; then every
        other task (or the project) it found something in."""
        names: dict[str | None, None] = {}
        if "task" in rule.argnames:
            names.update(dict.fromkeys(task.name for task in self.report.tasks))
        else:
            names[None] = None
        names.update(dict.fromkeys(task for code, task in self.found if code == rule.code))
        names.update(dict.fromkeys(task for code, task in self.crashed if code == rule.code))
        skip = self.report.result.skips.get(rule.code)  # this rule's own, not its category's
        for name in names:
            skipped = None
            if skip is not None and (not skip.tasks or name in skip.tasks):
                skipped = skip.reason
            case = ET.Element("testcase", classname=rule.code, name=_text(name or self.project))
            found = self.found.get((rule.code, name), [])
            crashed = self.crashed.get((rule.code, name))
            if crashed:
                _error(case, crashed)
                self.judge(case, found, can_fail=False)
            elif skipped is not None:
                ET.SubElement(case, "skipped", message=_text(skipped))
            elif not found and name in self.stateless and rule.category != MANUAL_FOLDERS:
                ET.SubElement(case, "skipped", message=f"no .state file (see {MANUAL_FOLDERS})")
            else:
                self.judge(case, found)
            yield case

    def judge(self, case: ET.Element, found: list[Finding], can_fail: bool = True) -> None:
        """A failure for the violations, the other findings written out (all of them in a
        testcase that has an error already: a testcase has one outcome)."""
        failing = [f for f in found if can_fail and id(f) in self.failing]
        if failing:
            worst = min(failing, key=lambda f: SEVERITIES.index(str(f.severity)))
            message = failing[0].message
            if len(failing) > 1:
                message = f"{len(failing)} violations: {message}"
            failure = ET.SubElement(case, "failure", message=_text(message), type=worst.severity)
            failure.text = "\n".join(_line(f) for f in failing)
        others = [self.described(f) for f in found if id(f) not in self.failing]
        if others:
            ET.SubElement(case, "system-out").text = "\n".join(others)

    def described(self, finding: Finding) -> str:
        """A finding that does not fail: its severity, or that the baseline knows it."""
        if self.report.is_known(finding):
            return f"known from the baseline: {_line(finding)}"
        return _line(finding)


def _text(value: str) -> str:
    """Untrusted text on one line: XML 1.0 cannot hold most control characters at all."""
    return printable(value, None)


def _line(finding: Finding) -> str:
    """`[error] message (path) — suggested correction: …`."""
    line = f"[{finding.severity}] {finding.message}"
    if finding.path:
        line += f" ({finding.path})"
    if finding.correction:
        line += f" — suggested correction: {finding.correction}"
    return _text(line)


def split(report: AuditReport) -> tuple[list[PluginError], list[PluginError]]:
    """The plugin errors of rules that ran, each for its rule's testcase on its task (or
    the project); and the others (a plugin that did not load), with no testcase to go in."""
    codes = {rule.code for _, rule in report.rules}
    in_cases: list[PluginError] = []
    others: list[PluginError] = []
    for error in report.result.errors:
        (in_cases if error.code in codes else others).append(error)
    return in_cases, others


def _per_task(error: PluginError) -> Iterator[tuple[str | None, PluginError]]:
    """A rule's error as it stood on each task it failed on (the project: None)."""
    if not error.tasks:
        yield None, error
    for task in error.tasks:
        yield task, error.on_task(task)


def _error(case: ET.Element, crashed: list[PluginError]) -> None:
    """A testcase's `<error>`: the rule crashed there, so it has no verdict."""
    message = crashed[0].message
    if len(crashed) > 1:
        message = f"{len(crashed)} errors: {message}"
    element = ET.SubElement(case, "error", message=_text(message), type="plugin")
    element.text = "\n".join(_text(str(error)) for error in crashed)


def errors(report: AuditReport, unplaced: list[PluginError]) -> Iterator[ET.Element]:
    """Each broken task, and each plugin error no rule's testcase holds, as a testcase in
    error, named so no two are alike: CI systems merge testcases of the same name."""
    seen: Counter[tuple[str, str]] = Counter()

    def case(kind: str, classname: str, name: str, message: str, text: str) -> ET.Element:
        seen[classname, name] += 1
        if seen[classname, name] > 1:
            name = f"{name} ({seen[classname, name]})"
        testcase = ET.Element("testcase", classname=_text(classname), name=_text(name))
        ET.SubElement(testcase, "error", message=_text(message), type=kind).text = _text(text)
        return testcase

    for error in report.task_errors:
        name, _, message = error.partition(": ")
        yield case("task", "tasks", name, message or error, error)
    for failed in unplaced:
        name = _plugin(report, failed)
        yield case("plugin", failed.code or "plugins", name, failed.message, str(failed))


def _plugin(report: AuditReport, error: PluginError) -> str:
    """A plugin as a testcase names it: a file in the project by its path from the project
    root (the same on every machine), else by its name as loaded."""
    path = Path(error.plugin)
    if path.is_absolute() and path.is_relative_to(report.project.root):
        return path.relative_to(report.project.root).as_posix()
    return error.plugin


def suite(name: str, cases: Iterator[ET.Element]) -> ET.Element:
    """A testsuite with its counts."""
    element = ET.Element("testsuite", name=_text(name))
    element.extend(cases)
    counted = dict.fromkeys(COUNTS, 0)
    for case in element:
        counted["tests"] += 1
        outcome = case.find("*")
        kind = None if outcome is None else outcome.tag
        key = {"failure": "failures", "error": "errors", "skipped": "skipped"}.get(kind or "")
        if key:
            counted[key] += 1
    element.attrib.update({key: str(value) for key, value in counted.items()})
    return element


def render(report: AuditReport) -> str:
    """`<testsuites>` of the categories in report order, then the errors."""
    cases = Cases(report)
    by_category: dict[str, list[Rule]] = {category: [] for category in report.categories}
    for _, rule in report.rules:
        by_category.setdefault(rule.category, []).append(rule)
    suites = [
        suite(category, (case for rule in rules for case in cases.of(rule)))
        for category, rules in by_category.items()
        if rules
    ]
    if report.task_errors or cases.unplaced:
        suites.append(suite("errors", errors(report, cases.unplaced)))
    root = ET.Element("testsuites", name="automaton-rules audit")
    root.extend(suites)
    for key in COUNTS:
        root.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
