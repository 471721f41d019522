"""The harness adapter end to end: each harness's hook input, answered in its own format."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, Project

from automaton_rules import harness

FIXTURES = ROOT / "tests" / "fixtures" / "hooks"
HOOK = Path(sys.executable).parent / "automaton-hook"
HARNESSES = ("claude", "codex", "gemini", "cursor", "opencode")


def event(name: str, project: Project) -> str:
    return (FIXTURES / name).read_text().replace("__PROJECT__", str(project.root))


def hook(harness_name: str, payload: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(HOOK), "--harness", harness_name, *args],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
    )


def denied(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str | None:
    """The deny reason in the harness's own protocol, or None when the call is allowed."""
    if harness_name == "claude":
        assert proc.returncode == 0, proc.stderr
        if not proc.stdout.strip():
            return None
        output = json.loads(proc.stdout)["hookSpecificOutput"]
        assert output["hookEventName"] == "PreToolUse"
        assert output["permissionDecision"] == "deny"
        return output["permissionDecisionReason"]
    if harness_name == "gemini":
        assert proc.returncode == 0, proc.stderr
        body = json.loads(proc.stdout)
        return body["reason"] if body.get("decision") == "deny" else None
    if harness_name == "cursor":
        body = json.loads(proc.stdout)
        if proc.returncode == 0:
            assert body == {}
            return None
        assert proc.returncode == 2 and body["permission"] == "deny"
        return body["agent_message"]
    if proc.returncode == 0:
        assert proc.stdout.strip() == ""
        return None
    assert proc.returncode == 2
    return proc.stderr.strip()


@pytest.fixture
def guarded(project: Project, task_in) -> Project:
    """A project whose only task is in research, with a source file to edit."""
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    task_in("research", name="guarded")
    return project


@pytest.mark.parametrize("name", HARNESSES)
def test_an_edit_during_research_is_denied_in_the_harness_format(guarded, name) -> None:
    reason = denied(name, hook(name, event(f"{name}/edit.json", guarded)))
    assert reason == (
        f"DENIED: No task in project '{guarded.root}' is in implement or doc_review phase "
        "(guarded: research). Code edits require implement or doc_review phase."
    )
    named = denied(name, hook(name, event(f"{name}/edit.json", guarded), "--task", "guarded"))
    assert named == (
        "DENIED: Task 'guarded' is in research phase. "
        "Code edits require implement or doc_review phase."
    )


@pytest.mark.parametrize("name", HARNESSES)
def test_the_same_edit_during_implement_is_allowed(guarded, name) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    assert denied(name, hook(name, event(f"{name}/edit.json", guarded))) is None


@pytest.mark.parametrize("name", HARNESSES)
def test_a_shell_write_during_research_is_denied(guarded, name) -> None:
    reason = denied(name, hook(name, event(f"{name}/shell-write.json", guarded)))
    assert reason is not None
    assert reason.startswith("DENIED: No task in project")
    assert "(guarded: research)" in reason
    assert reason.endswith("This shell command writes files.")


@pytest.mark.parametrize("name", HARNESSES)
def test_writing_state_through_the_shell_is_always_denied(guarded, name) -> None:
    guarded.advance("guarded", ["research:awaiting_approval", "research:approved", "implement"])
    reason = denied(name, hook(name, event(f"{name}/shell-state.json", guarded)))
    assert reason is not None and "workflow state (.state files)" in reason


@pytest.mark.parametrize("name", HARNESSES)
def test_the_agent_running_the_approval_command_is_denied(guarded, name) -> None:
    reason = denied(name, hook(name, event(f"{name}/shell-approve.json", guarded)))
    assert reason is not None and reason.startswith("DENIED: Approval is the user's decision.")


@pytest.mark.parametrize("name", HARNESSES)
def test_reading_through_the_shell_is_allowed(guarded, name) -> None:
    assert denied(name, hook(name, event(f"{name}/shell-read.json", guarded))) is None


def test_echo_into_state_is_denied_and_state_untouched(guarded) -> None:
    proc = hook("claude", event("claude/shell-state.json", guarded))
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
    reason = denied("claude", hook("claude", payload))
    assert reason is not None and "is workflow state" in reason


def test_internal_errors_deny_with_a_reason(guarded) -> None:
    reason = denied("claude", hook("claude", "this is not json"))
    assert reason is not None
    assert reason.startswith("DENIED: automaton-rules could not check this action (JSONDecodeError")


def test_a_broken_configuration_fails_closed(guarded) -> None:
    (guarded.root / "automaton.toml").write_text("nonsense = 1\n")
    reason = denied("codex", hook("codex", event("codex/edit.json", guarded)))
    assert reason is not None and "Unknown key 'nonsense'" in reason


def test_outside_any_project_nothing_is_guarded(tmp_path) -> None:
    payload = json.dumps(
        {"cwd": str(tmp_path), "tool_name": "Edit", "tool_input": {"file_path": "x.py"}}
    )
    proc = hook("claude", payload)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_other_tools_are_allowed(guarded) -> None:
    payload = json.dumps({"cwd": str(guarded.root), "tool_name": "Read", "tool_input": {}})
    assert denied("gemini", hook("gemini", payload)) is None


def test_unknown_harness_fails_closed_in_claude_format(guarded) -> None:
    proc = hook("vim", "{}")
    assert denied("claude", proc).startswith("DENIED: automaton-rules could not check")


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("cat a.py", False),
        ("ls > /dev/null", False),
        ("pytest -q 2>&1 | tail -5", False),
        ("python status.py --task t --transition implement", False),
        ("echo x > a.py", True),
        ("echo x >> a.py", True),
        ("tee a.py < b", True),
        ("sed -i 's/a/b/' a.py", True),
        ("perl -pi -e 's/a/b/' a.py", True),
        ("cp a b", True),
        ("mv a b", True),
        ("rm -rf build", True),
        ("git apply fix.patch", True),
        ("git checkout -- a.py", True),
        ("git restore a.py", True),
        ("cat > a.py <<'EOF'\nx\nEOF", True),
        ("cd src && touch new.py", True),
    ],
)
def test_shell_write_detection(command: str, writes: bool) -> None:
    assert harness.shell_writes(command) is writes


def test_the_integration_files_are_valid_json_and_call_the_adapter() -> None:
    for config in (ROOT / "integrations").glob("*/*.json"):
        text = config.read_text()
        json.loads(text)
        assert "automaton-hook --harness " + config.parent.name in text, config


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_opencode_plugin_under_nodes_test_runner(guarded) -> None:
    proc = subprocess.run(
        ["node", "--test", str(ROOT / "integrations" / "opencode")],
        env={
            "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "AUTOMATON_HOOK": str(HOOK),
            "AUTOMATON_PROJECT": str(guarded.root),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# pass 4" in proc.stdout
    assert "# fail 0" in proc.stdout
