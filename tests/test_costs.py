"""What the read-only views cost in file reads: issue 5's `--list` reads no artifact."""

from __future__ import annotations

import builtins
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Project

from automaton_rules.core import machine


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
