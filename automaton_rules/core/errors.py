"""The two ways a command can fail: the workflow refuses (exit 1) or the input is bad (exit 2)."""

from __future__ import annotations

from automaton_rules.core.output import printable

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


class Refusal(AutomatonError):
    """The workflow said no (illegal move, missing artifact, gate closed): exit 1."""

    exit_code = 1
