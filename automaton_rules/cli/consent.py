"""How `--approve` on this command line gives its approval, under the project's mode.

`signed`: with the approver's SSH key, after checking the approver is one the signers file
names. `prompt`: only a person at a terminal, who confirms by typing the task's name; an
agent's shell tool has no terminal, so its `--approve` stays a plain command line, which
the workflow refuses. `open`: a plain command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from automaton_rules import workflow
from automaton_rules.core.project import Project
from automaton_rules.support import signing
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable


def given(
    project: Project, task: str, policy: workflow.Policy, approver: str, key: Path | None
) -> workflow.Given:
    """The way this approval is given, ready for `workflow.approve`."""
    if policy.needs_signature:
        return _signed(project, policy, approver, key)
    if key is not None:
        raise AutomatonError(
            "usage",
            "--key signs an approval, which this project does not ask for (approval = "
            f'"{policy.mode}").',
        )
    if policy.needs_person and at_terminal():
        if _awaiting(project, task):  # else the workflow says why, with nothing to confirm
            _confirm(task)
        return workflow.Given("terminal")
    return workflow.BY_COMMAND_LINE


def _awaiting(project: Project, task: str) -> bool:
    from automaton_rules.core import machine
    from automaton_rules.core.project import load_tracked

    return machine.is_awaiting(load_tracked(project, task).state or "")


def at_terminal() -> bool:
    """Both ends of this command are a terminal: a person, not an agent's shell tool."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _confirm(task: str) -> None:
    """The person types the task's name, so a stray `--approve` approves nothing."""
    sys.stdout.write(f"Approve task '{task}'? Type the task's name to confirm: ")
    sys.stdout.flush()
    typed = sys.stdin.readline().strip()
    if typed != task:
        raise Refusal(
            "approval-not-confirmed",
            f"Approval not confirmed: '{printable(typed)}' is not the task's name '{task}'. "
            "Nothing was approved.",
        )


def _signed(
    project: Project, policy: workflow.Policy, approver: str, key: Path | None
) -> workflow.Given:
    signers = policy.signers
    if signers is None or not signers.is_file():
        raise AutomatonError(
            "no-signers-file",
            f'approval = "signed" needs the allowed signers file {signers}, naming each '
            "approver's public key (see docs/approvals.md).",
        )
    names = signing.principals(signers)
    if approver not in names:
        listed = ", ".join(names) if names else "nobody yet"
        raise AutomatonError(
            "unknown-approver",
            f"Approver '{printable(approver)}' is not named in {signers}. A signed approval "
            f"names its approver with --approver ID, one of: {listed}.",
        )
    chosen = key.expanduser() if key is not None else signing.read_git_signing_key(project.root)
    if chosen is None:
        raise AutomatonError(
            "no-signing-key",
            "No key to sign the approval with: pass --key FILE (a private key, or the public "
            "key of one ssh-agent holds), or set git config user.signingkey.",
        )
    if not chosen.is_file():
        raise AutomatonError("no-signing-key", f"Signing key '{chosen}' not found.")
    return workflow.Given("signed", signer=lambda text: signing.sign(text, chosen))
