"""A row of the shell table (guards/shell/table.py) in typed fields: every `str` field is
option names, what a program writes or loads is `Files`, what it runs `Runs`, and an
irregular program's hand-written reader is the function itself. Imports only the words.
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
    """What a row runs, joined with `|`: its operands as a command, or joined as code, its
    first operand as code or a script, standard input when it has none; `SHELL`: as shell."""

    __slots__ = ()
    NOTHING: ClassVar[Runs]
    COMMAND: ClassVar[Runs]
    COMMAND_AFTER_FIRST: ClassVar[Runs]  # `timeout 5 CMD`
    JOINED: ClassVar[Runs]
    CODE: ClassVar[Runs]
    SCRIPT: ClassVar[Runs]
    STDIN: ClassVar[Runs]
    SHELL: ClassVar[Runs]

    def __or__(self, other: int) -> Runs:
        return Runs(int(self) | other)


Runs.NOTHING, Runs.COMMAND, Runs.JOINED, Runs.CODE = Runs(0), Runs(1), Runs(2), Runs(4)
Runs.SCRIPT, Runs.STDIN, Runs.SHELL = Runs(8), Runs(16), Runs(32)
AFTER_FIRST = 64
Runs.COMMAND_AFTER_FIRST = Runs.COMMAND | AFTER_FIRST
READS_WORDS = Runs.COMMAND | Runs.JOINED | Runs.CODE | Runs.SCRIPT  # options end at an operand


def after(word: Word, start: int) -> Word:
    """The part of a word after a prefix (`of=`, `xml:`)."""
    return Word(word.value[start:], word.computed, word.glob, word.raw[start:])


class Files:
    """Words a row names in a command, the `default` when it names none, whether they are
    `removes`d (and all below), and `pattern`: a prefix of the names (`split IN PREFIX`)."""

    __slots__ = ("dash", "default", "flag", "pattern", "pick", "prefix", "removes")
    ALL: ClassVar[Files]
    ALL_BUT_FIRST: ClassVar[Files]
    ALL_OR_HERE: ClassVar[Files]  # a formatter's operands, or the folder it runs in
    HERE: ClassVar[Files]  # the folder it runs in (git's: the repository)
    MEMBERS: ClassVar[Files]  # what unpacking an archive writes, in its `into` folder
    SCRIPT_FILES: ClassVar[Files]  # the files a script works on, not the script

    def __init__(self, pick: Pick, default: str = "", removes: bool = False, **more: Any) -> None:
        self.pick, self.default, self.removes = pick, default, removes
        self.pattern, self.dash = more.get("pattern", False), more.get("dash", False)
        self.flag, self.prefix = more.get("flag", ""), more.get("prefix", "")

    @classmethod
    def operands(cls, start: int = 0, default: str = "", removes: bool = False) -> Files:
        """Its operands from `start`; with a default, a `-` among them is standard output."""
        return cls(lambda a, _: a.positional[start:], default, removes, dash=start == 0)

    @classmethod
    def operand(cls, number: int, default: str = "", pattern: bool = False) -> Files:
        """One operand: the first `1`, the second `2`."""
        return cls(lambda a, _: a.positional[number - 1 :][:1], default, pattern=pattern)

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
    def option(cls, flag: str, prefix: str = "", kind: bool = False, **more: Any) -> Files:
        """An option's values after `prefix`, or with `kind` after `KIND:` (`xml:PATH`)."""

        def pick(args: Args, _: bool) -> list[Word]:
            found = args.every(flag)
            if kind:
                return [after(w, w.value.index(":") + 1) for w in found if ":" in w.value]
            return [after(w, len(prefix)) for w in found if w.value.startswith(prefix)]

        return cls(pick, flag=flag, prefix=prefix, **more)

    def names(self, args: Args, ran: bool = False) -> list[Word]:
        """The words it names in one command (`ran`: code was given by an option)."""
        found = self.pick(args, ran)
        if self.flag or self.default:  # `-o -`, `black -`: standard output or input
            found = [word for word in found if word.value != "-"]
        if self.default and not found:
            stdout = self.dash and any(w.value == "-" for w in args.positional)
            found = [] if stdout else [Word(self.default)]
        if self.pattern:
            found = [Word(f"{w.value}*", w.computed, True, w.raw) for w in found]
        return found


Files.ALL, Files.ALL_BUT_FIRST = Files.operands(), Files.operands(1)
Files.ALL_OR_HERE, Files.HERE = Files.operands(default="."), Files.path(".")
Files.MEMBERS = Files(lambda *_: [MEMBERS])
Files.SCRIPT_FILES = Files(lambda args, ran: args.positional if ran else args.positional[1:])


def _files(given: Given) -> tuple[Files, ...]:
    """A field of `Files`, option names (one `Files` per option) among them."""
    found: list[Files] = []
    for item in given if isinstance(given, tuple) else (given,):
        found += [Files.option(n) for n in item.split()] if isinstance(item, str) else [item]
    return tuple(found)


class Spec:
    """One program's row: `options` take a value (`dash`: single-dash words are whole
    options, as Go reads them), `foreign` is code it runs (unknown from outside the
    project), `program` options name a program it runs, `startup` flags start-up files,
    `modes` flags change what it does (first match wins), `subs` are its sub-commands (`""`
    none given, `*` any other), `least` the operands it needs. Option names are split the
    first time a line reads the row: a line reads a few rows, never all."""

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
        names: bool = False,  # its operands are paths a later command may use (`echo`)
        hooks: bool = False,  # it reroutes git's hooks
    ) -> None:
        self.runs, self.least, self.reader, self.dash = runs, least, reader, dash
        self.optional, self.names, self.hooks = optional, names, hooks
        self._named = (options, code, module, chdir, into, program, startup)
        self._given = (writes, foreign, subs, repeat, modes)

    def __getattr__(self, name: str) -> Any:
        """The fields split out of the row's option names, the first time one is read."""
        if name.startswith("_"):
            raise AttributeError(name)
        writes, foreign, subs, repeat, modes = self._given
        options, self.code, self.module, self.chdir, self.into, self.program, self.startup = (
            tuple(names.split()) for names in self._named
        )
        self.writes, self.foreign = _files(writes), _files(foreign)
        named = [*options, *self.code, *self.module, *self.chdir, *self.into, *self.program]
        named += [f.flag for f in (*self.writes, *self.foreign) if f.flag]
        self.short = "".join(o[1] for o in named if len(o) == 2 and not self.dash)
        self.long = frozenset(o for o in named if len(o) > 2 or self.dash)
        # `python -c CODE ARGS`: code ends the options, unless it may `repeat` (perl -e -e)
        self.stop = frozenset(self.module if repeat else self.code + self.module)
        self.skip = 1 if self.runs & AFTER_FIRST else 0
        self.posix = subs is not None or bool(self.runs & READS_WORDS)
        self.modes = tuple((tuple(flags.split()), spec) for flags, spec in modes)
        # Long flags that change what it does: with the valued options, the names an
        # abbreviation (`--open-files` for `--open-files-in-pager`) is read against.
        mode_flags = (flag for flags, _ in self.modes for flag in flags if flag[:2] == "--")
        self.flags = frozenset(mode_flags) - self.long
        self.subs = None if subs is None else rows(subs)
        return object.__getattribute__(self, name)

    def args(self, words: list[Word]) -> Args:
        """A command's words read against this row."""
        s = self
        return Args(words, s.short, s.long, s.posix, s.dash, s.stop, s.optional, s.flags)


def rows(table: dict[str, Spec]) -> dict[str, Spec]:
    """Rows keyed by several names (`"rm rmdir unlink"`), one key per name."""
    return {name: spec for names, spec in table.items() for name in names.split() or [""]}
