"""The command line itself: argument errors, JSON envelopes, crashes, entry points, which
folder is the project, options given without their action, and closed or narrow streams.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import STATUS_PY, Project, files_below, one_line, path_to, status_env, status_py

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


def test_help_gives_the_format_default_of_each_action(project: Project) -> None:
    help_text = " ".join(project.run("--help").out.split())
    assert "With --audit: text (default)," in help_text
    assert "With --graph: mermaid (default) or dot." in help_text
    assert "[default: text]" not in help_text


def test_format_text_is_the_audit_default_and_only_the_audit_s(project: Project) -> None:
    project.create("x")
    assert project.run("--audit", "--format", "text").out == project.run("--audit").out
    assert project.run("--audit", "--format", "text", "--json").json["command"] == "audit"


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


# --------------------------------------------------------- which folder is the project


NEEDS_PROJECT = [
    ("--task", "x"),
    ("--task", "x", "--transition", "research"),
    ("--task", "x", "--approve"),
    ("--list",),
    ("--list", "--json"),
    ("--validate-folder",),
    ("--validate-folder", "--task", "x"),
    ("--audit",),
    ("--upgrade",),
    ("--list-rules",),
]


@pytest.mark.parametrize("args", NEEDS_PROJECT, ids=" ".join)
def test_project_without_tasks_folder_is_an_error(project: Project, args: tuple[str, ...]) -> None:
    """A folder named with --project that was never made a project: the error says how to
    make it one, not to pass the --project that was passed."""
    result = project.run(*args)
    assert result.rc == 2
    root = project.root.resolve()
    message = (
        f"No .automaton/tasks/ folder found in {root}: it is not a project yet. Run "
        f"automaton-install --project {root} there, or create a task with --create-task."
    )
    if "--json" in args:
        assert result.json["error"]["message"] == message
    else:
        assert result.err == f"ERROR: {message}\n"
        assert result.out == ""
    assert list(project.root.iterdir()) == []


def test_project_naming_a_file_or_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    missing = tmp_path / "missing"
    for where, problem in ((afile, "is not a folder"), (missing, "does not exist")):
        for args in (("--list",), ("--create-task", "x")):
            capsys.readouterr()
            assert cli.main([*args, "--project", str(where)]) == 2
            err = capsys.readouterr().err
            assert err == f"ERROR: Project folder '{where}' {problem}.\n", (args, err)
    assert not missing.exists()
    assert afile.read_text() == "x\n"


def test_create_task_in_an_empty_folder_makes_the_project(project: Project) -> None:
    result = project.run("--create-task", "x")
    assert result.rc == 0, result
    assert project.state("x") == "new\n"
    assert project.run("--list").rc == 0


@pytest.fixture
def installed_home(tmp_path: Path) -> Path:
    """A home folder where status.py is installed (~/.automaton/scripts/)."""
    folder = tmp_path / "home"
    (folder / ".automaton" / "scripts").mkdir(parents=True)
    return folder


def test_home_folder_is_not_a_project(installed_home: Path) -> None:
    before = files_below(installed_home)
    proc = status_py(
        "--create-task", "x", cwd=installed_home, env=status_env(HOME=str(installed_home))
    )
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("ERROR: ")
    assert "is the home folder" in proc.stderr
    assert not (installed_home / ".automaton" / "tasks").exists()
    assert files_below(installed_home) == before


@pytest.mark.parametrize("args", [("--create-task", "x"), ("--list",)], ids=" ".join)
def test_project_flag_naming_home_is_refused(
    installed_home: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = status_py(
        *args,
        "--project",
        str(installed_home),
        cwd=elsewhere,
        env=status_env(HOME=str(installed_home)),
    )
    assert proc.returncode == 2, proc
    assert "is the home folder" in proc.stderr
    assert not (installed_home / ".automaton" / "tasks").exists()


def test_inside_framework_home_its_tasks_folder_is_used(installed_home: Path) -> None:
    work = installed_home / ".automaton" / "work"
    work.mkdir()
    proc = status_py("--create-task", "x", cwd=work, env=status_env(HOME=str(installed_home)))
    assert proc.returncode == 0, proc
    assert (installed_home / ".automaton" / "tasks" / "x" / ".state").read_text() == "new\n"
    assert not (work / ".automaton").exists()


# ----------------------------------------------- options that belong to another action


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--task", "x", "--approver", "bob"), "ERROR: --approver goes with --approve.\n"),
        (
            ("--task", "x", "--transition", "research", "--approver", "bob"),
            "ERROR: --approver goes with --approve.\n",
        ),
        (
            ("--list", "--select", "AR1"),
            "ERROR: --select goes with --validate-folder or --audit.\n",
        ),
        (
            ("--list", "--ignore", "AR1"),
            "ERROR: --ignore goes with --validate-folder or --audit.\n",
        ),
        (
            ("--task", "x", "--select", "AR1"),
            "ERROR: --select goes with --validate-folder or --audit.\n",
        ),
        (("--validate-folder", "--fail-on", "warning"), "ERROR: --fail-on goes with --audit.\n"),
        (
            ("--list", "--format", "sarif"),
            "ERROR: --format goes with --audit or --graph (use --json elsewhere).\n",
        ),
        (
            ("--list", "--format", "text"),
            "ERROR: --format goes with --audit or --graph (use --json elsewhere).\n",
        ),
        (
            ("--stats", "--format", "text"),
            "ERROR: --format goes with --audit or --graph (use --json elsewhere).\n",
        ),
        (
            ("--stats", "--format", "x"),
            "ERROR: --format goes with --audit or --graph (use --json elsewhere).\n",
        ),
    ],
)
def test_option_without_its_action(
    project: Project, task_in, args: tuple[str, ...], message: str
) -> None:
    task_in("new", name="x")
    result = project.run(*args)
    assert result.rc == 2
    assert result.err == message
    assert result.out == ""
    assert project.state("x") == "new\n"


# ------------------------------------------------- closed, narrow and vanished streams


def test_closed_stderr_keeps_exit_2(project: Project) -> None:
    project.create("x")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(STATUS_PY))} --task nope "
    command += f"--project {shlex.quote(str(project.root))} 2>&-"
    proc = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=status_env(), timeout=20
    )
    assert proc.returncode == 2, proc


@pytest.fixture
def dash_project(tmp_path: Path) -> Project:
    """A project whose path holds an em dash, with a complete task (Next Step '—')."""
    other = Project(tmp_path / "proj—dash")
    other.root.mkdir()
    other.create("done")
    other.advance("done", path_to("complete"))
    return other


def test_ascii_terminal_list_does_not_crash(dash_project: Project) -> None:
    proc = status_py(
        "--list",
        "--project",
        str(dash_project.root),
        cwd=dash_project.root,
        env=status_env(PYTHONIOENCODING="ascii"),
    )
    assert proc.returncode == 0, proc
    assert "Traceback" not in proc.stderr
    assert one_line(proc.stdout, "done").split() == ["done", "complete", "\\u2014"]


def test_ascii_terminal_list_json_does_not_crash(dash_project: Project) -> None:
    proc = status_py(
        "--list",
        "--json",
        "--project",
        str(dash_project.root),
        cwd=dash_project.root,
        env=status_env(PYTHONIOENCODING="ascii"),
    )
    assert proc.returncode == 0, proc
    assert "Traceback" not in proc.stderr
    body = json.loads(proc.stdout)
    assert body["project"] == str(dash_project.root.resolve())
    assert "—" in body["project"]


def test_reader_closing_the_pipe_is_not_an_error(project: Project) -> None:
    project.create("a-first")
    # Enough rows to overflow a pipe buffer, so the writer really meets a closed pipe.
    for number in range(1500):
        folder = project.tasks / f"task-{number:05d}"
        folder.mkdir()
        (folder / ".state").write_text("new\n")
    proc = subprocess.Popen(
        [sys.executable, str(STATUS_PY), "--list", "--project", str(project.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=status_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    try:
        err = proc.stderr.read().decode()
        returncode = proc.wait(timeout=20)
    finally:
        proc.kill()
    assert first.decode().startswith("Task ")
    assert returncode == 0, err
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err


def test_pipe_closed_before_the_first_write_is_not_an_error(project: Project) -> None:
    project.create("x")
    proc = subprocess.Popen(
        [sys.executable, str(STATUS_PY), "--list", "--project", str(project.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=status_env(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    # The reader is gone before the process has even imported its modules.
    proc.stdout.close()
    try:
        err = proc.stderr.read().decode()
        returncode = proc.wait(timeout=20)
    finally:
        proc.kill()
    assert returncode == 0, err
    assert err == ""
