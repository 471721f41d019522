"""The one interpreter of guards/shell/table.py: each simple command read against its
program's row, wrappers followed to the command they run, shells and `eval` parsed
again, interpreters' code, scripts and standard input, and status.py spotted however it
is started. It is the sink of the walk (guards/shell/parse.py) and reports to a
`Reading` (guards/shell/reading.py); the few irregular programs have hand-written
readers in guards/shell/handlers.py and guards/shell/git.py, which it passes itself to.
"""

from __future__ import annotations

import re

from automaton_rules.guards.shell import git as shell_git
from automaton_rules.guards.shell import handlers as shell_handlers
from automaton_rules.guards.shell.parse import walk
from automaton_rules.guards.shell.reading import (
    APPROVING_FLAGS,
    STATUS_TEXT,
    STDIN_PATHS,
    Reading,
    foreign,
)
from automaton_rules.guards.shell.table import ENVIRONMENT, MODULES, READ, TABLE, Spec
from automaton_rules.guards.shell.words import (
    MAX_DEPTH,
    MEMBERS,
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
        """A command read by its row: its mode, its folder, its sub-command or hand-written
        reader, then what the row says it does."""
        args = Args(
            words[1:],
            spec.short,
            spec.long,
            spec.posix,
            spec.dash,
            spec.stop,
            spec.optional,
            spec.flags,
        )
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
        if spec.handler:
            handler = getattr(shell_handlers, spec.handler, None)
            (handler or getattr(shell_git, spec.handler))(self, spec, args, words, moved)
        elif spec.subs is not None:
            self.dispatch(spec, args.positional, words, moved, by)
        elif len(args.positional) >= spec.least:
            self.effects(spec, args, moved, by)

    def assign(self, name: str, value: Word, where: Where) -> None:
        """`NAME=value`: a variable naming a program some program runs, or where it loads
        code from (the table's ENVIRONMENT), is read as that."""
        super().assign(name, value, where)
        kind = ENVIRONMENT.get(name)
        if kind == "program":
            _command_in(self, value, where, f"{name}={value.raw}")
        elif kind == "chooses" or (kind == "paths" and _outside(value, where, self.origin)):
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
        bash, runs, operands = "sh" in spec.runs, spec.runs, args.positional
        for option in spec.code:
            for word in args.every(option):
                self.read_code(word, where, f"{by} {option}", bash)
        for option in spec.module:  # `python -m black .` is black
            for word in args.every(option):
                _module(self, word, operands, where)
        folder = args.value(*spec.into) if spec.into else None
        ran = args.has(*spec.code, *spec.module)
        for token in spec.writes:
            targets, label, removes = _targets(token, args, by, ran)
            for target in targets:
                if folder is not None or token == "+":
                    target = inside(folder or Word("."), target)
                self.write(target, where, label, removes)
        if "names" in runs:
            for word in operands:
                self.name(word, where)
        if "hook" in runs:
            self.hooks.append(by)
        first = operands[0] if operands and operands[0].value != "-" else None
        if ran:
            return
        if (spec.skip or "cmd" in runs) and (operands or "stdin" not in runs):
            self.run(_tool(operands[spec.skip :]), where)
        elif "join" in runs:  # `eval WORDS`, `watch WORDS`: run joined, as shell code
            self.read_code(joined(operands), where, by, bash)
        elif "code" in runs and first is not None:
            self.read_code(first, where, by, bash)
        elif "script" in runs and first is not None:
            self.script(first, operands[1:], where, by, bash)
        elif "stdin" in runs:
            _stdin(self, where, by if bash else f"{by} -", bash)

    # --------------------------------------------------------- code and scripts

    def script(self, word: Word, rest: list[Word], where: Where, by: str, bash: bool) -> None:
        """A program's script: status.py is a call, a file outside the project or a computed
        name is unknown code, a pipe or standard input is code the line builds."""
        if word.known and name_of(word) in STATUS_NAMES | HOOK_NAMES:
            self.call([word, *rest], False, hook=name_of(word) in HOOK_NAMES)
        elif not word.known or foreign(word, where, self.origin):
            self.programs.append(f"{by} {word.raw}")
        elif word.value == PIPE_PATH:
            self.code.append(f"{by} {word.raw}"[:80])
        elif word.value in STDIN_PATHS:
            _stdin(self, where, by, bash)

    def read_code(self, word: Word, where: Where, shown: str, bash: bool = False) -> None:
        """Code a program runs: shell is parsed again; other code can write anywhere, and
        may run status.py. Code only known at run time could be anything."""
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
    for token in spec.foreign:
        for word in _values(token, args):
            base = where if token in spec.chdir else moved
            if not word.known or foreign(word, base, it.origin):
                it.programs.append(f"{by} {word.raw}")
    for token in spec.program:
        for word in _values(token, args):
            _command_in(it, word, where, f"{by} {token} {word.raw}")
    started = [flag for flag in spec.startup if args.has(flag)]
    if started:  # `bash -i` runs ~/.bashrc, which the line does not show
        it.programs.append(f"{by} {started[0]}")


def _command_in(it: Interpreter, word: Word, where: Where, shown: str) -> None:
    """A program an option or a variable names (`rg --pre CMD`, `EDITOR=CMD`), run as the
    line's own command would be; a computed one is only known when it runs."""
    if not word.known:
        it.programs.append(shown[:80])
    else:  # LESSOPEN's `|CMD %s`
        it.again(word.value.lstrip("|-"), where, shown)


def _outside(value: Word, where: Where, origin: Path | None) -> bool:
    """A search path or options naming a file or folder outside the project (`a:/tmp/b`,
    `-I/tmp/lib`, `--require /tmp/x.js`), or only known when the line runs."""
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


def _values(token: str, args: Args) -> list[Word]:
    """The values a row's option token names: `-o` all of them, `*` the operands,
    `--cov-report:` the path after `kind:`, `-o:cache_dir=` those after `cache_dir=`."""
    if token == "*":
        return args.positional
    name, colon, prefix = token.partition(":")
    found = args.every(name)
    if colon and not prefix:
        return [_after(w, w.value.index(":") + 1) for w in found if ":" in w.value]
    return [_after(w, len(prefix)) for w in found if w.value.startswith(prefix)]


def _targets(token: str, args: Args, by: str, ran: bool) -> tuple[list[Word], str, bool]:
    """The files one `writes` token of a row names, the label they are written by, and
    whether they are removed."""
    removes, operands = "!" in token, args.positional
    token, _, default = token.replace("!", "").partition("|")
    prefix = len(token) > 1 and token.endswith("*")  # `split IN PREFIX` writes PREFIX*
    token = token[:-1] if prefix else token
    if token == "@":  # the files a script works on: not the script itself
        targets = operands if ran else operands[1:]
    elif token.startswith("="):
        targets = [Word(token[1:])]
    elif token.startswith("*"):
        targets = operands[int(token[1:] or 0) :]
    elif token.lstrip("-").isdigit():  # `1` the first operand, `-1` the last
        index = int(token) - (token[0] != "-")
        targets = [operands[index]] if -len(operands) <= index < len(operands) else []
    elif token.endswith("=") and token[0] != "-":  # `dd of=FILE`
        targets = [_after(w, len(token)) for w in operands if w.value.startswith(token)]
    elif token == "+":
        targets = [MEMBERS]
    else:  # an option's values
        targets = [w for w in _values(token, args) if w.value != "-"]
        by = f"{by} {token.partition(':')[0]}"
    if default:  # `-` is standard input or output (`black -` formats it); none: the default
        targets = [word for word in targets if word.value != "-"]
        if not targets and not (token == "*" and any(w.value == "-" for w in operands)):
            targets = [Word(default)]
    if prefix:
        targets = [Word(f"{w.value}*", w.computed, True, w.raw) for w in targets]
    return targets, by, removes


def _tool(words: list[Word]) -> list[Word]:
    """A runner's tool without its version: `prettier@3` is prettier (not `@scope/x`)."""
    if not words or words[0].value.startswith("@") or "@" not in words[0].value:
        return words
    tool = words[0]
    return [Word(tool.value.split("@", 1)[0], tool.computed, tool.glob, tool.raw), *words[1:]]


def _after(word: Word, start: int) -> Word:
    """The part of a word after a prefix (`of=`, `xml:`)."""
    return Word(word.value[start:], word.computed, word.glob, word.raw[start:])
