"""One table of actions: typer's options, the dispatch and the JSON envelope agree with it."""

from __future__ import annotations

import builtins
from dataclasses import fields

from conftest import Project

from automaton_rules.cli import commands
from automaton_rules.cli.entry import ACTIONS, SHOW_TASK, _build_command, _command_name
from automaton_rules.cli.parser import OPTIONS, Invocation, option
from automaton_rules.guards import flags

ENVELOPE = ["schema_version", "tool", "command", "ok", "exit_code"]


def test_typer_offers_every_field_of_the_invocation_as_the_tables_spell_it() -> None:
    # typer's own --install-completion and --show-completion act at once and pass no value.
    params = [param for param in _build_command().params if param.expose_value]
    assert [param.name for param in params] == [field.name for field in fields(Invocation)]
    for param in params:
        spelled = option(param.name)
        assert (param.opts, param.help, param.metavar, param.envvar) == (
            [spelled.flag],
            spelled.help,
            spelled.metavar,
            spelled.envvar,
        )


def test_every_option_is_declared_once() -> None:
    declared = [action.name for action in ACTIONS] + list(OPTIONS)
    assert sorted(declared) == sorted(field.name for field in fields(Invocation))


def test_a_valued_action_defaults_to_none_and_a_switch_to_false() -> None:
    defaults = {field.name: field.default for field in fields(Invocation)}
    for action in ACTIONS:
        assert defaults[action.name] is (None if action.metavar else False), action.name


def test_every_action_is_answered_by_a_command_or_a_hook() -> None:
    for action in (*ACTIONS, SHOW_TASK):
        assert action.hook or callable(getattr(commands, action.name)), action.name
    assert {action.flag for action in ACTIONS if action.hook} == set(flags.GUARDS)


def test_no_command_shadows_a_builtin() -> None:
    public = {name for name in vars(commands) if not name.startswith("_")}
    assert public & set(dir(builtins)) == set()


def test_the_command_name_is_the_flag_without_dashes() -> None:
    assert _command_name(["--list", "--json"]) == "list"
    assert _command_name(["--task", "x", "--create-task", "y"]) == "create-task"
    assert _command_name(["--task", "x"]) == "task"


def test_every_json_answer_starts_with_the_same_envelope(project: Project) -> None:
    project.create("alpha")
    answers = {
        "list": project.run("--list", "--json"),
        "task": project.run("--task", "alpha", "--json"),
        "can-edit": project.run("--can-edit", "--task", "alpha", "--json"),
        "transition": project.run("--task", "alpha", "--transition", "design", "--json"),
    }
    for command, result in answers.items():
        assert list(result.json)[:5] == ENVELOPE, command
        assert result.json["command"] == command
        assert result.json["ok"] is (result.rc == 0)
