"""JUnit XML, for the CI systems that show test results (Jenkins, GitLab, Azure): one
testsuite per category, one testcase per rule and task, a violation its failure, and a
broken plugin or task an error.

JUnit knows no severity, so only the findings that fail the audit (at or above
`fail-on`) are failures; the others, and those a baseline knows, are listed in the
testcase's `<system-out>`, which passes. A rule that runs over the project rather than
task by task is one testcase named after the project, plus one for each task it found
something in.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

from automaton_rules.core.output import printable
from automaton_rules.engine.findings import MANUAL_FOLDERS, SEVERITIES, Finding
from automaton_rules.engine.rule import Rule
from automaton_rules.report import AuditReport

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

    def of(self, rule: Rule) -> Iterator[ET.Element]:
        """A rule's testcases: every task for a task rule, else the project; then every
        other task (or the project) it found something in."""
        names: dict[str | None, None] = {}
        if "task" in rule.argnames:
            names.update(dict.fromkeys(task.name for task in self.report.tasks))
        else:
            names[None] = None
        names.update(dict.fromkeys(task for code, task in self.found if code == rule.code))
        skipped = self.report.result.skipped.get(rule.category)
        for name in names:
            case = ET.Element("testcase", classname=rule.code, name=_text(name or self.project))
            found = self.found.get((rule.code, name), [])
            if skipped is not None:
                ET.SubElement(case, "skipped", message=_text(skipped))
            elif not found and name in self.stateless and rule.category != MANUAL_FOLDERS:
                ET.SubElement(case, "skipped", message=f"no .state file (see {MANUAL_FOLDERS})")
            else:
                self.judge(case, found)
            yield case

    def judge(self, case: ET.Element, found: list[Finding]) -> None:
        """A failure for the violations, the other findings written out."""
        failing = [f for f in found if id(f) in self.failing]
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


def errors(report: AuditReport) -> Iterator[ET.Element]:
    """Each broken task and broken plugin as a testcase in error."""
    for error in report.task_errors:
        name, _, message = error.partition(": ")
        case = ET.Element("testcase", classname="tasks", name=_text(name))
        ET.SubElement(case, "error", message=_text(message or error), type="task")
        yield case
    for failed in report.result.errors:
        case = ET.Element("testcase", classname=failed.code or "plugins", name=_text(failed.plugin))
        element = ET.SubElement(case, "error", message=_text(failed.message), type="plugin")
        element.text = _text(str(failed))
        yield case


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
    if report.errors:
        suites.append(suite("errors", errors(report)))
    root = ET.Element("testsuites", name="automaton-rules audit")
    root.extend(suites)
    for key in COUNTS:
        root.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
