"""Terminal niceties: --list's count and approvals due, colour only where a person reads,
and typer's shell completion, as a user at a terminal and a script in a pipe meet them.

Colour is decided per stream (automaton_rules/cli/style.py): `NO_COLOR` wins, then a
stream captured in-process stays plain, then `FORCE_COLOR`, then `TERM=dumb`, then
whether stdout is a terminal. The terminal here is a real pseudo-terminal.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from helpers import BIN, ENVELOPE, STATUS_PY, Project, status_env, status_py

from automaton_rules.cli.style import PLAIN, Style

ANSI = re.compile(r"\x1b\[[0-9;]*m")
YELLOW, DIM, BOLD, RESET = "\x1b[33m", "\x1b[2m", "\x1b[1m", "\x1b[0m"


def env(**variables: str) -> dict[str, str]:
    """status.py's environment with none of the colour variables but those given."""
    base = {k: v for k, v in status_env().items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return {**base, "TERM": "xterm-256color", **variables}


def in_pipe(project: Project, *args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    """status.py with stdout a pipe, as an agent or CI reads it."""
    return status_py(*args, "--project", str(project.root), env=env(**variables))


def in_terminal(project: Project, *args: str, **variables: str) -> str:
    """status.py with stdout a pseudo-terminal, as a person at a terminal sees it."""
    master, slave = os.openpty()
    with subprocess.Popen(
        [sys.executable, str(STATUS_PY), *args, "--project", str(project.root)],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=env(**variables),
    ) as proc:
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode().replace("\r\n", "\n")  # the terminal's line endings


@pytest.fixture
def phased_tasks(project: Project) -> Project:
    """Tasks in several phases: one awaiting approval, one complete, one sub-task."""
    project.task("add-user-auth", "research:awaiting_approval")
    project.task("big", "decomposition:approved")
    project.task("big/part-a", "research")
    project.task("old-task", "complete")
    return project


def row(text: str, start: str) -> str:
    """The line of `text` that starts so (a row's task name, after any colour code)."""
    return next(line for line in text.splitlines() if line.startswith(start))


# ------------------------------------------------------------ --list's summary


def test_list_counts_tasks_per_phase_in_workflow_order_after_the_table(
    phased_tasks: Project,
) -> None:
    result = in_pipe(phased_tasks, "--list")
    assert result.returncode == 0, result.stderr
    table, summary = result.stdout.split("\n\n")
    assert re.fullmatch(r"Task\s+Phase\s+Next Step", table.splitlines()[0])
    assert len(table.splitlines()) == 5  # the header and one row per task, as before
    assert summary.splitlines()[0] == (
        "4 tasks: research 1 · research:awaiting_approval 1 · decomposition:approved 1 · complete 1"
    )


def test_list_names_each_task_awaiting_approval_with_how_the_user_approves(
    phased_tasks: Project,
) -> None:
    summary = in_pipe(phased_tasks, "--list").stdout.split("\n\n")[1].splitlines()
    assert summary[1:] == [
        "Awaiting approval: add-user-auth (SPEC.md) — after the user says APPROVED: "
        f"{sys.executable} {STATUS_PY} --task add-user-auth --approve --project {phased_tasks.root}"
    ]


def test_the_awaiting_line_follows_the_projects_approval_mode(phased_tasks: Project) -> None:
    (phased_tasks.root / "automaton.toml").write_text('approval = "prompt"\n')
    (line,) = [x for x in phased_tasks.run("--list").out.splitlines() if x.startswith("Awaiting")]
    assert line.startswith(
        "Awaiting approval: add-user-auth (SPEC.md) — ask the user to type "
        "`approve add-user-auth` in the chat"
    ), line


def test_a_single_task_is_counted_in_the_singular_and_untracked_last(project: Project) -> None:
    project.task("only", "design")
    assert project.run("--list").out.splitlines()[-1] == "1 task: design 1"
    (project.tasks_dir / "by-hand").mkdir()
    assert project.run("--list").out.splitlines()[-1] == "2 tasks: design 1 · untracked 1"


def test_an_empty_project_prints_no_count(project: Project) -> None:
    (project.tasks_dir).mkdir(parents=True)
    lines = project.run("--list").out.splitlines()
    assert len(lines) == 2 and lines[1].startswith("(no tasks in "), lines
    assert project.run("--list", "--json").json["counts"] == {}


def test_list_json_counts_phases_and_keeps_every_key(phased_tasks: Project) -> None:
    body = phased_tasks.run("--list", "--json").json
    assert list(body["counts"].items()) == [  # in the workflow's order
        ("research", 1),
        ("research:awaiting_approval", 1),
        ("decomposition:approved", 1),
        ("complete", 1),
    ]
    assert {*ENVELOPE, "project", "tasks"} <= set(body)
    assert sum(body["counts"].values()) == len(body["tasks"])


# ------------------------------------------------------------ colour


def test_no_colour_in_a_pipe(phased_tasks: Project) -> None:
    result = in_pipe(phased_tasks, "--list")
    assert "\x1b" not in result.stdout
    assert result.stdout == phased_tasks.run("--list").out.replace(  # the same text in-process
        "python3 ~/.automaton/scripts/status.py", f"{sys.executable} {STATUS_PY}"
    )


def test_colour_in_a_terminal_marks_approvals_due_and_dims_finished_work(
    phased_tasks: Project,
) -> None:
    seen = in_terminal(phased_tasks, "--list")
    plain = in_pipe(phased_tasks, "--list").stdout
    assert ANSI.sub("", seen) == plain  # colour adds codes, never changes the text
    assert row(seen, f"{BOLD}Task ").endswith(RESET)
    assert row(seen, f"{YELLOW}add-user-auth").endswith(RESET)
    assert row(seen, f"{DIM}old-task").endswith(RESET)
    assert row(seen, "big ") == row(plain, "big ")  # nothing to flag
    awaiting = next(line for line in seen.splitlines() if "Awaiting approval" in line)
    assert awaiting.startswith(YELLOW)


def test_colour_in_a_terminal_marks_the_task_views_phase_and_verdict(phased_tasks: Project) -> None:
    seen = in_terminal(phased_tasks, "--task", "add-user-auth").splitlines()
    assert f"{BOLD}Phase: research:awaiting_approval (from .state){RESET}" in seen
    assert any(line.startswith(f"{YELLOW}Approval status: awaiting") for line in seen)
    assert f"\x1b[32mFolder validation: PASS — no out-of-order artifacts found{RESET}" in seen


def test_force_colour_colours_a_pipe(phased_tasks: Project) -> None:
    result = in_pipe(phased_tasks, "--list", FORCE_COLOR="1")
    assert row(result.stdout, f"{YELLOW}add-user-auth")
    assert ANSI.sub("", result.stdout) == in_pipe(phased_tasks, "--list").stdout


@pytest.mark.parametrize(
    "variables",
    [{"NO_COLOR": "1"}, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, {"TERM": "dumb"}],
    ids=["NO_COLOR", "NO_COLOR beats FORCE_COLOR", "TERM=dumb"],
)
def test_no_colour_in_a_terminal_that_asks_for_none(
    phased_tasks: Project, variables: dict[str, str]
) -> None:
    seen = in_terminal(phased_tasks, "--list", **variables)
    assert seen == in_pipe(phased_tasks, "--list").stdout


def test_force_colour_beats_a_dumb_terminal(phased_tasks: Project) -> None:
    result = in_pipe(phased_tasks, "--list", FORCE_COLOR="1", TERM="dumb")
    assert YELLOW in result.stdout


@pytest.mark.parametrize(
    "args",
    [("--list", "--json"), ("--can-edit", "--task", "add-user-auth"), ("--audit",)],
    ids=["json", "hook", "audit text"],
)
def test_answers_read_by_programs_are_never_coloured(
    phased_tasks: Project, args: tuple[str, ...]
) -> None:
    (phased_tasks.task_dir("old-task") / "DESIGN.md").write_text("late\n")  # a finding to report
    forced = in_pipe(phased_tasks, *args, FORCE_COLOR="1")
    plain = in_pipe(phased_tasks, *args)
    assert (forced.returncode, forced.stdout) == (plain.returncode, plain.stdout)
    assert "\x1b" not in in_terminal(phased_tasks, *args)


# ------------------------------------------------------------ the Style API


@contextmanager
def terminal() -> Iterator[IO[str]]:
    master, slave = os.openpty()
    with open(slave, "w") as stream:
        yield stream
    os.close(master)


@contextmanager
def pipe() -> Iterator[IO[str]]:
    read, write = os.pipe()
    with open(write, "w") as stream:
        yield stream
    os.close(read)


@contextmanager
def captured() -> Iterator[IO[str]]:
    yield io.StringIO()


STREAMS: dict[str, Any] = {"terminal": terminal, "pipe": pipe, "captured": captured}


@pytest.mark.parametrize(
    ("stream", "environ", "on"),
    [
        ("terminal", {}, True),
        ("terminal", {"NO_COLOR": "1"}, False),
        ("terminal", {"NO_COLOR": ""}, True),  # an empty NO_COLOR asks for nothing
        ("terminal", {"TERM": "dumb"}, False),
        ("pipe", {}, False),
        ("pipe", {"FORCE_COLOR": "1"}, True),
        ("pipe", {"FORCE_COLOR": ""}, False),
        ("pipe", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        ("pipe", {"FORCE_COLOR": "1", "TERM": "dumb"}, True),
        ("captured", {"FORCE_COLOR": "1"}, False),  # the testing plugin's project.run
    ],
)
def test_a_style_is_chosen_for_its_stream(stream: str, environ: dict[str, str], on: bool) -> None:
    with STREAMS[stream]() as opened:
        style = Style.for_stream(opened, {"TERM": "xterm", **environ})
    assert style.enabled is on
    painted = style.yellow("due")
    assert painted == (f"{YELLOW}due{RESET}" if on else "due")


def test_a_disabled_style_returns_text_unchanged() -> None:
    for method in ("bold", "dim", "red", "green", "yellow"):
        assert getattr(PLAIN, method)("text") == "text"
        assert getattr(Style(True), method)("text").endswith(f"text{RESET}")
    assert Style(True).red("") == ""


# ------------------------------------------------------------ shell completion

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def under_bash(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`command` run by bash (which typer detects as the user's shell), with the venv's
    scripts on PATH and HOME a scratch folder."""
    path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["bash", "-c", f"{command}; exit $?"],  # `exit` keeps bash the parent: no exec
        env={**env(), "PATH": path, "HOME": str(tmp_path)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_bash
@pytest.mark.parametrize(
    ("command", "function"),
    [
        ("automaton-status", "_automaton_status_completion"),
        (f"{sys.executable} {STATUS_PY}", "_statuspy_completion"),
    ],
    ids=["automaton-status", "status.py"],
)
def test_show_completion_prints_a_bash_script(command: str, function: str, tmp_path: Path) -> None:
    proc = under_bash(f"{command} --show-completion", tmp_path)
    assert proc.returncode == 0, proc.stderr
    name = "automaton-status" if command == "automaton-status" else "status.py"
    assert f"complete -o default -F {function} {name}" in proc.stdout
    assert list(tmp_path.iterdir()) == []


def test_the_completion_protocol_completes_a_flag() -> None:
    proc = subprocess.run(
        [str(BIN / "automaton-status")],
        env=env(
            _AUTOMATON_STATUS_COMPLETE="complete_bash",
            COMP_WORDS="automaton-status --li",
            COMP_CWORD="1",
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout.split()) == (0, ["--list", "--list-rules"])


@needs_bash
def test_bash_completes_from_the_script_it_is_shown(tmp_path: Path) -> None:
    proc = under_bash(
        "source <(automaton-status --show-completion); "
        "COMP_WORDS=(automaton-status --vers); COMP_CWORD=1; "
        "_automaton_status_completion automaton-status; "
        'printf "%s\\n" "${COMPREPLY[@]}"',
        tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (0, "--version\n"), proc.stderr


@needs_bash
def test_install_completion_writes_the_users_bash_start_up_files(tmp_path: Path) -> None:
    proc = under_bash("automaton-status --install-completion", tmp_path)
    assert proc.returncode == 0, proc.stderr
    script = tmp_path / ".bash_completions" / "automaton-status.sh"
    assert "_AUTOMATON_STATUS_COMPLETE=complete_bash" in script.read_text()
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()
