"""The two ways a command can fail, and the catalogue of every error code a command reports.

The workflow refuses (`Refusal`, exit 1) or the input is bad (`AutomatonError`, exit 2).
Each carries a code that agents and harnesses match on (`error.code` in every JSON answer):
`CODES` holds every code the package raises, with the exit status it ends a command with
and the page and section that document it. `tests/test_error_codes.py` reads every raise
in the package and fails on a code missing here, raised with the other exit status, or not
documented where its row points.
"""

from __future__ import annotations

from automaton_rules.support.output import printable
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs the edit-time hooks; annotations need it only here
    from collections.abc import Mapping
    from typing import Any


class AutomatonError(Exception):
    """Bad input, a broken task or a broken plugin: exit 2, one clear ERROR line."""

    exit_code = 2

    def __init__(
        self,
        code: str,
        message: str,
        *,
        text: str | None = None,
        next_steps: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        # One line, whatever a path or name inside the message holds: a line break or an
        # escape sequence from disk must not print a line that reads as a verdict.
        self.text = f"ERROR: {printable(message, None)}" if text is None else text
        self.next_steps: dict[str, Any] = dict(next_steps or {})

    @property
    def documented_at(self) -> str | None:
        """Where the code is documented (`docs/PAGE.md#section`); None for a code of a
        plugin's own, which the catalogue does not hold."""
        found = CODES.get(self.code)
        return None if found is None else found.doc


class Refusal(AutomatonError):
    """The workflow said no (illegal move, missing artifact, gate closed): exit 1."""

    exit_code = 1


REFUSED = Refusal.exit_code
ERROR = AutomatonError.exit_code


class Code(Record):
    """One error code of the contract: the exit status a command ends with when it reports
    it, and the page and section (`docs/PAGE.md#anchor`) that say what it means."""

    name: str
    exit_status: int
    doc: str


_WORKFLOW = "docs/workflow.md#"
_APPROVALS = "docs/approvals.md#"
# Every code is in this table, with its exit status; a row points here when no page
# explains the code more closely.
ERROR_CODES = "docs/harness-integration.md#error-codes"

CODES: dict[str, Code] = {
    code.name: code
    for code in (
        # Reading the command line and finding the project.
        Code("usage", ERROR, ERROR_CODES),
        Code("no-project", ERROR, ERROR_CODES),
        Code("project-not-found", ERROR, ERROR_CODES),
        Code("home-not-a-project", ERROR, ERROR_CODES),
        # Creating a task.
        Code("invalid-task-name", ERROR, _WORKFLOW + "creating-a-task"),
        Code("task-exists", REFUSED, _WORKFLOW + "creating-a-task"),
        Code("parent-not-decomposed", REFUSED, _WORKFLOW + "creating-a-task"),
        # Moving a task.
        Code("illegal-transition", REFUSED, _WORKFLOW + "moving-a-task"),
        Code("transition-refused", REFUSED, _WORKFLOW + "moving-a-task"),
        Code("approved-artifact-changed", REFUSED, _WORKFLOW + "moving-a-task"),
        Code("verdict-not-pass", REFUSED, _WORKFLOW + "moving-a-task"),
        Code("subtasks-incomplete", REFUSED, _WORKFLOW + "moving-a-task"),
        # Approving.
        Code("approval-not-required", REFUSED, _WORKFLOW + "approving"),
        Code("not-awaiting-approval", REFUSED, _WORKFLOW + "approving"),
        Code("missing-artifact", REFUSED, _WORKFLOW + "approving"),
        Code("invalid-approver", ERROR, _WORKFLOW + "approving"),
        # Finding the task.
        Code("task-not-found", ERROR, _WORKFLOW + "finding-the-task"),
        Code("unknown-phase", ERROR, _WORKFLOW + "finding-the-task"),
        Code("untracked-task", ERROR, _WORKFLOW + "finding-the-task"),
        Code("state-edited-by-hand", ERROR, _WORKFLOW + "finding-the-task"),
        Code("outside-tasks-folder", ERROR, ERROR_CODES),
        Code("unreadable", ERROR, ERROR_CODES),
        # Follow-ups and upgrades.
        Code("no-verdict-yet", REFUSED, _WORKFLOW + "follow-ups-and-upgrades"),
        Code("no-failed-verdict", REFUSED, _WORKFLOW + "follow-ups-and-upgrades"),
        Code("unreadable-history", ERROR, ERROR_CODES),
        # The `approval` setting (docs/approvals.md).
        Code("approval-by-user-only", REFUSED, _APPROVALS + "prompt-mode-approving-in-the-chat"),
        Code("approval-must-be-signed", REFUSED, _APPROVALS + "prompt-mode-approving-in-the-chat"),
        Code("approval-not-confirmed", REFUSED, _APPROVALS + "prompt-mode-approving-in-the-chat"),
        Code("approval-missing", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("approval-invalid", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("approval-unknown-key", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("approval-no-signers-file", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("approval-not-given-by-a-person", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        # A board approval made with a passkey, checked again (support/passkey_check.py).
        Code("approval-passkey-unknown-key", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("approval-passkey-invalid", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("approval-passkey-uncheckable", REFUSED, _APPROVALS + "signed-mode-at-the-gate"),
        Code("unknown-approver", ERROR, _APPROVALS + "signed-mode-setting-it-up"),
        Code("no-signing-key", ERROR, _APPROVALS + "signed-mode-setting-it-up"),
        Code("no-signers-file", ERROR, _APPROVALS + "signed-mode-setting-it-up"),
        Code("signers-unreadable", ERROR, ERROR_CODES),
        Code("signing-failed", ERROR, _APPROVALS + "signed-mode-setting-it-up"),
        Code("ssh-keygen-missing", ERROR, _APPROVALS + "signed-mode-setting-it-up"),
        Code("ssh-keygen-failed", ERROR, ERROR_CODES),
        # Multi-agent mode.
        Code("agent-required", REFUSED, "docs/harness-integration.md#multi-agent-mode"),
        Code("not-claimed", REFUSED, "docs/harness-integration.md#multi-agent-mode"),
        Code("claimed", REFUSED, "docs/harness-integration.md#multi-agent-mode"),
        Code("self-approval", REFUSED, "docs/harness-integration.md#multi-agent-mode"),
        Code("invalid-agent", ERROR, ERROR_CODES),
        Code("not-multi-agent", ERROR, ERROR_CODES),
        # The task files.
        Code("locked", ERROR, ERROR_CODES),
        Code("lock-failed", ERROR, ERROR_CODES),
        Code("write-failed", ERROR, ERROR_CODES),
        # The configuration.
        Code("config-not-found", ERROR, ERROR_CODES),
        Code("config-unreadable", ERROR, ERROR_CODES),
        Code("config-invalid", ERROR, ERROR_CODES),
        Code("config-unknown-key", ERROR, ERROR_CODES),
        Code("config-wrong-type", ERROR, ERROR_CODES),
        # Rules and plugins.
        Code("plugin-error", ERROR, ERROR_CODES),
        Code("unknown-rule", ERROR, ERROR_CODES),
        # git, the audit and its baseline.
        Code("git-failed", ERROR, ERROR_CODES),
        Code("git-shallow", ERROR, ERROR_CODES),
        Code("not-a-repository", ERROR, ERROR_CODES),
        Code("unknown-revision", ERROR, ERROR_CODES),
        Code("audit-failed", ERROR, ERROR_CODES),
        Code("baseline-missing", ERROR, ERROR_CODES),
        Code("baseline-invalid", ERROR, ERROR_CODES),
        Code("baseline-unwritable", ERROR, ERROR_CODES),
        # The harness adapter: an approval typed in the chat, the shell reader.
        Code("unknown-task", ERROR, ERROR_CODES),
        Code("nothing-awaiting", ERROR, ERROR_CODES),
        Code("several-awaiting", ERROR, ERROR_CODES),
        Code("shell-parser", ERROR, ERROR_CODES),
        # The dashboard's requests for changes, and its server.
        Code("empty-comment", ERROR, ERROR_CODES),
        Code("comment-too-long", ERROR, ERROR_CODES),
        Code("unknown-artifact", ERROR, ERROR_CODES),
        Code("unknown-line", ERROR, ERROR_CODES),
        Code("unknown-request", ERROR, ERROR_CODES),
        Code("board-not-installed", ERROR, ERROR_CODES),
        Code("port-unavailable", ERROR, ERROR_CODES),
        # The installer.
        Code("install-failed", ERROR, ERROR_CODES),
        # Any command.
        Code("os-error", ERROR, ERROR_CODES),
        Code("interrupted", ERROR, ERROR_CODES),
        Code("internal-error", ERROR, ERROR_CODES),
    )
}


def error_body(error: AutomatonError) -> dict[str, Any]:
    """A failure in JSON: the code to branch on, the words to show, and what to run next."""
    return {
        "error": {"code": error.code, "message": error.message, "text": error.text},
        "next": error.next_steps,
    }


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "AutomatonError",
    "Refusal",
    "error_body",
]
