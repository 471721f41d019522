"""The two ways a command can fail: the workflow refuses (exit 1) or the input is bad (exit 2)."""

from __future__ import annotations

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


def printable(value: str, limit: int | None = 80) -> str:
    """Show untrusted text on one line: control characters escaped, length capped."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in value)
    return shown if limit is None or len(shown) <= limit else shown[: limit - 3] + "..."


# Line breaks that JSON leaves raw but line readers (str.splitlines among them) split on.
_JSON_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def json_text(value: Any, indent: int | None = 2) -> str:
    """JSON as output prints it: readable non-ASCII, yet no value can break a line."""
    import json

    text = json.dumps(value, indent=indent, ensure_ascii=False)
    for raw, escaped in _JSON_BREAKS.items():
        text = text.replace(raw, escaped)
    return text
