"""Approvals only a person can give: `approval = "signed"` and `"prompt"` (issue 12).

Signed approvals use keys made by `ssh-keygen` in each test; the `ssh_keygen` fixture
installs OpenSSH where the machine allows and skips with the reason where it cannot.
"""

from __future__ import annotations

import hashlib
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    PROMPT,
    ROOT,
    STATUS_PY,
    Project,
    awaiting,
    claude_prompt,
    history,
    make_key,
    rewrite_history,
    run_hook,
    signers_file,
    status_env,
    with_code,
    write_config,
)

from automaton_rules.support import signing

SIGNED = 'approval = "signed"\n'


@pytest.fixture
def keys(ssh_keygen: str, tmp_path: Path) -> dict[str, Path]:
    """Alice may approve; Mallory has a key of her own, named nowhere."""
    folder = tmp_path / "keys"
    folder.mkdir()
    return {"alice": make_key(folder, "alice"), "mallory": make_key(folder, "mallory")}


@pytest.fixture
def signed(project: Project, keys: dict[str, Path]) -> Project:
    """A project in signed mode whose signers file names Alice."""
    signers_file(project.root / ".automaton" / "allowed_signers", alice=keys["alice"])
    write_config(project, SIGNED)
    return project


def sign_approval(project: Project, name: str, key: Path, approver: str = "alice") -> None:
    result = project.run("--task", name, "--approve", "--approver", approver, "--key", str(key))
    assert result.rc == 0, result.err


def test_a_signed_approval_lets_the_task_move_on_and_the_audit_is_clean(
    signed: Project, keys: dict[str, Path]
) -> None:
    name = awaiting(signed)
    # The research approval was given before the project chose signed mode: accept it.
    entries = history(signed.task_dir(name))
    sign_approval(signed, name, keys["alice"])
    entry = history(signed.task_dir(name))[-1]
    assert entry["via"] == "signed" and entry["approver"] == "alice"
    assert entry["signature"].startswith("-----BEGIN SSH SIGNATURE-----")
    assert signed.approvals(name)[-1].endswith("|alice|signed")
    assert signed.run("--task", name, "--transition", "implement").rc == 0
    audit = signed.audit()
    unsigned = [f for f in with_code(audit, "AR210") if "research" in f["message"]]
    assert len(unsigned) == 1 and len(entries) == len(history(signed.task_dir(name))) - 2
    assert [f for f in audit.findings if f not in unsigned] == [], audit.text


def test_a_task_approved_only_by_signature_audits_clean(
    signed: Project, keys: dict[str, Path]
) -> None:
    name = "signed-all-the-way"
    signed.create(name)
    signed.advance(name, ["research", "research:awaiting_approval"])
    sign_approval(signed, name, keys["alice"])
    signed.advance(name, ["implement"])
    audit = signed.audit()
    assert audit.findings == [] and audit.exit_code == 0, audit.text


def test_the_key_defaults_to_gits_user_signingkey(signed: Project, keys: dict[str, Path]) -> None:
    name = awaiting(signed)
    signed.git("config", "user.signingkey", str(keys["alice"]))
    assert signed.run("--task", name, "--approve", "--approver", "alice").rc == 0
    assert signed.state(name) == "design:approved\n"


def test_an_approval_line_and_state_written_by_hand_are_refused_and_reported(
    signed: Project,
) -> None:
    name = awaiting(signed)
    folder = signed.task_dir(name)
    with (folder / ".state.approvals").open("a") as log:
        log.write("design:approved|2026-12-01T05:00:00Z|alice|signed\n")
    (folder / ".state").write_text("design:approved\n")
    refused = signed.run("--task", name, "--transition", "implement")
    # A .state the history does not vouch for is refused before any gate, as everywhere
    # (exit 2: the record is broken); the next test forges the history line as well.
    assert refused.rc == 2 and "changed outside status.py" in refused.err
    assert signed.state(name) == "design:approved\n"
    assert signed.run("--can-edit", "--task", name).rc != 0
    audit = signed.audit()
    assert audit.exit_code == 1
    assert with_code(audit, "AR210"), audit.text


def forge_approval(project: Project, name: str, key: Path | None = None) -> None:
    """Write a design approval by hand, as code running as the user could: a history line
    chained as status.py chains them (signed by `key`, if any), the log line and `.state`."""
    folder = project.task_dir(name)
    entries = [{k: v for k, v in e.items() if k != "prev"} for e in history(folder)]
    forged = {
        "time": "2026-12-01T05:00:00Z",
        "from": "design:awaiting_approval",
        "to": "design:approved",
        "actor": "alice",
        "command": "--approve",
        "approver": "alice",
        "artifact": "DESIGN.md",
        "artifact_sha256": hashlib.sha256((folder / "DESIGN.md").read_bytes()).hexdigest(),
        "via": "signed",
    }
    if key is not None:
        text = signing.recorded_message(project.root, folder, forged)
        assert text is not None
        forged["signature"] = signing.sign(text, key)
    rewrite_history(folder, [*entries, forged])
    with (folder / ".state.approvals").open("a") as log:
        log.write("design:approved|2026-12-01T05:00:00Z|alice|signed\n")
    (folder / ".state").write_text("design:approved\n")


def assert_gate_refuses(project: Project, name: str, said: str, reason: str) -> None:
    """Leaving design:approved is refused saying why, and the audit reports the same."""
    refused = project.run("--task", name, "--transition", "implement")
    assert refused.rc == 1
    assert said in refused.err
    assert reason in [f["data"]["reason"] for f in with_code(project.audit(), "AR210")]


def test_a_forged_history_line_without_a_signature_is_refused_at_the_gate(
    signed: Project,
) -> None:
    """Even with the history's hash chain rebuilt, an unsigned approval opens nothing."""
    name = awaiting(signed)
    forge_approval(signed, name)
    assert_gate_refuses(signed, name, "carries no signature", signing.MISSING)
    refused = signed.run("--task", name, "--transition", "implement")
    assert "--transition design:awaiting_approval" in refused.err  # what the user does


def test_an_approval_signed_by_a_key_the_file_does_not_name_is_refused(
    signed: Project, keys: dict[str, Path]
) -> None:
    name = awaiting(signed)
    refused = signed.run(
        "--task", name, "--approve", "--approver", "alice", "--key", str(keys["mallory"])
    )
    assert refused.rc == 1
    assert "does not name" in refused.err
    assert "Sign with the approver's own key (--key FILE" in refused.err
    assert signed.state(name) == "design:awaiting_approval\n"


def test_a_signature_by_an_unnamed_key_written_into_the_record_is_refused_and_reported(
    signed: Project, keys: dict[str, Path]
) -> None:
    """Mallory signs the right message herself and writes the record by hand."""
    name = awaiting(signed)
    forge_approval(signed, name, keys["mallory"])
    assert_gate_refuses(
        signed, name, "a key the allowed signers file does not name", signing.UNKNOWN_KEY
    )


def edit_last_approval(project: Project, name: str, **fields: object) -> None:
    """Change the last history line by hand, re-chained; a None value removes the field."""
    folder = project.task_dir(name)
    entries = [{k: v for k, v in e.items() if k != "prev"} for e in history(folder)]
    entries[-1].update(fields)
    entries[-1] = {k: v for k, v in entries[-1].items() if v is not None}
    rewrite_history(folder, entries)


def test_a_signature_copied_onto_another_record_is_invalid(
    signed: Project, keys: dict[str, Path]
) -> None:
    """A real signature moved to a record of a different time or digest proves nothing."""
    name = awaiting(signed)
    sign_approval(signed, name, keys["alice"])
    edit_last_approval(signed, name, time="2020-01-01T00:00:00Z")
    assert_gate_refuses(signed, name, "not a valid signature", signing.INVALID)


def test_an_artifact_changed_after_a_signed_approval_is_refused_and_reported(
    signed: Project, keys: dict[str, Path]
) -> None:
    name = awaiting(signed)
    sign_approval(signed, name, keys["alice"])
    signed.write(name, "DESIGN.md", "a different design\n")
    refused = signed.run("--task", name, "--transition", "implement")
    assert refused.rc == 1
    assert "DESIGN.md changed after its approval" in refused.err
    audit = signed.audit()
    assert audit.exit_code == 1
    assert with_code(audit, "AR207"), audit.text


def test_a_refused_approval_is_given_again_at_the_gate(
    signed: Project, keys: dict[str, Path]
) -> None:
    """The way back to the gate opens while the approval in force does not stand."""
    name = awaiting(signed)
    sign_approval(signed, name, keys["alice"])
    edit_last_approval(signed, name, signature=None)
    assert signed.run("--task", name, "--transition", "design:awaiting_approval").rc == 0
    sign_approval(signed, name, keys["alice"])
    assert signed.run("--task", name, "--transition", "implement").rc == 0


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        ((), "is not named in"),  # approver 'user' by default
        (("--approver", "bob"), "one of: alice"),
    ],
)
def test_a_signed_approval_names_an_approver_the_file_names(
    signed: Project, keys: dict[str, Path], args: tuple[str, ...], wanted: str
) -> None:
    name = awaiting(signed)
    result = signed.run("--task", name, "--approve", "--key", str(keys["alice"]), *args)
    assert result.rc == 2 and wanted in result.err
    assert signed.state(name) == "design:awaiting_approval\n"


def test_signed_mode_without_a_signers_file_is_an_error(
    signed: Project, keys: dict[str, Path]
) -> None:
    name = awaiting(signed)
    (signed.root / ".automaton" / "allowed_signers").unlink()
    result = signed.run(
        "--task", name, "--approve", "--approver", "alice", "--key", str(keys["alice"])
    )
    assert result.rc == 2
    assert "allowed signers file" in result.err and "Traceback" not in result.err


def test_the_signers_file_is_relative_to_the_configuration(
    project: Project, keys: dict[str, Path]
) -> None:
    signers_file(project.root / "team" / "approvers", alice=keys["alice"])
    write_config(project, SIGNED + 'allowed-signers = "team/approvers"\n')
    name = awaiting(project)
    sign_approval(project, name, keys["alice"])
    assert project.run("--task", name, "--transition", "implement").rc == 0


def test_a_plain_approve_is_refused_in_signed_mode(signed: Project) -> None:
    """Through the Python API a plain command-line approval is refused as well."""
    from automaton_rules import workflow
    from automaton_rules.core.config import load_config
    from automaton_rules.core.project import find_project
    from automaton_rules.support.errors import Refusal

    name = awaiting(signed)
    found = find_project(signed.root)
    policy = workflow.Policy.of(load_config(signed.root), signed.root)
    with pytest.raises(Refusal) as refused:
        workflow.approve(found, name, approver="alice", policy=policy)
    assert refused.value.code == "approval-must-be-signed"


# ------------------------------------------------------------------ prompt mode, CLI


def test_approve_without_a_terminal_is_refused_and_names_what_the_user_types(
    project: Project,
) -> None:
    name = awaiting(project)
    write_config(project, PROMPT)
    refused = project.script("--task", name, "--approve")
    assert refused.rc == 1
    assert f"Ask the user to type `approve {name}`" in refused.err
    # The command it names runs as pasted, from any folder: it names the project.
    assert f"--task {name} --approve --project {project.root} in a terminal." in refused.err
    assert project.state(name) == "design:awaiting_approval\n"
    as_json = project.script("--task", name, "--approve", "--json")
    assert as_json.rc == 1
    assert as_json.json["error"]["code"] == "approval-by-user-only"
    assert as_json.json["next"]["ask_user_to_type"] == f"approve {name}"


def _at_terminal(root: Path, typed: str, *args: str) -> tuple[int, str]:
    """status.py run with a pseudo-terminal on stdin and stdout, as a person runs it."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, str(STATUS_PY), *args, "--project", str(root)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=status_env(),
        cwd=ROOT,
    )
    os.close(follower)
    os.write(leader, typed.encode() + b"\n")
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return proc.wait(timeout=60), out.decode(errors="replace")


def test_approve_at_a_terminal_asks_for_the_tasks_name(project: Project) -> None:
    name = awaiting(project)
    write_config(project, PROMPT)
    code, out = _at_terminal(project.root, name, "--task", name, "--approve")
    assert code == 0, out
    assert "Type the task's name to confirm" in out
    assert project.approvals(name)[-1].endswith("|user|terminal")
    assert history(project.task_dir(name))[-1]["via"] == "terminal"


def test_approve_at_a_terminal_with_the_wrong_name_approves_nothing(project: Project) -> None:
    name = awaiting(project)
    write_config(project, PROMPT)
    code, out = _at_terminal(project.root, "yes", "--task", name, "--approve")
    assert code == 1, out
    assert "Nothing was approved" in out
    assert project.state(name) == "design:awaiting_approval\n"


def test_the_task_view_and_json_show_how_each_approval_was_given(project: Project) -> None:
    name = awaiting(project)
    project.run("--task", name, "--approve")
    view = project.run("--task", name)
    assert "via cli" in view.out
    approvals = project.run("--task", name, "--json").json["task"]["approvals"]
    assert [a["via"] for a in approvals] == ["cli", "cli"]


def test_the_audit_reports_a_command_line_approval_in_prompt_mode(project: Project) -> None:
    name = awaiting(project)
    write_config(project, PROMPT)
    audit = project.audit()
    assert audit.exit_code == 1
    (finding,) = with_code(audit, "AR210")
    assert "not typed by the user" in finding["message"]
    assert finding["task"] == name


def test_the_setting_is_checked(project: Project) -> None:
    project.create("any")
    write_config(project, 'approval = "sometimes"\n')
    result = project.run("--list")
    assert result.rc == 2
    assert '"open", "prompt" or "signed"' in result.err


def test_key_goes_with_signed_mode_only(project: Project, tmp_path: Path) -> None:
    name = awaiting(project)
    result = project.run("--task", name, "--approve", "--key", str(tmp_path / "k"))
    assert result.rc == 2 and "--key signs an approval" in result.err
    assert project.run("--list", "--key", "k").rc == 2
    assert json.loads(project.run("--task", name, "--json").out)["task"]["state"] == (
        "design:awaiting_approval"
    )


# ------------------------------------------------------------------ prompt mode, hooks


@pytest.fixture
def prompted(project: Project) -> Project:
    write_config(project, PROMPT)
    return project


def test_a_user_prompt_approve_task_approves_the_task(prompted: Project) -> None:
    name = awaiting(prompted)
    proc = run_hook("claude", claude_prompt(prompted.root, f"approve {name}"))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert f"The user approved task '{name}'" in context
    assert answer["systemMessage"] == context
    assert prompted.state(name) == "design:approved\n"
    entry = history(prompted.task_dir(name))[-1]
    assert (entry["via"], entry["harness"], entry["session"]) == ("prompt", "claude", "abc123")
    assert prompted.approvals(name)[-1].endswith("|user|prompt")
    assert prompted.run("--task", name, "--transition", "implement").rc == 0
    assert with_code(prompted.audit(), "AR210") == [
        f for f in with_code(prompted.audit(), "AR210") if "research" in f["message"]
    ]


def test_an_ordinary_prompt_changes_nothing(prompted: Project) -> None:
    from helpers import files_below

    name = awaiting(prompted)
    before = files_below(prompted.root)
    for text in ("please approve the design when ready", f"approve {name} and continue", "hi"):
        proc = run_hook("claude", claude_prompt(prompted.root, text))
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert files_below(prompted.root) == before


@pytest.mark.parametrize("typed", ["/APPROVE {name}", "  Approve `{name}`.  ", "approve {upper}"])
def test_any_case_and_a_leading_slash_are_accepted(prompted: Project, typed: str) -> None:
    name = awaiting(prompted)
    run_hook("claude", claude_prompt(prompted.root, typed.format(name=name, upper=name.upper())))
    assert prompted.state(name) == "design:approved\n"


def test_approved_alone_approves_the_one_task_awaiting(prompted: Project) -> None:
    name = awaiting(prompted)
    proc = run_hook("claude", claude_prompt(prompted.root, "APPROVED"))
    assert f"approved task '{name}'" in proc.stdout
    assert prompted.state(name) == "design:approved\n"


def test_approved_alone_with_two_tasks_awaiting_approves_neither(prompted: Project) -> None:
    first = awaiting(prompted, "first")
    second = awaiting(prompted, "second")
    proc = run_hook("claude", claude_prompt(prompted.root, "Approved."))
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "several tasks await approval (first, second)" in context
    assert "nothing" not in context or "did not record" in context
    assert prompted.state(first) == prompted.state(second) == "design:awaiting_approval\n"


def test_a_prompt_for_an_unknown_task_says_so_and_approves_nothing(prompted: Project) -> None:
    name = awaiting(prompted)
    proc = run_hook("claude", claude_prompt(prompted.root, "approve nosuch"))
    assert "there is no task 'nosuch'" in proc.stdout
    assert prompted.state(name) == "design:awaiting_approval\n"


def test_a_prompt_approval_in_signed_mode_is_refused_with_how_to_sign(signed: Project) -> None:
    name = awaiting(signed)
    proc = run_hook("claude", claude_prompt(signed.root, f"approve {name}"))
    assert "takes signed approvals only" in proc.stdout
    assert signed.state(name) == "design:awaiting_approval\n"


@pytest.mark.parametrize(
    ("harness", "event"),
    [
        # Codex UserPromptSubmit (codex-rs/hooks/schema/.../user-prompt-submit.command.input)
        (
            "codex",
            {
                "session_id": "019d-1",
                "turn_id": "019d-t",
                "transcript_path": None,
                "hook_event_name": "UserPromptSubmit",
                "model": "gpt-5-codex",
                "permission_mode": "default",
            },
        ),
        # Gemini CLI BeforeAgent (docs/hooks/reference.md)
        (
            "gemini",
            {
                "session_id": "3f0c",
                "transcript_path": "/tmp/t.jsonl",
                "hook_event_name": "BeforeAgent",
                "timestamp": "2026-09-21T14:02:11.512Z",
            },
        ),
        # Cursor beforeSubmitPrompt (cursor.com/docs/hooks)
        (
            "cursor",
            {
                "conversation_id": "c-1",
                "generation_id": "g-7",
                "hook_event_name": "beforeSubmitPrompt",
                "attachments": [],
            },
        ),
        # opencode: the plugin's chat.message hook sends this
        ("opencode", {"session_id": "ses_1", "hook_event_name": "UserPromptSubmit"}),
    ],
)
def test_every_harness_prompt_hook_approves(
    prompted: Project, harness: str, event: dict[str, object]
) -> None:
    name = awaiting(prompted)
    where = (
        {"workspace_roots": [str(prompted.root)]}
        if harness == "cursor"
        else {"cwd": str(prompted.root)}
    )
    ordinary = run_hook(harness, {**event, **where, "prompt": "what next?"})
    assert ordinary.returncode == 0
    assert ordinary.stdout.strip() in ("", "{}", '{"continue": true}')
    assert prompted.state(name) == "design:awaiting_approval\n"
    proc = run_hook(harness, {**event, **where, "prompt": f"approve {name}"})
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    if harness == "cursor":  # no context channel: the message stops, the user is told
        assert answer["continue"] is False and name in answer["user_message"]
    elif harness == "opencode":
        assert name in answer["additionalContext"]
    else:
        assert answer["hookSpecificOutput"]["hookEventName"] == event["hook_event_name"]
        assert name in answer["hookSpecificOutput"]["additionalContext"]
    assert prompted.state(name) == "design:approved\n"
    assert history(prompted.task_dir(name))[-1]["harness"] == harness


@pytest.mark.parametrize("quoted", ['"approve {name}"', "'approve {name}'"])
def test_a_prompt_wrapped_in_quotes_approves_as_typed(prompted: Project, quoted: str) -> None:
    """Issue 28: `opencode run "approve t1"` hands the plugin's chat.message the prompt with
    its quotes (`"prompt":"\\"approve t1\\""`), and nothing was approved."""
    name = awaiting(prompted)
    event = {"session_id": "ses_1", "hook_event_name": "UserPromptSubmit"}
    prompt = quoted.format(name=name)
    proc = run_hook("opencode", {**event, "cwd": str(prompted.root), "prompt": prompt})
    assert proc.returncode == 0, proc.stderr
    assert name in json.loads(proc.stdout)["additionalContext"]
    assert prompted.state(name) == "design:approved\n"


def test_a_codex_subagents_prompt_approves_nothing(prompted: Project) -> None:
    """A subagent's "prompt" was written by its parent agent, not typed by the user."""
    name = awaiting(prompted)
    event = {**claude_prompt(prompted.root, f"approve {name}"), "agent_id": "sub-1"}
    proc = run_hook("codex", event)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert prompted.state(name) == "design:awaiting_approval\n"


def test_a_broken_configuration_lets_the_prompt_through_and_approves_nothing(
    prompted: Project,
) -> None:
    """A prompt hook fails open: the chat never locks, and nothing is approved."""
    name = awaiting(prompted)
    write_config(prompted, "approval = [\n")
    proc = run_hook("codex", claude_prompt(prompted.root, f"approve {name}"))
    assert proc.returncode == 0
    assert "nothing was approved" in json.loads(proc.stdout)["systemMessage"].lower()
    assert prompted.state(name) == "design:awaiting_approval\n"


def test_the_gemini_prompt_is_read_after_the_context_its_hooks_put_first(
    prompted: Project,
) -> None:
    name = awaiting(prompted)
    typed = f"<hook_context>Tasks: {name}</hook_context>\n\napprove {name}"
    event = {"cwd": str(prompted.root), "hook_event_name": "BeforeAgent", "prompt": typed}
    assert run_hook("gemini", event).returncode == 0
    assert prompted.state(name) == "design:approved\n"


def test_the_adapter_still_denies_the_agents_own_approve(prompted: Project) -> None:
    name = awaiting(prompted)
    event = {
        "cwd": str(prompted.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": f"python status.py --task {name} --approve"},
    }
    answer = json.loads(run_hook("claude", event).stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_signed_approval_in_multi_agent_mode_records_the_signer(
    signed: Project, keys: dict[str, Path]
) -> None:
    """The agent running the command is not the approver: the key's principal is."""
    name = awaiting(signed)
    write_config(signed, SIGNED + 'mode = "multi-agent"\n')
    result = signed.run(
        "--task",
        name,
        "--approve",
        "--approver",
        "alice",
        "--key",
        str(keys["alice"]),
        "--agent",
        "agent-7",
    )
    assert result.rc == 0, result.err
    assert history(signed.task_dir(name))[-1]["approver"] == "alice"


@pytest.mark.parametrize(
    ("mode", "told"),
    [
        (PROMPT, "ask the user to type `approve login` in the chat"),
        (SIGNED, "the user signs in a terminal:"),
        ("", "after the user says APPROVED:"),
    ],
)
def test_the_task_view_says_how_this_project_approves(
    project: Project, mode: str, told: str
) -> None:
    name = awaiting(project)
    write_config(project, mode)
    view = project.run("--task", name)
    assert told in view.out
    assert told in project.run("--task", name, "--json").json["task"]["command_to_proceed"]


def test_a_terminal_approve_of_a_task_not_awaiting_asks_nothing(project: Project) -> None:
    name = "login"
    project.task(name, "research:approved")
    write_config(project, PROMPT)
    code, out = _at_terminal(project.root, "", "--task", name, "--approve")
    assert code == 1, out
    assert "Type the task's name" not in out
    assert "not awaiting approval" in out


def test_a_configuration_elsewhere_cannot_loosen_the_projects_approval_mode(
    signed: Project, tmp_path: Path
) -> None:
    """`--config` naming a file that says `approval = "open"` leaves the project's own mode
    in force, at the gate and for the approval itself (found by an adversarial review)."""
    name = awaiting(signed)
    loose = tmp_path / "open.toml"
    loose.write_text('approval = "open"\n')
    refused = signed.run("--task", name, "--approve", "--config", str(loose))
    assert refused.rc in (1, 2), refused.out
    assert "sign" in refused.err
    assert signed.state(name) == "design:awaiting_approval\n"
    # An unsigned approval written by a looser run cannot be used to move on either.
    write_config(signed, 'approval = "open"\n')
    assert signed.run("--task", name, "--approve").rc == 0
    write_config(signed, SIGNED)
    moved = signed.run("--task", name, "--transition", "implement", "--config", str(loose))
    assert moved.rc == 1, moved.out
    assert "carries no signature" in moved.err
    assert signed.state(name) == "design:approved\n"


def test_prompt_mode_holds_whatever_config_an_agent_names(project: Project, tmp_path: Path) -> None:
    name = awaiting(project)
    write_config(project, PROMPT)
    loose = tmp_path / "open.toml"
    loose.write_text('approval = "open"\n')
    refused = project.script("--task", name, "--approve", "--config", str(loose))
    assert refused.rc == 1
    assert f"Ask the user to type `approve {name}`" in refused.err
    assert project.state(name) == "design:awaiting_approval\n"
    # A stricter file elsewhere does apply: signed asks for a signature.
    strict = tmp_path / "signed.toml"
    strict.write_text(SIGNED)
    assert "sign" in project.script("--task", name, "--approve", "--config", str(strict)).err


def test_prompt_mode_holds_a_line_labelled_signed_to_its_signature(
    project: Project, keys: dict[str, Path]
) -> None:
    """Found by a review: prompt mode took `via: signed` on trust, an easier forgery than
    the prompt it stands in for. An unsigned one is refused; a real one stands."""
    signers_file(project.root / ".automaton" / "allowed_signers", alice=keys["alice"])
    name = awaiting(project)
    write_config(project, PROMPT)
    forge_approval(project, name)
    assert_gate_refuses(project, name, "carries no signature", signing.MISSING)

    other = awaiting(project, "billing")
    write_config(project, PROMPT)
    forge_approval(project, other, keys["alice"])
    assert project.run("--task", other, "--transition", "implement").rc == 0
