"""The command line itself: argument errors, JSON envelopes, crashes, entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Project

from automaton_rules import __version__
from automaton_rules.cli import entry as cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "ERROR: Nothing to do: pass --task NAME, --list or another action."),
        (("--list", "--upgrade"), "ERROR: --list and --upgrade cannot be combined."),
        (("--transition", "research"), "ERROR: --transition needs --task NAME."),
        (("--approve",), "ERROR: --approve needs --task NAME."),
        (("--list", "--task", "x"), "ERROR: --list does not take --task."),
        (("--bogus",), "ERROR: No such option: --bogus"),
        (("--list", "stray"), "ERROR: Got unexpected extra argument(s) (stray"),
    ],
)
def test_bad_arguments_exit_2_with_one_error_line(
    project: Project, args: tuple[str, ...], message: str
) -> None:
    result = project.run(*args)
    assert result.rc == 2
    assert result.out == ""
    assert result.err.startswith(message)
    assert len(result.err.strip().splitlines()) == 1


def test_option_missing_its_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--task"]) == 2
    assert capsys.readouterr().err.startswith("ERROR: Option '--task' requires an argument")


def test_bad_arguments_with_json_print_one_object(project: Project) -> None:
    result = project.run("--list", "--upgrade", "--json")
    assert result.rc == 2
    body = result.json
    assert body["schema_version"] == 1
    assert body["ok"] is False
    assert body["exit_code"] == 2
    assert body["error"]["code"] == "usage"


def test_version(project: Project) -> None:
    result = project.run("--version")
    assert (result.rc, result.out) == (0, f"automaton-rules {__version__}\n")


def test_help_shows_examples_and_exit_codes(project: Project) -> None:
    result = project.run("--help")
    assert result.rc == 0
    assert "status.py --task add-user-auth --transition research" in result.out
    assert "Exit codes: 0" in result.out


def test_a_crash_is_exit_2_without_traceback(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from automaton_rules.cli import commands

    def boom(**_: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(commands, "list_tasks", boom)
    result = project.run("--list")
    assert result.rc == 2
    assert result.err == (
        "ERROR: Internal error: RuntimeError: disk on fire. "
        "Set AUTOMATON_DEBUG=1 for a traceback.\n"
    )
    result = project.run("--list", "--json")
    assert result.json["error"]["code"] == "internal-error"


def test_console_script_is_installed(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "automaton-status"
    assert script.exists(), "pip install . must provide the automaton-status console script"
    proc = subprocess.run(
        [str(script), "--create-task", "via-console", "--project", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["to"] == "new"
    assert (tmp_path / ".automaton" / "tasks" / "via-console" / ".state").read_text() == "new\n"


def test_status_py_runs_from_the_checkout(project: Project) -> None:
    result = project.script("--create-task", "from-script")
    assert result.rc == 0
    assert result.out == (
        "Created task 'from-script' in state 'new'. Use --transition research to begin.\n"
    )
    result = project.script("--task", "from-script")
    assert result.rc == 0
    assert result.out.startswith("Task: from-script\nPhase: new (from .state)\n")


def test_main_uses_sys_argv_by_default(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project.create("demo")
    monkeypatch.setattr(sys, "argv", ["status.py", "--list", "--project", str(project.root)])
    assert cli.main() == 0
    assert capsys.readouterr().out.startswith("Task ")


def test_a_failed_state_write_changes_nothing(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    project.create("demo")
    task_dir = project.task_dir("demo")
    history_before = (task_dir / ".state.history").read_text()

    def refuse(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", refuse)
        result = project.run("--task", "demo", "--transition", "research")
    assert result.rc == 2
    assert result.err.startswith("ERROR: Cannot write the task files in ")
    assert result.err.rstrip().endswith("No space left on device. Nothing was changed.")
    assert project.state("demo") == "new\n"
    assert (task_dir / ".state.history").read_text() == history_before
    assert not (task_dir / ".state.tmp").exists()
    # The failed move is not replayed by the next command.
    assert project.run("--task", "demo").out.splitlines()[1] == "Phase: new (from .state)"
    result = project.run("--task", "demo", "--transition", "research")
    assert result.rc == 0
    assert project.state("demo") == "research\n"


def test_an_os_error_outside_the_store_is_exit_2(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from automaton_rules.cli import commands

    def unreadable(**_: object) -> None:
        raise PermissionError(13, "Permission denied", "/some/file")

    monkeypatch.setattr(commands, "list_tasks", unreadable)
    result = project.run("--list")
    assert (result.rc, result.err) == (2, "ERROR: /some/file: Permission denied\n")
