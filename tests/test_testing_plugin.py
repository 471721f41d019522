"""The pytest plugin shipped for rule authors (`automaton_rules.testing`), tested the way
pytest tests its own plugins: a test file written into a pytester folder and run."""

from __future__ import annotations

import pytest

from automaton_rules.core import machine
from automaton_rules.testing import AutomatonProject, route_to

pytest_plugins = ["pytester"]


def _legal(source: str, target: str) -> bool:
    """A move --transition makes, or the approval only --approve makes."""
    if target in machine.TRANSITIONS[source]:
        return True
    return source.endswith(machine.AWAITING) and target == (
        source[: -len(machine.AWAITING)] + machine.APPROVED
    )


@pytest.mark.parametrize("state", machine.STATES)
def test_route_to_walks_only_legal_edges(state: str) -> None:
    route = ("new", *route_to(state))
    assert route[-1] == state
    assert len(set(route)) == len(route)  # no state twice: the shortest kind of walk
    for source, target in zip(route, route[1:]):
        assert _legal(source, target), f"{source} -> {target} on the way to {state}"


def test_route_to_refuses_an_unknown_state() -> None:
    with pytest.raises(ValueError, match="implemnt"):
        route_to("implemnt")


def test_route_to_covers_every_state() -> None:
    reached = {s for state in machine.STATES for s in ("new", *route_to(state))}
    assert reached == set(machine.STATES)


@pytest.mark.parametrize("state", machine.STATES)
def test_task_reaches_every_state(automaton_project: AutomatonProject, state: str) -> None:
    folder = automaton_project.task("walker", state)
    assert (folder / ".state").read_text() == f"{state}\n"
    history = (folder / ".state.history").read_text().splitlines()
    assert len(history) == 1 + len(route_to(state))  # every step went through status.py
    approvals = (folder / ".state.approvals").read_text().splitlines()
    assert len(approvals) == sum(machine.is_approved(s) for s in route_to(state))
    audit = automaton_project.audit()
    assert audit.exit_code == 0, audit.text  # the walk leaves a clean task


def test_task_files_are_written_after_the_walk(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task(
        "writer", "research", files={"SPEC.md": "# Spec\n", "notes.txt": "n\n"}
    )
    assert (folder / "SPEC.md").read_text() == "# Spec\n"
    assert (folder / "notes.txt").read_text() == "n\n"
    named = automaton_project.task("lister", "design", files=["DESIGN.md"])
    assert (named / "DESIGN.md").read_text() == "# DESIGN.md\n"


def test_sub_task(automaton_project: AutomatonProject) -> None:
    automaton_project.task("payments", "decomposition:approved")
    folder = automaton_project.task("payments/stripe-client", "implement")
    assert folder == automaton_project.tasks_dir / "payments" / "subtasks" / "stripe-client"
    assert (folder / ".state").read_text() == "implement\n"


def test_task_refused_by_status_py_raises(automaton_project: AutomatonProject) -> None:
    automaton_project.task("twice")
    with pytest.raises(AssertionError, match="create-task"):
        automaton_project.task("twice")


def test_commit_time_and_trailer(automaton_project: AutomatonProject) -> None:
    sha = automaton_project.commit(
        {"src/a.py": "a = 1\n"}, "first", task="login", when=1_700_000_000
    )
    assert len(sha) == 40
    log = automaton_project.git("log", "-1", "--format=%ct|%at|%(trailers:key=Task,valueonly)")
    assert log.strip() == "1700000000|1700000000|login"
    untagged = automaton_project.commit({"src/b.py": "b = 1\n"}, "second")
    assert untagged != sha
    body = automaton_project.git("log", "-1", "--format=%B")
    assert "Task:" not in body


def test_git_failure_raises(automaton_project: AutomatonProject) -> None:
    with pytest.raises(AssertionError, match="git"):
        automaton_project.git("no-such-git-command")


def test_run_returns_exit_code_and_output(automaton_project: AutomatonProject) -> None:
    automaton_project.task("viewer", "research")
    shown = automaton_project.run("--task", "viewer")
    assert shown.exit_code == 0
    assert "Phase: research (from .state)" in shown.out
    missing = automaton_project.run("--task", "nope", "--json")
    assert missing.exit_code == 2
    assert missing.json()["error"]["code"]


def test_audit_object(automaton_project: AutomatonProject) -> None:
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.folder("hand-made", files=["SPEC.md"])
    automaton_project.task("fine", "implement")
    audit = automaton_project.audit()
    assert audit.exit_code == 1
    assert audit.codes == ["AR101", "AR202", "AR401"]
    assert [f["code"] for f in audit.for_task("fix")] == ["AR101", "AR202"]
    assert audit.for_task("fine") == []
    assert audit.errors == []
    assert audit.report["schema_version"] == 1
    assert audit.text.startswith(f"Audit Report for {automaton_project.root}")
    narrowed = automaton_project.audit("--select", "AR4")
    assert narrowed.codes == ["AR401"]


def test_use_plugins_accumulates(automaton_project: AutomatonProject) -> None:
    automaton_project.use_plugins("first_rules")
    automaton_project.use_plugins("second.py")
    text = (automaton_project.root / "automaton.toml").read_text()
    assert text == 'plugins = ["first_rules", "second.py"]\n'


INNER_TESTS = '''
import pytest

from automaton_rules.testing import AutomatonProject

RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("ACME101", summary="DESIGN.md names its modules", category="Acme Checks",
      severity="warning")
def design_names_modules(task):
    text = task.read("DESIGN.md")
    if text is not None and "## Modules" not in text:
        yield Finding("DESIGN.md has no Modules section", path=task.relpath("DESIGN.md"))


@hookimpl
def register_rules(register):
    register(design_names_modules)
"""


@pytest.mark.parametrize(
    "state", ["new", "research:awaiting_approval", "design", "implement", "referee", "complete"]
)
def test_task_in_state(automaton_project: AutomatonProject, state):
    folder = automaton_project.task("demo", state)
    assert (folder / ".state").read_text() == state + "\\n"
    assert automaton_project.audit().exit_code == 0


def test_hand_made_folder(automaton_project):
    automaton_project.folder("by-hand", files=["SPEC.md"])
    audit = automaton_project.audit()
    assert audit.codes == ["AR401"]
    assert audit.exit_code == 1


def test_my_rule(automaton_project):
    automaton_project.task("login", "design", files={"DESIGN.md": "# Design\\n"})
    automaton_project.task("signup", "design", files={"DESIGN.md": "## Modules\\n- auth\\n"})
    automaton_project.write_plugin(RULES, name="acme_rules")
    audit = automaton_project.audit()
    assert audit.codes == ["ACME101"]
    assert audit.for_task("login")[0]["severity"] == "warning"
    assert "=== Category 6: Acme Checks ===" in audit.text
    assert audit.exit_code == 0
    assert audit.exit_code == automaton_project.audit("--fail-on", "warning").exit_code - 1


def test_projects_are_independent(automaton_project, tmp_path):
    assert automaton_project.root.parent == tmp_path
    assert not automaton_project.tasks_dir.exists()
'''


def test_plugin_serves_a_rule_authors_test_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_acme_rules=INNER_TESTS)
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=9)


def test_plugin_reports_a_failing_rule_test(pytester: pytest.Pytester) -> None:
    """The fixture does not hide failures: a wrong expectation fails the inner test."""
    pytester.makepyfile(
        test_wrong="""
def test_expects_a_clean_audit(automaton_project):
    automaton_project.task("fix", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    assert automaton_project.audit().codes == []
"""
    )
    result = pytester.runpytest("-q")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AR101*"])


def test_fixture_is_registered_by_the_pytest11_entry_point(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fixtures", "-q")
    result.stdout.fnmatch_lines(["*automaton_project*"])
