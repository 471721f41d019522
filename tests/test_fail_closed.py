"""Fail closed at every edge (issue 19): every case runs the hook command automaton-install
commits, with `sh -c`, as the harness runs it.

A hook that cannot load, is killed or takes too long refuses with one ERROR line; an event
the adapter cannot read whole is denied with a reason, in every harness's format; every
tool that can write is seen (PowerShell, MCP tools, the shells Codex types into); every
session is told the state; a settings change that would stop the hooks is refused.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import Project, denied, hook_command, implement, reader_only, rewritten

from automaton_rules.guards.hooks import harnesses
from automaton_rules.guards.hooks import settings as hook_settings
from automaton_rules.guards.sandbox import mechanisms

REFUSED = "; refused, since a hook that fails must not let the action through.\n"


def tool_event(project: Project, tool: str, tool_input: object, **extra: object) -> str:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "cwd": str(project.root),
            "tool_name": tool,
            "tool_input": tool_input,
            **extra,
        }
    )


# ------------------------------------------------------------ 1. the hook command fails closed


def test_an_install_whose_dependency_cannot_import_refuses(guarded, tmp_path: Path) -> None:
    """A broken dependency: the console script says what cannot load, exit 2, no traceback."""
    shadow = tmp_path / "shadow" / "json"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('json is broken in this install')\n")
    proc = hook_command(
        "claude",
        tool_event(guarded, "Write", {"file_path": str(guarded.root / "src/app.py")}),
        extra_env={"PYTHONPATH": str(shadow.parent)},
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "ERROR: automaton-hook cannot load automaton-rules (ImportError: json is broken in "
        "this install); reinstall it: pip install --force-reinstall automaton-rules\n"
    )


def test_an_install_whose_package_cannot_import_refuses(guarded, tmp_path: Path) -> None:
    """The package itself gone bad: Python exits 1 with a traceback, which every harness
    but Cursor would let through; the hook command makes it 2 and one ERROR line."""
    shadow = tmp_path / "shadow" / "automaton_rules"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('a half-removed install')\n")
    proc = hook_command(
        "codex",
        tool_event(guarded, "Bash", {"command": "ls"}),
        extra_env={"PYTHONPATH": str(shadow.parent)},
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"ERROR: automaton-hook failed (exit status 1): ImportError: a half-removed install"
        f"{REFUSED}"
    )


HANGING_EDIT_RULE = """\
import os, signal, time
from automaton_rules import hookimpl, rule

@rule("HANG1", summary="misbehaves", category="Edits", when=("edit",))
def misbehaves(edit):
    if os.environ.get("HOOK_TEST") == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
    yield from ()

@hookimpl
def register_rules(register):
    register(misbehaves)
"""


@pytest.fixture
def misbehaving(guarded) -> Project:
    """The project in implement, with an edit rule that hangs, or kills its process."""
    implement(guarded, "guarded")
    (guarded.root / "hang_rules.py").write_text(HANGING_EDIT_RULE)
    (guarded.root / "automaton.toml").write_text(
        'plugins = ["hang_rules.py"]\nplugin-timeout-seconds = 120\n'
    )
    return guarded


def test_a_hook_killed_by_a_signal_refuses(misbehaving) -> None:
    event = tool_event(misbehaving, "Write", {"file_path": str(misbehaving.root / "src/app.py")})
    proc = hook_command("claude", event, extra_env={"HOOK_TEST": "kill"})
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"ERROR: automaton-hook was stopped by signal 9{REFUSED}"


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_a_hook_that_runs_past_its_deadline_denies(misbehaving, harness: str) -> None:
    """The adapter keeps its own deadline, below the timeout the harness is given: a
    harness that kills a slow hook lets the action through."""
    event = tool_event(misbehaving, "Write", {"file_path": str(misbehaving.root / "src/app.py")})
    started = time.monotonic()
    proc = hook_command(harness, event, "--deadline", "1")
    assert time.monotonic() - started < 30  # the rule sleeps for 60
    assert denied(harness, proc) == (
        "DENIED: automaton-rules could not check this action (it did not answer within 1 s)."
    )


def handlers(value: object) -> list[dict]:
    """Every hook entry that runs a command, at any depth of a configuration."""
    if isinstance(value, list):
        return [found for item in value for found in handlers(item)]
    if not isinstance(value, dict):
        return []
    own = [value] if {"command", "bash", "action"} & set(value) else []
    return own + [found for item in value.values() for found in handlers(item)]


def test_the_deadline_is_below_the_timeout_each_harness_is_given() -> None:
    from automaton_rules.guards.hooks import adapter as harness

    assert harness.DEADLINE < harnesses.HOOK_TIMEOUT
    for record in harnesses.HARNESSES.values():
        for handler in handlers(record.hooks()):
            timeout = handler.get(record.timeout_key)
            seconds = None if timeout is None else timeout / record.per_second
            assert seconds is None or seconds > harness.DEADLINE, (record.name, handler)


def test_a_bad_deadline_is_bad_usage() -> None:
    proc = hook_command("claude", "{}", "--deadline", "soon")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith(
        "ERROR: automaton-hook: --deadline must be a number of seconds above 0\n"
    )


def test_each_harness_blocks_a_failed_hook_where_it_has_a_setting() -> None:
    """Claude Code's `onFailure: block` (2.1.295) and Cursor's `failClosed` on every hook that
    decides; Codex and Gemini CLI have no such setting, and rely on the command's exit 2."""
    claude = harnesses.get("claude").hooks()["hooks"]
    for event, entries in claude.items():
        if event == "Stop":  # a Stop hook that cannot run lets the agent stop, as before
            assert all("onFailure" not in h for e in entries for h in e["hooks"])
            continue
        assert all(h["onFailure"] == "block" for e in entries for h in e["hooks"]), event
    cursor = harnesses.get("cursor").hooks()["hooks"]
    for event in ("beforeShellExecution", "beforeMCPExecution", "preToolUse"):
        assert all(entry["failClosed"] is True for entry in cursor[event]), event


# ------------------------------------------------------------ 2. ill-formed input is refused
# In the hostile-input suite: tests/test_hostile.py, "Hook events the adapter cannot read".


# ------------------------------------------------------------ 3. every tool that can write


def test_powershell_is_in_claudes_matcher() -> None:
    matcher = harnesses.get("claude").hooks()["hooks"]["PreToolUse"][0]["matcher"]
    assert "PowerShell" in matcher.split("|")
    assert "mcp__.*" in matcher.split("|")


@pytest.mark.parametrize(
    "line",
    [
        "Get-ChildItem src",
        "Get-Content src/app.py | Select-String x",
        "git status; git log -n 3",
        "Get-ChildItem -Recurse | Where-Object Length",
    ],
)
def test_a_powershell_read_passes_in_research(guarded, line: str) -> None:
    event = tool_event(guarded, "PowerShell", {"command": line})
    assert denied("claude", hook_command("claude", event)) is None


@pytest.mark.parametrize(
    "line",
    [
        "Set-Content src/app.py 'x = 2'",
        "Get-Content a.txt > src/app.py",
        "Remove-Item src -Recurse",
        "& python -c 'print(1)'",
        "$x = 'src/app.py'; Clear-Content $x",
        "Get-ChildItem | ForEach-Object { Remove-Item $_ }",
    ],
)
def test_a_powershell_line_that_is_not_plainly_a_read_is_refused_outside_an_edit_phase(
    guarded, line: str
) -> None:
    event = tool_event(guarded, "PowerShell", {"command": line})
    reason = denied("claude", hook_command("claude", event))
    assert reason is not None and reason.startswith("DENIED: No task in project"), reason
    assert reason.endswith(
        "This shell command writes files it names only when it runs (a PowerShell line)."
    )
    implement(guarded, "guarded")
    assert denied("claude", hook_command("claude", event)) is None


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("Set-Content automaton.toml 'approval = \"open\"'", "is the workflow's configuration"),
        ("python status.py --task guarded --approve", "Approval is the user's decision"),
        ("Remove-Item .automaton/tasks/guarded/.state", "workflow state"),
    ],
)
def test_a_powershell_line_naming_the_guards_files_is_refused_in_every_phase(
    guarded, line: str, said: str
) -> None:
    implement(guarded, "guarded")
    reason = denied(
        "claude", hook_command("claude", tool_event(guarded, "PowerShell", {"command": line}))
    )
    assert reason is not None and said in reason, reason


MCP_WRITES = {
    "claude": ("mcp__filesystem__write_file", {"content": "x"}),
    "codex": ("mcp__filesystem__edit_file", {"edits": [{"oldText": "x", "newText": "y"}]}),
    "gemini": ("mcp_filesystem_write_file", {"content": "x"}),
    "opencode": ("filesystem_write_file", {"content": "x"}),
}


@pytest.mark.parametrize("harness", sorted(MCP_WRITES))
def test_an_mcp_tool_that_writes_is_an_edit_of_its_path(guarded, harness: str) -> None:
    tool, arguments = MCP_WRITES[harness]
    event = tool_event(guarded, tool, {"path": str(guarded.root / "src/app.py"), **arguments})
    reason = denied(harness, hook_command(harness, event))
    assert reason is not None and reason.startswith("DENIED: No task in project"), reason
    implement(guarded, "guarded")
    assert denied(harness, hook_command(harness, event)) is None
    config = tool_event(guarded, tool, {"path": str(guarded.root / "automaton.toml"), **arguments})
    reason = denied(harness, hook_command(harness, config))
    assert reason is not None and "is the workflow's configuration" in reason


def test_cursors_mcp_event_carries_its_input_as_json_text(guarded) -> None:
    """Cursor's beforeMCPExecution names the bare tool and sends its input as a string."""
    payload = json.dumps(
        {
            "hook_event_name": "beforeMCPExecution",
            "workspace_roots": [str(guarded.root)],
            "tool_name": "move_file",
            "tool_input": json.dumps(
                {"source": str(guarded.root / "src/app.py"), "destination": "/tmp/elsewhere.py"}
            ),
            "command": "npx @modelcontextprotocol/server-filesystem",
        }
    )
    reason = denied("cursor", hook_command("cursor", payload))
    assert reason is not None and reason.startswith("DENIED: No task in project"), reason


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("mcp__filesystem__read_text_file", {"path": "src/app.py"}),
        ("mcp__github__create_issue", {"title": "x", "body": "y"}),
        ("mcp__memory__create_entities", {"entities": [{"name": "x"}]}),
        ("TodoWrite", {"todos": [{"content": "write the file"}]}),
    ],
)
def test_a_tool_that_names_no_write_or_carries_no_path_passes(guarded, tool, arguments) -> None:
    event = tool_event(guarded, tool, arguments)
    assert denied("claude", hook_command("claude", event)) is None


@pytest.mark.parametrize("line", ["bash", "sh", "python3", "node", "python3 -i", "bash -i"])
def test_a_bare_shell_codex_types_into_is_refused_outside_an_edit_phase(guarded, line) -> None:
    """Codex runs no hook for write_stdin: what it types into a bare shell is never seen,
    so where no sandbox holds it, the reader refuses it."""
    reader_only(guarded.root)
    event = tool_event(guarded, "Bash", {"command": line})
    reason = denied("codex", hook_command("codex", event))
    assert reason is not None and "reads what is typed into it" in reason, reason
    claude = denied("claude", hook_command("claude", event))
    if line == "bash -i":  # Claude types into nothing, but bash -i runs ~/.bashrc
        assert claude is not None and claude.endswith("only when it runs (bash -i).")
    else:
        assert claude is None
    implement(guarded, "guarded")
    assert denied("codex", hook_command("codex", event)) is None


@pytest.mark.skipif(not mechanisms.choose(nested=True), reason="Landlock does not work here")
def test_a_bare_shell_codex_types_into_runs_inside_the_sandbox(guarded) -> None:
    """With a sandbox, what Codex types into the shell runs inside it: the line runs."""
    proc = hook_command("codex", tool_event(guarded, "Bash", {"command": "bash"}))
    assert "guards.sandbox.confine" in (rewritten("codex", proc) or "")


@pytest.mark.parametrize("line", ["bash script.sh", "python3 -c 'print(1)'", "sh < /dev/null"])
def test_a_shell_given_its_code_is_not_left_reading_the_keyboard(guarded, line) -> None:
    reader_only(guarded.root)
    event = tool_event(guarded, "Bash", {"command": line})
    reason = denied("codex", hook_command("codex", event)) or ""
    assert "reads what is typed into it" not in reason


# ------------------------------------------------------------ 4. every session is told the state


@pytest.mark.parametrize("harness", ["claude", "codex"])
@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact", "fork"])
def test_every_session_source_is_told_the_state(guarded, harness, source) -> None:
    config = harnesses.get(harness).hooks()["hooks"]
    assert all("matcher" not in entry for entry in config["SessionStart"])  # every source
    payload = json.dumps(
        {"hook_event_name": "SessionStart", "source": source, "cwd": str(guarded.root)}
    )
    proc = hook_command(harness, payload)
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "guarded" in context and "research" in context


@pytest.mark.parametrize("harness", ["claude", "codex"])
def test_subagent_start_is_installed_and_answered(guarded, harness) -> None:
    assert "SubagentStart" in harnesses.get(harness).hooks()["hooks"]
    payload = json.dumps(
        {
            "hook_event_name": "SubagentStart",
            "agent_id": "a1",
            "agent_type": "Explore",
            "cwd": str(guarded.root),
        }
    )
    output = json.loads(hook_command(harness, payload).stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SubagentStart"
    assert "research" in output["additionalContext"]


def config_change(project: Project, source: str, path: Path) -> str:
    return json.dumps(
        {
            "hook_event_name": "ConfigChange",
            "source": source,
            "file_path": str(path),
            "cwd": str(project.root),
        }
    )


@pytest.fixture
def claude_installed(guarded, tmp_path: Path) -> Path:
    """The project with automaton-install's Claude Code settings, and a user's permissions."""
    settings = guarded.root / ".claude" / "settings.json"
    settings.parent.mkdir()
    ours = hook_settings.merge_hooks(
        {"permissions": {"allow": ["Bash(ls)"]}}, harnesses.get("claude").hooks()
    )
    settings.write_text(json.dumps(ours))
    return settings


def test_a_settings_change_that_keeps_the_hooks_goes_through(guarded, claude_installed) -> None:
    changed = json.loads(claude_installed.read_text())
    changed["permissions"]["allow"].append("Bash(git status)")
    claude_installed.write_text(json.dumps(changed))
    proc = hook_command("claude", config_change(guarded, "project_settings", claude_installed))
    assert (proc.returncode, proc.stdout) == (0, "")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("drop the hooks", "no longer runs the workflow's hooks"),
        ("disable all hooks", "sets disableAllHooks, which switches the guard off"),
        ("garble", "is no longer valid JSON"),
        ("remove", "was removed, and with it the hooks"),
    ],
)
def test_a_settings_change_that_would_stop_the_hooks_is_refused(
    guarded, claude_installed, change, why
) -> None:
    settings = json.loads(claude_installed.read_text())
    if change == "drop the hooks":
        claude_installed.write_text(json.dumps({"permissions": settings["permissions"]}))
    elif change == "disable all hooks":
        claude_installed.write_text(json.dumps({**settings, "disableAllHooks": True}))
    elif change == "garble":
        claude_installed.write_text("{")
    else:
        claude_installed.unlink()
    proc = hook_command("claude", config_change(guarded, "project_settings", claude_installed))
    assert proc.returncode == 0
    answer = json.loads(proc.stdout)
    assert answer["decision"] == "block"
    assert f"{claude_installed} {why}" in answer["reason"]


def test_a_local_settings_file_may_not_switch_hooks_off_either(guarded, tmp_path: Path) -> None:
    local = guarded.root / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"disableAllHooks": True}))
    proc = hook_command("claude", config_change(guarded, "local_settings", local))
    assert json.loads(proc.stdout)["decision"] == "block"
    local.write_text(json.dumps({"permissions": {"allow": ["Read"]}}))
    proc = hook_command("claude", config_change(guarded, "local_settings", local))
    assert (proc.returncode, proc.stdout) == (0, "")


def test_config_change_is_installed_for_claude_code() -> None:
    assert "ConfigChange" in harnesses.get("claude").hooks()["hooks"]
