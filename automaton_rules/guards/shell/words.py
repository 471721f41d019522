"""Shell words as bash makes them (quotes removed, `~` and braces expanded, what is computed
marked) and read as a program reads its options (`Args`). Imports no other shell module.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from automaton_rules.support.patterns import Lazy
from automaton_rules.support.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    Part = tuple[str, bool, bool, bool]  # a piece of a word: value, quoted, computed, glob

    class Walk(Protocol):
        """What making a word needs of the walk: where it is, and running substitutions."""

        where: Where

        def apart(self, node: Any, stdin: Stdin | None = None) -> None: ...
        def words(self, node: Any) -> None: ...


COMPUTED = "\x00"  # stands in a word's value for a part known only when the line runs
PIPE_PATH = "/dev/fd/63"  # the name a process substitution `<(...)` gives its pipe
MAX_DEPTH = 8  # nested `bash -c`/`eval` levels read before a line counts as unreadable
MAX_BRACES = 64  # words one brace expansion may make before it counts as computed
GLOB_CHARS = frozenset("*?[")


class Word(Record):
    """One word after quote removal: its literal value, and how much of it is fixed."""

    value: str  # COMPUTED marks each part that only running the line decides
    computed: bool = False
    glob: bool = False  # an unquoted `*`, `?` or `[`: the shell expands it against the disk
    raw: str = ""  # the word as written

    def __post_init__(self) -> None:
        """A word written as its value need not say so twice."""
        if not self.raw:
            self._set(raw=self.value)

    @property
    def known(self) -> bool:
        """No part of it is decided only when the line runs."""
        return not self.computed and COMPUTED not in self.value


MEMBERS = Word(COMPUTED, True, False, "(archive members)")  # what unpacking an archive writes


class Stdin(Record):
    """What a command reads on standard input: nothing known, a pipe, a file or text."""

    kind: str = "none"  # "none", "pipe", "file" or "text"
    text: str = ""  # a heredoc's or here-string's text, or the file `<` names
    computed: bool = False  # the text has parts only running the line decides


class Where(Record):
    """Where a command runs: its folder (None when computed), input, home and depth."""

    cwd: Path | None
    stdin: Stdin = field(default_factory=Stdin)
    home: Path | None = None  # None once the line assigns HOME
    depth: int = 0
    env: tuple[tuple[str, Word], ...] = ()  # the command's own `NAME=value` prefixes

    def but(self, **changes: Any) -> Where:
        """The same place with some fields changed."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return Where(**values)

    def into(self, target: Word | None) -> Where:
        """Where a `cd`, `-C DIR` or `--chdir DIR` moves to (its folder None when computed)."""
        if target is None:
            return self
        path = None if target.glob or target.value == "-" else located(target, self.cwd)
        return self.but(cwd=None if path is None else Path(os.path.normpath(path)))


def names(text: str) -> frozenset[str]:
    """A set of names, written as words."""
    return frozenset(text.split())


def located(word: Word, cwd: Path | None) -> Path | None:
    """The path a word names from `cwd`, None when only running the line decides it."""
    if not word.known:
        return None
    path = Path(word.value)
    return path if path.is_absolute() else None if cwd is None else cwd / path


def joined(words: list[Word]) -> Word:
    """Words a program joins with spaces and hands to a shell (`eval`, `watch`, `env -S`)."""
    value, raw = " ".join(w.value for w in words), " ".join(w.raw for w in words)
    return Word(value, any(w.computed for w in words), False, raw)


def inside(folder: Word, name: Word) -> Word:
    """`name` inside the folder an option names (`--output-dir`, `-P`, `-C`, `-d`)."""
    if name.value.startswith("/"):
        return name
    computed = folder.computed or name.computed
    return Word(folder.value.rstrip("/") + "/" + name.value, computed, False, name.raw)


def name_of(word: Word) -> str:
    """A program's name: the last part of its path, without `.exe`."""
    name = word.value.rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


class Args:
    """A command's words read as options: anywhere until `--` (GNU), or up to the first
    operand (`posix`, for programs that run the words after them). Options are kept as
    written: `-o`, `--output`, or with `dash` whole single-dash words (`-check`); a long
    option abbreviated is read as the one of `long` or `flags` it stands for."""

    def __init__(
        self,
        words: list[Word],
        short: str = "",
        long: frozenset[str] = frozenset(),
        posix: bool = False,
        dash: bool = False,
        stop: frozenset[str] = frozenset(),
        optional: str = "",
        flags: frozenset[str] = frozenset(),
    ) -> None:
        known = long | flags
        self.flags: set[str] = set()
        self.values: dict[str, list[Word]] = {}
        self.positional: list[Word] = []
        self.end = len(words)  # where the options end
        index = 0
        while index < len(words):
            word, value = words[index], words[index].value
            if value == "--" or (posix and not _option(word)):
                self.end = index
                self.positional.extend(words[index + (value == "--") :])
                return
            if not _option(word) and not (value[:1] == "+" and value in long):  # `+o OPT`
                self.positional.append(word)
            elif value.startswith(("--", "+")) or dash:
                name, equals, rest = value.partition("=")
                if not dash and name[:2] == "--":
                    name = abbreviated(name, known)
                if equals:
                    self.values.setdefault(name, []).append(Word(rest, word.computed))
                elif name in long and index + 1 < len(words):
                    index += 1
                    self.values.setdefault(name, []).append(words[index])
                else:
                    self.flags.add(name)
            else:
                index += self._cluster(value, words[index + 1 : index + 2], short, optional)
            index += 1
            if posix and stop & self.values.keys():  # `python -c CODE ARGS`: the rest are its
                self.end = index
                self.positional.extend(words[index:])
                return

    def _cluster(self, value: str, following: list[Word], short: str, optional: str) -> int:
        """`-sSLo FILE`, `-ofile`, `-i.bak`: flags up to the letter that takes a value."""
        for position, char in enumerate(value[1:], 1):
            if char in optional:
                self.values.setdefault(f"-{char}", []).append(Word(value[position + 1 :]))
                return 0
            if char in short:
                rest = value[position + 1 :]
                taken = following[0] if not rest and following else Word(rest)
                self.values.setdefault(f"-{char}", []).append(taken)
                return 0 if rest or not following else 1
            self.flags.add(f"-{char}")
        return 0

    def has(self, *names: str) -> bool:
        """Any of these options given, with or without a value."""
        return any(name in self.flags or name in self.values for name in names)

    def every(self, *names: str) -> list[Word]:
        """Every value given to any of these options."""
        return [word for name in names for word in self.values.get(name, [])]

    def value(self, *names: str) -> Word | None:
        """The last value given to any of these options."""
        found = self.every(*names)
        return found[-1] if found else None


def abbreviated(name: str, known: frozenset[str]) -> str:
    """The long option a prefix stands for, as git, GNU getopt_long and argparse read
    `--open-files` as `--open-files-in-pager`; of several, the shortest (they refuse an
    ambiguous one, so the guess only errs where the command would not run)."""
    if name in known or len(name) < 3:
        return name
    return min((option for option in known if option.startswith(name)), key=len, default=name)


def _option(word: Word) -> bool:
    """A word that is an option: starts with `-`, is not `-` alone, and is not computed."""
    return word.value.startswith("-") and word.value != "-" and not word.computed


_ESCAPE = Lazy(r"\\(.)", re.DOTALL)
_QUOTED_ESCAPE = Lazy(r"\\([$`\"\\\n])")
_ANSI = Lazy(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)")
_ANSI_SIMPLE = dict(zip("ntrabeEfv", "\n\t\r\a\b\x1b\x1b\f\v"))
SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
EXPANSIONS = frozenset({"simple_expansion", "expansion", "arithmetic_expansion"})


def text_of(node: Any) -> str:
    """A node's source text (bytes the shell would pass on, kept as they are)."""
    return bytes(node.text or b"").decode("utf-8", "surrogateescape")


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
    return (_ESCAPE.sub(_escaped, text), False, False, glob)


def _variable(node: Any, walk: Walk) -> Part:
    """`$HOME`, `$PWD` are known while the line leaves them alone; the rest are computed."""
    text = text_of(node)
    home, cwd = walk.where.home, walk.where.cwd
    if text in ("$HOME", "${HOME}") and home is not None:
        return (str(home), True, False, False)
    if text in ("$PWD", "${PWD}") and cwd is not None:
        return (str(cwd), True, False, False)
    walk.words(node)  # `${X:-$(cmd)}` still runs cmd
    return (COMPUTED, True, True, False)


def _double_quoted(node: Any, walk: Walk, out: list[Part]) -> None:
    """A `"..."` string: literal text between its expansions, with `\\$`-style escapes."""
    raw = bytes(node.text or b"")
    base, position = node.start_byte, node.start_byte + (2 if text_of(node).startswith("$") else 1)
    for child in node.named_children:
        gap = raw[position - base : child.start_byte - base].decode("utf-8", "surrogateescape")
        if gap:
            out.append((_QUOTED_ESCAPE.sub(_escaped, gap), True, False, False))
        if child.type in EXPANSIONS or child.type in SUBSTITUTIONS:
            _parts(child, walk, out)
            out[-1] = (*out[-1][:1], True, *out[-1][2:])
        else:
            out.append((_QUOTED_ESCAPE.sub(_escaped, text_of(child)), True, False, False))
        position = child.end_byte
    tail = raw[position - base : node.end_byte - base - 1].decode("utf-8", "surrogateescape")
    if tail:
        out.append((_QUOTED_ESCAPE.sub(_escaped, tail), True, False, False))


def _escaped(match: re.Match[str]) -> str:
    """One backslash escape: the character it escapes; a backslash-newline joins lines."""
    return "" if match.group(1) == "\n" else match.group(1)


def _parts(node: Any, walk: Walk, out: list[Part]) -> None:
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
    elif kind in SUBSTITUTIONS:
        walk.apart(node)
        computed = kind == "command_substitution"  # `<(...)`: a pipe, outside any project
        out.append((COMPUTED if computed else PIPE_PATH, False, computed, False))
    else:  # arithmetic, numbers, brace sequences, test operators, patterns
        walk.words(node)
        arithmetic = kind == "arithmetic_expansion"
        out.append((COMPUTED if arithmetic else text_of(node), False, arithmetic, False))


def _tilde(parts: list[Part], walk: Walk) -> list[Part]:
    """`~` and `~/x` at the start of an unquoted word are the home folder."""
    if not parts or parts[0][1] or parts[0][2] or not parts[0][0].startswith("~"):
        return parts
    prefix, slash, rest = parts[0][0].partition("/")
    home, cwd = walk.where.home, walk.where.cwd
    if prefix == "~":
        expanded = COMPUTED if home is None else str(home)  # the line assigned HOME
    elif prefix == "~+" and cwd is not None:
        expanded = str(cwd)
    else:
        expanded = os.path.expanduser(prefix)
        if expanded == prefix:
            return parts
    known = expanded != COMPUTED
    return [(expanded + slash + rest, known, not known, parts[0][3]), *parts[1:]]


def _from_parts(parts: list[Part], raw: str) -> Word:
    """The word a word's parts make."""
    value = "".join(part[0] for part in parts)
    return Word(value, any(part[2] for part in parts), any(part[3] for part in parts), raw)


def build(node: Any, walk: Walk) -> Word:
    """One word, its substitutions run (as a redirection's target: no brace expansion)."""
    parts: list[Part] = []
    _parts(node, walk, parts)
    return _from_parts(_tilde(parts, walk), text_of(node))


def expand(node: Any, walk: Walk) -> list[Word]:
    """The words an argument becomes: unquoted braces make several."""
    parts: list[Part] = []
    _parts(node, walk, parts)
    raw = text_of(node)
    value = "".join(part[0] for part in parts)
    unquoted = all(not quoted and not computed for _, quoted, computed, _ in parts)
    if unquoted and "{" in value and "}" in value:
        values = braces(value)
        if values is None:
            return [Word(COMPUTED, True, False, raw)]
        glob = any(part[3] for part in parts)
        return [_from_parts(_tilde([(v, False, False, glob)], walk), raw) for v in values]
    return [_from_parts(_tilde(parts, walk), raw)]


_SEQUENCE = Lazy(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")


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
                if commas:
                    cuts = [start, *commas, index]
                    return start, index, [value[a + 1 : b] for a, b in zip(cuts, cuts[1:])]
                items = _sequence(value[start + 1 : index])
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
