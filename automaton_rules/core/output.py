"""What every output shares: the JSON envelope, its schema version, and escaped text.

The edit-time hooks print through here, so json loads only when a JSON answer is asked
for, and typing never.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from automaton_rules.core.errors import AutomatonError

SCHEMA_VERSION = 1
TOOL = "automaton-rules"

# Line breaks that JSON leaves raw but line readers (str.splitlines among them) split on.
_JSON_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def envelope(
    command: str,
    exit_code: int,
    body: Mapping[str, Any],
    *,
    version: str | None = None,
    project: str | None = None,
) -> dict[str, Any]:
    """One JSON answer: the keys a reader checks first, then the command's own body.

    The audit also names the tool's version and the project it read, in the places its
    documented shape gives them.
    """
    head: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "tool": TOOL}
    if version is not None:
        head["version"] = version
    head["command"] = command
    if project is not None:
        head["project"] = project
    return {**head, "ok": exit_code == 0, "exit_code": exit_code, **body}


def error_body(error: AutomatonError) -> dict[str, Any]:
    """A failure in JSON: the code to branch on, the words to show, and what to run next."""
    return {
        "error": {"code": error.code, "message": error.message, "text": error.text},
        "next": error.next_steps,
    }


def printable(value: str, limit: int | None = 80) -> str:
    """Show untrusted text on one line: control characters escaped, length capped."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in value)
    return shown if limit is None or len(shown) <= limit else shown[: limit - 3] + "..."


def json_text(value: Any, indent: int | None = 2) -> str:
    """JSON as output prints it: readable non-ASCII, yet no value can break a line."""
    import json

    text = json.dumps(value, indent=indent, ensure_ascii=False)
    for raw, escaped in _JSON_BREAKS.items():
        text = text.replace(raw, escaped)
    return text
