"""Issue 30: a skip or an error is the rule's own, in every format; the other rules of
its category report as usual."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from helpers import section

from automaton_rules.testing import AutomatonProject

ACME = "=== Category 6: Acme Process ==="

ACME_RULES = """
from automaton_rules import Finding, Skip, hookimpl, rule


@rule("ACME201", summary="a test plan before implement", category="Acme Process")
def test_plan_first(task):
    if task.reached("implement") and not task.has_content("TEST_PLAN.md"):
        yield Finding("implement without a TEST_PLAN.md", correction="write TEST_PLAN.md")


@rule("ACME202", summary="approvers from the list", category="Acme Process")
def approvers_listed(task, project):
    if not (project.root / ".automaton" / "APPROVERS").is_file():
        raise Skip("no .automaton/APPROVERS file")
"""

REGISTER = """

@hookimpl
def register_rules(register):
    register(test_plan_first)
    register(approvers_listed)
"""

CRASHING = """

@rule("ACMX303", summary="crashes", category="Acme Process")
def crashes(task):
    raise RuntimeError("kaput")


@hookimpl
def register_rules(register):
    register(test_plan_first)
    register(approvers_listed)
    register(crashes)
"""


def _project(automaton_project: AutomatonProject, source: str) -> AutomatonProject:
    automaton_project.task("login", "implement", via=["design", "implement"])
    automaton_project.task("signup", "research")
    automaton_project.write_plugin(ACME_RULES + source, name="acme")
    return automaton_project


def test_one_rules_skip_leaves_the_others_violation_in_its_category(
    automaton_project: AutomatonProject,
) -> None:
    project = _project(automaton_project, REGISTER)
    audit = project.audit()
    assert audit.exit_code == 1
    assert section(audit.text, ACME) == [
        "[SKIP] (project): ACME202 skipped: no .automaton/APPROVERS file",
        "[FAIL] login: implement without a TEST_PLAN.md — suggested correction: write TEST_PLAN.md",
        "[PASS] signup: no violations",
    ]
    summary = audit.report["summary"]
    assert "Acme Process" not in summary["skipped"]
    assert summary["skipped_rules"]["AR301"] == {"reason": "not a git repository", "tasks": []}
    assert {c: s for c, s in summary["skipped_rules"].items() if c.startswith("ACME")} == {
        "ACME202": {"reason": "no .automaton/APPROVERS file", "tasks": ["login", "signup"]}
    }

    junit = ET.fromstring(project.run("--audit", "--format", "junit").out)
    (suite,) = [s for s in junit.iter("testsuite") if s.get("name") == "Acme Process"]
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "2")
    outcomes = {
        (case.get("classname"), case.get("name")): [child.tag for child in case] for case in suite
    }
    assert outcomes[("ACME201", "login")] == ["failure"]
    assert outcomes[("ACME201", "signup")] == []
    assert outcomes[("ACME202", "login")] == ["skipped"]

    markdown = project.run("--audit", "--format", "markdown").out
    row = next(line for line in markdown.splitlines() if line.startswith("| Acme Process |"))
    assert row.endswith("| fail; ACME202 skipped: no .automaton/APPROVERS file |"), row

    sarif = json.loads(project.run("--audit", "--format", "sarif").out)
    (invocation,) = sarif["runs"][0]["invocations"]
    (note,) = [
        n for n in invocation["toolExecutionNotifications"] if "ACME202" in n["message"]["text"]
    ]
    assert note["level"] == "note"
    assert note["message"]["text"] == (
        "ACME202 skipped on login, signup: no .automaton/APPROVERS file"
    )
    assert note["associatedRule"]["id"] == "ACME202"
    codes = [r["ruleId"] for r in sarif["runs"][0]["results"]]
    assert "ACME201" in codes  # the category's other rule reports

    html = project.run("--audit", "--format", "html").out
    assert "ACME202 skipped: no .automaton/APPROVERS file" in html
    assert "Skipped: no .automaton/APPROVERS file" not in html


def test_every_rule_skipped_still_skips_the_category(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "research")
    source = ACME_RULES.replace(
        "def test_plan_first(task):", "def test_plan_first(task):\n    raise Skip('not here')"
    )
    automaton_project.write_plugin(source + REGISTER, name="acme")
    audit = automaton_project.audit()
    assert section(audit.text, ACME) == ["Skipped: not here"]
    assert audit.report["summary"]["skipped"]["Acme Process"] == "not here"


def test_a_crashing_rule_leaves_the_others_verdicts(automaton_project: AutomatonProject) -> None:
    project = _project(automaton_project, CRASHING)
    audit = project.audit(expect_errors=True)
    assert audit.exit_code == 2
    assert section(audit.text, ACME) == [
        "[SKIP] (project): ACME202 skipped: no .automaton/APPROVERS file",
        "[FAIL] login: implement without a TEST_PLAN.md — suggested correction: write TEST_PLAN.md",
        "[ERROR] login: rule ACMX303 failed (see Errors); no verdict from it",
        "[ERROR] signup: rule ACMX303 failed (see Errors); no verdict from it",
    ]
    junit = ET.fromstring(project.run("--audit", "--format", "junit").out)
    (suite,) = [s for s in junit.iter("testsuite") if s.get("name") == "Acme Process"]
    assert (suite.get("failures"), suite.get("errors")) == ("1", "2")
    report = json.loads(project.run("--audit", "--format", "json").out)
    assert "Acme Process" not in report["summary"]["skipped"]


PROJECT_RULE = '''
from automaton_rules import Finding, hookimpl, rule


@rule("ACME501", summary="at most one task in implement", category="Acme Limits",
      url="https://acme.example/rules/ACME501")
def wip_limit(tasks):
    """Too many tasks in implement at once means none gets finished.

    Counted over the whole project."""
    if sum(task.phase == "implement" for task in tasks) > 1:
        yield Finding("2 tasks in implement", correction="finish one first")


@rule("ACME502", summary="names no file", category="Acme Limits")
def no_file(task):
    yield Finding("about the task, no file", severity="note")


@hookimpl
def register_rules(register):
    register(wip_limit)
    register(no_file)
'''


def test_every_sarif_result_has_a_location_and_rules_have_help(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("login", "implement", via=["design", "implement"])
    automaton_project.task("signup", "implement", via=["design", "implement"])
    automaton_project.write_plugin(PROJECT_RULE, name="limits")
    sarif = json.loads(automaton_project.run("--audit", "--format", "sarif").out)
    (run,) = sarif["runs"]
    results = run["results"]
    assert results and all(result.get("locations") for result in results)
    by_rule = {r["ruleId"]: r for r in results}
    uri = by_rule["ACME501"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "automaton.toml"  # a project rule naming no file: the configuration
    login = next(r for r in results if r["message"]["text"].startswith("login: about"))
    on_task = login["locations"][0]["physicalLocation"]["artifactLocation"]
    assert on_task["uri"] == ".automaton/tasks/login/.state"
    rules = {d["id"]: d for d in run["tool"]["driver"]["rules"]}
    assert rules["ACME501"]["helpUri"] == "https://acme.example/rules/ACME501"
    assert rules["ACME501"]["fullDescription"]["text"] == (
        "Too many tasks in implement at once means none gets finished.\n\n"
        "Counted over the whole project."
    )
    assert "helpUri" not in rules["ACME502"]
    assert rules["ACME502"]["fullDescription"]["text"] == "names no file"


def test_github_annotations_carry_the_correction(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "implement", via=["design", "implement"])
    automaton_project.task("signup", "implement", via=["design", "implement"])
    automaton_project.write_plugin(PROJECT_RULE, name="limits")
    out = automaton_project.run("--audit", "--format", "github").out
    line = next(line for line in out.splitlines() if "ACME501" in line)
    assert line == (
        "::error title=ACME501::(project): 2 tasks in implement — suggested correction: "
        "finish one first"
    )
