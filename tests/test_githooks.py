"""The git hooks in temporary repositories, through git itself (core.hooksPath)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, Project, git_with_hooks

from automaton_rules.cli import install_files
from automaton_rules.support.context import STATUS_SCRIPT


def test_a_commit_of_code_during_research_is_refused(hooked_repo: Project) -> None:
    (hooked_repo.root / "src" / "app.py").write_text("x = 2\n")
    git_with_hooks(hooked_repo.root, "add", "src/app.py")
    proc = git_with_hooks(hooked_repo.root, "commit", "-m", "sneak", check=False)
    assert proc.returncode != 0
    assert "refusing to commit source files while no task is in implement" in proc.stderr
    assert "guarded (research)" in proc.stderr
    assert "src/app.py" in proc.stderr
    # and what to do next: the task's own next step, a new task, or commit the rest alone
    root = hooked_repo.root.resolve()
    assert (
        f"Next: take the task this change belongs to through its phases to implement "
        f"({STATUS_SCRIPT} --task guarded --project {root} shows the next step), or start "
        f"one for it ({STATUS_SCRIPT} --create-task NAME --project {root}); to commit the "
        "rest now, unstage the source files (git restore --staged FILE)."
    ) in proc.stderr.splitlines()


def test_during_implement_the_commit_gets_the_task_trailer(hooked_repo: Project) -> None:
    hooked_repo.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    (hooked_repo.root / "src" / "app.py").write_text("x = 2\n")
    git_with_hooks(hooked_repo.root, "add", "-A")
    git_with_hooks(hooked_repo.root, "commit", "-q", "-m", "implement it")
    message = git_with_hooks(hooked_repo.root, "log", "-1", "--format=%B").stdout
    assert message.strip().endswith("Task: guarded")


def test_a_trailer_naming_no_task_is_refused(hooked_repo: Project) -> None:
    hooked_repo.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    (hooked_repo.root / "src" / "app.py").write_text("x = 3\n")
    git_with_hooks(hooked_repo.root, "add", "-A")
    proc = git_with_hooks(
        hooked_repo.root, "commit", "-m", "work\n\nTask: nonexistent", check=False
    )
    assert proc.returncode != 0
    assert "names no task of this project: nonexistent" in proc.stderr


def test_a_staged_hand_edit_of_state_is_refused(hooked_repo: Project) -> None:
    (hooked_repo.task_dir("guarded") / ".state").write_text("implement\n")
    git_with_hooks(hooked_repo.root, "add", "-A")
    proc = git_with_hooks(hooked_repo.root, "commit", "-m", "skip ahead", check=False)
    assert proc.returncode != 0
    assert "refusing to commit hand-edited workflow state" in proc.stderr
    assert (
        ".automaton/tasks/guarded/.state says 'implement' but its history ends at 'research'"
        in (proc.stderr)
    )


def committed(root: Path, message: str) -> list[str]:
    """Commit what is staged through the hooks; the files the new commit holds, once it is
    there with this message (its trailer aside) and nothing is left staged."""
    head = git_with_hooks(root, "rev-parse", "HEAD", check=False).stdout.strip()
    proc = git_with_hooks(root, "commit", "-m", message, check=False)
    assert proc.returncode == 0, proc.stderr
    assert git_with_hooks(root, "rev-parse", "HEAD").stdout.strip() != head, "no new commit"
    assert git_with_hooks(root, "log", "-1", "--format=%s").stdout.strip() == message
    assert git_with_hooks(root, "diff", "--cached", "--name-only").stdout == ""
    return git_with_hooks(root, "show", "--name-only", "--format=", "HEAD").stdout.split()


def test_state_written_by_status_py_commits_fine(hooked_repo: Project) -> None:
    hooked_repo.write("guarded", "SPEC.md", "# Spec\n")
    assert (
        hooked_repo.run("--task", "guarded", "--transition", "research:awaiting_approval").rc == 0
    )
    git_with_hooks(hooked_repo.root, "add", "-A")
    files = committed(hooked_repo.root, "spec drafted")
    folder = ".automaton/tasks/guarded"
    assert f"{folder}/.state" in files and f"{folder}/.state.history" in files
    assert f"{folder}/SPEC.md" in files


def test_markdown_commits_need_no_edit_phase(hooked_repo: Project) -> None:
    """The same hook that refuses src/app.py in research lets documentation through."""
    (hooked_repo.root / "NOTES.md").write_text("notes\n")
    git_with_hooks(hooked_repo.root, "add", "NOTES.md")
    assert committed(hooked_repo.root, "notes") == ["NOTES.md"]
    (hooked_repo.root / "src" / "app.py").write_text("x = 5\n")  # the control: code is refused
    git_with_hooks(hooked_repo.root, "add", "src/app.py")
    assert git_with_hooks(hooked_repo.root, "commit", "-m", "code", check=False).returncode != 0


def test_outside_an_automaton_project_the_hooks_stay_out_of_the_way(tmp_path: Path) -> None:
    git_with_hooks(tmp_path, "init", "-q")
    git_with_hooks(tmp_path, "config", "core.hooksPath", str(ROOT / "githooks"))
    (tmp_path / "a.py").write_text("x\n")
    git_with_hooks(tmp_path, "add", "a.py")
    proc = git_with_hooks(tmp_path, "commit", "-m", "plain repo", check=False)
    assert (proc.returncode, proc.stderr) == (0, "")  # nothing said, nothing refused
    assert (
        git_with_hooks(tmp_path, "log", "--format=%B").stdout.strip() == "plain repo"
    )  # no trailer
    assert git_with_hooks(tmp_path, "show", "--name-only", "--format=", "HEAD").stdout.split() == [
        "a.py"
    ]


def test_pre_commit_framework_manifest_names_the_console_script() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "entry: automaton-git-hook pre-commit" in text
    assert "entry: automaton-git-hook commit-msg" in text
    assert "stages: [commit-msg]" in text


def test_an_unstaged_hand_edit_of_state_does_not_open_the_gate(hooked_repo: Project) -> None:
    (hooked_repo.task_dir("guarded") / ".state").write_text("implement\n")  # left unstaged
    (hooked_repo.root / "src" / "app.py").write_text("x = 4\n")
    git_with_hooks(hooked_repo.root, "add", "src/app.py")
    proc = git_with_hooks(hooked_repo.root, "commit", "-m", "code", check=False)
    assert proc.returncode != 0
    assert "changed outside status.py: guarded" in proc.stderr
    upgrade = f"{STATUS_SCRIPT} --upgrade --project {hooked_repo.root.resolve()}"
    assert f"Next: restore it from its history with {upgrade}, then commit." in proc.stderr


def test_a_merge_that_brings_code_during_research_is_refused(hooked_repo: Project) -> None:
    git_with_hooks(hooked_repo.root, "checkout", "-q", "-b", "feature")
    (hooked_repo.root / "src" / "app.py").write_text("x = 2\n")
    git_with_hooks(hooked_repo.root, "commit", "-q", "--no-verify", "-am", "code on a branch")
    git_with_hooks(hooked_repo.root, "checkout", "-q", "-")
    (hooked_repo.root / "NOTES.md").write_text("notes\n")
    git_with_hooks(hooked_repo.root, "add", "NOTES.md")
    git_with_hooks(hooked_repo.root, "commit", "-q", "-m", "notes on the main line")
    proc = git_with_hooks(hooked_repo.root, "merge", "--no-edit", "feature", check=False)
    assert proc.returncode != 0
    assert "refusing to commit source files while no task is in implement" in proc.stderr
    assert "src/app.py" in proc.stderr
    assert (hooked_repo.root / "src" / "app.py").read_text() == "x = 2\n"  # merged, not committed
    assert (
        git_with_hooks(
            hooked_repo.root, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False
        ).returncode
        == 0
    )


def test_a_merge_without_code_goes_through(hooked_repo: Project) -> None:
    git_with_hooks(hooked_repo.root, "checkout", "-q", "-b", "docs")
    (hooked_repo.root / "GUIDE.md").write_text("guide\n")
    git_with_hooks(hooked_repo.root, "add", "GUIDE.md")
    git_with_hooks(hooked_repo.root, "commit", "-q", "-m", "guide")
    git_with_hooks(hooked_repo.root, "checkout", "-q", "-")
    (hooked_repo.root / "NOTES.md").write_text("notes\n")
    git_with_hooks(hooked_repo.root, "add", "NOTES.md")
    git_with_hooks(hooked_repo.root, "commit", "-q", "-m", "notes")
    git_with_hooks(hooked_repo.root, "merge", "--no-edit", "docs")
    assert (
        git_with_hooks(hooked_repo.root, "log", "-1", "--format=%P").stdout.count(" ") == 1
    )  # a merge commit


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        (
            lambda text: text + "research:approved|2030-01-01T00:00:00Z|mallory\n",
            "was not written by --approve",
        ),
        (lambda text: text.replace("|user", "|mallory"), "differs from the approval"),
        (lambda text: "", "is missing from .state.approvals"),
    ],
    ids=["forged", "edited", "deleted"],
)
def test_a_staged_approval_log_the_history_does_not_record_is_refused(
    hooked_repo: Project, tamper, words: str
) -> None:
    hooked_repo.write("guarded", "SPEC.md", "# Spec\n")
    hooked_repo.advance("guarded", ["research:awaiting_approval", "research:approved"])
    git_with_hooks(hooked_repo.root, "add", "-A")
    git_with_hooks(hooked_repo.root, "commit", "-q", "-m", "approved")
    log = hooked_repo.task_dir("guarded") / ".state.approvals"
    log.write_text(tamper(log.read_text()))
    git_with_hooks(hooked_repo.root, "add", "-A")
    proc = git_with_hooks(hooked_repo.root, "commit", "-m", "tamper", check=False)
    assert proc.returncode != 0
    assert "refusing to commit an approval log its history does not record" in proc.stderr
    assert ".automaton/tasks/guarded/.state.approvals: " in proc.stderr
    assert words in proc.stderr


def test_approvals_staged_with_their_history_commit_fine(hooked_repo: Project) -> None:
    hooked_repo.write("guarded", "SPEC.md", "# Spec\n")
    hooked_repo.advance("guarded", ["research:awaiting_approval", "research:approved"])
    git_with_hooks(hooked_repo.root, "add", "-A")
    files = committed(hooked_repo.root, "approved")
    folder = ".automaton/tasks/guarded"
    assert {f"{folder}/.state.approvals", f"{folder}/.state.history"} <= set(files)
    approvals = git_with_hooks(hooked_repo.root, "show", f"HEAD:{folder}/.state.approvals").stdout
    assert approvals.startswith("research:approved|")


def test_an_approval_staged_without_its_history_is_refused(hooked_repo: Project) -> None:
    hooked_repo.write("guarded", "SPEC.md", "# Spec\n")
    hooked_repo.advance("guarded", ["research:awaiting_approval", "research:approved"])
    git_with_hooks(
        hooked_repo.root, "add", str(hooked_repo.task_dir("guarded") / ".state.approvals")
    )
    proc = git_with_hooks(hooked_repo.root, "commit", "-m", "half", check=False)
    assert proc.returncode != 0
    assert "stage .state.history with it" in proc.stderr


def test_the_merge_hook_is_in_githooks_and_the_framework_manifest() -> None:
    script = ROOT / "githooks" / "pre-merge-commit"
    assert os.access(script, os.X_OK)
    assert (
        script.read_text()
        .rstrip()
        .endswith(f"exec sh -c '{install_files.LOOKUP}' automaton-git-hook pre-merge-commit")
    )
    assert "stages: [pre-commit, pre-merge-commit]" in (ROOT / ".pre-commit-hooks.yaml").read_text()


def test_this_repositorys_hooks_refuse_when_the_tool_is_missing(tmp_path: Path) -> None:
    """The same lookup as the installed hooks: no automaton-git-hook, exit 2 and how to
    install it, never a silent pass."""
    if shutil.which("automaton-git-hook", path="/usr/bin:/bin"):
        pytest.skip("automaton-git-hook is installed in /usr/bin or /bin")
    for name in ("pre-commit", "pre-merge-commit", "commit-msg"):
        proc = subprocess.run(
            [str(ROOT / "githooks" / name), str(tmp_path / "MSG")],
            env={"PATH": "/usr/bin:/bin", "HOME": ""},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        assert proc.returncode == 2, (name, proc)
        assert "pip install automaton-rules" in proc.stderr
