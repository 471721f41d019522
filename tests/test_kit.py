"""Issue 30: what every rule author rebuilt, in the kit — a commit's message, when a file
last changed on the test clock, when a task entered a state, asked for approval, or how
long it spent in a phase — and the fixture's approvers, delays, days and single audit."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from automaton_rules.testing import AutomatonProject

ACME_RULES = """
from datetime import timedelta

from automaton_rules import Finding, hookimpl, rule


@rule("ACME202", summary="approvers from the list, not within 2 minutes of the change",
      category="Acme Process")
def approvers(task, project):
    listed = project.root / ".automaton" / "APPROVERS"
    allowed = set(listed.read_text().split())
    for entry in task.entries:
        if not entry.is_approval:
            continue
        if entry.approver not in allowed:
            yield Finding(f"{entry.approver} may not approve")
        changed = task.changed_at(entry.artifact)
        if changed is not None and entry.time - changed < timedelta(minutes=2):
            yield Finding(f"{entry.artifact} approved within 2 minutes of its change")


@rule("ACME203", summary="at most 3 days in bug_find", category="Acme Process")
def bug_find_days(task, now):
    spent = task.time_in("bug_find", now)
    if spent > timedelta(days=3):
        yield Finding(f"{spent.days} days in bug_find")


@rule("ACME204", summary="commits in implement carry the task", category="Acme Process")
def commits_name_tasks(tasks, git):
    for commit in git.commits:
        if commit.subject.startswith("wip") and not commit.tasks:
            yield Finding(f"commit {commit.sha[:7]} ({commit.subject}) names no task")


@hookimpl
def register_rules(register):
    register(approvers)
    register(bug_find_days)
    register(commits_name_tasks)
"""


@pytest.fixture
def acme(automaton_project: AutomatonProject) -> AutomatonProject:
    (automaton_project.root / ".automaton").mkdir(exist_ok=True)
    (automaton_project.root / ".automaton" / "APPROVERS").write_text("alice\nbob\n")
    automaton_project.git("init", "-q")
    automaton_project.write_plugin(ACME_RULES, name="acme")
    automaton_project.commit({"README.md": "# acme\n"}, "start")
    return automaton_project


def _acme(audit: object) -> list[tuple[str, str | None, str]]:
    findings = audit.findings  # type: ignore[attr-defined]
    return [(f["code"], f["task"], f["message"]) for f in findings if f["code"].startswith("ACME")]


def test_approvers_from_the_list_and_not_rushed(acme: AutomatonProject) -> None:
    acme.task("slow", "research:approved", approver="alice", approval_delay=timedelta(minutes=5))
    acme.task("rushed", "research:approved", approver="bob", approval_delay=60)
    acme.task("stranger", "research:approved", approver="mallory", approval_delay=300)
    assert _acme(acme.audit()) == [
        ("ACME202", "rushed", "SPEC.md approved within 2 minutes of its change"),
        ("ACME202", "stranger", "mallory may not approve"),
    ]
    (slow,) = [e for e in acme.load("slow").entries if e.is_approval]
    assert slow.approver == "alice"
    asked = acme.load("slow").approval_requested("research")
    assert asked is not None and slow.time - asked == timedelta(minutes=5)


def test_time_in_bug_find_follows_the_clock_in_days(acme: AutomatonProject) -> None:
    acme.task("stuck", "bug_find", approver="alice", approval_delay=300)
    acme.task("moving", "bug_find", approver="bob", approval_delay=300)
    acme.clock.advance(days=2)
    acme.advance("moving", ["adversarial_bug_find"])
    acme.clock.advance(days=1, hours=1)
    assert _acme(acme.audit()) == [("ACME203", "stuck", "3 days in bug_find")]
    task = acme.load("moving")
    assert task.time_in("bug_find", acme.clock.now) == timedelta(days=2)
    assert task.entered_at("bug_find") == acme.clock.now - timedelta(days=3, hours=1)
    assert task.entered_at("doc_review") is None
    with pytest.raises(ValueError, match="did you mean 'bug_find'"):
        task.entered_at("bug_fnd")


def test_commits_have_a_message_and_subject(acme: AutomatonProject) -> None:
    acme.task("login", "implement", via=["design", "implement"])
    acme.commit({"src/a.py": "a = 1\n"}, "wip: the form\n\nmore words", task="login")
    acme.commit({"src/b.py": "b = 1\n"}, "wip: the button")
    audit = acme.audit()
    found = [message for code, _, message in _acme(audit) if code == "ACME204"]
    assert len(found) == 1 and found[0].endswith("(wip: the button) names no task")


def test_changed_at_reads_git_then_the_file_on_the_clock(
    automaton_project: AutomatonProject,
) -> None:
    from automaton_rules.engine.gitlog import start

    project = automaton_project
    project.task("login", "research")
    project.clock.advance(hours=1)
    project.write("login", "SPEC.md", "# spec\n")
    task = project.load("login")
    assert task.changed_at("SPEC.md") == project.clock.now
    assert task.changed_at("NOTES.md") is None
    project.clock.advance(hours=1)
    project.commit({".automaton/tasks/login/SPEC.md": "# spec, committed\n"}, "spec")
    git = start(project.root)()
    (commit,) = git.commits
    assert commit.subject == "spec" and commit.message == "spec"
    task = project.load("login")
    assert task.changed_at("SPEC.md", git) == commit.at == project.clock.now


def test_approve_names_the_approver_and_clock_takes_days(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("login", "research:awaiting_approval")
    before = automaton_project.clock.now
    assert automaton_project.clock.advance(days=3) == before + timedelta(days=3)
    assert automaton_project.approve("login", approver="alice").exit_code == 0
    (approval,) = [e for e in automaton_project.load("login").entries if e.is_approval]
    assert (approval.approver, approval.time) == ("alice", before + timedelta(days=3))
    with pytest.raises(ValueError, match="approver= applies to via='cli'"):
        automaton_project.approve("login", via="prompt", approver="bob")


def test_the_default_walk_writes_no_test_plan(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("login", "implement")
    assert not (folder / "TEST_PLAN.md").exists()
    assert "test_design" not in automaton_project.route_of("login")
    planned = automaton_project.task("planned", "implement", files=["TEST_PLAN.md"])
    assert (planned / "TEST_PLAN.md").exists()
    assert "test_design:approved" in automaton_project.route_of("planned")


def test_a_failed_walk_says_its_route_and_where_it_stopped(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.write_plugin(
        "from automaton_rules import Finding, hookimpl, rule\n\n"
        '@rule("NOPE101", summary="no design", category="Nope", when="transition")\n'
        "def nope(task, transition):\n"
        '    if transition.target == "design":\n'
        '        yield Finding("no design here")\n\n'
        "@hookimpl\n"
        "def register_rules(register):\n"
        "    register(nope)\n",
        name="nope",
    )
    with pytest.raises(AssertionError) as raised:
        automaton_project.task("login", "implement")
    said = str(raised.value)
    assert said.startswith("walking task 'login' (new -> research -> ")
    assert "failed moving from 'research:approved' to 'design'" in said
    assert "no design here (NOPE101)" in said
    assert automaton_project.route_of("login") == (
        "research",
        "research:awaiting_approval",
        "research:approved",
    )


CRASHING = """
from automaton_rules import hookimpl, rule


@rule("ACMX303", summary="crashes", category="Acme Process")
def crashes(task):
    raise RuntimeError("kaput")


@hookimpl
def register_rules(register):
    register(crashes)
"""

COUNTING = """
from automaton_rules import hookimpl, rule

CALLS = []


@rule("CNT101", summary="counts", category="Counted")
def counted(project):
    marker = project.root / "calls.txt"
    marker.write_text(marker.read_text() + "x" if marker.exists() else "x")
    return None


@hookimpl
def register_rules(register):
    register(counted)
"""


def test_audit_runs_once_in_the_format_asked_for(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "research")
    automaton_project.write_plugin(COUNTING, name="counting")
    audit = automaton_project.audit(format="sarif")
    assert (automaton_project.root / "calls.txt").read_text() == "x"  # one run
    assert json.loads(audit.output)["version"] == "2.1.0"
    assert audit.format == "sarif"
    assert audit.text.startswith("Audit Report for ")
    assert audit.report["summary"]["exit_code"] == audit.exit_code == 0


def test_audit_errors_are_structured(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "research")
    automaton_project.task("signup", "research")
    automaton_project.write_plugin(CRASHING, name="crash")
    audit = automaton_project.audit(expect_errors=True)
    (error,) = audit.errors
    assert error.startswith(f"plugin {automaton_project.root / 'crash.py'}: rule ACMX303")
    assert (error.plugin, error.code, error.task) == (
        str(automaton_project.root / "crash.py"),
        "ACMX303",
        "login",
    )
    assert error.tasks == ("login", "signup")
    assert error.exception == "RuntimeError: kaput"
    assert error.where == "crash.py:7"
    assert error in audit.report["errors"]  # still the report's own words
