"""The pre-commit framework's route, as docs/adopting.md gives it, with the real `pre-commit`.

`.pre-commit-config.yaml` says which hooks git runs, so it is one of the guard's files: a
person commits it alone in any phase (it is never source), the agent never writes it, and
the audit shows every commit of it. The hooks it names refuse code during research and add
the `Task:` trailer in implement, as automaton-install's own git hooks do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import (
    BIN,
    ROOT,
    Project,
    commit_source_and_task,
    denied,
    git_with_hooks,
    hook_command,
)

# What docs/adopting.md tells a team to commit, word for word (the last test checks it is there).
PRE_COMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: automaton-workflow
        name: automaton-rules workflow guard
        entry: automaton-git-hook pre-commit
        language: system
        pass_filenames: false
        always_run: true
        stages: [pre-commit, pre-merge-commit]
      - id: automaton-task-trailer
        name: automaton-rules Task trailer
        entry: automaton-git-hook commit-msg
        language: system
        stages: [commit-msg]
"""
PRE_COMMIT_INSTALL = (
    "pre-commit install --hook-type pre-commit --hook-type pre-merge-commit --hook-type commit-msg"
)


def pre_commit() -> str:
    """The real `pre-commit`, installed with the test extra."""
    found = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed: bash scripts/setup.sh test installs it")
    return found


@pytest.fixture
def pre_commit_repo(
    project: Project, task_in, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Project:
    """A repository whose hooks pre-commit installed from the documented configuration."""
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    git_with_hooks(project.root, "init", "-q")
    commit_source_and_task(project, task_in, "--no-verify")
    (project.root / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    subprocess.run(
        [pre_commit(), *PRE_COMMIT_INSTALL.split()[1:]],
        cwd=project.root,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return project


def test_the_configuration_is_committed_alone_during_research(pre_commit_repo: Project) -> None:
    git_with_hooks(pre_commit_repo.root, "add", ".pre-commit-config.yaml")
    proc = git_with_hooks(
        pre_commit_repo.root, "commit", "-m", "run the workflow's hooks", check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "automaton-rules workflow guard" in proc.stdout + proc.stderr  # pre-commit ran it


def test_code_during_research_is_refused_by_the_pre_commit_route(pre_commit_repo: Project) -> None:
    git_with_hooks(pre_commit_repo.root, "add", ".pre-commit-config.yaml")
    git_with_hooks(pre_commit_repo.root, "commit", "-q", "-m", "hooks")
    (pre_commit_repo.root / "src" / "app.py").write_text("x = 2\n")
    git_with_hooks(pre_commit_repo.root, "add", "src/app.py")
    proc = git_with_hooks(pre_commit_repo.root, "commit", "-m", "sneak", check=False)
    assert proc.returncode != 0
    assert "refusing to commit source files" in proc.stdout + proc.stderr


def test_in_implement_the_commit_passes_and_gets_its_trailer(pre_commit_repo: Project) -> None:
    git_with_hooks(pre_commit_repo.root, "add", ".pre-commit-config.yaml")
    git_with_hooks(pre_commit_repo.root, "commit", "-q", "-m", "hooks")
    pre_commit_repo.advance(
        "guarded", ["research:awaiting_approval", "research:approved", "implement"]
    )
    (pre_commit_repo.root / "src" / "app.py").write_text("x = 2\n")
    git_with_hooks(pre_commit_repo.root, "add", "-A")
    proc = git_with_hooks(pre_commit_repo.root, "commit", "-m", "implement it", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = git_with_hooks(pre_commit_repo.root, "log", "-1", "--format=%B").stdout
    assert message.strip().endswith("Task: guarded")


def test_the_shipped_manifest_is_one_pre_commit_accepts() -> None:
    proc = subprocess.run(
        [pre_commit(), "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_agent_never_writes_the_configuration(project: Project, task_in) -> None:
    """In implement, where code is the agent's to edit: no edit tool, no shell write."""
    task_in("implement", name="guarded")
    target = project.root / ".pre-commit-config.yaml"
    write = {
        "hook_event_name": "PreToolUse",
        "cwd": str(project.root),
        "tool_name": "Write",
        "tool_input": {"file_path": str(target), "content": "repos: []\n"},
    }
    reason = denied("claude", hook_command("claude", json.dumps(write)))
    assert reason == (
        f"DENIED: File '{target}' is where git's hooks live or which run; only the user changes it."
    )
    shell = {
        **write,
        "tool_name": "Bash",
        "tool_input": {"command": f"echo 'repos: []' > {target}"},
    }
    reason = denied("claude", hook_command("claude", json.dumps(shell)))
    assert reason is not None and "is where git's hooks live or which run" in reason


def test_the_audit_shows_every_commit_of_it(automaton_project) -> None:
    automaton_project.task("guarded", "research")
    automaton_project.commit({".pre-commit-config.yaml": PRE_COMMIT_CONFIG}, "hooks")
    codes = [(f["code"], f["path"]) for f in automaton_project.audit().findings]
    assert ("AR501", ".pre-commit-config.yaml") in codes
    assert not any(code == "AR301" for code, _ in codes)


def test_the_docs_give_this_route() -> None:
    text = (ROOT / "docs" / "adopting.md").read_text(encoding="utf-8")
    assert PRE_COMMIT_CONFIG in text
    assert PRE_COMMIT_INSTALL in text
