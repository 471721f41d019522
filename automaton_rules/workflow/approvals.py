"""Who may approve, and how: the project's `approval` setting, applied at both ends of a gate.

An approval records how it was given (`via`). In `open` mode any way counts; in `prompt`
mode the user types `approve TASK` in the agent's chat (or confirms at a terminal); in
`signed` mode the approval carries an OpenSSH signature, checked again whenever the task
leaves the approved state, so a hand-written approval never opens a gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from automaton_rules.core import machine
from automaton_rules.core.policy import NO_SIGNERS, Policy, describe, unproven
from automaton_rules.core.project import Project, Task
from automaton_rules.support import signing
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable


@dataclass(frozen=True)
class Given:
    """How this approval is being given: the way (`via`), what to record about it (the
    harness and its session for a prompt), and for `signed`, how to sign."""

    via: str = "cli"
    details: dict[str, Any] = field(default_factory=dict)
    signer: Any = None  # Callable[[bytes], str]: the armored signature of a message


BY_COMMAND_LINE = Given()


def refuse_way(project: Project, task: Task, policy: Policy, given: Given) -> None:
    """Refuse an approval given in a way the project's mode does not accept."""
    if policy.accepts(given.via):
        return
    if policy.needs_signature:
        signs = project.context.command(
            "--task", task.name, "--approve", "--approver", "ID", "--project", project.root
        )
        raise Refusal(
            "approval-must-be-signed",
            f"Approval refused: this project takes signed approvals only (approval = "
            f"\"signed\"). The user approves task '{task.name}' in a terminal with "
            f"{signs} "
            "(signed with git's user.signingkey, or --key FILE).",
            next_steps={"approval": policy.mode, "task": task.name},
        )
    typed = f"approve {task.name}"
    at_terminal = project.context.command(
        "--task", task.name, "--approve", "--project", project.root
    )
    raise Refusal(
        "approval-by-user-only",
        f"Approval refused: in this project the user approves in the agent's chat "
        f'(approval = "prompt"). Ask the user to type `{typed}` as their whole message, '
        f"or to run {at_terminal} in a terminal.",
        next_steps={"approval": policy.mode, "task": task.name, "ask_user_to_type": typed},
    )


def refuse_unproven(
    project: Project, task: Task, target: str, policy: Policy, reason: str | None
) -> None:
    """Leaving an approved state needs an approval given the way the project asks."""
    gate = machine.base_phase(task.state or "") + machine.AWAITING
    if reason is None or target == gate:
        return
    back = project.context.command(
        "--task", task.name, "--transition", gate, "--project", project.root
    )
    if reason == NO_SIGNERS:
        fix = f"Create {policy.signers} naming each approver's public key (see docs/approvals.md)."
    elif policy.needs_signature:
        signs = project.context.command(
            "--task", task.name, "--approve", "--approver", "ID", project=project.root
        )
        fix = f"Re-request approval ({back}); the user then approves with {signs}."
    else:
        fix = f"Re-request approval ({back}); the user then types `approve {task.name}`."
    raise Refusal(
        f"approval-{reason}",
        f"Cannot transition from '{task.state}' to '{target}'. The approval of "
        f"'{task.state}' does not stand: {printable(describe(reason), None)} "
        f'(approval = "{policy.mode}"). {fix}',
        next_steps={"reason": reason, "transition": gate, "command": back},
    )


def sign_record(
    project: Project, task: Task, policy: Policy, given: Given, fields: dict[str, Any]
) -> dict[str, Any]:
    """What the history records of a signed approval: the signature over its fields,
    checked at once, so a key the signers file does not name approves nothing."""
    if given.via != "signed":
        return {}
    if given.signer is None:
        raise AutomatonError("usage", "A signed approval needs a key to sign with.")
    record = {**fields, "signature": given.signer(_message(project, task, fields))}
    reason = unproven(project, task, Policy("signed", policy.signers), record)
    if reason is not None:
        raise Refusal(
            f"approval-{reason}",
            f"Approval refused: the signature does not stand: {describe(reason)} "
            f"('{printable(str(fields['approver']))}' in {policy.signers}). Nothing was "
            "approved. Sign with the approver's own key (--key FILE, the key whose public half "
            "the signers file names for them), or have the user add this key to that file.",
            next_steps={"reason": reason},
        )
    return {"signature": record["signature"]}


def _message(project: Project, task: Task, fields: dict[str, Any]) -> bytes:
    text = signing.recorded_message(project.root, task.path, fields)
    if text is None:
        raise AutomatonError("signing-failed", "An approval record lacks a field to sign.")
    return text
