"""Issue 11, section 6: context that survives compaction.

Each harness runs `automaton-hook --harness X` when a session starts, resumes or (where
it can) is compacted; the adapter dispatches on the event it receives and answers with
the project's active tasks, each with its phase, what is allowed and forbidden now and
the next step, in the harness's additional-context format. `automaton-install` puts these
hooks in place beside the pre-tool ones, idempotently, and `--uninstall` takes them out.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import Project, answered, context_of, recorded, replay, run_hook, run_install

from automaton_rules.cli import install_files
from automaton_rules.core.config import load_config
from automaton_rules.core.project import find_project
from automaton_rules.guards.hooks import adapter as harness
from automaton_rules.guards.hooks import harnesses, session, shell_plan
from automaton_rules.guards.hooks.harnesses import NAMES as HARNESSES
from automaton_rules.support.context import STATUS_SCRIPT


@pytest.mark.parametrize("name", HARNESSES)
def test_a_session_start_yields_the_tasks_phase(guarded: Project, name: str) -> None:
    text = context_of(name, replay(name, "session-start.json", guarded.root))
    assert "- guarded: research phase (state research)" in text
    assert "  Allowed now: Read project files; Ask clarifying questions; Write SPEC.md" in text
    assert "  Forbidden now: Edit code;" in text
    assert (
        "  Next step: write SPEC.md, then move on with python3 ~/.automaton/scripts/status.py "
        "--task guarded --transition research:awaiting_approval" in text
    )


@pytest.mark.parametrize("name", HARNESSES)
def test_after_compaction_the_agent_is_told_its_phase_again(guarded: Project, name: str) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    text = context_of(name, replay(name, "session-start.json", guarded.root))
    assert "- guarded: implement phase (state implement)" in text
    assert "Allowed now: Edit code; Write and run tests; Write IMPLEMENTATION.md" in text


def test_the_answer_is_in_each_harnesss_context_format(guarded: Project) -> None:
    """Exactly the harness's documented shape; where it names the event, the event it got."""
    for name in HARNESSES:
        payload, given = recorded(name, "session-start.json", guarded.root)
        found = answered(name, "context", run_hook(name, payload, *given))
        assert found is not None and "guarded" in found["TEXT"], name
        sent = json.loads(payload).get("hook_event_name") or given[-1]
        assert found.get("EVENT", sent) == sent, name


def test_a_subagent_start_gets_the_same_context(guarded: Project) -> None:
    proc = replay("claude", "subagent-start.json", guarded.root)
    body = json.loads(proc.stdout)["hookSpecificOutput"]
    assert body["hookEventName"] == "SubagentStart"
    assert "- guarded: research phase" in body["additionalContext"]


def test_one_command_serves_every_hook(guarded: Project) -> None:
    """The same `automaton-hook --harness claude` denies a tool call and starts a session."""
    edit = {
        "cwd": str(guarded.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(guarded.root / "app.py"), "content": "x\n"},
    }
    denied = json.loads(run_hook("claude", json.dumps(edit)).stdout)["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny"
    started = {**edit, "hook_event_name": "SessionStart", "source": "startup"}
    assert "research phase" in context_of("claude", run_hook("claude", json.dumps(started)))


def test_every_active_task_is_listed_and_complete_ones_are_not(project: Project, task_in) -> None:
    task_in("complete", name="done")
    task_in("bug_find", name="hunting")
    task_in("design:awaiting_approval", name="planning")
    text = context_of("claude", replay("claude", "session-start.json", project.root))
    assert "- hunting: bug_find phase (state bug_find)" in text
    assert "Fix the bugs you find (report them instead)" in text
    assert "- planning: design phase (state design:awaiting_approval)" in text
    assert (
        "ask the user to approve it (the user types `approve planning` in this chat, or runs "
        f"{STATUS_SCRIPT} --task planning --approve --project {project.root.resolve()} in a "
        "terminal)"
    ) in text
    assert "done" not in text.split("Active tasks:")[1]


def test_without_an_active_task_the_agent_is_told_to_create_one(project: Project) -> None:
    project.tasks.mkdir(parents=True)
    text = context_of("gemini", replay("gemini", "session-start.json", project.root))
    assert "No task is active. Before changing code, create one:" in text


def test_outside_any_project_there_is_nothing_to_say(tmp_path: Path) -> None:
    for name in HARNESSES:
        assert context_of(name, replay(name, "session-start.json", tmp_path)) == "", name


def test_a_broken_configuration_is_said_but_never_blocks_a_start(guarded: Project) -> None:
    (guarded.root / "automaton.toml").write_text("nonsense = 1\n")
    text = context_of("codex", replay("codex", "session-start.json", guarded.root))
    assert text.startswith("automaton-rules could not read this project's workflow (")
    assert "Unknown key 'nonsense'" in text


def test_the_python_api(guarded: Project) -> None:
    found = find_project(guarded.root)
    shell = shell_plan.describe(load_config(found.root), "claude", found.root)
    text = session.context(found, "open", shell)
    assert text.startswith(session.INTRO) and f"\n{shell}\n" in text
    payload = json.loads(recorded("claude", "session-start.json", guarded.root)[0])
    assert harness.session_context(payload) == text
    out, err, code = harness.answer(payload, "claude", {})
    assert (json.loads(out)["hookSpecificOutput"]["additionalContext"], err, code) == (text, "", 0)


def test_many_tasks_are_counted_not_listed(project: Project) -> None:
    for index in range(session.MAX_TASKS + 3):
        folder = project.task_dir(f"task-{index:02}")
        folder.mkdir(parents=True)
        (folder / ".state").write_text("research\n")
    text = session.context(find_project(project.root))
    assert text.count(": research phase") == session.MAX_TASKS
    listed = f"{STATUS_SCRIPT} --list --project {project.root.resolve()}"
    assert f"... and 3 more ({listed})." in text


# --------------------------------------------------------------------------------------
# automaton-install puts the session hooks in place, and takes them out again
# --------------------------------------------------------------------------------------


@pytest.fixture
def home_and_project(tmp_path: Path) -> tuple[Path, Path]:
    home, folder = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    (folder / ".automaton" / "tasks").mkdir(parents=True)
    return home, folder


def read_json(folder: Path, relative: str) -> dict:
    return json.loads((folder / relative).read_text())


def test_install_puts_a_session_hook_in_every_harness(home_and_project: tuple[Path, Path]) -> None:
    home, folder = home_and_project
    proc = run_install(home, "--project", str(folder), "--harness", "all")
    assert proc.returncode == 0, proc
    command = harnesses.get("claude").command()
    hooks = read_json(folder, ".claude/settings.json")["hooks"]
    ours = [
        {"hooks": [{"type": "command", "command": command, "timeout": 10, "onFailure": "block"}]}
    ]
    # No matcher: every source, `fork` (Claude Code 2.1.214) and whatever comes next.
    assert hooks["SessionStart"] == ours
    assert hooks["SubagentStart"] == ours
    codex = read_json(folder, ".codex/hooks.json")["hooks"]
    assert "matcher" not in codex["SessionStart"][0]
    assert "matcher" not in codex["SubagentStart"][0]
    gemini = read_json(folder, ".gemini/settings.json")
    assert gemini["hooksConfig"] == {"enabled": True}
    assert "matcher" not in gemini["hooks"]["SessionStart"][0]  # exact names: every start
    cursor = read_json(folder, ".cursor/hooks.json")["hooks"]
    cursor_command = harnesses.get("cursor").command()
    assert cursor["sessionStart"] == [{"command": cursor_command}]
    assert all(entry["failClosed"] is True for entry in cursor["preToolUse"])
    assert all(entry["failClosed"] is True for entry in cursor["beforeShellExecution"])
    plugin = (folder / ".opencode" / "plugin" / "automaton-guard.js").read_text()
    assert f"const LOOKUP = {json.dumps(install_files.HOOK_LOOKUP)};" in plugin
    assert '"experimental.session.compacting"' in plugin
    assert harnesses.CODEX_TRUST in proc.stdout.splitlines()


def test_the_installed_session_hook_answers(home_and_project: tuple[Path, Path]) -> None:
    """The command the installer wrote, run on a recorded SessionStart, gives context."""
    home, folder = home_and_project
    Project(folder).task("ready", "implement")
    assert run_install(home, "--project", str(folder), "--harness", "claude").returncode == 0
    entry = read_json(folder, ".claude/settings.json")["hooks"]["SessionStart"][0]
    proc = subprocess.run(
        entry["hooks"][0]["command"],
        shell=True,
        env={**os.environ, "HOME": str(home)},  # the launcher automaton-install wrote
        cwd=folder,  # where Claude Code runs its hooks, as CLAUDE_PROJECT_DIR names it
        input=recorded("claude", "session-start.json", folder)[0],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "- ready: implement phase (state implement)" in context_of("claude", proc)


def test_installing_twice_changes_nothing_and_uninstall_removes_the_session_hooks(
    home_and_project: tuple[Path, Path],
) -> None:
    home, folder = home_and_project
    (folder / ".gemini").mkdir()
    (folder / ".gemini" / "settings.json").write_text('{"theme": "dark"}\n')
    args = ("--project", str(folder), "--harness", "all")
    assert run_install(home, *args).returncode == 0
    again = run_install(home, *args)
    assert (again.returncode, again.stdout) == (0, "nothing to change\n")
    assert run_install(home, *args, "--uninstall").returncode == 0
    assert read_json(folder, ".gemini/settings.json") == {"theme": "dark"}
    for relative in (".claude/settings.json", ".codex/hooks.json", ".cursor/hooks.json"):
        assert not (folder / relative).exists(), relative


def test_an_older_install_gains_the_session_hooks_and_fail_closed(
    home_and_project: tuple[Path, Path],
) -> None:
    """Upgrading adds what a later release added, and keeps what the user tuned."""
    home, folder = home_and_project
    old = {
        "version": 1,
        "hooks": {
            "beforeShellExecution": [{"command": "automaton-hook --harness cursor", "timeout": 5}],
            "preToolUse": [{"command": "automaton-hook --harness cursor", "matcher": "Write"}],
        },
    }
    (folder / ".cursor").mkdir()
    (folder / ".cursor" / "hooks.json").write_text(json.dumps(old))
    assert run_install(home, "--project", str(folder), "--harness", "cursor").returncode == 0
    cursor = read_json(folder, ".cursor/hooks.json")["hooks"]
    command = install_files.hook_command("automaton-hook", "--harness", "cursor")
    assert cursor["beforeShellExecution"] == [
        {"command": command, "timeout": 5, "failClosed": True}
    ]
    assert cursor["preToolUse"][0]["matcher"] == "Write"
    assert cursor["preToolUse"][0]["failClosed"] is True
    assert len(cursor["sessionStart"]) == 1


def test_a_gemini_setting_that_turns_hooks_off_is_reported(
    home_and_project: tuple[Path, Path],
) -> None:
    home, folder = home_and_project
    (folder / ".gemini").mkdir()
    path = folder / ".gemini" / "settings.json"
    path.write_text('{"hooksConfig": {"enabled": false}}\n')
    proc = run_install(home, "--project", str(folder), "--harness", "gemini")
    assert proc.returncode == 0, proc
    assert harnesses.GEMINI_OFF.format(path=path) in proc.stdout.splitlines()
    assert read_json(folder, ".gemini/settings.json")["hooksConfig"] == {"enabled": False}


def test_in_signed_mode_the_agent_is_told_the_user_signs(project: Project, task_in) -> None:
    task_in("design:awaiting_approval", name="planning")
    (project.root / "automaton.toml").write_text('approval = "signed"\n')
    text = context_of("claude", replay("claude", "session-start.json", project.root))
    signs = f"{STATUS_SCRIPT} --task planning --approve --approver ID --project"
    assert f"the user signs in a terminal: {signs} {project.root.resolve()})" in text


@pytest.mark.parametrize("first, then", [("claude", "cursor"), ("cursor", "claude")])
def test_cursor_and_claude_hooks_in_one_project_are_reported(
    home_and_project: tuple[Path, Path], first: str, then: str
) -> None:
    """Cursor with its third-party configs on runs `.claude/settings.json`'s hooks too
    (cursor.com/docs/reference/third-party-hooks: "All matching hooks from every source
    run"): the user is told, whichever harness is installed second."""
    home, folder = home_and_project
    alone = run_install(home, "--project", str(folder), "--harness", first)
    assert alone.returncode == 0, alone
    assert harnesses.CURSOR_TWICE not in alone.stdout.splitlines()
    both = run_install(home, "--project", str(folder), "--harness", then)
    assert both.returncode == 0, both
    assert harnesses.CURSOR_TWICE in both.stdout.splitlines()


def test_cursor_beside_other_harnesses_is_not_reported(home_and_project: tuple[Path, Path]) -> None:
    home, folder = home_and_project
    for name in ("codex", "cursor"):
        proc = run_install(home, "--project", str(folder), "--harness", name)
        assert proc.returncode == 0, proc
        assert harnesses.CURSOR_TWICE not in proc.stdout.splitlines()
