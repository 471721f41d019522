"""The one interpreter of the table: each simple command read against its row, wrappers
followed, shells and `eval` parsed again, status.py spotted however it is started; the
sink of the walk, and the `Reading` it fills.
"""

from __future__ import annotations

import re

from automaton_rules.guards.shell.parse import walk
from automaton_rules.guards.shell.reading import (
    APPROVING_FLAGS,
    STATUS_TEXT,
    STDIN_PATHS,
    Reading,
    foreign,
)
from automaton_rules.guards.shell.row import Files, Runs
from automaton_rules.guards.shell.table import CHOOSING, LOADED_FROM, MODULES, READ, RUN_BY, TABLE
from automaton_rules.guards.shell.words import (
    MAX_DEPTH,
    PIPE_PATH,
    Args,
    Stdin,
    Where,
    Word,
    inside,
    joined,
    name_of,
)
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from automaton_rules.guards.shell.row import Spec

STATUS_NAMES = frozenset({"status.py", "automaton-status"})
# The harness adapter: fed a user-prompt event, it approves as the user would, so an
# agent never runs it (`python -m automaton_rules.guards...` is the same program). Nor the
# dashboard: it approves for whoever holds the address it prints.
HOOK_NAMES = frozenset({"automaton-hook", "automaton-board"})
HOOK_MODULES = "automaton_rules.guards"
BOARD_MODULES = "automaton_rules.board"
# Where installed programs live: run by their path, they are no agent's code.
SYSTEM = ("/usr/", "/bin/", "/sbin/", "/opt/", "/nix/", "/snap/", "/Applications/", "/Library/")
PYTHON = Lazy(r"^(python|pypy)[\d.]*$|^py$")


class Interpreter(Reading):
    """Reads each command the walk reports against the table, into the reading it is."""

    def run(self, words: list[Word], where: Where) -> None:
        """One simple command, as the shell runs it."""
        if not words:
            return
        program = words[0]
        if not program.known:  # `$X args`, `$(which automaton-status) ...`
            if any(STATUS_TEXT.search(w.raw) or w.value in APPROVING_FLAGS for w in words):
                self.call(words, True)
            else:
                self.programs.append(" ".join(word.raw for word in words)[:80])
            return
        name = name_of(program)
        spec = TABLE.get(name) or (TABLE["python"] if PYTHON.match(name) else None)
        if name in STATUS_NAMES or name in HOOK_NAMES:
            self.call(words, False, hook=name in HOOK_NAMES)
            return
        if spec is None:
            self.unknown.append(program.raw)
        elif spec is not READ:
            self.apply(spec, words, where, name)
            return
        path = "/" in program.value and not program.value.startswith(SYSTEM)
        if path and foreign(program, where, self.origin):  # not the reader we know
            self.programs.append(program.raw)

    def apply(self, spec: Spec, words: list[Word], where: Where, by: str) -> None:
        """A command read by its row: mode, folder, sub-command or reader, then its effects."""
        args = spec.args(words[1:])
        moved = where
        for folder in args.every(*spec.chdir):
            moved = moved.into(folder)
        _options(self, spec, words, args, where, moved, by)
        values = {word.value for word in words} if spec.modes and not spec.posix else set()
        for flags, mode in spec.modes:  # as given, or (GNU) as a word after `--` too
            given = [f for f in flags if args.has(f) or f in values]
            if given:
                self.apply(mode, words, where, f"{by} {given[0]}")
                return
        if spec.reader is not None:
            spec.reader(self, spec, args, words, moved)
        elif spec.subs is not None:
            self.dispatch(spec, args.positional, words, moved, by)
        elif len(args.positional) >= spec.least:
            self.effects(spec, args, moved, by)

    def assign(self, name: str, value: Word, where: Where) -> None:
        """`NAME=value`: a variable naming a program something runs, or where code loads from."""
        super().assign(name, value, where)
        if name in RUN_BY:
            _command_in(self, value, where, f"{name}={value.raw}")
        elif name in CHOOSING or (name in LOADED_FROM and _outside(value, where, self.origin)):
            self.programs.append(f"{name}={value.raw}"[:80])

    def dispatch(
        self, spec: Spec, rest: list[Word], words: list[Word], where: Where, by: str
    ) -> None:
        """A sub-command's row (`""`: none given; `*`: any other, read as the whole command)."""
        key = (rest[0].value if rest[0].known else "*") if rest else ""
        subs = spec.subs or {}
        if key != "*" and key in subs:
            self.apply(subs[key], rest, where, f"{by} {key}".strip())
        elif "*" in subs:
            self.apply(subs["*"], words, where, by)

    def effects(self, spec: Spec, args: Args, where: Where, by: str) -> None:
        """What a row says the command does: code it runs, files it writes, commands."""
        bash, runs, operands = bool(spec.runs & Runs.SHELL), spec.runs, args.positional
        for option in spec.code:
            for word in args.every(option):
                self.read_code(word, where, f"{by} {option}", bash)
        for option in spec.module:  # `python -m black .` is black
            for word in args.every(option):
                _module(self, word, operands, where)
        folder = args.value(*spec.into) if spec.into else None
        ran = args.has(*spec.code, *spec.module)
        for files in spec.writes:
            label = f"{by} {files.flag}" if files.flag else by
            for target in files.names(args, ran):
                if folder is not None or files is Files.MEMBERS:
                    target = inside(folder or Word("."), target)
                self.write(target, where, label, files.removes)
        if spec.names:
            for word in operands:
                self.name(word, where)
        if spec.hooks:
            self.hooks.append(by)
        first = operands[0] if operands and operands[0].value != "-" else None
        if ran:
            return
        if runs & Runs.COMMAND and (operands or not runs & Runs.STDIN):
            self.run(_tool(operands[spec.skip :]), where)
        elif runs & Runs.JOINED:  # `eval WORDS`, `watch WORDS`: run joined, as shell code
            self.read_code(joined(operands), where, by, bash)
        elif runs & Runs.CODE and first is not None:
            self.read_code(first, where, by, bash)
        elif runs & Runs.SCRIPT and first is not None:
            self.script(first, operands[1:], where, by, bash)
        elif runs & Runs.STDIN:
            _stdin(self, where, by if bash else f"{by} -", bash)

    def script(self, word: Word, rest: list[Word], where: Where, by: str, bash: bool) -> None:
        """A script: status.py is a call, one from outside or computed unknown code."""
        if word.known and name_of(word) in STATUS_NAMES | HOOK_NAMES:
            self.call([word, *rest], False, hook=name_of(word) in HOOK_NAMES)
        elif not word.known or foreign(word, where, self.origin):
            self.programs.append(f"{by} {word.raw}")
        elif word.value == PIPE_PATH:
            self.code.append(f"{by} {word.raw}"[:80])
        elif word.value in STDIN_PATHS:
            _stdin(self, where, by, bash)

    def read_code(self, word: Word, where: Where, shown: str, bash: bool = False) -> None:
        """Code a program runs: shell is parsed again; other code can write anywhere."""
        if not word.known:
            self.code.append(f"{shown} {word.raw}"[:80])
        elif bash:
            self.again(word.value, where, shown)
        else:
            self.computed_write(shown, where, word.value)
            self.approval_in(word.value, shown)

    def again(self, text: str, where: Where, shown: str) -> None:
        """Shell code given as a string (`bash -c`, `eval`, `trap`): parsed like the line."""
        if where.depth >= MAX_DEPTH:
            self.code.append(shown)
            return
        walk(text, where.but(depth=where.depth + 1, stdin=Stdin(), env=()), self)


def _stdin(it: Interpreter, where: Where, shown: str, bash: bool = False) -> None:
    """A program that reads its code from standard input."""
    stdin = where.stdin
    if stdin.kind == "text" and bash:  # a heredoc's `$X` parses as the shell reads it
        it.again(stdin.text, where, shown)
    elif stdin.kind == "pipe" or (stdin.kind == "text" and stdin.computed):
        it.code.append(f"{shown} reading a pipe" if stdin.kind == "pipe" else shown)
    elif stdin.kind == "text":
        it.read_code(Word(stdin.text), where, shown)
    elif stdin.kind == "file" and not bash:  # `sh < script.sh` runs a file, as `sh FILE`
        it.computed_write(shown, where)
    elif stdin.kind == "none":  # the terminal: whatever is typed into it later runs
        it.interactive.append(shown)


def _options(
    it: Interpreter, spec: Spec, words: list[Word], args: Args, where: Where, moved: Where, by: str
) -> None:
    """What a row's options name to run (a row with sub-commands reads them anywhere:
    `cargo check --manifest-path P`): code from outside the project (`make -f
    ../Makefile`, `pytest /tmp/t.py`), a program (`rg --pre CMD`), start-up files."""
    if spec.subs is not None:
        args = Args(words[1:], spec.short, spec.long, flags=spec.flags)
    for files in spec.foreign:
        for word in files.pick(args, False):
            base = where if files.flag in spec.chdir else moved
            if not word.known or foreign(word, base, it.origin):
                it.programs.append(f"{by} {word.raw}")
    for token in spec.program:
        for word in args.every(token):
            _command_in(it, word, where, f"{by} {token} {word.raw}")
    started = [flag for flag in spec.startup if args.has(flag)]
    if started:  # `bash -i` runs ~/.bashrc, which the line does not show
        it.programs.append(f"{by} {started[0]}")


def _command_in(it: Interpreter, word: Word, where: Where, shown: str) -> None:
    """A program an option or variable names (`rg --pre CMD`), read as the line's own."""
    if not word.known:
        it.programs.append(shown[:80])
    else:  # LESSOPEN's `|CMD %s`
        it.again(word.value.lstrip("|-"), where, shown)


def _outside(value: Word, where: Where, origin: Path | None) -> bool:
    """A search path or option naming a path outside the project (`a:/tmp/b`), or computed."""
    parts = [re.sub(r"^-\w(?=[/~.])", "", p) for p in re.split(r"[\s:=]+", value.value)]
    paths = [Word(part) for part in parts if part[:1] not in ("", "-")]
    return not value.known or any(foreign(path, where, origin) for path in paths)


def _module(it: Interpreter, module: Word, rest: list[Word], where: Where) -> None:
    """`python -m black .` is black; `python -m automaton_rules` is status.py."""
    name = module.value
    if not module.known:
        it.programs.append(f"python -m {module.raw}")
    elif any(name == m or name.startswith(m + ".") for m in (HOOK_MODULES, BOARD_MODULES)):
        it.call([module, *rest], False, hook=True)
    elif name == "automaton_rules" or name.startswith("automaton_rules."):
        it.call([module, *rest], False)
    elif name in MODULES:
        it.apply(MODULES[name], [Word(name), *rest], where, name)


def _tool(words: list[Word]) -> list[Word]:
    """A runner's tool without its version: `prettier@3` is prettier (not `@scope/x`)."""
    if not words or words[0].value.startswith("@") or "@" not in words[0].value:
        return words
    tool = words[0]
    return [Word(tool.value.split("@", 1)[0], tool.computed, tool.glob, tool.raw), *words[1:]]
