"""Temporary projects and ways to run status.py on them.

`Project` is the shipped pytest plugin's `AutomatonProject` (automaton_rules/testing.py)
with the shorthands these tests were written with, so each helper has one home.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject, Run, route_to
from helpers.checkout import ROOT, STATUS_PY
from helpers.past import git_with_hooks


class Result(Run):
    """One status.py call, with `.rc` and `.json` read as the tests were written."""

    @property
    def rc(self) -> int:
        return self.exit_code

    @property
    def json(self) -> Any:
        return json.loads(self.out)


class Project(AutomatonProject):
    """A temporary project folder with helpers to drive and inspect its tasks."""

    @property
    def tasks(self) -> Path:
        return self.tasks_dir

    def run(self, *args: str) -> Result:
        """Call status.py in-process (fast), with --project pointing here."""
        result = super().run(*args)
        return Result(result.exit_code, result.out, result.err)

    def script(self, *args: str, cwd: Path | None = None) -> Result:
        """Call `python status.py` in a subprocess, exactly as an agent does."""
        proc = status_py(*args, cwd=cwd or self.root)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def write(self, name: str, filename: str, text: str | None = None) -> Path:
        """An artifact with some content; a VERDICT.md's passes, as only PASS completes."""
        path = self.task_dir(name) / filename
        if text is None:
            text = "content\nVerdict: PASS\n" if filename == "VERDICT.md" else "content\n"
        path.write_text(text)
        return path

    def state(self, name: str) -> str:
        return (self.task_dir(name) / store.STATE).read_text()

    def approvals(self, name: str) -> list[str]:
        return (self.task_dir(name) / store.APPROVALS).read_text().splitlines()

    def create(self, name: str) -> None:
        self._ok("--create-task", name)


# The states a task passes through from `new` to a state: the same walk rule authors use.
path_to = route_to


def commit_source_and_task(project: Project, task_in, *hooks_skipped: str) -> Project:
    """Commit `src/app.py` (hooks skipped), then task `guarded` in research (`hooks_skipped`
    adds `--no-verify`, for a repository whose hooks are not installed yet)."""
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    git_with_hooks(project.root, "add", "src")
    git_with_hooks(project.root, "commit", "-q", "--no-verify", "-m", "initial")
    task_in("research", name="guarded")
    git_with_hooks(project.root, "add", ".automaton")
    git_with_hooks(project.root, "commit", "-q", *hooks_skipped, "-m", "track the task")
    return project


def implement(project: AutomatonProject, name: str) -> None:
    """Take task `name` from research through its approval into implement."""
    project.advance(name, ["research:awaiting_approval", "research:approved", "implement"])


def put(
    project: AutomatonProject, state: str, name: str = "demo-task", artifacts: tuple = ()
) -> str:
    """A task folder laid out as --create-task makes it, set to `state`, with artifacts.

    Written directly (not through --create-task) to keep the several hundred parametrized
    cases fast; --create-task itself is tested in tests/test_status.py.
    """
    folder = project.task_dir(name)
    folder.mkdir(parents=True)
    (folder / ".state").write_text(f"{state}\n")
    (folder / ".state.approvals").write_bytes(b"")
    for artifact in artifacts:
        verdict = "Verdict: PASS\n" if artifact == "VERDICT.md" else ""
        (folder / artifact).write_text(f"# {artifact}\n\nsome content\n{verdict}")
    return name


PROMPT = 'approval = "prompt"\n'
# The two phases the guard's tests try each case in: one where it refuses writes to the
# project's source (research), one where it allows them (implement).
GUARD_PHASES = ("research", "implement")
# The keys every JSON answer begins with, in order (DESIGN.md §7).
ENVELOPE = ["schema_version", "tool", "command", "ok", "exit_code"]


def awaiting(project: AutomatonProject, name: str = "login") -> str:
    """A task at design's gate, walked there before any approval mode or listener (the
    configuration is set aside for the walk and put back)."""
    config = project.root / "automaton.toml"
    saved = config.read_text() if config.exists() else None
    config.unlink(missing_ok=True)
    project.task(name, "design:awaiting_approval")
    if saved is not None:
        config.write_text(saved)
    return name


def current_state(project: AutomatonProject, name: str) -> str:
    """The state a task's .state holds, without its newline."""
    return (project.task_dir(name) / store.STATE).read_text().strip()


def status_env(**extra: str) -> dict[str, str]:
    """The environment status.py runs in from this checkout, with `extra` variables."""
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def status_py(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python status.py ARGS` in a fresh interpreter, as an agent or CI runs it."""
    return subprocess.run(
        [sys.executable, str(STATUS_PY), *args],
        cwd=cwd,
        env=status_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def empty_project(tmp_path: Path, name: str = "proj") -> Path:
    """A project folder with an empty tasks folder, made by hand."""
    root = tmp_path / name
    (root / ".automaton" / "tasks").mkdir(parents=True)
    return root


def run(root: Path, *args: str) -> tuple[int, str]:
    """status.py in-process against the project at `root`; stdout and stderr together."""
    result = AutomatonProject(root).run(*args)
    return result.exit_code, result.out + result.err


def walk(root: Path, name: str, state: str) -> None:
    """Create a task and take it to `state` through status.py."""
    AutomatonProject(root).task(name, state)
