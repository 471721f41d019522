"""One table of commands: typer's options, the hand reader, the dispatch, the checks and the
JSON envelope are all built from `cli/actions.py`."""

from __future__ import annotations

import builtins
import inspect
import os
from pathlib import Path

import pytest
from helpers import ENVELOPE, Project

from automaton_rules.cli import actions, commands, parser
from automaton_rules.cli.actions import (
    ACTIONS,
    GENERAL,
    NO_TASK,
    OPTIONS,
    PARTICULAR,
    SHOW_TASK,
    goes_with,
    resolve,
)
from automaton_rules.cli.entry import _command_name, read_plain
from automaton_rules.cli.run import Outcome
from automaton_rules.report import FORMATS
from automaton_rules.report import graph as graphs

# What every handler may ask for, beside its action's own options and --task.
EVERY_HANDLER = {"run", "project", "config", "agent", "as_json"}


def handlers() -> list[actions.Action]:
    return [action for action in (*ACTIONS, SHOW_TASK) if not action.hook]


def test_typer_offers_every_option_of_the_table_as_it_spells_it() -> None:
    # typer's own --install-completion and --show-completion act at once and pass no value.
    params = [param for param in parser.command().params if param.expose_value]
    assert [param.name for param in params] == [option.name for option in OPTIONS]
    for param, option in zip(params, OPTIONS):
        assert (param.opts, param.help, param.metavar, param.envvar, param.default) == (
            [option.flag],
            option.help,
            option.metavar,
            option.envvar,
            option.default,
        ), option.name


def test_typer_reads_each_option_as_the_hand_reader_does(tmp_path: Path) -> None:
    """Every valued option, then every switch, read by both readers, gives the same values."""
    valued = [option for option in OPTIONS if option.kind != actions.SWITCH]
    line = [word for option in valued for word in (option.flag, f"v{option.name}")]
    line += [option.flag for option in OPTIONS if option.kind == actions.SWITCH]
    plain = read_plain(line)
    assert plain is not None
    assert parser.read(line, "status.py") == plain
    assert isinstance(plain["project"], Path) and isinstance(plain["task"], str)
    assert parser.read([], "status.py") == read_plain([])


@pytest.mark.parametrize(
    "line",
    [
        ["--help"],
        ["--task=alpha"],
        ["--task", "-x"],
        ["--task", "a", "--task", "b"],
        ["--task"],
        ["--list", "stray"],
        ["-h"],
    ],
)
def test_the_hand_reader_leaves_the_rest_to_typer(line: list[str]) -> None:
    assert read_plain(line) is None


def test_the_hand_reader_leaves_shell_completion_to_typer(monkeypatch) -> None:
    monkeypatch.setenv("_AUTOMATON_STATUS_COMPLETE", "complete_bash")
    assert read_plain(["--list"]) is None


def test_the_agent_comes_from_the_environment_as_typer_takes_it(monkeypatch) -> None:
    monkeypatch.setenv("AUTOMATON_AGENT", "agent-7")
    assert read_plain(["--list"])["agent"] == "agent-7"
    assert read_plain(["--list", "--agent", "a"])["agent"] == "a"
    monkeypatch.setenv("AUTOMATON_AGENT", "")
    assert read_plain(["--list"])["agent"] is None
    assert parser.read(["--list"], "status.py")["agent"] is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_a_path_typer_would_refuse_is_left_to_typer(tmp_path: Path) -> None:
    secret = tmp_path / "secret.toml"
    secret.write_text("")
    secret.chmod(0)
    assert read_plain(["--list", "--config", str(secret)]) is None


def test_every_action_is_answered_by_a_handler_and_its_view_or_a_hook() -> None:
    for action in (*ACTIONS, SHOW_TASK):
        if action.hook:
            assert action.view is None, action.name
            continue
        assert callable(resolve(action.handler)), action.name
        assert callable(resolve(action.view)), action.name


@pytest.mark.parametrize("action", handlers(), ids=lambda action: action.name)
def test_each_handler_asks_only_for_what_its_row_allows(action: actions.Action) -> None:
    """A handler takes typed keyword parameters, each one an option its action goes with."""
    signature = inspect.signature(resolve(action.handler))
    asked = set(signature.parameters)
    allowed = EVERY_HANDLER | set(action.options)
    allowed |= {"task"} if action.task != NO_TASK else set()
    allowed |= {action.name} if action.metavar is not None else set()
    assert asked <= allowed
    assert set(action.options) <= asked, "an option the action allows but never reads"
    for parameter in signature.parameters.values():
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, parameter.name
        assert parameter.annotation is not inspect.Parameter.empty, parameter.name


def test_every_particular_option_goes_with_an_action() -> None:
    for option in PARTICULAR:
        assert goes_with(option.name), option.name
    assert {option.name for option in GENERAL} & {o.name for o in PARTICULAR} == set()


def test_the_formats_are_the_reports() -> None:
    assert resolve("report:FORMATS") == FORMATS
    assert resolve("report.graph:FORMATS") == graphs.FORMATS
    help_text = actions.BY_NAME["output_format"].help
    for name in (*FORMATS, *graphs.FORMATS):
        assert name in help_text, name


def test_no_command_shadows_a_builtin() -> None:
    public = {name for name in vars(commands) if not name.startswith("_")}
    assert public & set(dir(builtins)) == set()


def test_the_command_name_is_the_flag_without_dashes() -> None:
    assert _command_name(["--list", "--json"]) == "list"
    assert _command_name(["--task", "x", "--create-task", "y"]) == "create-task"
    assert _command_name(["--task", "x"]) == "task"


def test_a_view_turns_what_its_handler_returns_into_an_outcome(project: Project) -> None:
    """The pairing the table makes holds: each view's parameter is its handler's return."""
    for action in handlers():
        handler, view = resolve(action.handler), resolve(action.view)
        returned = inspect.signature(handler).return_annotation
        (parameter,) = inspect.signature(view).parameters.values()
        assert parameter.annotation.split(".")[-1] == returned.split(".")[-1], action.name
        assert inspect.signature(view).return_annotation in ("Outcome", Outcome), action.name


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


def test_a_hook_takes_the_same_checks_as_every_action(project: Project) -> None:
    project.create("alpha")
    result = project.run("--can-edit", "--task", "alpha", "--approver", "bob")
    assert (result.rc, result.err) == (2, "ERROR: --approver goes with --approve.\n")
