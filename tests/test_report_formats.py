"""The audit's formats besides the text report: JSON, SARIF and GitHub's annotations,
Markdown for a job summary or a pull request comment, JUnit XML, and GitLab Code Quality
JSON (tests/test_html_report.py has the HTML page).

Each is read back the way its consumer reads it: JSON and SARIF with `json`, JUnit with
`xml.etree`, GitLab's items against the schema GitLab validates them with (vendored in
tests/fixtures/gitlab), the Markdown with a GFM parser. The projects have findings in
several categories (the `warned` fixture: the specification's example), untrusted names
(a folder called `odd|<b>name`, a plugin's message full of Markdown), and, where a test
asks, a broken plugin. Reports come from status.py as CI runs it, and from the renderers
called on an `AuditReport`.
"""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import BUILTIN_CODES, ROOT, status_py, with_code
from markdown_it import MarkdownIt

from automaton_rules.core.project import Project
from automaton_rules.engine.findings import Finding
from automaton_rules.engine.result import RunResult
from automaton_rules.engine.runner import Engine
from automaton_rules.report import AuditReport, renderer
from automaton_rules.report.baseline import fingerprint
from automaton_rules.testing import Audit, AutomatonProject

FORMATS = ("markdown", "junit", "gitlab")
SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "gitlab" / "codeclimate.json").read_text())
GITLAB_SEVERITIES = ("info", "minor", "major", "critical", "blocker")
ODD_FOLDER = "odd|<b>name"
ODD_MESSAGE = "a | b <img src=x onerror=alert(1)> *bold* `tick` [link](http://x) $x$"

ODD_RULES = f"""
from automaton_rules import Finding, hookimpl, rule

MESSAGE = {ODD_MESSAGE!r}


@rule("ODD101", summary="odd text", category="Odd Checks")
def odd(task):
    if task.name == "fix-login-bug":
        for _ in range(2):  # twice the same: one fingerprint, two findings
            yield Finding(MESSAGE, path="src/a|b<c>.py")


@hookimpl
def register_rules(register):
    register(odd)
"""


@pytest.fixture
def audited(automaton_project: AutomatonProject) -> AutomatonProject:
    """Findings in four categories and every severity: AR101 (error) and AR202 (warning)
    for a task ahead of its phase, AR208 (note) for a task whose history is gone, AR401
    and AR402 for folders made by hand, and a plugin's ODD101 twice; a task awaits
    approval."""
    project = automaton_project
    project.task("fix-login-bug", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    project.task("add-user-auth", "research:awaiting_approval", files=["SPEC.md"])
    legacy = project.task("legacy", "design")
    (legacy / ".state.history").unlink()
    (legacy / ".state.mutex").unlink()
    project.folder("by-hand", files=["SPEC.md"])
    project.folder(ODD_FOLDER)
    project.write_plugin(ODD_RULES, name="odd_rules")
    return project


def audit(project: AutomatonProject, fmt: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python status.py --audit --format FMT` in the project, as a CI job runs it."""
    return status_py("--audit", "--format", fmt, *args, cwd=project.root)


def as_json(project: AutomatonProject, *args: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(audit(project, "json", *args).stdout)
    return report


def broken(project: AutomatonProject) -> None:
    """A second plugin that fails to import: the audit goes on, and exits 2."""
    project.write_plugin("raise RuntimeError('boom <here>')\n", name="broken_rules")


# ------------------------------------------------------------------ JSON, SARIF, GitHub


def test_json_and_format_json_are_the_same_object(warned: AutomatonProject) -> None:
    by_flag = warned.run("--audit", "--json")
    by_format = warned.run("--audit", "--format", "json")
    assert by_flag.exit_code == by_format.exit_code == 1
    assert json.loads(by_flag.out) == json.loads(by_format.out)


def test_json_report_shape(warned: AutomatonProject) -> None:
    result = warned.run("--audit", "--json")
    report = json.loads(result.out)  # exactly one JSON object on stdout
    assert report["schema_version"] == 1
    assert report["tool"] == "automaton-rules"
    assert report["summary"]["exit_code"] == result.exit_code == 1
    assert report["summary"]["tasks"] == 3
    assert report["summary"]["violations"] == 1
    assert report["errors"] == []
    keys = {"code", "category", "severity", "task", "message", "path", "correction"}
    for finding in report["findings"]:
        assert keys <= set(finding)
    ahead = report["findings"][1]
    assert ahead["code"] == "AR202"
    assert ahead["category"] == "State-Artifact Inconsistency"
    assert ahead["severity"] == "warning"
    assert ahead["task"] == "fix-login-bug"
    assert ahead["path"] == ".automaton/tasks/fix-login-bug/.state"
    assert ahead["correction"] == "implement"
    assert result.err == ""


def _sarif(project: AutomatonProject, *args: str) -> tuple[int, dict[str, Any]]:
    result = project.run("--audit", "--format", "sarif", *args)
    return result.exit_code, json.loads(result.out)


def test_sarif_report(warned: AutomatonProject) -> None:
    legacy = warned.task("legacy", "research", files=["SPEC.md"])
    (legacy / ".state.history").unlink()  # an AR208 note
    (legacy / ".state.mutex").unlink()
    exit_code, log = _sarif(warned)
    assert exit_code == 1
    assert log["version"] == "2.1.0"
    assert "sarif" in log["$schema"] and log["$schema"].endswith(".json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "automaton-rules"
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    assert ids == list(BUILTIN_CODES)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["AR101", "AR202", "AR208"]
    assert [r["level"] for r in results] == ["error", "warning", "note"]
    for result in results:
        assert result["ruleId"] in ids
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert artifact["uri"].startswith(".automaton/tasks/")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is True
    notes = invocation["toolExecutionNotifications"]
    assert [note["level"] for note in notes if note["level"] != "note"] == []


def test_sarif_rules_are_the_enabled_rules(warned: AutomatonProject) -> None:
    _, log = _sarif(warned, "--select", "AR2", "--ignore", "AR208")
    ids = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert ids == [*(f"AR20{n}" for n in range(1, 8)), "AR209", "AR212", "AR210", "AR211"]
    (result,) = log["runs"][0]["results"]
    assert ids[result["ruleIndex"]] == result["ruleId"] == "AR202"


def test_sarif_rule_ids_are_stable_across_runs(warned: AutomatonProject) -> None:
    _, first = _sarif(warned)
    warned.task("another", "implement")
    _, second = _sarif(warned)
    rules = [r["id"] for r in first["runs"][0]["tool"]["driver"]["rules"]]
    assert rules == [r["id"] for r in second["runs"][0]["tool"]["driver"]["rules"]]


ODD_PATH_RULE = """
from automaton_rules import Finding, hookimpl, rule


@rule("URI101", summary="odd path", category="Odd Paths")
def odd(task):
    yield Finding("odd path", path="src/my file \\u00fc.py")


@hookimpl
def register_rules(register):
    register(odd)
"""


def test_sarif_uri_is_percent_encoded(automaton_project: AutomatonProject) -> None:
    automaton_project.task("odd", "research", files=["SPEC.md"])
    automaton_project.write_plugin(ODD_PATH_RULE, name="odd_rules")
    result = automaton_project.run("--audit", "--format", "sarif")
    assert result.exit_code == 1, result
    (found,) = [r for r in json.loads(result.out)["runs"][0]["results"] if r["ruleId"] == "URI101"]
    (location,) = found["locations"]
    artifact = location["physicalLocation"]["artifactLocation"]
    assert artifact["uri"] == "src/my%20file%20%C3%BC.py"
    assert artifact["uriBaseId"] == "%SRCROOT%"
    report = json.loads(automaton_project.run("--audit", "--json").out)
    assert with_code(Audit(1, report, "", report["findings"]), "URI101")[0]["path"] == (
        "src/my file ü.py"
    )


def test_github_annotations(warned: AutomatonProject) -> None:
    legacy = warned.task("legacy", "research", files=["SPEC.md"])
    (legacy / ".state.history").unlink()
    (legacy / ".state.mutex").unlink()
    result = warned.run("--audit", "--format", "github")
    assert result.exit_code == 1
    lines = result.out.splitlines()
    assert lines[0] == (
        "::error file=.automaton/tasks/fix-login-bug/IMPLEMENTATION.md,title=AR101::"
        "fix-login-bug: IMPLEMENTATION.md belongs to the implement phase, which task state "
        "'research' has not reached — suggested correction: implement"
    )
    assert lines[1].startswith(
        "::warning file=.automaton/tasks/fix-login-bug/.state,title=AR202::"
        'fix-login-bug: .state says "research" but IMPLEMENTATION.md exists'
    )
    # The history is gone: the note is annotated at the task's .state, and names the path.
    assert lines[2].startswith("::notice file=.automaton/tasks/legacy/.state,title=AR208::legacy: ")
    assert " (.automaton/tasks/legacy/.state.history: no such file)" in lines[2]
    assert len([line for line in lines if line.startswith("::")]) == 3


ODD_PLUGIN = """
from automaton_rules import Finding, hookimpl, rule


@rule("ODD101", summary="odd characters", category="Odd Checks")
def odd(task):
    yield Finding("100% bad,\\nreally: yes", path="src/a,b:c%.py")


@hookimpl
def register_rules(register):
    register(odd)
"""


def test_github_annotations_escape_data_and_properties(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("odd", "research", files=["SPEC.md"])
    automaton_project.write_plugin(ODD_PLUGIN)
    (automaton_project.root / "src").mkdir()
    (automaton_project.root / "src" / "a,b:c%.py").write_text("x = 1\n")
    result = automaton_project.run("--audit", "--format", "github")
    assert result.exit_code == 1
    assert result.out.splitlines()[0] == (
        "::error file=src/a%2Cb%3Ac%25.py,title=ODD101::odd: 100%25 bad,%0Areally: yes"
    )


def test_github_reports_plugin_errors(automaton_project: AutomatonProject) -> None:
    automaton_project.task("odd", "research", files=["SPEC.md"])
    automaton_project.write_plugin("raise RuntimeError('100%\\nbroken')\n", name="broken_rules")
    result = automaton_project.run("--audit", "--format", "github")
    assert result.exit_code == 2
    errors = [line for line in result.out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert "broken_rules" in errors[0]
    assert "100%25%0Abroken" in errors[0]


def test_unknown_format(warned: AutomatonProject) -> None:
    result = warned.run("--audit", "--format", "xml")
    assert result.exit_code == 2
    assert "xml" in result.err


# ---------------------------------------------------------------------------------- JUnit


def cases_in(root: ET.Element) -> list[ET.Element]:
    return list(root.iter("testcase"))


def outcome(case: ET.Element) -> str | None:
    """failure, error, skipped, or None for a testcase that passed."""
    tags = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
    assert len(tags) <= 1, ET.tostring(case)
    return tags[0] if tags else None


def failed_cases(root: ET.Element) -> set[tuple[str | None, str | None]]:
    """(rule code, task) of every testcase that failed."""
    return {(c.get("classname"), c.get("name")) for c in cases_in(root) if outcome(c) == "failure"}


def assert_counts(element: ET.Element) -> None:
    """The counts a suite (or all suites) declares are the testcases it holds."""
    cases = cases_in(element)
    kinds = [outcome(case) for case in cases]
    assert element.get("tests") == str(len(cases))
    assert element.get("failures") == str(kinds.count("failure"))
    assert element.get("errors") == str(kinds.count("error"))
    assert element.get("skipped") == str(kinds.count("skipped"))


def test_junit_parses_and_shows_the_violations_as_failures(audited: AutomatonProject) -> None:
    proc = audit(audited, "junit")
    report = as_json(audited)
    assert proc.returncode == report["exit_code"] == 1, proc.stderr
    root = ET.fromstring(proc.stdout)
    assert root.tag == "testsuites"
    assert_counts(root)
    for suite in root.iter("testsuite"):
        assert_counts(suite)
    violations = [f for f in report["findings"] if f["severity"] == "error"]
    assert len(violations) == report["summary"]["violations"]
    assert failed_cases(root) == {(f["code"], f["task"]) for f in violations}
    # Each failure lists every violation of its testcase: ODD101's two are in one.
    failures = [c.find("failure") for c in cases_in(root) if outcome(c) == "failure"]
    listed = sum(len((f.text or "").splitlines()) for f in failures if f is not None)
    assert listed == len(violations)
    # The warning and the note are written out, and pass.
    passed = {(c.get("classname"), c.get("name")): c for c in cases_in(root) if not outcome(c)}
    assert "[warning]" in (passed["AR202", "fix-login-bug"].findtext("system-out") or "")
    assert "[note]" in (passed["AR208", "legacy"].findtext("system-out") or "")


def test_junit_has_a_testcase_for_every_rule_and_task(audited: AutomatonProject) -> None:
    root = ET.fromstring(audit(audited, "junit").stdout)
    report = as_json(audited)
    tasks = {t["name"] for t in report["tasks"]}
    by_rule: dict[str, set[str]] = {}
    for case in cases_in(root):
        by_rule.setdefault(case.get("classname", ""), set()).add(case.get("name", ""))
    assert set(by_rule) == {rule["code"] for rule in report["rules"]}
    assert tasks <= by_rule["AR101"]
    assert tasks <= by_rule["ODD101"]
    # Project rules: one testcase named after the project, one per task they found.
    assert by_rule["AR402"] == {audited.root.name, ODD_FOLDER}
    assert by_rule["AR501"] == {audited.root.name}
    suites = [suite.get("name") for suite in root.iter("testsuite")]
    assert suites[-1] == "Odd Checks"
    # Not a git repository: the git categories' testcases are skipped, with the reason.
    git = [c for c in cases_in(root) if c.get("classname") in ("AR301", "AR501")]
    reasons = {skipped.get("message") for c in git for skipped in c.iter("skipped")}
    assert reasons == {"not a git repository"}


def test_junit_fails_on_warnings_with_fail_on_warning(audited: AutomatonProject) -> None:
    proc = audit(audited, "junit", "--fail-on", "warning")
    root = ET.fromstring(proc.stdout)
    failed = failed_cases(root)
    assert ("AR202", "fix-login-bug") in failed
    assert ("AR208", "legacy") not in failed


def test_junit_reports_broken_plugins_as_errors(audited: AutomatonProject) -> None:
    broken(audited)
    proc = audit(audited, "junit")
    assert proc.returncode == 2
    root = ET.fromstring(proc.stdout)
    assert root.get("errors") == "1"
    (case,) = [c for c in cases_in(root) if outcome(c) == "error"]
    assert "broken_rules" in (case.get("name") or "")
    error = case.find("error")
    assert error is not None and "boom <here>" in (error.get("message") or "")
    assert root.get("failures") != "0"  # the other plugins' findings still count


CRASHING_RULES = """
from automaton_rules import hookimpl, rule


@rule("XB101", summary="crashes", category="Crashing")
def crashes(task):
    raise RuntimeError(f"no luck with {task.name}")


@hookimpl
def register_rules(register):
    register(crashes)
"""


def test_junit_puts_a_crashed_rule_in_error_in_its_own_testcase(
    audited: AutomatonProject,
) -> None:
    """A rule that raises on every task has no verdict: each of its testcases is in error,
    not passed; no error is left over for a separate suite."""
    audited.write_plugin(CRASHING_RULES, name="crashing_rules")
    proc = audit(audited, "junit")
    assert proc.returncode == 2, proc.stderr
    root = ET.fromstring(proc.stdout)
    tasks = {t["name"] for t in as_json(audited)["tasks"]}
    crashed = [c for c in cases_in(root) if c.get("classname") == "XB101"]
    assert {c.get("name") for c in crashed} == tasks
    assert {outcome(c) for c in crashed} == {"error"}
    for case in crashed:
        error = case.find("error")
        assert error is not None
        assert f"on task '{case.get('name')}'" in (error.get("message") or "")
        assert "RuntimeError: no luck with" in (error.text or "")
    assert [s.get("name") for s in root.iter("testsuite")][-1] == "Crashing"
    assert_counts(root)
    for suite in root.iter("testsuite"):
        assert_counts(suite)
    assert root.get("errors") == str(len(tasks))


MISSPELT_HOOKS = """
from automaton_rules import hookimpl


@hookimpl
def register_rule(register):
    pass


@hookimpl
def on_transiton(change):
    pass
"""


def test_junit_error_testcases_have_unique_names(audited: AutomatonProject) -> None:
    """Errors no rule's testcase holds (plugins that do not load or misspell a hook) each
    have a testcase of their own name, since CI systems merge testcases of the same name;
    a plugin file is named by its path in the project, the same on every machine."""
    broken(audited)
    audited.write_plugin(MISSPELT_HOOKS, name="misspelt")
    proc = audit(audited, "junit")
    assert proc.returncode == 2, proc.stderr
    root = ET.fromstring(proc.stdout)
    (errors,) = [s for s in root.iter("testsuite") if s.get("name") == "errors"]
    names = [(c.get("classname"), c.get("name")) for c in cases_in(errors)]
    assert names == [
        ("plugins", "broken_rules.py"),
        ("plugins", "misspelt.py"),
        ("plugins", "misspelt.py (2)"),
    ]
    messages = [error.get("message") or "" for error in errors.iter("error")]
    assert "unknown hook 'on_transiton'" in messages[1]
    assert "unknown hook 'register_rule'" in messages[2]
    assert_counts(errors)


# --------------------------------------------------------------------------------- GitLab


def test_gitlab_items_carry_the_required_keys_and_unique_fingerprints(
    audited: AutomatonProject,
) -> None:
    proc = audit(audited, "gitlab")
    assert proc.returncode == 1, proc.stderr
    items = json.loads(proc.stdout)
    report = as_json(audited)
    assert isinstance(items, list)
    assert len(items) == len(report["findings"])
    for item, finding in zip(items, report["findings"]):
        jsonschema.validate(item, SCHEMA, cls=jsonschema.Draft7Validator)
        assert item["check_name"] == finding["code"]
        assert item["severity"] in GITLAB_SEVERITIES
        assert item["description"].startswith(f"{finding['code']} {finding['task']}: ")
        assert (audited.root / item["location"]["path"]).is_file(), item
        assert item["location"]["lines"]["begin"] >= 1
    severities = {f["severity"]: i["severity"] for f, i in zip(report["findings"], items)}
    assert severities == {"error": "major", "warning": "minor", "note": "info"}
    fingerprints = [item["fingerprint"] for item in items]
    assert len(set(fingerprints)) == len(fingerprints)


def test_gitlab_fingerprints_are_stable_and_are_sarifs(audited: AutomatonProject) -> None:
    first = [item["fingerprint"] for item in json.loads(audit(audited, "gitlab").stdout)]
    audited.folder("late-comer", files=["SPEC.md"])  # one more finding, listed first
    second = [item["fingerprint"] for item in json.loads(audit(audited, "gitlab").stdout)]
    assert set(first) < set(second)
    assert len(second) == len(first) + 1
    sarif = json.loads(audit(audited, "sarif").stdout)
    results = sarif["runs"][0]["results"]
    hashed = {result["partialFingerprints"]["automatonFingerprint/v1"] for result in results}
    assert hashed <= set(second)
    assert len(set(second) - hashed) == 1  # ODD101's second occurrence


def test_gitlab_lists_only_what_the_baseline_does_not_hold(
    audited: AutomatonProject, tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    assert audit(audited, "gitlab", "--write-baseline", str(baseline)).returncode == 0
    assert json.loads(audit(audited, "gitlab", "--baseline", str(baseline)).stdout) == []
    audited.folder("late-comer", files=["SPEC.md"])
    proc = audit(audited, "gitlab", "--baseline", str(baseline))
    assert proc.returncode == 1
    (item,) = json.loads(proc.stdout)
    assert item["check_name"] == "AR401"
    assert item["location"]["path"] == ".automaton/tasks/late-comer/SPEC.md"
    assert "(.automaton/tasks/late-comer/.state: no such file)" in item["description"]


# ------------------------------------------------------------------------------- Markdown

GFM = MarkdownIt("commonmark").enable("table")


def cell_texts(markdown: str) -> list[list[str]]:
    """Every table row's cells as text, code spans included."""
    rows: list[list[str]] = []
    in_row = False
    for token in GFM.parse(markdown):
        if token.type == "tr_open":
            rows.append([])
            in_row = True
        elif token.type == "tr_close":
            in_row = False
        elif in_row and token.type == "inline":
            rows[-1].append("".join(child.content for child in token.children or []))
    return rows


def test_markdown_shows_the_findings(audited: AutomatonProject) -> None:
    proc = audit(audited, "markdown")
    report = as_json(audited)
    assert proc.returncode == 1, proc.stderr
    text = proc.stdout
    assert text.startswith("## automaton-rules audit: ❌ 5 violations")
    rows = cell_texts(text)
    # Every finding is a row of its category's table: severity, rule, task, path, message.
    for finding in report["findings"]:
        row = [finding["severity"], finding["code"], finding["task"], finding["path"]]
        assert row in [r[:4] for r in rows], finding
    odd = [r for r in rows if r[1] == "ODD101"]
    assert len(odd) == 2
    assert odd[0][3] == "src/a|b<c>.py"
    assert odd[0][4] == ODD_MESSAGE  # shown as itself: no emphasis, code, link or tag
    assert [r for r in rows if r[2] == ODD_FOLDER]  # a task name with | and <
    # The summary: a row per category with errors, warnings, notes; then the totals.
    summary = {r[0]: r[1:] for r in rows if len(r) == 5 and r[4] in ("pass", "fail")}
    assert summary["Out-of-order Artifacts"] == ["1", "0", "0", "fail"]
    assert summary["State-Artifact Inconsistency"] == ["0", "1", "1", "pass"]
    assert summary["Manually Created Task Folders"] == ["2", "0", "0", "fail"]
    assert summary["Odd Checks"] == ["2", "0", "0", "fail"]
    assert ["Total", "5", "1", "1", ""] in rows


def lead(markdown: str) -> list[str]:
    """The title and the sentence under it."""
    return [line for line in markdown.splitlines()[:3] if line]


def test_markdown_title_names_errors_and_violations_and_the_exit_code(
    audited: AutomatonProject,
) -> None:
    """A broken plugin does not hide the violations, and the lead says which of them made
    the exit code."""
    assert lead(audit(audited, "markdown").stdout) == [
        "## automaton-rules audit: ❌ 5 violations",
        "4 tasks audited; findings at or above `error` fail the audit. "
        "Exit code 1, for 5 violations.",
    ]
    broken(audited)
    proc = audit(audited, "markdown")
    assert proc.returncode == 2
    assert lead(proc.stdout) == [
        "## automaton-rules audit: ⛔ 1 error and 5 violations",
        "4 tasks audited; findings at or above `error` fail the audit. Exit code 2, for 1 "
        "error (a broken task or plugin: see Errors); 5 violations alone would give 1.",
    ]
    only = AuditReport(
        project=Project(audited.root),
        tasks=[],
        result=RunResult(),
        rules=[],
        task_errors=["task a: unreadable", "task b: unreadable"],
    )
    assert lead(renderer("markdown")(only)) == [
        "## automaton-rules audit: ⛔ 2 errors",
        "0 tasks audited; findings at or above `error` fail the audit. "
        "Exit code 2, for 2 errors (broken tasks or plugins: see Errors).",
    ]


def test_markdown_tables_are_well_formed_and_escape_untrusted_text(
    audited: AutomatonProject,
) -> None:
    text = audit(audited, "markdown").stdout
    html = GFM.render(text)
    assert "<img" not in html and "<b>" not in html and "<em>" not in html
    assert "&lt;img src=x" in html
    for block in re.split(r"\n\n+", text):
        lines = block.splitlines()
        if not lines or not lines[0].startswith("| "):
            continue
        widths = {len(re.split(r"(?<!\\)\|", line)) for line in lines}
        assert len(widths) == 1, block  # as many cells in every row as in the header
    # The summary, the four categories with findings, the tasks by phase.
    assert [t.type for t in GFM.parse(text)].count("table_open") == 6


def test_markdown_shows_the_tasks_by_phase(audited: AutomatonProject) -> None:
    text = audit(audited, "markdown").stdout
    rows = cell_texts(text)
    phases = {r[0]: r[1:] for r in rows if len(r) == 3 and r[0] != "Phase"}
    assert phases["research"] == ["2", "add-user-auth (awaiting approval), fix-login-bug"]
    # Names are code spans, as in the findings tables; awaiting approval in bold too.
    assert "| research | 2 | **`add-user-auth`** (awaiting approval), `fix-login-bug` |" in text
    assert f"`{ODD_FOLDER.replace('|', chr(92) + '|')}`" in text
    assert phases["design"] == ["1", "legacy"]
    assert phases["no .state"][0] == "1"
    assert list(phases) == ["research", "design", "no .state"]


def test_markdown_lists_errors_and_the_baseline(audited: AutomatonProject, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    assert audit(audited, "markdown", "--write-baseline", str(baseline)).returncode == 0
    (audited.task_dir("fix-login-bug") / "IMPLEMENTATION.md").unlink()
    broken(audited)
    proc = audit(audited, "markdown", "--baseline", str(baseline))
    assert proc.returncode == 2
    text = proc.stdout
    assert text.startswith("## automaton-rules audit: ⛔ 1 error")
    errors = text[text.index("### Errors") :].splitlines()
    assert "broken\\_rules.py: failed to import at " in errors[2]
    assert "broken\\_rules.py:1: RuntimeError: boom &lt;here&gt;" in errors[2]
    assert proc.stderr.startswith("ERROR: plugin ")  # in the job's log, not only the report
    html = GFM.render(text)
    assert f"5 findings known from the baseline {baseline} are not listed above" in html
    assert "(AR208 ×1, AR401 ×1, AR402 ×1, ODD101 ×2)" in html
    assert "AR101 at .automaton/tasks/fix-login-bug/IMPLEMENTATION.md" in html


# ------------------------------------------------------------------- every format alike


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exits_as_the_text_report_does(
    automaton_project: AutomatonProject, fmt: str
) -> None:
    project = automaton_project
    project.task("clean", "research", files=["SPEC.md"])
    assert project.run("--audit", "--format", fmt).exit_code == 0
    project.folder("by-hand", files=["SPEC.md"])
    assert project.run("--audit").exit_code == 1
    assert project.run("--audit", "--format", fmt).exit_code == 1
    broken(project)
    assert project.run("--audit").exit_code == 2
    assert project.run("--audit", "--format", fmt).exit_code == 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_write_baseline_prints_what_it_wrote(
    audited: AutomatonProject, tmp_path: Path, fmt: str
) -> None:
    baseline = tmp_path / "baseline.json"
    result = audited.run("--audit", "--format", fmt, "--write-baseline", str(baseline))
    assert result.exit_code == 0
    assert result.out.startswith(f"Wrote baseline {baseline}: 7 findings as 6 entries")
    assert baseline.is_file()


# --------------------------------------------------------------------------- Python API


def test_the_renderers_on_an_audit_report(automaton_project: AutomatonProject) -> None:
    """What a team's own tooling does: build an AuditReport and render it."""
    automaton_project.task("demo", "research", files=["SPEC.md"])
    project = Project(automaton_project.root)
    task = project.load("demo")
    found = Finding("IMPLEMENTATION.md <early>", path=".automaton/tasks/demo/SPEC.md")
    twice = [found.stamped("AR101", "Out-of-order Artifacts", "error", "demo")] * 2
    note = Finding("just so").stamped("AR208", "State-Artifact Inconsistency", "note", "demo")
    rules = [(plugin, rule) for plugin, rule in Engine.create(entry_points=False).rules]
    result = RunResult(
        findings=[*twice, note],
        categories=["Out-of-order Artifacts", "State-Artifact Inconsistency"],
    )
    report = AuditReport(project=project, tasks=[task], result=result, rules=rules)

    items = json.loads(renderer("gitlab")(report))
    key = fingerprint(twice[0])
    assert [i["fingerprint"] for i in items[:2]] == [key.digest(), key.digest(2)]
    assert [i["severity"] for i in items] == ["major", "major", "info"]

    root = ET.fromstring(renderer("junit")(report))
    (failed,) = [c for c in cases_in(root) if outcome(c) == "failure"]
    assert (failed.get("classname"), failed.get("name")) == ("AR101", "demo")
    (failure,) = failed.iter("failure")
    assert failure.get("message") == "2 violations: IMPLEMENTATION.md <early>"

    markdown = renderer("markdown")(report)
    assert "IMPLEMENTATION.md &lt;early&gt;" in markdown
    assert "| error | `AR101` | `demo` | `.automaton/tasks/demo/SPEC.md` |" in markdown
    assert report.exit_code == 1


def test_each_format_is_one_record_of_the_table() -> None:
    """`--format` takes the table's names; each record's module renders, the `text`
    record is the default and the `json` record the answer `--json` selects."""
    from automaton_rules import report

    assert tuple(chosen.name for chosen in report.TABLE) == report.FORMATS
    assert (report.DEFAULT.name, report.ANSWER.name) == ("text", "json")
    assert [chosen.name for chosen in report.TABLE if chosen.answer] == ["json"]
    assert all(callable(chosen.loaded().render) for chosen in report.TABLE)
    assert report.format_named("json").module == "json_format"
    with pytest.raises(KeyError):
        report.format_named("yaml")
