"""A row of the shell table (guards/shell/table.py) in typed fields: what a program takes,
writes and runs, and the hand-written reader of an irregular one, as a function.

Every `str` field is option names, as words; what a row writes or loads is `Files`, what
it runs `Runs`. Imports only guards/shell/words.py.
"""

from __future__ import annotations

from automaton_rules.guards.shell.words import MEMBERS, Args, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Union

    Pick = Callable[[Args, bool], list[Word]]
    Given = Union[str, "Files", tuple[Union[str, "Files"], ...]]
    Modes = tuple[tuple[str, "Spec"], ...]
    Reader = Callable[[Any, "Spec", Args, list[Word], Any], None]  # (Reading, ..., Where)


class Runs(int):
    """What a row runs, parts joined with `|`: its operands as a command (`COMMAND`, or
    `COMMAND_AFTER_FIRST`), joined as code (`JOINED`), its first operand as code or a
    script, or code read from standard input when it has none; `SHELL`: the code is shell."""

    __slots__ = ()
    NOTHING: ClassVar[Runs]
    COMMAND: ClassVar[Runs]
    COMMAND_AFTER_FIRST: ClassVar[Runs]
    JOINED: ClassVar[Runs]
    CODE: ClassVar[Runs]
    SCRIPT: ClassVar[Runs]
    STDIN: ClassVar[Runs]
    SHELL: ClassVar[Runs]

    def __or__(self, other: int) -> Runs:
        return Runs(int(self) | other)


Runs.NOTHING, Runs.COMMAND, Runs.JOINED, Runs.CODE = Runs(0), Runs(1), Runs(2), Runs(4)
Runs.SCRIPT, Runs.STDIN, Runs.SHELL = Runs(8), Runs(16), Runs(32)
Runs.COMMAND_AFTER_FIRST = Runs.COMMAND | 64


def after(word: Word, start: int) -> Word:
    """The part of a word after a prefix (`of=`, `xml:`)."""
    return Word(word.value[start:], word.computed, word.glob, word.raw[start:])


class Files:
    """Words a row names in a command (its operands, one of them, an option's values, a
    fixed path), with the `default` when it names none, whether they are `removed` (and
    all below), and `pattern`: a prefix of the names written (`split IN PREFIX`)."""

    __slots__ = ("dash", "default", "flag", "pattern", "pick", "prefix", "removes")
    ALL: ClassVar[Files]
    ALL_BUT_FIRST: ClassVar[Files]
    ALL_OR_HERE: ClassVar[Files]
    HERE: ClassVar[Files]
    MEMBERS: ClassVar[Files]
    SCRIPT_FILES: ClassVar[Files]

    def __init__(
        self, pick: Pick, default: str = "", removes: bool = False, pattern: bool = False
    ) -> None:
        self.pick, self.default, self.removes, self.pattern = pick, default, removes, pattern
        self.flag, self.prefix, self.dash = "", "", False  # `-` alone: stdin

    @classmethod
    def operands(cls, start: int = 0, default: str = "", removes: bool = False) -> Files:
        """Its operands from `start`; with a default, a `-` among them is standard output."""
        files = cls(lambda args, _: args.positional[start:], default, removes)
        files.dash = start == 0
        return files

    @classmethod
    def operand(cls, number: int, default: str = "", pattern: bool = False) -> Files:
        """One operand, the first `1` (`-1` the last)."""
        index = number - (number > 0)

        def pick(args: Args, _: bool) -> list[Word]:
            found = args.positional
            return [found[index]] if -len(found) <= index < len(found) else []

        return cls(pick, default, pattern=pattern)

    @classmethod
    def path(cls, path: str) -> Files:
        """A fixed path (`.`: the folder it runs in)."""
        return cls(lambda *_: [Word(path)])

    @classmethod
    def prefixed(cls, prefix: str) -> Files:
        """The operands that begin with `prefix`, without it (`dd of=FILE`)."""
        return cls(
            lambda a, _: [after(w, len(prefix)) for w in a.positional if w.value.startswith(prefix)]
        )

    @classmethod
    def option(
        cls,
        name: str,
        prefix: str = "",
        kind: bool = False,
        removes: bool = False,
        default: str = "",
        pattern: bool = False,
    ) -> Files:
        """An option's values: those after `prefix` (`-o cache_dir=PATH`), or with `kind`
        the path after a value's `KIND:` (`--cov-report xml:PATH`)."""

        def pick(args: Args, _: bool) -> list[Word]:
            found = args.every(name)
            if kind:
                return [after(w, w.value.index(":") + 1) for w in found if ":" in w.value]
            return [after(w, len(prefix)) for w in found if w.value.startswith(prefix)]

        files = cls(pick, default, removes, pattern)
        files.flag, files.prefix = name, prefix
        return files

    def names(self, args: Args, ran: bool = False) -> list[Word]:
        """The words it names in one command."""
        found = self.pick(args, ran)
        if self.flag:  # `-o -`: standard output
            found = [word for word in found if word.value != "-"]
        if self.default:  # `-` is standard input or output (`black -`); none: the default
            found = [word for word in found if word.value != "-"]
            stdout = self.dash and any(w.value == "-" for w in args.positional)
            found = found or ([] if stdout else [Word(self.default)])
        if self.pattern:
            found = [Word(f"{w.value}*", w.computed, True, w.raw) for w in found]
        return found


Files.ALL, Files.ALL_BUT_FIRST = Files.operands(), Files.operands(1)
Files.ALL_OR_HERE, Files.HERE = Files.operands(default="."), Files.path(".")
Files.MEMBERS = Files(lambda *_: [MEMBERS])  # what unpacking an archive writes
Files.SCRIPT_FILES = Files(lambda args, ran: args.positional if ran else args.positional[1:])


def _files(given: Given) -> tuple[Files, ...]:
    """A field of `Files`, option names (one `Files` per option) among them."""
    found: list[Files] = []
    for item in given if isinstance(given, tuple) else (given,):
        found += [Files.option(n) for n in item.split()] if isinstance(item, str) else [item]
    return tuple(found)


class Spec:
    """One program's row: `options` take a value (`dash`: single-dash words are whole
    options, as Go reads them); `writes` and `foreign` (code that runs, unknown from outside
    the project) are `Files`; `code`, `module`, `chdir`, `into`, `program` (a program it
    runs) and `startup` (start-up files it runs) name options; `modes` are flags that change
    what it does (first match wins), `subs` its sub-commands (`""` none given, `*` any
    other); `least` operands needed; `reader` a hand-written reader. Its option names are
    split the first time a line reads the row: a line reads a few rows, never all."""

    def __init__(
        self,
        options: str = "",
        writes: Given = (),
        runs: Runs = Runs.NOTHING,
        code: str = "",
        modes: Modes = (),
        subs: dict[str, Spec] | None = None,
        chdir: str = "",
        into: str = "",
        foreign: Given = (),
        least: int = 0,
        reader: Reader | None = None,
        dash: bool = False,
        module: str = "",
        optional: str = "",
        repeat: bool = False,
        program: str = "",
        startup: str = "",
        names: bool = False,
        hooks: bool = False,
    ) -> None:
        self.runs, self.least, self.reader, self.dash = runs, least, reader, dash
        self.optional, self.names, self.hooks = optional, names, hooks
        self._named = (options, code, module, chdir, into, program, startup)
        self._given = (writes, foreign, subs, repeat, modes)

    def __getattr__(self, name: str) -> Any:
        """The fields split out of the row's option names, the first time one is read."""
        if name.startswith("_"):
            raise AttributeError(name)
        self._split()
        return object.__getattribute__(self, name)

    def _split(self) -> None:
        """Every field the interpreter reads, from the row as written."""
        writes, foreign, subs, repeat, modes = self._given
        options, self.code, self.module, self.chdir, self.into, self.program, self.startup = (
            tuple(names.split()) for names in self._named
        )
        self.writes, self.foreign = _files(writes), _files(foreign)
        named = [*options, *self.code, *self.module, *self.chdir, *self.into]
        named += [*self.program, *(f.flag for f in (*self.writes, *self.foreign) if f.flag)]
        self.short = "".join(o[1] for o in named if len(o) == 2 and not self.dash)
        self.long = frozenset(o for o in named if len(o) > 2 or self.dash)
        # `python -c CODE ARGS`: code ends the options, unless it may `repeat` (perl -e -e)
        self.stop = frozenset(self.module if repeat else self.code + self.module)
        self.skip = 1 if self.runs & 64 else 0
        runs_words = Runs.COMMAND | Runs.JOINED | Runs.CODE | Runs.SCRIPT
        self.posix = subs is not None or bool(self.runs & runs_words)
        self.modes = tuple((tuple(flags.split()), spec) for flags, spec in modes)
        # Long options taking no value that change what it does: with the valued ones, the
        # names an abbreviation (`--open-files` for `--open-files-in-pager`) is read against.
        mode_flags = (flag for flags, _ in self.modes for flag in flags if flag[:2] == "--")
        self.flags = frozenset(mode_flags) - self.long
        self.subs = None if subs is None else rows(subs)

    def args(self, words: list[Word]) -> Args:
        """A command's words read against this row."""
        return Args(
            words,
            self.short,
            self.long,
            self.posix,
            self.dash,
            self.stop,
            self.optional,
            self.flags,
        )


def rows(table: dict[str, Spec]) -> dict[str, Spec]:
    """Rows keyed by several names (`"rm rmdir unlink"`), one key per name."""
    return {name: spec for names, spec in table.items() for name in names.split() or [""]}
