"""The read-only views beyond the acceptance tests: --task (the folder validation it ends
with, the commands it suggests, a bare sub-task name), --list (a claim it cannot read)
and what the views cost in file reads (issue 5: --list reads no artifact).
"""

from __future__ import annotations

import builtins
import io
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import OUT_OF_ORDER_PASS, ROOT, Project, empty_project, one_line, run, walk

from automaton_rules.core import machine, store

# ------------------------------------------------------------------------------ --task


def test_task_view_ends_with_folder_validation_pass(project: Project, task_in) -> None:
    name = task_in("research")
    result = project.run("--task", name)
    assert result.rc == 0
    assert result.out.splitlines()[-1] == OUT_OF_ORDER_PASS


def test_task_view_ends_with_folder_validation_fail(project: Project, task_in) -> None:
    name = task_in("research")
    project.write(name, "IMPLEMENTATION.md")
    result = project.run("--task", name)
    assert result.rc == 0
    assert result.out.splitlines()[-1] == (
        "Folder validation: FAIL — found out-of-order artifacts: IMPLEMENTATION.md "
        "(see --validate-folder)"
    )


def test_task_view_in_new_needs_no_artifact(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.run("--task", name)
    assert result.rc == 0
    assert one_line(result.out, "Next artifact needed:") == "Next artifact needed: —"
    assert result.out.splitlines()[-1] == OUT_OF_ORDER_PASS


def test_suggested_command_follows_the_script_invocation(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.script("--task", name)
    assert result.rc == 0, result
    invocation = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'status.py'))}"
    root = shlex.quote(str(project.root.resolve()))
    assert one_line(result.out, "Command to proceed:") == (
        f"Command to proceed: {invocation} --task {name} --transition research --project {root}"
    )


def test_in_process_suggestions_keep_the_specification_path(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.run("--task", name)
    root = shlex.quote(str(project.root.resolve()))
    assert one_line(result.out, "Command to proceed:") == (
        "Command to proceed: python3 ~/.automaton/scripts/status.py "
        f"--task {name} --transition research --project {root}"
    )


def test_bare_subtask_name_suggests_the_full_name(project: Project, task_in) -> None:
    task_in("decomposition:approved", name="pay")
    project.create("pay/stripe")
    result = project.run("--task", "stripe")
    assert result.rc == 2
    assert result.err == (
        f"ERROR: Task 'stripe' not found in {project.tasks.resolve()}/ Did you mean 'pay/stripe'?\n"
    )


# ------------------------------------------------------------------------------ --list


def test_list_reports_an_unreadable_claim_on_its_own_row(tmp_path: Path) -> None:
    root = empty_project(tmp_path)
    walk(root, "fine", "research")
    walk(root, "odd", "research")
    (root / "automaton.toml").write_text('mode = "multi-agent"\n')
    os.mkfifo(root / ".automaton" / "tasks" / "odd" / store.CLAIM)
    code, text = run(root, "--list")
    assert "fine" in text and "research" in text
    assert "odd" in text and "Cannot read" in text
    (odd_line,) = [line for line in text.splitlines() if line.startswith("odd")]
    assert "research" in odd_line  # the state it could read is still shown
    assert "Traceback" not in text
    assert code in (1, 2)


# ----------------------------------------------------------------- what the views read


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every file name the command opens, by any of the ways Python opens files."""
    seen: list[str] = []
    real_os_open, real_open, real_io_open = os.open, builtins.open, io.open

    def os_open(path, *args, **kwargs):
        seen.append(os.fspath(path))
        return real_os_open(path, *args, **kwargs)

    def any_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)):
            seen.append(os.fsdecode(file))
        return real_open(file, *args, **kwargs)

    def any_io_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)):
            seen.append(os.fsdecode(file))
        return real_io_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", any_open)
    monkeypatch.setattr(io, "open", any_io_open)
    yield seen


def _artifacts_in(paths: list[str]) -> list[str]:
    return [p for p in paths if machine.is_artifact(Path(p).name)]


def test_list_never_opens_an_artifact(project: Project, task_in, opened: list[str]) -> None:
    task_in("test_design:approved", name="far-along")
    task_in("research", name="early")
    opened.clear()

    result = project.run("--list")

    assert result.rc == 0
    assert "far-along" in result.out and "early" in result.out
    assert any(Path(p).name == ".state" for p in opened), "the probe must see .state reads"
    assert _artifacts_in(opened) == []


def test_list_json_never_opens_an_artifact(project: Project, task_in, opened: list[str]) -> None:
    task_in("implement", name="coding")
    opened.clear()

    assert project.run("--list", "--json").rc == 0
    assert _artifacts_in(opened) == []


def test_task_view_reads_only_its_own_task(project: Project, task_in, opened: list[str]) -> None:
    """`--task` on one task of many opens nothing in the other task folders."""
    task_in("design", name="mine")
    task_in("implement", name="other")
    opened.clear()

    assert project.run("--task", "mine").rc == 0
    assert opened, "the probe must see the task's own reads"
    assert not [p for p in opened if f"{os.sep}other{os.sep}" in p or p.endswith(f"{os.sep}other")]
