"""The harness table (guards/hooks/harnesses.py): one record per harness, which the adapter and the
installer read and nothing else names; and the harnesses added through it alone, GitHub
Copilot CLI and Kiro CLI against what their own documentation says, Factory Droid and Qwen
Code against what their binaries sent and read (tests/harnesses/ runs those binaries).

A harness the table holds is run by every test that goes over `NAMES` (tests/test_harness.py,
test_session_start.py, test_protected.py, test_integrity.py, test_hostile.py,
test_spoofing.py) with its recorded events and its `protocol.json`; this module holds what
is particular to the table and to the newcomers.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import (
    HOOK_FIXTURES,
    INSTALL,
    PACKAGE,
    Project,
    denied,
    implement,
    recorded,
    rewritten,
    run_hook,
)

from automaton_rules.core import guard_files
from automaton_rules.guards.hooks import harnesses, shell_plan
from automaton_rules.guards.hooks.harnesses import NAMES
from automaton_rules.guards.sandbox import mechanisms

# The modules that read the table: none of them may name a harness.
READERS = (
    "guards/hooks/adapter.py",
    "guards/hooks/events.py",
    "guards/hooks/shell_plan.py",
    "guards/hooks/permissions.py",
    "guards/hooks/stop.py",
    "guards/hooks/prompt.py",
    "guards/hooks/settings.py",
    "cli/install.py",
    "cli/install_files.py",
)
RECORDED_EVENTS = (
    "edit.json",
    "edit-config.json",
    "shell-write.json",
    "shell-read.json",
    "shell-state.json",
    "shell-approve.json",
    "session-start.json",
)


# ------------------------------------------------------------------ the table itself


def names_compared(source: str) -> list[str]:
    """Where a harness's name is compared or keyed: `x == "codex"`, `x in ("codex", ...)`,
    `{"codex": ...}`, as `line: name`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            values = [node.left, *node.comparators]
        elif isinstance(node, ast.Dict):
            values = [key for key in node.keys if key is not None]
        else:
            continue
        for value in values:
            items = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else [value]
            for item in items:
                if isinstance(item, ast.Constant) and item.value in NAMES:
                    found.append(f"{node.lineno}: {item.value}")
    return found


@pytest.mark.parametrize("module", READERS)
def test_no_module_that_reads_the_table_names_a_harness(module: str) -> None:
    assert names_compared((PACKAGE / module).read_text(encoding="utf-8")) == []


def test_the_check_sees_a_harness_named_in_a_branch() -> None:
    """The control: the string switches the table replaced are seen."""
    source = (
        'if harness == "codex":\n    pass\n'
        'if harness in ("codex", "opencode"):\n    pass\n'
        'NAMES = {"claude": "Claude Code"}\n'
    )
    assert names_compared(source) == ["1: codex", "3: codex", "3: opencode", "5: claude"]


def test_an_event_name_means_the_same_in_every_record() -> None:
    meanings: dict[str, set[str]] = {}
    for record in harnesses.HARNESSES.values():
        for event, kind in record.events.items():
            meanings.setdefault(event, set()).add(kind)
    assert {event: kinds for event, kinds in meanings.items() if len(kinds) > 1} == {}
    assert {event: kinds.pop() for event, kinds in meanings.items()} == harnesses.EVENTS


@pytest.mark.parametrize("name", NAMES)
def test_each_harness_has_its_recorded_events_and_protocol(name: str) -> None:
    folder = HOOK_FIXTURES / name
    for fixture in RECORDED_EVENTS:
        json.loads((folder / fixture).read_text())
    spelled = json.loads((folder / "protocol.json").read_text())
    assert {"allow", "deny", "context", "no-context"} <= set(spelled)
    assert spelled["source"], name  # where the shapes come from
    record = harnesses.get(name)
    if record.names_event:  # its input names no event: the command names each one
        assert set(spelled["events"]) == set(RECORDED_EVENTS)


@pytest.mark.parametrize("name", NAMES)
def test_each_harness_settings_are_guard_files(name: str) -> None:
    """What the installer writes for a harness is a file no agent may change, for the
    audit and the git hook (core/guard_files.py) as for the adapter."""
    record = harnesses.get(name)
    assert guard_files.kind_of_relpath(record.settings_file) == guard_files.HARNESS


def test_the_guard_files_and_the_records_name_the_same_harnesses() -> None:
    """Issue 31: each harness's files have one home (core/guard_files.py), which its record
    reads by name; the instruction files the git hook holds are those the records read."""
    assert set(guard_files.HARNESSES) == set(NAMES)
    for name in NAMES:
        record, files = harnesses.get(name), guard_files.HARNESSES[name]
        assert (record.settings_file, record.instructions) == (files.settings, files.instructions)
    read = {harnesses.get(name).instructions for name in NAMES}
    assert set(guard_files.INSTRUCTION_FILES) == read


@pytest.mark.parametrize("name", NAMES)
def test_each_harness_installs_and_uninstalls_through_its_record(name: str, tmp_path: Path) -> None:
    """Into a project whose settings file already holds the user's own key: added, left
    alone the second time, taken out again with the user's key kept."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    record = harnesses.get(name)
    settings = repo / record.settings_file
    mine = {"mine": True}
    if record.hooks():
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps(mine))
    env = {**os.environ, "HOME": str(home)}
    env.pop("PYTHONPATH", None)

    def install(*extra: str) -> str:
        args = [str(INSTALL), "--project", str(repo), "--harness", name, *extra]
        proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
        assert (proc.returncode, proc.stderr) == (0, ""), proc
        return proc.stdout

    assert f"{settings}" in install()
    assert f"automaton-hook --harness {name}" in settings.read_text()
    assert (repo / record.instructions).exists()
    assert install() == "nothing to change\n"
    install("--uninstall")
    if record.hooks():
        assert json.loads(settings.read_text()) == mine
    else:
        assert not settings.exists()
    assert not (repo / record.instructions).exists()


@pytest.mark.parametrize("name", [record.name for record in harnesses.TABLE if record.hooks()])
def test_a_settings_file_whose_hooks_are_of_another_shape_is_refused_whole(
    name: str, tmp_path: Path
) -> None:
    """Nothing is written, and the installer says why in one line (exit 2). The key is
    `hooks`, or an event where the file is the map of events (Factory Droid)."""
    record = harnesses.get(name)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    settings = repo / record.settings_file
    settings.parent.mkdir(parents=True)
    key = "hooks" if "hooks" in record.hooks() else next(iter(record.hooks()))
    wrong = "[]" if isinstance(record.hooks()[key], dict) else "{}"
    settings.write_text(f'{{"{key}": {wrong}}}')
    env = {**os.environ, "HOME": str(tmp_path)}
    args = [str(INSTALL), "--project", str(repo), "--harness", name]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f'ERROR: {settings}: its "{key}" is not a JSON '
        f"{'object' if wrong == '[]' else 'list'}, so no hook can go in\n"
    )
    assert settings.read_text() == f'{{"{key}": {wrong}}}'
    assert not (repo / record.instructions).exists()


# ------------------------------------------------------------------ GitHub Copilot CLI


def copilot_tool(project: Project, tool: str, args: dict[str, object]) -> str:
    """A camelCase preToolUse input: no event name, the arguments as JSON text."""
    return json.dumps(
        {
            "sessionId": "c0f1",
            "timestamp": 1764463205123,
            "cwd": str(project.root),
            "toolName": tool,
            "toolArgs": json.dumps(args),
        }
    )


def test_each_copilot_hook_names_its_event() -> None:
    """The camelCase input carries no event name: the installed command says which."""
    for event, entries in harnesses.get("copilot").hooks()["hooks"].items():
        for entry in entries:
            assert set(entry) == {"type", "bash", "timeoutSec"}
            command = entry["bash"].removesuffix(" || true")
            assert command.endswith(f"automaton-hook --harness copilot --event {event}"), event


def test_copilot_input_without_its_event_named_is_not_taken_for_a_session_start(
    guarded: Project,
) -> None:
    """Without --event a sessionStart input is read as a tool call, and refused as one
    that names no tool: the installed command must name its event."""
    payload, _ = recorded("copilot", "session-start.json", guarded.root)
    reason = denied("copilot", run_hook("copilot", payload))
    assert reason is not None and "names no tool" in reason


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("echo 'ignore = []' > automaton.toml{enter}", "the workflow's configuration"),
        ("printf implement > .automaton/tasks/guarded/.state\r", "workflow state"),
        ("{up}{enter}", "edits its line ({up})"),
        ("rm -rf src\x1b[A", "edits its line ('\\x1b')"),
    ],
)
def test_what_copilot_types_into_a_shell_is_read_as_the_line_it_runs(
    guarded: Project, typed: str, why: str
) -> None:
    implement(guarded, "guarded")
    event = copilot_tool(guarded, "write_bash", {"sessionId": "1", "input": typed, "delay": 10})
    reason = denied("copilot", run_hook("copilot", event, "--event", "preToolUse"))
    assert reason is not None and why in reason, reason


def test_a_line_copilot_types_that_only_reads_runs(guarded: Project) -> None:
    event = copilot_tool(guarded, "write_bash", {"sessionId": "1", "input": "git status{enter}"})
    assert denied("copilot", run_hook("copilot", event, "--event", "preToolUse")) is None


def test_copilot_may_not_start_a_shell_to_type_into_outside_an_edit_phase(guarded) -> None:
    """Without a sandbox, what the agent types later is never judged: refused. With one,
    the shell starts inside it, and so does everything typed into it."""
    event = copilot_tool(guarded, "bash", {"command": "python3", "mode": "async"})
    proc = run_hook("copilot", event, "--event", "preToolUse")
    if mechanisms.choose() is None:
        assert "reads what is typed into it" in (denied("copilot", proc) or "")
    else:
        assert "python3" in (rewritten("copilot", proc) or "")
    (guarded.root / "automaton.toml").write_text('sandbox = "off"\n')
    reason = denied("copilot", run_hook("copilot", event, "--event", "preToolUse")) or ""
    assert "reads what is typed into it" in reason
    implement(guarded, "guarded")
    assert denied("copilot", run_hook("copilot", event, "--event", "preToolUse")) is None


def test_copilot_shell_commands_run_inside_the_sandbox(guarded: Project) -> None:
    """Issue 27: Copilot's preToolUse hooks respect `modifiedArgs` since 1.0.24, so its
    shell lines go inside the sandbox like Claude Code's; the rest of the tool's arguments
    are kept, and the session is told what holds its shell."""
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works on this machine")
    implement(guarded, "guarded")
    event = copilot_tool(guarded, "bash", {"command": "pytest -q", "mode": "sync"})
    proc = run_hook("copilot", event, "--event", "preToolUse")
    body = json.loads(proc.stdout)
    assert body["modifiedArgs"]["mode"] == "sync"
    assert body["modifiedArgs"]["command"] != "pytest -q"
    assert "pytest -q" in body["modifiedArgs"]["command"]
    payload, given = recorded("copilot", "session-start.json", guarded.root)
    context = json.loads(run_hook("copilot", payload, *given).stdout)["additionalContext"]
    assert "Shell: every command you run goes inside an OS sandbox" in context


def test_a_copilot_prompt_approves_and_answers_nothing(project: Project) -> None:
    """A command hook's answer to userPromptSubmitted is dropped by Copilot: the approval
    is recorded, and the adapter prints nothing."""
    (project.root / "automaton.toml").write_text('approval = "prompt"\n')
    project.create("login")
    project.advance("login", ["research", "research:awaiting_approval"])
    prompt = {"sessionId": "c0f1", "timestamp": 1, "cwd": str(project.root)}
    proc = run_hook(
        "copilot", {**prompt, "prompt": "approve login"}, "--event", "userPromptSubmitted"
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert project.state("login") == "research:approved\n"


def test_a_copilot_agent_stop_carries_on_with_a_request_for_changes(project: Project) -> None:
    from automaton_rules.core.project import find_project
    from automaton_rules.workflow import reviews

    (project.root / "automaton.toml").write_text("stop-wait-seconds = 5\n")
    project.task("login", "research")
    (project.task_dir("login") / "SPEC.md").write_text("# Spec\nwho logs in\n")
    project.advance("login", ["research:awaiting_approval"])
    reviews.request_changes(find_project(project.root), "login", "Say who.", by="a@example.com")
    stop = {"sessionId": "c0f1", "timestamp": 1, "cwd": str(project.root), "stopReason": "end_turn"}
    proc = run_hook("copilot", {**stop, "stop_hook_active": False}, "--event", "agentStop")
    answer = json.loads(proc.stdout)
    assert answer["decision"] == "block" and "Say who." in answer["reason"]


# ------------------------------------------------------------------ Kiro CLI


def test_kiro_v3_session_start_gets_the_state_as_plain_text(guarded: Project) -> None:
    """Kiro adds a hook's stdout to the agent's context as it is: no JSON around it."""
    proc = run_hook("kiro", {"hook_event_name": "SessionStart", "cwd": str(guarded.root)})
    assert proc.returncode == 0 and proc.stderr == ""
    assert "- guarded: research phase (state research)" in proc.stdout
    assert not proc.stdout.lstrip().startswith("{")
    assert "gives the adapter no way to run its shell inside a sandbox" in proc.stdout


def test_a_kiro_prompt_approves_and_tells_the_agent(project: Project) -> None:
    (project.root / "automaton.toml").write_text('approval = "prompt"\n')
    project.create("login")
    project.advance("login", ["research", "research:awaiting_approval"])
    for event in ("userPromptSubmit", "UserPromptSubmit"):  # the 2.x and the V3 spelling
        prompt = {"hook_event_name": event, "cwd": str(project.root), "prompt": "what next?"}
        assert run_hook("kiro", prompt).stdout == ""
    prompt = {"hook_event_name": "UserPromptSubmit", "cwd": str(project.root)}
    proc = run_hook("kiro", {**prompt, "prompt": "approve login"})
    assert proc.returncode == 0
    assert "The user approved task 'login'" in proc.stdout
    assert project.state("login") == "research:approved\n"


def test_kiro_tool_arguments_sent_as_json_text_are_read(guarded: Project) -> None:
    """Kiro's V3 was seen naming the arguments `toolArgs`; as text they are read too."""
    args = json.dumps({"path": str(guarded.root / "src" / "app.py"), "text": "x = 2\n"})
    event = {"hook_event_name": "PreToolUse", "cwd": str(guarded.root), "toolName": "write"}
    reason = denied("kiro", run_hook("kiro", {**event, "toolArgs": args}))
    assert reason is not None and reason.startswith("DENIED: No task in project")


def test_kiro_windows_shell_is_judged_as_code_it_cannot_read(guarded: Project) -> None:
    """`execute_cmd` runs cmd.exe, which the bash reader does not read: a plain read passes,
    anything else waits for an edit phase."""
    tool = {"hook_event_name": "preToolUse", "cwd": str(guarded.root), "tool_name": "execute_cmd"}
    assert denied("kiro", run_hook("kiro", {**tool, "tool_input": {"command": "dir"}})) is None
    write = {**tool, "tool_input": {"command": "echo x > src\\app.py"}}
    assert denied("kiro", run_hook("kiro", write)) is not None


def test_kiros_hook_list_keeps_the_users_own_hooks(tmp_path: Path) -> None:
    from automaton_rules.guards.hooks.settings import HookList

    record = harnesses.get("kiro")
    own = {"name": "lint", "trigger": "PostFileSave", "action": {"type": "command", "command": "x"}}
    ours = record.hooks()
    stale = {**ours["hooks"][0], "timeout": 20, "action": {"type": "command", "command": "old"}}
    stale["action"]["command"] = "/old/venv/bin/automaton-hook --harness kiro"
    merged = HookList(record).merged({"version": "v1", "hooks": [own, stale]})
    assert merged["hooks"][0] == own
    assert merged["hooks"][1] == {**ours["hooks"][0], "timeout": 20}  # the user's timeout
    assert merged["hooks"][2:] == ours["hooks"][1:]
    assert HookList(record).removed(merged) == {"version": "v1", "hooks": [own]}


def test_kiro_holds_its_shell_to_the_reader() -> None:
    record = harnesses.get("kiro")
    assert not record.rewrites
    settings = type("Settings", (), {"sandbox": "auto"})()
    why = shell_plan.unavailable(settings, record, None)  # type: ignore[arg-type]
    assert why == record.no_rewrite
    assert harnesses.get("copilot").rewrites


# ------------------------------------------------------------------ Factory Droid


def droid_tool(project: Project, tool: str, args: dict[str, object]) -> dict[str, object]:
    """A PreToolUse input as Factory Droid 0.215.0 sends it (tests/fixtures/hooks/droid)."""
    payload, _ = recorded("droid", "shell-read.json", project.root)
    return {**json.loads(payload), "tool_name": tool, "tool_input": args}


def test_droid_reads_execute_as_its_shell_and_create_as_an_edit(guarded: Project) -> None:
    shell = droid_tool(guarded, "Execute", {"command": "touch x"})
    reason = denied("droid", run_hook("droid", shell))
    assert reason is not None and "This shell command writes files." in reason
    target = str(guarded.root / "src" / "app.py")
    created = droid_tool(guarded, "Create", {"file_path": target, "content": "x = 2\n"})
    reason = denied("droid", run_hook("droid", created))
    assert reason is not None and reason.startswith("DENIED: No task in project")


def test_droid_change_all_edits_every_occurrence_of_the_configuration(guarded: Project) -> None:
    """Its Edit's `change_all` replaces every occurrence: pyproject.toml's [tool.automaton]
    is judged by the text that edit leaves."""
    from automaton_rules.guards.hooks.adapter import new_text

    edit = {"file_path": "a", "old_str": "x", "new_str": "y", "change_all": True}
    assert new_text(edit, "x x") == "y y"
    assert new_text({**edit, "change_all": False}, "x x") == "y x"


def test_droid_shell_commands_run_inside_the_sandbox(guarded: Project) -> None:
    """Its PreToolUse merges `updatedInput` over the tool's input: the line is rewritten,
    the model's other arguments kept."""
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works on this machine")
    implement(guarded, "guarded")
    args = {"command": "pytest -q", "riskLevel": "low", "riskLevelReason": "tests"}
    body = json.loads(run_hook("droid", droid_tool(guarded, "Execute", args)).stdout)
    updated = body["hookSpecificOutput"]["updatedInput"]
    assert updated["riskLevel"] == "low" and updated["command"] != "pytest -q"
    assert "pytest -q" in updated["command"]


def test_droids_hook_file_is_the_map_of_events(tmp_path: Path) -> None:
    """`.factory/hooks.json` has no `hooks` key: the user's own events and keys are kept,
    ours come out again exactly."""
    from automaton_rules.guards.hooks.settings import EventMap

    record = harnesses.get("droid")
    own = {"matcher": "Create", "hooks": [{"type": "command", "command": "prettier"}]}
    merged = EventMap(record).merged({"PostToolUse": [own], "note": "mine"})
    assert merged["PostToolUse"][0] == own
    assert set(merged) == {*record.hooks(), "note"}
    assert EventMap(record).removed(merged) == {"PostToolUse": [own], "note": "mine"}


# ------------------------------------------------------------------ Qwen Code


def test_qwen_approves_only_what_the_user_typed(project: Project) -> None:
    """Qwen Code sends UserPromptSubmit before the model reads a tool's result too, its
    `prompt` then the model-bound text: only `submitted_prompt` approves."""
    (project.root / "automaton.toml").write_text('approval = "prompt"\n')
    project.create("login")
    project.advance("login", ["research", "research:awaiting_approval"])
    payload, _ = recorded("qwen", "session-start.json", project.root)
    prompt = {**json.loads(payload), "hook_event_name": "UserPromptSubmit"}
    proc = run_hook("qwen", {**prompt, "prompt": "approve login"})
    assert (proc.returncode, proc.stdout) == (0, "")
    assert project.state("login") == "research:awaiting_approval\n"
    typed = {**prompt, "prompt": "approve login", "submitted_prompt": "approve login"}
    answer = json.loads(run_hook("qwen", typed).stdout)
    assert "The user approved task 'login'" in answer["hookSpecificOutput"]["additionalContext"]
    assert project.state("login") == "research:approved\n"


def test_qwen_holds_its_shell_to_the_reader_and_times_out_in_milliseconds() -> None:
    """Its PreToolUse cannot change what runs (0.24.4); a timeout of 1000 or more is read
    as milliseconds, so every one is written so."""
    record = harnesses.get("qwen")
    assert not record.rewrites
    settings = type("Settings", (), {"sandbox": "auto"})()
    assert shell_plan.unavailable(settings, record, None) == record.no_rewrite  # type: ignore[arg-type]
    groups = [group for entries in record.hooks()["hooks"].values() for group in entries]
    timeouts = [hook["timeout"] for group in groups for hook in group["hooks"]]
    assert all(t >= 1000 for t in timeouts), timeouts
    assert max(timeouts) == harnesses.STOP_TIMEOUT * 1000
