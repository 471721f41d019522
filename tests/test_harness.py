"""The harness adapter end to end: each harness's hook input, answered in its own format."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HOOK, ROOT, denied, edit_event, put, replay, run_hook

from automaton_rules.core import store
from automaton_rules.guards.hooks import adapter as harness
from automaton_rules.guards.hooks.harnesses import NAMES as HARNESSES
from automaton_rules.guards.sandbox import mechanisms


@pytest.mark.parametrize("name", HARNESSES)
def test_an_edit_during_research_is_denied_in_the_harness_format(guarded, name) -> None:
    reason = denied(name, replay(name, "edit.json", guarded.root))
    assert reason == (
        f"DENIED: No task in project '{guarded.root}' is in implement or doc_review phase "
        "(guarded: research). Code edits require implement or doc_review phase."
    )
    named = denied(name, replay(name, "edit.json", guarded.root, "--task", "guarded"))
    assert named == (
        "DENIED: Task 'guarded' is in research phase. "
        "Code edits require implement or doc_review phase."
    )


@pytest.mark.parametrize("name", HARNESSES)
def test_the_same_edit_during_implement_is_allowed(guarded, name) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    assert denied(name, replay(name, "edit.json", guarded.root)) is None


@pytest.mark.parametrize("name", HARNESSES)
def test_a_shell_write_during_research_is_denied(guarded, name) -> None:
    reason = denied(name, replay(name, "shell-write.json", guarded.root))
    assert reason is not None
    assert reason.startswith("DENIED: No task in project")
    assert "(guarded: research)" in reason
    assert reason.endswith("This shell command writes files.")


@pytest.mark.parametrize("name", HARNESSES)
def test_writing_state_through_the_shell_is_always_denied(guarded, name) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    reason = denied(name, replay(name, "shell-state.json", guarded.root))
    assert reason is not None and "workflow state (.state files)" in reason


@pytest.mark.parametrize("name", HARNESSES)
def test_the_agent_running_the_approval_command_is_denied(guarded, name) -> None:
    reason = denied(name, replay(name, "shell-approve.json", guarded.root))
    assert reason is not None and reason.startswith("DENIED: Approval is the user's decision.")
    assert "Ask the user to approve: to type `approve TASK` in the chat" in reason  # next step


@pytest.mark.parametrize("name", HARNESSES)
def test_reading_through_the_shell_is_allowed(guarded, name) -> None:
    assert denied(name, replay(name, "shell-read.json", guarded.root)) is None


def test_echo_into_state_is_denied_and_state_untouched(guarded) -> None:
    proc = replay("claude", "shell-state.json", guarded.root)
    assert denied("claude", proc) is not None
    assert guarded.state("guarded") == "research\n"


def test_a_state_file_edit_tool_is_denied_even_during_implement(guarded) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    payload = json.dumps(
        {
            "cwd": str(guarded.root),
            "tool_name": "Write",
            "tool_input": {"file_path": str(guarded.task_dir("guarded") / ".state")},
        }
    )
    reason = denied("claude", run_hook("claude", payload))
    assert reason is not None and "is workflow state" in reason


def test_internal_errors_deny_with_a_reason(guarded) -> None:
    reason = denied("claude", run_hook("claude", "this is not json"))
    assert reason is not None
    assert reason.startswith(
        "DENIED: automaton-rules could not check this action (the hook input is not JSON"
    )


def test_a_broken_configuration_fails_closed(guarded) -> None:
    (guarded.root / "automaton.toml").write_text("nonsense = 1\n")
    reason = denied("codex", replay("codex", "edit.json", guarded.root))
    assert reason is not None and "Unknown key 'nonsense'" in reason


def test_outside_any_project_nothing_is_guarded(tmp_path) -> None:
    payload = json.dumps(
        {"cwd": str(tmp_path), "tool_name": "Edit", "tool_input": {"file_path": "x.py"}}
    )
    proc = run_hook("claude", payload)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_other_tools_are_allowed(guarded) -> None:
    payload = json.dumps({"cwd": str(guarded.root), "tool_name": "Read", "tool_input": {}})
    assert denied("gemini", run_hook("gemini", payload)) is None


def test_unknown_harness_is_bad_usage_which_every_harness_takes_as_a_refusal(guarded) -> None:
    """Exit 2 blocks the tool in Claude Code, Codex and Gemini, and Cursor's fail-closed
    hooks and the opencode plugin refuse on any failure."""
    proc = run_hook("vim", "{}")
    assert proc.returncode == 2
    assert proc.stderr.startswith("ERROR: automaton-hook: --harness must be one of claude")


def test_the_integration_files_are_valid_json_and_call_the_adapter() -> None:
    for config in (ROOT / "integrations").glob("*/*.json"):
        text = config.read_text()
        json.loads(text)
        assert "automaton-hook --harness " + config.parent.name in text, config


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_opencode_plugin_under_nodes_test_runner(guarded) -> None:
    sandboxed = mechanisms.choose() is not None  # the plugin puts a command inside it in place
    proc = subprocess.run(
        ["node", "--test", str(ROOT / "integrations" / "opencode")],
        env={
            "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "AUTOMATON_HOOK": str(HOOK),
            "AUTOMATON_PROJECT": str(guarded.root),
            **({"AUTOMATON_SANDBOXED": "1"} if sandboxed else {}),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"# pass {13 if sandboxed else 12}" in proc.stdout
    assert "# fail 0" in proc.stdout


@pytest.mark.parametrize(
    "command",
    [
        'printf complete >.automaton/tasks/guarded/.sta"te"',
        "cd .automaton/tasks/guarded && printf complete > .st*e",
        "python3 -c \"open('.automaton/tasks/guarded/.state','w').write('complete')\"",
    ],
)
def test_state_writes_in_disguise_are_denied_even_during_implement(guarded, command) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    payload = json.dumps(
        {"cwd": str(guarded.root), "tool_name": "Bash", "tool_input": {"command": command}}
    )
    reason = denied("claude", run_hook("claude", payload))
    assert reason is not None and "workflow state" in reason


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m automaton_rules --task guarded --approve",
        'python3 ~/.automaton/scripts/status.py --task guarded --appr""ove',
    ],
)
def test_disguised_approvals_are_denied(guarded, command) -> None:
    payload = json.dumps(
        {"cwd": str(guarded.root), "tool_name": "Bash", "tool_input": {"command": command}}
    )
    assert denied("claude", run_hook("claude", payload)).startswith(
        "DENIED: Approval is the user's"
    )


def test_skipping_the_git_hooks_is_denied(guarded) -> None:
    payload = json.dumps(
        {
            "cwd": str(guarded.root),
            "tool_name": "Bash",
            "tool_input": {"command": "git commit --no-verify -am wip"},
        }
    )
    assert "--no-verify" in denied("claude", run_hook("claude", payload))


def test_a_patch_that_moves_a_file_onto_state_is_denied(guarded) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n"
        "*** Move to: .automaton/tasks/guarded/.state\n*** End Patch\n"
    )
    payload = json.dumps(
        {"cwd": str(guarded.root), "tool_name": "apply_patch", "tool_input": {"command": patch}}
    )
    assert "workflow state" in denied("codex", run_hook("codex", payload))


def test_a_patch_sent_as_a_command_list_is_judged(guarded) -> None:
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n*** End Patch\n"
    payload = json.dumps(
        {
            "cwd": str(guarded.root),
            "tool_name": "shell",
            "tool_input": {"command": ["apply_patch", patch]},
        }
    )
    assert denied("codex", run_hook("codex", payload)) is not None


def test_exec_command_cmd_is_read(guarded) -> None:
    payload = json.dumps(
        {
            "cwd": str(guarded.root),
            "tool_name": "exec_command",
            "tool_input": {"cmd": "echo x > src/app.py"},
        }
    )
    assert denied("codex", run_hook("codex", payload)) is not None


def test_an_edit_is_judged_by_the_files_project_not_the_harness_cwd(guarded, tmp_path) -> None:
    for target in ("src/app.py", ".automaton/tasks/guarded/.state"):
        payload = json.dumps(
            {
                "cwd": str(tmp_path),
                "tool_name": "Write",
                "tool_input": {"file_path": str(guarded.root / target)},
            }
        )
        assert denied("claude", run_hook("claude", payload)) is not None, target


def test_an_edit_tool_that_names_no_file_is_denied_in_every_phase(guarded) -> None:
    """An edit the adapter cannot place is one it cannot check: ill-formed, refused."""
    payload = json.dumps(
        {"cwd": str(guarded.root), "tool_name": "Write", "tool_input": {"content": "x"}}
    )
    expected = (
        "DENIED: automaton-rules could not check this action (the edit tool 'Write' names no file)."
    )
    assert denied("claude", run_hook("claude", payload)) == expected
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    assert denied("claude", run_hook("claude", payload)) == expected


def test_upper_case_state_is_still_state(guarded) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    target = guarded.task_dir("guarded") / ".STATE"
    payload = json.dumps(
        {"cwd": str(guarded.root), "tool_name": "Write", "tool_input": {"file_path": str(target)}}
    )
    assert "workflow state" in denied("claude", run_hook("claude", payload))


def test_writes_outside_the_project_from_the_shell_are_not_its_business(guarded) -> None:
    payload = json.dumps(
        {
            "cwd": str(guarded.root),
            "tool_name": "Bash",
            "tool_input": {"command": "git diff > /tmp/review.diff"},
        }
    )
    assert denied("claude", run_hook("claude", payload)) is None


# --------------------------------------------------------------------------------------
# Without --task the adapter stops at the first task in an edit phase (issue 5)
# --------------------------------------------------------------------------------------


def test_the_adapter_reads_states_only_until_a_task_may_edit(project, monkeypatch) -> None:
    for index in range(30):
        put(project, "implement", f"task-{index:02}")
    reads: list[Path] = []
    real = store.read_state

    def counting(task_dir: Path) -> str | None:
        reads.append(task_dir)
        return real(task_dir)

    monkeypatch.setattr(store, "read_state", counting)
    action = harness.read_action(json.loads(edit_event(project, "src/app.py")), "claude")
    assert harness.decide(action) == harness.Verdict(True)
    assert len(reads) == 1
    reads.clear()
    assert project.run("--can-edit").out == "ALLOWED\n"  # status.py still names them all
    assert len(reads) == 30


def test_the_adapter_finds_an_editing_subtask_among_many_tasks(project) -> None:
    for index in range(20):
        put(project, "research", f"task-{index:02}")
    put(project, "doc_review", "task-07/part-b")
    action = harness.read_action(json.loads(edit_event(project, "src/app.py")), "claude")
    assert harness.decide(action) == harness.Verdict(True)


def test_the_adapters_refusal_lists_tasks_as_status_py_does(project) -> None:
    for name in ("zeta", "alpha", "alpha-b", "alpha/sub-2", "alpha/sub-1", "mid", "done"):
        put(project, "complete" if name == "done" else "research", name)
    put(project, "not-a-phase", "untracked-by-hand")
    expected = project.run("--can-edit")
    assert expected.rc == 1
    assert "(alpha: research, alpha/sub-1: research, alpha/sub-2: research, alpha-b: " in (
        expected.out
    )
    action = harness.read_action(json.loads(edit_event(project, "src/app.py")), "claude")
    assert harness.decide(action) == harness.Verdict(False, expected.out.strip())


def test_a_task_folder_leading_outside_still_fails_closed(project, tmp_path) -> None:
    outside = tmp_path / "elsewhere" / "sneaky"
    outside.mkdir(parents=True)
    (outside / ".state").write_text("implement\n")
    project.tasks.mkdir(parents=True)
    (project.tasks / "sneaky").symlink_to(outside)
    reason = denied("claude", run_hook("claude", edit_event(project, "src/app.py")))
    assert reason is not None
    assert reason.startswith("DENIED: automaton-rules could not check this action")
    assert "outside" in reason
