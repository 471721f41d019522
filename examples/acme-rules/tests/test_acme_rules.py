"""Acme's rules, tested as installed: the `automaton_project` fixture (a pytest plugin of
automaton-rules) builds a throwaway project with status.py's own commands."""

from __future__ import annotations

from typing import Any

import pytest
from acme_rules import rollback_plan

from automaton_rules.testing import AutomatonProject

PLAN = "# Design\n\n## Rollback plan\nRevert the migration.\n"


@pytest.fixture
def acme(automaton_project: AutomatonProject) -> AutomatonProject:
    """A project where this package is loaded through its entry point, as installed: the
    fixture loads no installed rule package it is not told to."""
    automaton_project.use_packages("acme-rules")
    return automaton_project


def found(audit: Any, code: str) -> list[tuple[str, str]]:
    """The tasks and messages of one rule's findings."""
    return [(f["task"], f["message"]) for f in audit.findings if f["code"] == code]


def test_the_package_registers_its_rules(acme: AutomatonProject) -> None:
    acme.task("login")  # a project is a folder with tasks
    listed = acme.run("--list-rules", "--json")
    rules = {row["code"]: row["plugin"] for row in listed.json()["rules"]}
    assert {code: rules.get(code) for code in ("ACME102", "ACME103", "ACME104", "ACME105")} == {
        "ACME102": "acme",
        "ACME103": "acme",
        "ACME104": "acme",
        "ACME105": "acme",
    }


def test_a_design_without_rollback_plan_is_reported_from_implement_on(
    acme: AutomatonProject,
) -> None:
    acme.task("planned", "implement", files={"DESIGN.md": PLAN})
    acme.task("unplanned", "implement", files={"DESIGN.md": "# Design\n"})
    acme.task("designing", "design", files={"DESIGN.md": "# Design\n"})
    audit = acme.audit()
    assert found(audit, "ACME102") == [("unplanned", "DESIGN.md has no '## Rollback plan' section")]
    assert audit.exit_code == 1


def test_rushed_research_is_a_warning(acme: AutomatonProject) -> None:
    acme.task("rushed", "research")
    acme.task("thorough", "research")
    acme.clock.advance(59)
    acme.advance("rushed", ["research:awaiting_approval"])
    acme.clock.advance(1)
    acme.advance("thorough", ["research:awaiting_approval"])
    audit = acme.audit()
    assert found(audit, "ACME103") == [("rushed", "approval requested 59s after research began")]
    assert audit.exit_code == 0  # a warning does not fail the audit


def test_a_task_in_review_needs_a_commit_naming_it(acme: AutomatonProject) -> None:
    acme.task("login", "implement")
    acme.task("signup", "implement")
    acme.clock.advance(minutes=5)
    acme.commit({"src/login.py": "def login(): ...\n"}, "Add login", task="login")
    acme.commit({"src/signup.py": "def signup(): ...\n"}, "Add signup")  # no Task: trailer
    acme.clock.advance(minutes=5)
    acme.advance("login", ["bug_find"])
    acme.advance("signup", ["bug_find"])
    assert found(acme.audit(), "ACME104") == [("signup", "no commit names task signup")]


def test_outside_git_the_commit_rule_skips(acme: AutomatonProject) -> None:
    acme.task("login", "bug_find")
    audit = acme.audit()
    assert found(audit, "ACME104") == []
    assert "Skipped: not a git repository" in audit.text


def test_generated_code_is_not_edited_by_hand(automaton_project: AutomatonProject) -> None:
    # Edit decisions load only the plugins the configuration lists: list the package.
    automaton_project.use_plugins("acme_rules")
    automaton_project.task("login", "implement")
    generated = automaton_project.root / "generated" / "api.py"
    denied = automaton_project.run("--can-edit", "--task", "login", "--file", str(generated))
    assert denied.exit_code == 1
    assert (
        denied.out == "DENIED: generated/api.py is generated: edit its template instead (ACME105)\n"
    )
    source = automaton_project.root / "src" / "api.py"
    allowed = automaton_project.run("--can-edit", "--task", "login", "--file", str(source))
    assert (allowed.exit_code, allowed.out) == (0, "ALLOWED\n")


def test_a_rule_called_directly(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "implement", files={"DESIGN.md": "# Design\n"})
    task = automaton_project.load("login")
    assert [finding.path for finding in rollback_plan(task) or ()] == [
        ".automaton/tasks/login/DESIGN.md"
    ]
