"""The adapter's rewrite of each harness's shell command to run inside the sandbox, keeping
the user's own permission rules, and what `sandbox = "required"` and `"off"` change.

The boundary and its mechanisms are tested in tests/test_sandbox.py.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from helpers import (
    BIN,
    Project,
    bwrap_or_skip,
    denied,
    hook_command,
    landlock_or_skip,
    reader_only,
    rewritten,
    shell_event,
)

from automaton_rules.guards.sandbox import mechanisms

# ------------------------------------------------------------- the harnesses' rewrites


def test_claude_gets_its_whole_input_back_with_the_command_rewritten(
    repo: Project, startup_home: Path
) -> None:
    bwrap_or_skip()
    proc = hook_command("claude", shell_event(repo, "python3 -c 'print(1)'"), home=startup_home)
    output = json.loads(proc.stdout)["hookSpecificOutput"]
    updated = output["updatedInput"]
    assert (updated["description"], updated["timeout"]) == ("d", 5000)
    assert "bwrap" in updated["command"] and "python3 -c" in updated["command"]
    assert "permissionDecision" not in output  # no rule of the user's speaks: Claude decides


def test_codex_gets_allow_and_its_command_inside_landlock(
    repo: Project, startup_home: Path
) -> None:
    landlock_or_skip()
    proc = hook_command("codex", shell_event(repo, "make test"), home=startup_home)
    output = json.loads(proc.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert list(output["updatedInput"]) == ["command"]
    assert "--fs" in output["updatedInput"]["command"]  # Codex runs it in its sandbox


def test_gemini_gets_the_whole_tool_input(repo: Project, startup_home: Path) -> None:
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    event = json.loads(shell_event(repo, "npm test"))
    event["tool_name"], event["hook_event_name"] = "run_shell_command", "BeforeTool"
    event["tool_input"]["dir_path"] = "src"
    proc = hook_command("gemini", json.dumps(event), home=startup_home)
    output = json.loads(proc.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "BeforeTool"
    assert output["tool_input"]["dir_path"] == "src"
    assert "npm test" in output["tool_input"]["command"]


def test_opencode_gets_the_command_to_put_in_place(repo: Project, startup_home: Path) -> None:
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    proc = hook_command("opencode", shell_event(repo, "npm test"), home=startup_home)
    assert "npm test" in json.loads(proc.stdout)["rewrite"]["command"]


def test_copilot_gets_a_line_naming_only_project_paths_which_runs_sandboxed(
    repo: Project, startup_home: Path
) -> None:
    """Issue 28: Copilot CLI's own path check refuses a rewritten line that names paths
    outside the workspace (`/usr/bin/bwrap`, `~/.automaton/run`) when no user can be
    asked; its line runs `automaton-sandbox` through the project's launcher instead, which
    makes the witness's mark and holds the line in the same boundary."""
    from automaton_rules.cli import install_files

    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    (repo.root / install_files.LAUNCHER).write_text(install_files.hook_launcher())
    line = "python3 -c \"open('src/app.py','a').write('x')\""
    event = {"toolName": "bash", "toolArgs": {"command": line, "description": "d"},
             "cwd": str(repo.root), "sessionId": "s1"}  # fmt: skip
    proc = hook_command(
        "copilot", json.dumps(event), "--event", "preToolUse", home=startup_home, cwd=repo.root
    )
    rewritten_line = json.loads(proc.stdout)["modifiedArgs"]["command"]
    root = str(repo.root.resolve())
    assert rewritten_line.startswith(f"sh -c 'refusal=run; . {root}/.automaton/hook.sh' ")
    assert " automaton-sandbox --project " in rewritten_line
    paths = re.findall(r"(?<![\w.])[/~][^\s'\"]*", rewritten_line)
    assert paths and all(path.startswith(root) for path in paths), paths
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(startup_home)}
    ran = subprocess.run(
        ["sh", "-c", rewritten_line], capture_output=True, text=True, env=env, cwd=repo.root,
        timeout=60,
    )  # fmt: skip
    assert ran.returncode == 1, ran
    assert "Read-only file system" in ran.stderr
    assert (repo.root / "src" / "app.py").read_text() == "x = 1\n"
    marks = list((startup_home / ".automaton" / "run").glob("copilot-*/*.ran"))
    assert len(marks) == 1, marks


def test_the_runner_refuses_a_mark_that_is_not_one(repo: Project, startup_home: Path) -> None:
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    done = subprocess.run(
        [str(BIN / "automaton-sandbox"), "--mark", "../../x", "--", "true"],
        capture_output=True, text=True, cwd=repo.root, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == "ERROR: automaton-sandbox: --mark '../../x' is not a mark\n"
    assert not (startup_home / ".automaton" / "run").exists()


def test_cursor_cannot_rewrite_so_the_reader_alone_guards_it(
    repo: Project, startup_home: Path
) -> None:
    payload = json.dumps(
        {
            "hook_event_name": "beforeShellExecution",
            "command": "python3 -c 'print(1)'",
            "workspace_roots": [str(repo.root)],
        }
    )
    reason = denied("cursor", hook_command("cursor", payload, home=startup_home))
    assert reason is not None and "only when it runs (python3 -c)" in reason


def test_inert_reads_and_status_py_queries_run_inside_the_sandbox_too(
    repo: Project, startup_home: Path
) -> None:
    """Nothing the agent starts runs outside: a misjudged "plain read" is still confined."""
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    installed = f"python3 {startup_home}/.automaton/scripts/status.py --task t1"
    for line in ("ls -la", "git status", "grep -rn x src | head", "cat src/app.py", installed):
        proc = hook_command("claude", shell_event(repo, line), home=startup_home)
        command = rewritten("claude", proc)
        assert command is not None and command != line, line


def test_a_status_py_that_is_not_the_installed_one_runs_sandboxed(
    repo: Project, startup_home: Path
) -> None:
    """A `status.py` in the project (or anywhere the agent can write) is the agent's code."""
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    proc = hook_command(
        "claude", shell_event(repo, "python3 status.py --task t1"), home=startup_home
    )
    assert rewritten("claude", proc) is not None


def test_what_the_reader_sees_forbidden_is_refused_at_once(
    repo: Project, startup_home: Path
) -> None:
    for line, said in (
        ("echo x > src/app.py", "This shell command writes files."),
        ("python3 ~/.automaton/scripts/status.py --task t1 --approve", "Approval is the user's"),
        ("echo implement > .automaton/tasks/t1/.state", "workflow state"),
        ("git commit -qn -m x", "skips or reroutes the workflow's git hooks"),
    ):
        reason = denied(
            "claude", hook_command("claude", shell_event(repo, line), home=startup_home)
        )
        assert reason is not None and said in reason, (line, reason)


# --------------------------------------------------------- the user's permission rules


def with_claude_permissions(project: Project, **rules: list[str]) -> None:
    settings = project.root / ".claude" / "settings.local.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": rules}))


@pytest.mark.parametrize(
    ("rules", "decision"),
    [
        ({"deny": ["Bash(make deploy:*)"]}, "deny"),
        ({"ask": ["Bash(make:*)"]}, "ask"),
        ({"allow": ["Bash(make:*)"]}, "allow"),
        ({"allow": ["Bash(make build)"]}, None),
        ({"allow": ["Bash"], "deny": ["Bash(make deploy *)"]}, "deny"),
    ],
)
def test_the_rewrite_keeps_claudes_own_rules_as_written_for_the_original(
    repo: Project, startup_home: Path, rules: dict[str, list[str]], decision: str | None
) -> None:
    """Claude Code matches its rules against the rewritten command, which none written for
    the original matches: the adapter matches them against the original itself."""
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    with_claude_permissions(repo, **rules)
    proc = hook_command("claude", shell_event(repo, "make deploy prod"), home=startup_home)
    output = json.loads(proc.stdout)["hookSpecificOutput"]
    if decision == "deny":
        assert output["permissionDecision"] == "deny"
        assert (
            "Your own Claude Code permission settings deny this command"
            in (output["permissionDecisionReason"])
        )
        return
    assert "updatedInput" in output
    assert output.get("permissionDecision") == decision


def test_a_codex_prompt_rule_leaves_the_line_for_codex_to_ask_about(
    repo: Project, startup_home: Path
) -> None:
    landlock_or_skip()
    rules = startup_home / ".codex" / "rules"
    rules.mkdir(parents=True)
    (rules / "default.rules").write_text(
        'prefix_rule(\n    pattern = ["make", ["deploy", "release"]],\n'
        '    decision = "prompt",\n)\nprefix_rule(pattern = ["rm"], decision = "forbidden")\n'
    )
    proc = hook_command("codex", shell_event(repo, "make release"), home=startup_home)
    assert (proc.returncode, proc.stdout) == (0, "")  # Codex asks the user about the line
    proc = hook_command("codex", shell_event(repo, "rm -rf /tmp/ar-build"), home=startup_home)
    assert "Your own Codex permission settings deny" in (denied("codex", proc) or "")


def test_gemini_policy_and_opencode_permissions_are_kept(repo: Project, startup_home: Path) -> None:
    if mechanisms.choose() is None:
        pytest.skip("no sandbox mechanism works here")
    policies = startup_home / ".gemini" / "policies"
    policies.mkdir(parents=True)
    (policies / "mine.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "make deploy"\n'
        'decision = "ask_user"\npriority = 100\n'
    )
    event = json.loads(shell_event(repo, "make deploy prod"))
    event["tool_name"] = "run_shell_command"
    body = json.loads(hook_command("gemini", json.dumps(event), home=startup_home).stdout)
    assert body["decision"] == "ask" and "tool_input" in body["hookSpecificOutput"]
    (repo.root / "opencode.json").write_text(
        json.dumps({"permission": {"bash": {"make *": "deny"}}})
    )
    proc = hook_command("opencode", shell_event(repo, "make deploy"), home=startup_home)
    assert "Your own opencode permission settings deny" in (denied("opencode", proc) or "")


# ------------------------------------------------------------ sandbox = required | off


def test_off_is_the_reader_alone(repo: Project, startup_home: Path) -> None:
    reader_only(repo.root)
    reason = denied(
        "claude",
        hook_command("claude", shell_event(repo, "python3 -c 'print(1)'"), home=startup_home),
    )
    assert reason is not None and "only when it runs (python3 -c)" in reason


def test_required_refuses_where_no_sandbox_can_hold_the_shell(
    repo: Project, startup_home: Path
) -> None:
    (repo.root / "automaton.toml").write_text('sandbox = "required"\n')
    payload = json.dumps(
        {
            "hook_event_name": "beforeShellExecution",
            "command": "make test",
            "workspace_roots": [str(repo.root)],
        }
    )
    reason = denied("cursor", hook_command("cursor", payload, home=startup_home))
    assert reason == (
        "DENIED: This project runs the agent's shell only inside its sandbox (sandbox = "
        '"required"), and this harness gives the adapter no way to run its shell inside a '
        "sandbox."
    )
    for line in ("ls", "git status"):  # an inert read needs no sandbox
        payload = json.dumps(
            {
                "hook_event_name": "beforeShellExecution",
                "command": line,
                "workspace_roots": [str(repo.root)],
            }
        )
        assert denied("cursor", hook_command("cursor", payload, home=startup_home)) is None


def test_session_start_says_what_holds_the_shell(repo: Project, startup_home: Path) -> None:
    payload = json.dumps(
        {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo.root)}
    )
    claude = json.loads(hook_command("claude", payload, home=startup_home).stdout)
    text = claude["hookSpecificOutput"]["additionalContext"]
    if mechanisms.choose() is not None:
        assert "Shell: every command you run goes inside an OS sandbox" in text
        assert "are carried out for you" in text
    cursor = json.loads(
        hook_command(
            "cursor",
            json.dumps({**json.loads(payload), "hook_event_name": "sessionStart"}),
            home=startup_home,
        ).stdout
    )
    assert (
        "Shell: no OS sandbox holds your commands (this harness gives the adapter no way to run "
        "its shell inside a sandbox); the reader alone guards your shell, and refuses what it "
        "cannot judge."
    ) in cursor["additional_context"]
