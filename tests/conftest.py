"""Shared fixtures: a temporary project and two ways to run status.py against it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from automaton_rules.cli import entry as cli
from automaton_rules.core import machine, store
from automaton_rules.testing import route_to

ROOT = Path(__file__).resolve().parent.parent
STATUS_PY = ROOT / "status.py"


@dataclass
class Result:
    """What one status.py call printed and returned."""

    rc: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


class Project:
    """A temporary project folder with helpers to drive and inspect its tasks."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.tasks = root / ".automaton" / "tasks"
        self._capsys = capsys

    def run(self, *args: str) -> Result:
        """Call status.py in-process (fast), with --project pointing here."""
        self._capsys.readouterr()
        rc = cli.main([*args, "--project", str(self.root)])
        captured = self._capsys.readouterr()
        return Result(rc, captured.out, captured.err)

    def script(self, *args: str, cwd: Path | None = None) -> Result:
        """Call `python status.py` in a subprocess, exactly as an agent does."""
        proc = subprocess.run(
            [sys.executable, str(STATUS_PY), *args],
            cwd=cwd or self.root,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def task_dir(self, name: str) -> Path:
        parent, _, sub = name.partition("/")
        path = self.tasks / parent
        return path / "subtasks" / sub if sub else path

    def write(self, name: str, filename: str, text: str = "content\n") -> Path:
        path = self.task_dir(name) / filename
        path.write_text(text)
        return path

    def state(self, name: str) -> str:
        return (self.task_dir(name) / store.STATE).read_text()

    def approvals(self, name: str) -> list[str]:
        return (self.task_dir(name) / store.APPROVALS).read_text().splitlines()

    def create(self, name: str) -> None:
        result = self.run("--create-task", name)
        assert result.rc == 0, result

    def advance(self, name: str, path: Iterable[str]) -> None:
        """Walk a task along states, writing each phase's artifact and approving gates."""
        for target in path:
            current = self.state(name).strip()
            artifact = machine.required_artifact(current)
            if artifact and not (self.task_dir(name) / artifact).exists():
                self.write(name, artifact, f"# {artifact}\n")
            if target.endswith(machine.APPROVED):
                result = self.run("--task", name, "--approve")
            else:
                result = self.run("--task", name, "--transition", target)
            assert result.rc == 0, (target, result)


# The states a task passes through from `new` to a state: the same walk rule authors use.
path_to = route_to


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    return Project(root, capsys)


@pytest.fixture
def task_in(project: Project):
    """Create a task and walk it to any state through status.py itself."""

    def make(state: str, name: str = "demo-task") -> str:
        project.create(name)
        project.advance(name, path_to(state))
        assert project.state(name) == f"{state}\n"
        return name

    return make


# The example rules of rules/ are importable by module name in tests.
sys.path.insert(0, str(ROOT / "rules"))
