"""Shell words as bash makes them: quotes removed, `~` and `$HOME` expanded, braces
expanded, and every part a substitution or variable decides marked as computed.

Part of reading a shell line (guards/shell_parse.py walks the tree and calls these).
"""

from __future__ import annotations

import os
import re

from automaton_rules.guards.shell_parse import (
    COMPUTED,
    GLOB_CHARS,
    MAX_BRACES,
    PIPE_PATH,
    Word,
    text_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from automaton_rules.guards.shell_parse import _Walk

    Part = tuple[str, bool, bool, bool]  # a piece of a word: value, quoted, computed, glob

_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_QUOTED_ESCAPE = re.compile(r"\\([$`\"\\\n])")
_ANSI = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)")
_ANSI_SIMPLE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
}
SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
EXPANSIONS = frozenset({"simple_expansion", "expansion", "arithmetic_expansion"})


def _ansi(match: re.Match[str]) -> str:
    """One escape of a `$'...'` string."""
    code = match.group(1)
    if code[0] in "xuU":
        return chr(int(code[1:], 16)) if int(code[1:], 16) < 0x110000 else ""
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    if code[0] == "c" and len(code) == 2:
        return chr(ord(code[1]) & 0x1F)
    return _ANSI_SIMPLE.get(code, code)


def _unquoted(text: str) -> Part:
    """An unquoted word: backslashes escape, glob characters not escaped are patterns."""
    glob = bool(GLOB_CHARS & set(_ESCAPE.sub("", text)))
    return (
        _ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text),
        False,
        False,
        glob,
    )


def _variable(node: Any, walk: _Walk) -> Part:
    """`$HOME` and `${HOME}` are known while the line leaves HOME alone, `$PWD` while the
    folder is (bash keeps it in step with `cd`); the rest are not."""
    text = text_of(node)
    home, cwd = walk.where.home, walk.where.cwd
    if text in ("$HOME", "${HOME}") and home is not None:
        return (str(home), True, False, False)
    if text in ("$PWD", "${PWD}") and cwd is not None:
        return (str(cwd), True, False, False)
    walk.words(node)  # `${X:-$(cmd)}` still runs cmd
    return (COMPUTED, True, True, False)


def _double_quoted(node: Any, walk: _Walk, out: list[Part]) -> None:
    """A `"..."` string: literal text between its expansions, with `\\$`-style escapes."""
    raw = bytes(node.text or b"")
    base, position = node.start_byte, node.start_byte + (2 if text_of(node).startswith("$") else 1)
    for child in node.named_children:
        gap = raw[position - base : child.start_byte - base].decode("utf-8", "surrogateescape")
        if gap:
            out.append((_QUOTED_ESCAPE.sub(_dq, gap), True, False, False))
        if child.type in EXPANSIONS or child.type in SUBSTITUTIONS:
            _parts(child, walk, out)
            out[-1] = (*out[-1][:1], True, *out[-1][2:])
        else:
            out.append((_QUOTED_ESCAPE.sub(_dq, text_of(child)), True, False, False))
        position = child.end_byte
    tail = raw[position - base : node.end_byte - base - 1].decode("utf-8", "surrogateescape")
    if tail:
        out.append((_QUOTED_ESCAPE.sub(_dq, tail), True, False, False))


def _dq(match: re.Match[str]) -> str:
    """One escape inside double quotes."""
    return "" if match.group(1) == "\n" else match.group(1)


def _parts(node: Any, walk: _Walk, out: list[Part]) -> None:
    """The parts of one word node, each with its quoting and whether it is computed."""
    kind = node.type
    if kind in ("concatenation", "command_name"):
        for child in node.named_children:
            _parts(child, walk, out)
    elif kind == "word":
        out.append(_unquoted(text_of(node)))
    elif kind == "raw_string":
        out.append((text_of(node)[1:-1], True, False, False))
    elif kind == "ansi_c_string":
        out.append((_ANSI.sub(_ansi, text_of(node)[2:-1]), True, False, False))
    elif kind in ("string", "translated_string"):
        _double_quoted(node, walk, out)
    elif kind in ("simple_expansion", "expansion"):
        out.append(_variable(node, walk))
    elif kind == "command_substitution":
        walk.apart(node)
        out.append((COMPUTED, False, True, False))
    elif kind == "process_substitution":
        walk.apart(node)
        out.append((PIPE_PATH, False, False, False))  # a pipe's name, outside any project
    elif kind == "arithmetic_expansion":
        walk.words(node)
        out.append((COMPUTED, False, True, False))
    else:  # numbers, brace sequences, test operators, patterns: their text
        walk.words(node)
        out.append((text_of(node), False, False, False))


def _tilde(parts: list[Part], walk: _Walk) -> list[Part]:
    """`~` and `~/x` at the start of an unquoted word are the home folder."""
    if not parts or parts[0][1] or parts[0][2] or not parts[0][0].startswith("~"):
        return parts
    value = parts[0][0]
    prefix, slash, rest = value.partition("/")
    if prefix == "~":
        home = walk.where.home
        if home is None:
            return [(COMPUTED + slash + rest, False, True, parts[0][3]), *parts[1:]]
        return [(str(home) + slash + rest, True, False, parts[0][3]), *parts[1:]]
    if prefix == "~+" and walk.where.cwd is not None:
        return [(str(walk.where.cwd) + slash + rest, True, False, parts[0][3]), *parts[1:]]
    expanded = os.path.expanduser(prefix)
    if expanded != prefix:
        return [(expanded + slash + rest, True, False, parts[0][3]), *parts[1:]]
    return parts


def build(node: Any, walk: _Walk) -> Word:
    """One word, its substitutions run (as a redirection's target: no brace expansion)."""
    parts = _tilde(_collect(node, walk), walk)
    return Word(
        "".join(part[0] for part in parts),
        any(part[2] for part in parts),
        any(part[3] for part in parts),
        text_of(node),
    )


def _collect(node: Any, walk: _Walk) -> list[Part]:
    """The parts of a word node, in order."""
    out: list[Part] = []
    _parts(node, walk, out)
    return out


def expand(node: Any, walk: _Walk) -> list[Word]:
    """The words an argument becomes: unquoted braces make several."""
    parts = _collect(node, walk)
    raw = text_of(node)
    unquoted = all(not quoted and not computed for _, quoted, computed, _ in parts)
    value = "".join(part[0] for part in parts)
    if unquoted and "{" in value and "}" in value:
        values = braces(value)
        if values is None:
            return [Word(COMPUTED, True, False, raw)]
        glob = any(part[3] for part in parts)
        return [build_value(v, glob, raw, walk) for v in values]
    word = _tilde(parts, walk)
    return [
        Word(
            "".join(part[0] for part in word),
            any(part[2] for part in word),
            any(part[3] for part in word),
            raw,
        )
    ]


def build_value(value: str, glob: bool, raw: str, walk: _Walk) -> Word:
    """One word of a brace expansion, its `~` expanded."""
    parts = _tilde([(value, False, False, glob)], walk)
    return Word(parts[0][0], parts[0][2], glob, raw)


_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")


def braces(value: str) -> list[str] | None:
    """Bash's brace expansion of one word; None when it would make too many words."""
    found = _outer_braces(value)
    if found is None:
        return [value]
    start, end, items = found
    tails = braces(value[end + 1 :])
    out: list[str] = []
    for item in items:
        middles = braces(item)
        if middles is None or tails is None:
            return None
        out.extend(value[:start] + middle + tail for middle in middles for tail in tails)
        if len(out) > MAX_BRACES:
            return None
    return out


def _outer_braces(value: str) -> tuple[int, int, list[str]] | None:
    """The first `{a,b}` or `{1..3}` in a word: where it starts, ends, and its items."""
    start = value.find("{")
    while start != -1:
        depth, commas = 0, []
        for index in range(start, len(value)):
            char = value[index]
            depth += (char == "{") - (char == "}")
            if char == "," and depth == 1:
                commas.append(index)
            if depth == 0:
                inner = value[start + 1 : index]
                if commas:
                    cuts = [start, *commas, index]
                    return start, index, [value[a + 1 : b] for a, b in zip(cuts, cuts[1:])]
                items = _sequence(inner)
                if items is not None:
                    return start, index, items
                break
        start = value.find("{", start + 1)
    return None


def _sequence(inner: str) -> list[str] | None:
    """`{1..3}`, `{a..c}`, `{0..10..2}`: the words of a sequence expression."""
    match = _SEQUENCE.match(inner)
    if match is None:
        return None
    first, last, step = match.group(1), match.group(2), int(match.group(3) or 1) or 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = int(first), int(last)
        span = range(low, high + 1, abs(step)) if low <= high else range(low, high - 1, -abs(step))
        return [str(n) for n in span][: MAX_BRACES + 1]
    if first.isalpha() and last.isalpha():
        low, high = ord(first), ord(last)
        span = range(low, high + 1) if low <= high else range(low, high - 1, -1)
        return [chr(n) for n in span]
    return None
