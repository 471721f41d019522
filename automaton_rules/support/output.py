"""What every output shares: the JSON envelope, its schema version, and escaped text.

The edit-time hooks print through here, so json loads only when a JSON answer is asked
for, and typing never.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


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


def printable(value: str, limit: int | None = 80) -> str:
    """Show untrusted text on one line: control characters escaped, length capped.

    Text that is printable throughout, as nearly all is, is checked in one call rather
    than character by character: an audit shows hundreds of thousands of strings.
    """
    if value.isprintable():
        shown = value
    else:
        shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in value)
    return shown if limit is None or len(shown) <= limit else shown[: limit - 3] + "..."


def message_lines(text: str, prefix: str = "ERROR: ") -> list[str]:
    """A message as the lines a terminal shows: the first after `prefix`, the lines of a
    text that has several (pluggy's, a traceback's) indented under it, each escaped."""
    first, *rest = text.split("\n")
    return [prefix + printable(first, None), *("  " + printable(line, None) for line in rest)]


def json_text(value: Any, indent: int | None = 2) -> str:
    """JSON as output prints it: readable non-ASCII, yet no value can break a line."""
    text = None
    if type(indent) is int:
        try:
            text = _indented(value, " " * indent)
        except (_Unusual, TypeError):
            text = None  # the json module writes it, or says what is wrong with it
    if text is None:
        import json

        text = json.dumps(value, indent=indent, ensure_ascii=False)
    for raw, escaped in _JSON_BREAKS.items():
        text = text.replace(raw, escaped)
    return text


class _Unusual(Exception):
    """A value `_indented` leaves to the json module."""


_DEPTH = 64  # deeper than any answer nests; a value that contains itself gets there
_OUTER = 2  # levels written piece by piece (an audit's findings are at the second)


def _indented(value: Any, step: str) -> str:
    """`json.dumps(value, indent=len(step), ensure_ascii=False)`, the same text, written
    without the pure-Python generators json runs when it indents, and joined once: an
    audit's report holds tens of thousands of findings. Plain types only; anything else
    raises `_Unusual`, and a key that is not a str raises TypeError."""
    from json.encoder import encode_basestring as quote

    quoted: dict[str, str] = {}  # a key, quoted with its colon: findings repeat theirs

    def write(item: Any, newline: str, depth: int) -> str:
        kind = type(item)
        if kind is str:
            return quote(item)
        if kind in _SCALARS:
            return _SCALARS[kind](item)
        if depth > _DEPTH or not isinstance(item, (dict, list, tuple)):
            raise _Unusual
        if not item:
            return "{}" if isinstance(item, dict) else "[]"
        inner = newline + step
        parts = []
        if isinstance(item, dict):
            for key, part in item.items():
                named = quoted.get(key)
                if named is None:
                    named = quoted[key] = quote(key) + ": "
                if type(part) is str:
                    parts.append(named + quote(part))
                elif part is None:
                    parts.append(named + "null")
                else:
                    parts.append(named + write(part, inner, depth + 1))
            return "{" + inner + ("," + inner).join(parts) + newline + "}"
        parts = [quote(p) if type(p) is str else write(p, inner, depth + 1) for p in item]
        return "[" + inner + ("," + inner).join(parts) + newline + "]"

    def pieces(item: Any, newline: str, depth: int, out: list[str]) -> None:
        """The outer levels into `out`, so the whole text is joined once, not per level."""
        if depth >= _OUTER or not isinstance(item, (dict, list, tuple)) or not item:
            out.append(write(item, newline, depth))
            return
        inner = newline + step
        if isinstance(item, dict):
            out.append("{")
            for index, (key, part) in enumerate(item.items()):
                out.append(("," if index else "") + inner + quote(key) + ": ")
                pieces(part, inner, depth + 1, out)
            out.append(newline + "}")
            return
        out.append("[")
        for index, part in enumerate(item):
            out.append(("," if index else "") + inner)
            pieces(part, inner, depth + 1, out)
        out.append(newline + "]")

    out: list[str] = []
    pieces(value, "\n", 0, out)
    return "".join(out)


def _finite(value: float) -> str:
    """A float as json writes it; NaN and the infinities are left to json."""
    if value != value or value in (float("inf"), float("-inf")):
        raise _Unusual
    return float.__repr__(value)


# How json writes the plain scalars (these exact types: subclasses are left to json).
_SCALARS: dict[type, Callable[[Any], str]] = {
    type(None): lambda _: "null",
    bool: lambda flag: "true" if flag else "false",
    int: int.__repr__,
    float: _finite,
}

# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "envelope",
    "json_text",
    "message_lines",
    "printable",
]
