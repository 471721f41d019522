"""Issue 30: a plugin declares settings through `register_settings`; they are read from its
own table of automaton.toml, checked (exit 2 naming the plugin), listed and handed to its
rules as `settings`."""

from __future__ import annotations

import pytest
from helpers import write_config

from automaton_rules.testing import AutomatonProject

WIP_RULES = """
from automaton_rules import Finding, hookimpl, rule


@rule("ACME205", summary="at most N tasks in implement", category="Acme Process")
def wip_limit(tasks, settings):
    limit = settings["wip-limit"]
    busy = [task.name for task in tasks if task.phase == "implement"]
    if len(busy) > limit:
        yield Finding(f"{len(busy)} tasks in implement, the limit is {limit}")
    if settings.watched and set(settings.watched) - {task.name for task in tasks}:
        yield Finding("a watched task is missing", severity="warning")


@hookimpl
def register_settings(add):
    add("acme", "wip-limit", int, 1, "most tasks in implement at once")
    add("acme", "watched", list, [], "tasks that must exist")


@hookimpl
def register_rules(register):
    register(wip_limit)
"""


def _two_in_implement(project: AutomatonProject) -> AutomatonProject:
    project.task("login", "implement", via=["design", "implement"])
    project.task("signup", "implement", via=["design", "implement"])
    project.write_plugin(WIP_RULES, name="acme")
    return project


def test_the_default_applies_without_a_table(automaton_project: AutomatonProject) -> None:
    audit = _two_in_implement(automaton_project).audit()
    assert audit.codes == ["ACME205"]
    assert audit.findings[0]["message"] == "2 tasks in implement, the limit is 1"


def test_the_plugins_table_sets_it(automaton_project: AutomatonProject) -> None:
    project = _two_in_implement(automaton_project)
    project.configure_plugin("acme", wip_limit=5)
    assert (
        project.root / "automaton.toml"
    ).read_text() == 'plugins = ["acme.py"]\nacme = { "wip-limit" = 5 }\n'
    assert project.audit().codes == []
    write_config(project, 'plugins = ["acme.py"]\n\n[acme]\nwip-limit = 2\nwatched = ["x"]\n')
    audit = project.audit()
    assert [(f["code"], f["severity"]) for f in audit.findings] == [("ACME205", "warning")]


def test_pyproject_holds_it_under_tool_automaton(automaton_project: AutomatonProject) -> None:
    project = _two_in_implement(automaton_project)
    (project.root / "automaton.toml").unlink()
    (project.root / "pyproject.toml").write_text(
        '[tool.automaton]\nplugins = ["acme.py"]\n\n[tool.automaton.acme]\nwip-limit = 3\n'
    )
    assert project.audit().codes == []
    (project.root / "pyproject.toml").write_text(
        '[tool.automaton]\nplugins = ["acme.py"]\n\n[tool.automaton.acme]\nwip-limit = "3"\n'
    )
    run = project.run("--audit")
    assert run.exit_code == 2
    plugin = project.root / "acme.py"
    assert run.err.startswith(
        f"ERROR: plugin {plugin}: setting 'wip-limit' in [tool.automaton.acme] of "
    ), run.err
    assert run.err.rstrip().endswith("must be a whole number, not '3'")


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("[acme]\nwip-limt = 5\n", "acme.py: unknown setting 'wip-limt' in [acme] of"),
        ("[acme]\nwip-limit = true\n", "must be a whole number, not True"),
        ("[acme]\nwatched = [1]\n", "setting 'watched' in [acme] of"),
        ("[acem]\nwip-limit = 5\n", "Unknown key 'acem' in"),
    ],
    ids=["unknown-key", "bool-for-int", "list-of-numbers", "unknown-table"],
)
@pytest.mark.parametrize("command", ["--audit", "--list-rules", "--validate-folder"])
def test_a_wrong_setting_is_one_error_naming_the_plugin(
    automaton_project: AutomatonProject, table: str, said: str, command: str
) -> None:
    project = _two_in_implement(automaton_project)
    write_config(project, f'plugins = ["acme.py"]\n\n{table}')
    run = project.run(command)
    assert run.exit_code == 2, run
    assert run.out == ""
    (line,) = run.err.splitlines()
    assert line.startswith("ERROR: ") and said in line, line
    assert "Traceback" not in run.err


def test_an_unknown_table_without_plugins_is_still_refused(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("login", "research")
    write_config(automaton_project, "[acme]\nwip-limit = 5\n")
    run = automaton_project.run("--audit")
    assert run.exit_code == 2
    assert "ERROR: Unknown key 'acme' in " in run.err
    assert "no loaded plugin declares a table [acme]" in run.err


def test_a_table_named_like_a_setting_is_a_typo(automaton_project: AutomatonProject) -> None:
    automaton_project.task("login", "research")
    write_config(automaton_project, '[severty]\nAR101 = "warning"\n')
    run = automaton_project.run("--task", "login")
    assert run.exit_code == 2
    assert "Unknown key 'severty'" in run.err


def test_list_rules_shows_the_settings(automaton_project: AutomatonProject) -> None:
    project = _two_in_implement(automaton_project)
    project.configure_plugin("acme", wip_limit=4)
    run = project.run("--list-rules")
    assert run.exit_code == 0, run
    assert run.out.splitlines()[-3:] == [
        f"[acme]  settings of plugin {project.root / 'acme.py'}",
        "  wip-limit = 4 (default 1)  int: most tasks in implement at once",
        "  watched = []  list: tasks that must exist",
    ]
    listed = project.run("--list-rules", "--json").json()["settings"]
    assert listed[0] == {
        "plugin": str(project.root / "acme.py"),
        "table": "acme",
        "name": "wip-limit",
        "type": "int",
        "default": 1,
        "help": "most tasks in implement at once",
        "value": 4,
    }


BAD_DECLARATIONS = """
from automaton_rules import hookimpl, rule


@rule("ACME206", summary="runs", category="Acme Process")
def runs(task):
    return None


@hookimpl
def register_settings(add):
    add({args})


@hookimpl
def register_rules(register):
    register(runs)
"""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ('"acme", "limit", int, "five"', "default 'five' is not a whole number"),
        ('"severity", "limit", int, 1', "table [severity] is one of automaton.toml's own keys"),
        ('"acme", "Limit", int, 1', "setting name 'Limit' must be lower-case words"),
        ('"acme", "limit", dict, {}', "type must be one of str, int, float, bool, list"),
    ],
)
def test_a_declaration_the_file_cannot_hold_is_the_plugins_error(
    automaton_project: AutomatonProject, args: str, said: str
) -> None:
    automaton_project.task("login", "research")
    automaton_project.write_plugin(BAD_DECLARATIONS.format(args=args), name="bad")
    audit = automaton_project.audit(expect_errors=True)
    assert audit.exit_code == 2
    (error,) = audit.errors
    plugin = automaton_project.root / "bad.py"
    assert error.startswith(f"plugin {plugin}: register_settings failed at {plugin}:12: "), error
    assert said in error
