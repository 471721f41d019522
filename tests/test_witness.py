"""A rewrite the harness drops is seen and closes the session's shell; a sandboxed line that
met the boundary is explained (issue 27, items 7 and 8).

Each test plays the harness: it asks the installed hook about a shell line, runs (or does
not run) what came back as the harness's shell would, then sends the after-event the
harness sends once the tool ran, and asks about the next line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import BIN, Project, denied, hook_command, rewritten

from automaton_rules.guards.hooks import witness
from automaton_rules.guards.sandbox import mechanisms

# harness -> (its pre-tool event, its after-event, its shell tool, the key of the output)
EVENTS = {
    "claude": ("PreToolUse", "PostToolUse", "Bash", "tool_response"),
    "codex": ("PreToolUse", "PostToolUse", "Bash", "tool_response"),
    "gemini": ("BeforeTool", "AfterTool", "run_shell_command", "tool_response"),
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".automaton" / "scripts").mkdir(parents=True)
    (folder / ".automaton" / "scripts" / "status.py").write_text("# installed\n")
    return folder


@pytest.fixture
def repo(project: Project, task_in, home: Path) -> Project:
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works on this machine: nothing is rewritten")
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    task_in("research", name="t1")
    return project


def event(harness: str, which: int, repo: Project, line: str, session: str, **more: object) -> str:
    name, tool = EVENTS[harness][which], EVENTS[harness][2]
    body = {
        "hook_event_name": name,
        "session_id": session,
        "cwd": str(repo.root),
        "tool_name": tool,
        "tool_input": {"command": line},
        **more,
    }
    return json.dumps(body)


def ask(harness: str, repo: Project, home: Path, line: str, session: str) -> str | None:
    """The command the harness is told to run instead (None: as it is, or denied)."""
    proc = hook_command(harness, event(harness, 0, repo, line, session), home=home)
    assert proc.returncode in (0, 2), proc
    return rewritten(harness, proc)


def ran(
    harness: str, repo: Project, home: Path, line: str, session: str, output: str = ""
) -> subprocess.CompletedProcess[str]:
    """The harness's after-event for `line`, once it ran, printing `output`."""
    key = EVENTS[harness][3]
    payload = event(harness, 1, repo, line, session, **{key: {"stdout": "", "stderr": output}})
    proc = hook_command(harness, payload, home=home)
    assert proc.returncode == 0, proc
    return proc


def told(harness: str, proc: subprocess.CompletedProcess[str]) -> str:
    """What an after-event's answer tells the agent ('' for nothing)."""
    if not proc.stdout.strip() or proc.stdout.strip() == "{}":
        return ""
    body = json.loads(proc.stdout)
    specific = body.get("hookSpecificOutput") or {}
    return str(body.get("reason") or specific.get("additionalContext") or "")


def run_rewritten(command: str, repo: Project, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    return subprocess.run(
        ["bash", "-c", command], cwd=repo.root, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("harness", sorted(EVENTS))
def test_a_dropped_rewrite_is_seen_and_closes_the_sessions_shell(
    repo: Project, home: Path, harness: str
) -> None:
    """The harness ran the agent's own line though the hook rewrote it (Claude Code
    releases that ignore `updatedInput` for Bash; Codex before openai/codex#20527)."""
    line = "python3 -c \"open('src/app.py', 'a').write('pwn')\""  # the reader cannot see it
    command = ask(harness, repo, home, line, "s1")
    assert command is not None and command != line
    assert str(witness.folder(harness, "s1", home)) in command  # it marks that it ran
    answer = ran(harness, repo, home, line, "s1")  # the original ran, not the rewrite
    assert "ran this shell command as it was written, not inside the sandbox" in told(
        harness, answer
    )
    proc = hook_command(harness, event(harness, 0, repo, "ls", "s1"), home=home)
    reason = denied(harness, proc) or ""
    assert reason.startswith("DENIED: Earlier in this session"), proc
    # another session of the same harness is not closed
    assert ask(harness, repo, home, "ls", "s2") is not None


@pytest.mark.parametrize("harness", sorted(EVENTS))
def test_a_rewrite_that_ran_is_not_taken_for_a_dropped_one(
    repo: Project, home: Path, harness: str
) -> None:
    """The harness ran the rewritten line, whichever of the two its after-event shows."""
    line = "cat src/app.py"
    command = ask(harness, repo, home, line, "s1")
    assert command is not None
    done = run_rewritten(command, repo, home)
    assert done.returncode == 0 and "x = 1" in done.stdout, done
    assert told(harness, ran(harness, repo, home, line, "s1")) == ""
    assert told(harness, ran(harness, repo, home, command, "s1")) == ""
    assert ask(harness, repo, home, "ls", "s1") is not None


def test_a_line_that_met_the_boundary_is_told_why_and_what_next(repo: Project, home: Path) -> None:
    """`sed: couldn't open temporary file src/...: Read-only file system` said nothing of
    the phase; the after-event now does, with the next step. (A line the reader sees write
    is refused before it runs, with that said: this one only running shows.)"""
    line = "python3 -c \"open('src/app.py', 'a').write('y = 2')\""
    command = ask("claude", repo, home, line, "s1")
    assert command is not None
    done = run_rewritten(command, repo, home)
    assert done.returncode != 0
    assert (repo.root / "src" / "app.py").read_text() == "x = 1\n"
    assert witness.met_boundary(done.stderr), done.stderr
    text = told("claude", ran("claude", repo, home, command, "s1", done.stderr))
    assert "ran inside the sandbox of this project's phase (t1: research)" in text
    assert "outside implement and doc_review the project is read-only" in text
    assert "--transition PHASE" in text


def test_an_ordinary_failure_is_not_explained_as_the_boundary(repo: Project, home: Path) -> None:
    line = "cat no-such-file"
    command = ask("claude", repo, home, line, "s1")
    assert command is not None
    done = run_rewritten(command, repo, home)
    assert done.returncode != 0 and not witness.met_boundary(done.stderr)
    assert told("claude", ran("claude", repo, home, command, "s1", done.stderr)) == ""


def test_a_session_without_an_id_is_rewritten_but_not_watched(repo: Project, home: Path) -> None:
    payload = json.loads(event("claude", 0, repo, "ls", "x"))
    del payload["session_id"]
    command = rewritten("claude", hook_command("claude", json.dumps(payload), home=home))
    assert command is not None
    assert str(home / ".automaton" / witness.RUN) not in command


def test_a_failed_line_is_explained_from_claudes_failure_event(repo: Project, home: Path) -> None:
    """Issue 28's lab: Claude Code 2.1.332 sends a shell line that exited non-zero to
    PostToolUseFailure, with `error`, not to PostToolUse."""
    line = "python3 -c \"open('src/app.py', 'a').write('y = 2')\""
    command = ask("claude", repo, home, line, "s1")
    assert command is not None
    done = run_rewritten(command, repo, home)
    assert done.returncode != 0
    payload = json.loads(event("claude", 1, repo, command, "s1", error=done.stderr))
    payload["hook_event_name"] = "PostToolUseFailure"
    proc = hook_command("claude", json.dumps(payload), home=home)
    assert proc.returncode == 0, proc
    specific = json.loads(proc.stdout)["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUseFailure"
    assert (
        "ran inside the sandbox of this project's phase (t1: research)"
        in (specific["additionalContext"])
    )


def test_old_session_folders_are_pruned_at_session_start(repo: Project, home: Path) -> None:
    """Each rewritten line leaves two empty files: a session start removes the folders of
    sessions untouched for a week, and keeps the others and the board's waits."""
    import os

    run = home / ".automaton" / witness.RUN
    old, fresh, waits = run / "claude-old", run / "claude-fresh", run / "waiting"
    for folder in (old, fresh, waits):
        folder.mkdir(parents=True)
        (folder / "x.asked").touch()
    week = witness.KEPT_DAYS * 86400 + 60
    for folder in (old, waits):
        stamp = os.stat(folder).st_mtime - week
        os.utime(folder, (stamp, stamp))
    payload = json.dumps({"hook_event_name": "SessionStart", "cwd": str(repo.root)})
    assert hook_command("claude", payload, home=home).returncode == 0
    assert not old.exists() and fresh.exists() and waits.exists()


def test_a_line_through_the_launcher_is_known_by_its_mark(tmp_path: Path) -> None:
    """Copilot CLI's rewritten line names its mark relative to ~/.automaton/run
    (`automaton-sandbox --mark`), not by path: the after-event still knows it for the
    session's own, and a line naming another session's mark is not taken for it."""
    home = tmp_path / "home"
    mark = witness.folder("copilot", "s1", home) / "abc.ran"
    line = f"sh -c '. /p/.automaton/hook.sh' automaton-sandbox --mark {witness.mark_id(mark)} -- ls"
    assert witness.mark_id(mark) == f"{mark.parent.name}/abc"
    assert witness.named(mark, line)
    assert not witness.named(mark, "ls")
    other = witness.folder("copilot", "s2", home) / "abc.ran"
    assert not witness.named(other, line)
