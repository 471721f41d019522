"""How the project's `approval` setting judges a recorded approval: pure checks over the
history, for the gate in the workflow and for the audit's rule alike.

Each approval records how it was given (`via`: cli, terminal, prompt or signed). `open`
accepts any; `prompt` a person's (typed in the agent's chat, or confirmed at a terminal);
`signed` only an OpenSSH signature that the allowed-signers file vouches for, over what
the history line records.
"""

from __future__ import annotations

from dataclasses import dataclass

from automaton_rules.core import machine
from automaton_rules.core.config import APPROVAL_MODES, Config, find_config, load_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from automaton_rules.core.project import Project, Task

# The ways each mode accepts; `signed` is also the strongest way in the other modes.
ACCEPTED = {
    "open": ("cli", "terminal", "prompt", "signed", "board", "board-passkey"),
    "prompt": ("terminal", "prompt", "signed", "board", "board-passkey"),
    "signed": ("signed",),
}
NO_SIGNERS = "no-signers-file"
NOT_A_PERSON = "not-given-by-a-person"
# support/signing.py's MISSING, INVALID and UNKNOWN_KEY (tests/test_error_codes.py holds
# them equal), named here so that the views asking what a mode means, and the hooks, do
# not import signing, which loads subprocess and tempfile.
SIGNATURE_REASONS = ("missing", "invalid", "unknown-key")
_MISSING, _INVALID, _UNKNOWN_KEY = SIGNATURE_REASONS
_REASONS = {
    NOT_A_PERSON: "it was given on a command line, not typed by the user in the agent's chat "
    "or confirmed at a terminal",
    _MISSING: "it carries no signature",
    _INVALID: "its signature is not a valid signature of what it records",
    _UNKNOWN_KEY: "it was signed by a key the allowed signers file does not name for that approver",
    NO_SIGNERS: "the allowed signers file does not exist",
}
# Why a recorded approval may not stand: a refusal names it as its code, `approval-REASON`.
# (support/passkey_check.py's, named here so the edit-time path does not import it).
PASSKEY_REASONS = ("passkey-unknown-key", "passkey-invalid", "passkey-uncheckable")
REASONS: tuple[str, ...] = (*_REASONS, *PASSKEY_REASONS)


@dataclass(frozen=True)
class Policy:
    """The project's `approval` mode and, for `signed`, the allowed-signers file. What a
    mode means is asked of its properties; no other module compares the mode's name."""

    mode: str = "open"
    signers: Path | None = None

    @property
    def checks_approvals(self) -> bool:
        """Whether a recorded approval is held to the mode at all: `open` takes any."""
        return self.mode != "open"

    @property
    def needs_person(self) -> bool:
        """Whether a plain command line's `--approve` is refused: the approval must come
        from a person (typed in the chat, confirmed at a terminal, or signed)."""
        return not self.accepts("cli")

    @property
    def needs_signature(self) -> bool:
        """Whether only an approval signed with the approver's SSH key stands: no chat,
        terminal confirmation or browser can give one."""
        return self.mode == "signed"

    def accepts(self, via: str) -> bool:
        """Whether an approval given this way (`cli`, `terminal`, `prompt`, ...) stands."""
        return via in ACCEPTED.get(self.mode, ())

    @classmethod
    def of(cls, settings: Config, project_root: Path) -> Policy:
        """The policy a project's configuration sets. A `--config` naming another file
        may make it stricter, never looser: an agent cannot approve its own work by
        pointing status.py at a file that says `approval = "open"`."""
        chosen = cls(settings.approval, settings.signers(project_root))
        own_path = find_config(project_root) if settings.path is not None else None
        if own_path is None or own_path.resolve() == settings.path:
            return chosen
        own = load_config(project_root)
        if APPROVAL_MODES.index(own.approval) > APPROVAL_MODES.index(chosen.mode):
            return cls(own.approval, own.signers(project_root))
        return chosen


OPEN = Policy()


def unproven(project: Project, task: Task, policy: Policy, entry: dict[str, Any]) -> str | None:
    """Why one recorded approval does not stand under the policy, or None when it does."""
    if not policy.checks_approvals:
        return None
    if not policy.needs_signature:
        via = entry.get("via") or "cli"
        if not policy.accepts(via):
            return NOT_A_PERSON
        if via == "board-passkey":
            from automaton_rules.support import passkey_check

            return passkey_check.check_recorded(project.root, task.name, entry)
        if via != "signed":
            return None
        # A line that says it was signed is held to its signature: the label alone would
        # be an easier forgery than the prompt it stands in for.
    signers = policy.signers
    if signers is None or not signers.is_file():
        return NO_SIGNERS
    from automaton_rules.support import signing

    return signing.check_recorded_signature(project.root, task.path, entry, signers)


def describe(reason: str) -> str:
    """A reason from `unproven`, in words."""
    if reason in PASSKEY_REASONS:
        from automaton_rules.support import passkey_check

        return passkey_check.REASONS[reason]
    return _REASONS.get(reason, reason)


def approval_entry(task: Task) -> dict[str, Any] | None:
    """The `--approve` history line that let the task into its `X:approved` state."""
    state = task.state or ""
    for entry in reversed(task.history):
        if entry.get("command") == "--approve" and entry.get("to") == state:
            return entry
    return None


def gate_problem(project: Project, task: Task, policy: Policy) -> str | None:
    """Why the approval in force does not stand (a task in `X:approved` only)."""
    if not policy.checks_approvals or not machine.is_approved(task.state or ""):
        return None
    entry = approval_entry(task)
    if entry is None:
        return _MISSING
    return unproven(project, task, policy, entry)


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "ACCEPTED",
    "NO_SIGNERS",
    "OPEN",
    "Policy",
    "approval_entry",
    "describe",
    "gate_problem",
    "unproven",
]
