"""A pytest plugin for rule authors: temporary projects with tasks in any state, audited.

Installed with the package (entry point `pytest11`), it gives the fixture
`automaton_project`, the way `pytester` serves pytest's own plugin authors:

    def test_my_rule(automaton_project):
        automaton_project.task("login", "design", files={"DESIGN.md": "# no modules"})
        automaton_project.use_plugins("my_rules")
        audit = automaton_project.audit()
        assert audit.codes == ["ACME101"]
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from automaton_rules.cli import entry as cli
from automaton_rules.core import machine

route_to = machine.route_to  # the walk `task()` makes, public for rule authors' tests


def _placeholder(artifact: str) -> str:
    """What the walk writes for an artifact: a heading, and for VERDICT.md a passing
    verdict, since only PASS lets a task complete."""
    verdict = "\nVerdict: PASS\n" if artifact == machine.ARTIFACTS["referee"] else ""
    return f"# {artifact}\n{verdict}"


@dataclass
class Run:
    """One status.py call: exit code and what it printed."""

    exit_code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout parsed as the one JSON object --json prints."""
        return json.loads(self.out)


@dataclass
class Audit:
    """An audit's JSON report, with the text report beside it for eyes and assertions."""

    exit_code: int
    report: dict[str, Any]
    text: str
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        """Rule codes of the findings, in report order."""
        return [f["code"] for f in self.findings]

    @property
    def errors(self) -> list[str]:
        """Broken plugins and broken tasks, by name."""
        return list(self.report.get("errors", []))

    def for_task(self, name: str) -> list[dict[str, Any]]:
        """The findings of one task."""
        return [f for f in self.findings if f["task"] == name]


class AutomatonProject:
    """A throwaway project driven through status.py's own commands."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tasks_dir = root / ".automaton" / "tasks"
        self.plugins: list[str] = []

    def run(self, *args: str) -> Run:
        """Run status.py in-process against this project."""
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main([*args, "--project", str(self.root)])
        return Run(code, out.getvalue(), err.getvalue())

    def task_dir(self, name: str) -> Path:
        """The folder of a task (`parent/sub` for a sub-task)."""
        parent, _, sub = name.partition("/")
        folder = self.tasks_dir / parent
        return folder / machine.SUBTASKS_DIR / sub if sub else folder

    def task(
        self, name: str, state: str = "new", files: Mapping[str, str] | Iterable[str] = ()
    ) -> Path:
        """Create a task and walk it to `state` with real transitions and approvals.

        Each phase's artifact is written as a placeholder when the walk needs it; `files`
        (name to text, or names for placeholder text) are written once the state is reached.
        """
        self._ok("--create-task", name)
        self.advance(name, route_to(state))
        folder = self.task_dir(name)
        contents = files if isinstance(files, Mapping) else {f: f"# {f}\n" for f in files}
        for filename, text in contents.items():
            (folder / filename).write_text(text)
        return folder

    def advance(self, name: str, states: Iterable[str]) -> None:
        """Walk an existing task through `states` with real transitions and approvals.

        Each phase's artifact is written as a placeholder when the walk needs it.
        """
        folder = self.task_dir(name)
        for target in states:
            current = (folder / ".state").read_text().strip()
            artifact = machine.required_artifact(current)
            if artifact and not (folder / artifact).exists():
                (folder / artifact).write_text(_placeholder(artifact))
            if machine.is_approved(target):
                self._ok("--task", name, "--approve")
            else:
                self._ok("--task", name, "--transition", target)

    def folder(self, name: str, files: Mapping[str, str] | Iterable[str] = ()) -> Path:
        """A task folder made by hand, without status.py (what category 4 catches)."""
        folder = self.task_dir(name)
        folder.mkdir(parents=True)
        contents = files if isinstance(files, Mapping) else {f: f"# {f}\n" for f in files}
        for filename, text in contents.items():
            (folder / filename).write_text(text)
        return folder

    def write_plugin(self, source: str, name: str = "project_rules") -> str:
        """Write a plugin module into the project and register it by path."""
        path = self.root / f"{name}.py"
        path.write_text(source)
        self.use_plugins(path.name)
        return path.name

    def use_plugins(self, *plugins: str) -> None:
        """Register plugins (module names or .py paths) in the project's automaton.toml."""
        self.plugins += plugins
        listed = ", ".join(json.dumps(p) for p in self.plugins)
        (self.root / "automaton.toml").write_text(f"plugins = [{listed}]\n")

    def git(self, *args: str, when: int | None = None) -> str:
        """Run git in the project (initialising it on first use); `when` fixes commit time."""
        if not (self.root / ".git").exists():
            self._git("init", "-q")
            self._git("config", "user.email", "rules@example.com")
            self._git("config", "user.name", "Rule Author")
        return self._git(*args, when=when)

    def commit(
        self,
        files: Mapping[str, str],
        message: str = "change",
        *,
        task: str | None = None,
        when: int | None = None,
    ) -> str:
        """Write files and commit them; `task` adds the `Task:` trailer the audit reads."""
        for path, text in files.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        self.git("add", "--", *files)
        body = f"{message}\n\nTask: {task}\n" if task else message
        self.git("commit", "-q", "-m", body, when=when)
        return self.git("rev-parse", "HEAD").strip()

    def audit(self, *args: str) -> Audit:
        """Run `--audit` as CI does, returning the JSON report and the text report."""
        raw = self.run("--audit", "--format", "json", *args)
        text = self.run("--audit", *args)
        report = json.loads(raw.out)
        return Audit(raw.exit_code, report, text.out, list(report.get("findings", [])))

    def _ok(self, *args: str) -> None:
        result = self.run(*args)
        if result.exit_code != 0:
            raise AssertionError(f"status.py {' '.join(args)} failed: {result.err or result.out}")

    def _git(self, *args: str, when: int | None = None) -> str:
        env = dict(os.environ)
        if when is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{when} +0000"
        proc = subprocess.run(
            ["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout


@pytest.fixture
def automaton_project(tmp_path: Path) -> AutomatonProject:
    """A temporary project; build tasks with `.task(name, state)` and check them with `.audit()`."""
    root = tmp_path / "project"
    root.mkdir()
    return AutomatonProject(root)


__all__: Sequence[str] = ("Audit", "AutomatonProject", "Run", "automaton_project", "route_to")
