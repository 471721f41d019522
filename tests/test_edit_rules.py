"""Project rules with a say on edits: `when="edit"` rules, end to end.

A project lists a plugin file in its automaton.toml; its edit rules then run on
`status.py --can-edit` and on the harness adapter, after the workflow allows the edit.
An error finding denies with the rule's message; a plugin that fails denies too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from helpers import HOOK, ROOT, STATUS_PY, denied, edit_event

from automaton_rules import Edit, Rule, hookimpl, rule
from automaton_rules.core.project import find_project
from automaton_rules.engine.runner import Engine
from automaton_rules.testing import AutomatonProject

EDIT_RULES = """\
from automaton_rules import Finding, hookimpl, rule

SEEN = []


@rule("ED101", summary="generated files are not edited by hand", category="Edits",
      when=("edit",))
def not_generated(edit):
    if edit.path is not None and edit.path.startswith("generated/"):
        yield Finding(f"{edit.path} is generated; edit its template instead", path=edit.path)


@rule("ED102", summary="a task names its owner", category="Edits", when=("edit",))
def owner_named(task, edit):
    if "OWNER.md" not in task.files:
        yield Finding(f"Task '{task.name}' names no owner; add OWNER.md before coding")


@rule("ED103", summary="a hint only", category="Edits", severity="warning", when=("edit",))
def only_a_hint(edit):
    yield Finding("consider a smaller change")


@rule("ED104", summary="audit only", category="Edits")
def audit_only(task):
    yield Finding("this rule never speaks at edit time")


@hookimpl
def register_rules(register):
    for item in (not_generated, owner_named, only_a_hint, audit_only):
        register(item)
"""

SHELL_RULES = """\
from automaton_rules import Finding, hookimpl, rule


@rule("ED201", summary="unnamed writes are reviewed", category="Shell", when=("edit",))
def unnamed(edit):
    if edit.file is None:
        yield Finding("A write with no file named is reviewed first")


@hookimpl
def register_rules(register):
    register(unnamed)
"""

CRASHING = """\
from automaton_rules import hookimpl, rule


@rule("ED900", summary="broken", category="Edits", when=("edit",))
def broken(edit):
    raise RuntimeError("the rule fell over")


@hookimpl
def register_rules(register):
    register(broken)
"""


@pytest.fixture
def with_edit_rules(automaton_project: AutomatonProject) -> AutomatonProject:
    """A task in implement without OWNER.md, source files, and the edit rules listed."""
    automaton_project.task("coding", "implement")
    for folder in ("src", "generated"):
        (automaton_project.root / folder).mkdir()
        (automaton_project.root / folder / "app.py").write_text("x = 1\n")
    automaton_project.write_plugin(EDIT_RULES)
    return automaton_project


def script(project: AutomatonProject, *args: str) -> subprocess.CompletedProcess[str]:
    """`python status.py ARGS` run from the project, as an agent's hook runs it."""
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        cwd=project.root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )


def adapter(project: AutomatonProject, payload: dict[str, object]) -> str | None:
    """The Claude adapter's deny reason, or None when it allows."""
    payload = {"cwd": str(project.root), **payload}
    proc = subprocess.run(
        [str(HOOK), "--harness", "claude"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )
    return denied("claude", proc)


def at(project: AutomatonProject, relative: str) -> str:
    """A file of the project as an absolute path: in-process runs keep pytest's cwd."""
    return str(project.root / relative)


GENERATED = "DENIED: generated/app.py is generated; edit its template instead (ED101)"
NO_OWNER = "DENIED: Task 'coding' names no owner; add OWNER.md before coding (ED102)"


# ------------------------------------------------------------------ status.py --can-edit


def test_an_edit_rule_denies_what_the_workflow_allows(with_edit_rules) -> None:
    result = with_edit_rules.run("--can-edit", "--file", at(with_edit_rules, "generated/app.py"))
    assert (result.exit_code, result.out) == (1, GENERATED + "\n"), result
    assert (
        with_edit_rules.run("--can-edit", "--file", at(with_edit_rules, "src/app.py")).out
        == "ALLOWED\n"
    )


def test_a_task_rule_judges_the_task_the_edit_is_made_under(with_edit_rules) -> None:
    source = at(with_edit_rules, "src/app.py")
    result = with_edit_rules.run("--can-edit", "--task", "coding", "--file", source)
    assert (result.exit_code, result.out) == (1, NO_OWNER + "\n"), result
    (with_edit_rules.task_dir("coding") / "OWNER.md").write_text("Ada\n")
    result = with_edit_rules.run("--can-edit", "--task", "coding", "--file", source)
    assert (result.exit_code, result.out) == (0, "ALLOWED\n"), result


def test_without_a_task_only_project_rules_run(with_edit_rules) -> None:
    """ED102 names `task`: with no task to judge it does not run; ED101 still does."""
    assert with_edit_rules.run("--can-edit").out == "ALLOWED\n"
    assert (
        with_edit_rules.run(
            "--can-edit", "--file", at(with_edit_rules, "generated/app.py")
        ).exit_code
        == 1
    )


def test_the_json_answer_names_the_rule(with_edit_rules) -> None:
    result = with_edit_rules.run(
        "--can-edit", "--file", at(with_edit_rules, "generated/app.py"), "--json"
    )
    body = json.loads(result.out)
    assert (body["decision"], body["allowed"], body["reason"], body["rule"]) == (
        "DENIED",
        False,
        "edit-rule",
        "ED101",
    )
    assert body["file"] == str((with_edit_rules.root / "generated" / "app.py").resolve())
    assert body["message"] == GENERATED


def test_the_workflows_refusal_comes_first(automaton_project) -> None:
    automaton_project.task("thinking", "research")
    automaton_project.write_plugin(CRASHING)
    result = automaton_project.run("--can-edit", "--task", "thinking")
    assert result.exit_code == 1
    assert result.out.startswith("DENIED: Task 'thinking' is in research phase.")


def test_a_crashing_rule_fails_closed(automaton_project) -> None:
    automaton_project.task("coding", "implement")
    automaton_project.write_plugin(CRASHING)
    result = automaton_project.run("--can-edit", "--task", "coding")
    assert (result.exit_code, result.out) == (2, ""), result
    assert "ERROR: plugin " in result.err and "ED900" in result.err
    assert "RuntimeError: the rule fell over" in result.err


def test_a_plugin_that_cannot_load_fails_closed(automaton_project) -> None:
    automaton_project.task("coding", "implement")
    automaton_project.write_plugin("import no_such_module_anywhere\n")
    result = automaton_project.run("--can-edit", "--task", "coding")
    assert result.exit_code == 2, result
    assert "failed to import" in result.err and "no_such_module_anywhere" in result.err


def test_scope_check_is_not_an_edit_decision(automaton_project) -> None:
    automaton_project.task("coding", "implement")
    automaton_project.write_plugin(CRASHING)
    result = automaton_project.run("--scope-check", "--file", at(automaton_project, "src/app.py"))
    assert (result.exit_code, result.out) == (0, "IN_SCOPE\n"), result


def test_status_py_as_a_script_runs_the_edit_rules(with_edit_rules) -> None:
    proc = script(with_edit_rules, "--can-edit", "--file", "generated/app.py")
    assert (proc.returncode, proc.stdout) == (1, GENERATED + "\n"), proc.stderr
    proc = script(with_edit_rules, "--can-edit", "--file", "src/app.py")
    assert (proc.returncode, proc.stdout) == (0, "ALLOWED\n"), proc.stderr


def test_list_rules_shows_when_a_rule_runs_at_edits(with_edit_rules) -> None:
    listed = with_edit_rules.run("--list-rules", "--json")
    rows = {row["code"]: row for row in json.loads(listed.out)["rules"]}
    assert rows["ED101"]["when"] == ["edit"]


# ----------------------------------------------------------------- the harness adapter


def test_the_adapter_denies_with_the_rules_message(with_edit_rules) -> None:
    assert (
        adapter(with_edit_rules, json.loads(edit_event(with_edit_rules, "generated/app.py")))
        == GENERATED
    )
    assert adapter(with_edit_rules, json.loads(edit_event(with_edit_rules, "src/app.py"))) is None


def test_the_adapter_with_a_task_runs_its_task_rules(with_edit_rules) -> None:
    proc = subprocess.run(
        [str(HOOK), "--harness", "codex", "--task", "coding"],
        input=edit_event(with_edit_rules, "src/app.py"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr.strip()) == (2, NO_OWNER)


def test_a_shell_write_is_an_edit_too(with_edit_rules) -> None:
    write = {"tool_name": "Bash", "tool_input": {"command": 'echo x > "src/$NAME.py"'}}
    assert adapter(with_edit_rules, write) is None
    (with_edit_rules.root / "shell_rules.py").write_text(SHELL_RULES)
    with_edit_rules.use_plugins("shell_rules.py")
    assert adapter(with_edit_rules, write) == (
        "DENIED: A write with no file named is reviewed first (ED201) "
        'This shell command writes files it names only when it runs (> "src/$NAME.py").'
    )
    assert (
        adapter(with_edit_rules, {"tool_name": "Bash", "tool_input": {"command": "ls src"}}) is None
    )


def test_the_adapter_fails_closed_on_a_crashing_rule(automaton_project) -> None:
    automaton_project.task("coding", "implement")
    (automaton_project.root / "src").mkdir()
    automaton_project.write_plugin(CRASHING)
    reason = adapter(automaton_project, json.loads(edit_event(automaton_project, "src/app.py")))
    assert reason is not None
    assert reason.startswith("DENIED: automaton-rules could not check this action (plugin ")
    assert "the rule fell over" in reason


# ------------------------------------------------------------------------- the engine


def test_edit_is_a_moment_rules_may_name(project) -> None:
    @rule("ED301", summary="sees the edit", category="Edits", when=("edit",))
    def sees(edit):
        yield from ()

    assert isinstance(sees, Rule) and sees.when == frozenset({"edit"})
    assert sees.argnames == ("edit",)
    with pytest.raises(ValueError, match="'when' takes audit, validate, transition, edit"):
        rule("ED302", summary="x", category="Edits", when=("save",))(lambda edit: None)


def test_the_engine_hands_edit_rules_the_edit(project) -> None:
    project.tasks.mkdir(parents=True)
    core = find_project(project.root)
    seen: list[Edit | None] = []

    @rule("ED401", summary="records", category="Edits", when=("edit", "audit"))
    def records(edit):
        seen.append(edit)
        yield from ()

    @hookimpl
    def register_rules(register):
        register(records)

    engine = Engine.create(entry_points=False)
    engine.pm.register(SimpleNamespace(register_rules=register_rules), name="recorder")
    target = Edit(core.root / "src" / "a.py", "src/a.py", None)
    engine.run("edit", core, [], edit=target, whole_project=True)
    engine.run("audit", core, [])
    assert seen == [target, None]
