"""What one shell line does, gathered while its tree is walked: the sink of the walk.

Commands report here what they write, which status.py calls they make and what of them
is computed; this turns words into resolved paths (globs expanded against the disk as
the shell would) and hands back a `ShellLine`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from automaton_rules.guards.shell import Call, Computed, ShellLine, Write, names_state
from automaton_rules.guards.shell_parse import COMPUTED, Where, Word
from automaton_rules.guards.shell_programs import STATUS_TEXT

MAX_GLOB = 200  # paths one glob may name before the rest count as computed
DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/")
MAX_MENTIONS = 100  # paths named in one piece of code that are looked at
_TOKEN = re.compile(r"[\w.~/*?\[\]@+-]+")
# Code that names the harness adapter (`automaton-hook`, `automaton_rules.guards...`) can
# feed it a prompt of its own making, which approves in prompt mode.
# status.py's flags that approve: `--serve` starts the dashboard, which approves for
# whoever holds the address it prints.
APPROVING_FLAGS = ("--approve", "--serve")
_ADAPTER_TEXT = re.compile(
    r"automaton[-_](?:hook|board)|automaton_rules\W+(?:import\W+)?(?:guards|board)\b"
)
_HOOK_ENV = re.compile(r"^GIT_CONFIG_(PARAMETERS|COUNT|KEY_\d+|VALUE_\d+)$")
# Variables whose value a shell runs as code when it starts: an exported function
# (`BASH_FUNC_f%%=() {...}`), the start-up file of a non-interactive bash or a POSIX sh.
_CODE_ENV = re.compile(r"^(BASH_FUNC_.+|BASH_ENV|ENV)$")
# Variables that make a program load code from the folders they name.
_LOAD_PATHS = frozenset({"PYTHONPATH", "NODE_PATH", "PERL5LIB", "RUBYLIB", "LD_PRELOAD"})


def _foreign_path(value: Word, where: Where, origin: Path | None) -> bool:
    """A search path that names a folder outside the project (or one only known when the
    line runs)."""
    from automaton_rules.guards.shell_programs import foreign

    if value.computed or COMPUTED in value.value:
        return True
    parts = [part for part in value.value.split(":") if part]
    return any(foreign(Word(part), where, origin) for part in parts)


class Reading:
    """The sink of a walk: collects what each command does."""

    def __init__(self, origin: Path | None = None) -> None:
        self.origin = origin  # the folder the line starts in
        self.named: list[Path] = []
        self.status_named = False  # a variable or `echo` holds status.py's name
        self.writes: list[Write] = []
        self.computed: list[Computed] = []
        self.programs: list[str] = []
        self.code: list[str] = []
        self.calls: list[Call] = []
        self.hooks: list[str] = []
        self.states: list[str] = []
        self.unread = False
        self.interactive: list[str] = []  # shells left reading what is typed into them

    # ---------------------------------------------------------------- the walk's calls

    def command(self, words: list[Word], where: Where) -> None:
        from automaton_rules.guards.shell_programs import run

        self.states.extend(w.value for w in words if names_state(w.value))
        run(self, words, where)

    def redirect(self, target: Word, where: Where) -> None:
        if names_state(target.value):
            self.states.append(target.value)
        self.write(target, where, f"> {target.raw}")

    def assign(self, name: str, value: Word, where: Where) -> None:
        if _HOOK_ENV.match(name):
            self.hooks.append(f"{name}={value.raw}")
        if _CODE_ENV.match(name):
            self.code.append(f"{name}={value.raw}"[:80])
        elif name in _LOAD_PATHS and _foreign_path(value, where, self.origin):
            self.programs.append(f"{name}={value.raw}"[:80])
        self.name(value, where)

    def name(self, word: Word, where: Where) -> None:
        """A literal a variable or `echo` holds: a computed write may be using it."""
        value = word.value
        if word.computed or not value or value.startswith("-") or COMPUTED in value:
            return
        if names_state(value):
            self.states.append(value)
        if STATUS_TEXT.search(value):
            self.status_named = True
        base = where.cwd or self.origin
        if base is not None or os.path.isabs(value):
            joined = value if base is None else os.path.join(base, value)
            self.named.append(Path(os.path.normpath(joined)))

    def unreadable(self, text: str, where: Where) -> None:
        """A line the parser cannot fully read: judged on every word it names."""
        from automaton_rules.guards.shell_programs import scan_unreadable

        self.unread = True
        scan_unreadable(self, text, where)

    # ------------------------------------------------------- what commands report

    def write(self, word: Word, where: Where, by: str, removes: bool = False) -> None:
        """A write to the path one word names, in the folder the command runs in."""
        value = word.value
        if not value or value.startswith(DEVICES):
            return  # `2>/dev/null`, `>&2`, `tee /dev/stderr`: no file is written
        if word.computed or COMPUTED in value:
            self.computed_target(word, where, by)
            return
        base = None if os.path.isabs(value) else where.cwd
        if base is None and not os.path.isabs(value):  # after `cd "$X"`: a likely guess
            guess = () if self.origin is None else (Path(os.path.normpath(self.origin / value)),)
            self.computed.append(Computed(by, None, _last(value), guess))
            return
        for path in _paths(value, base, word.glob):
            self.writes.append(Write(path, word.raw, by, removes))

    def write_path(self, path: Path, shown: str, by: str, removes: bool = False) -> None:
        """A path already put together (a source's name inside a destination folder)."""
        self.writes.append(Write(path.resolve(), shown, by, removes))

    def computed_target(self, word: Word, where: Where, by: str) -> None:
        """A target only running decides: keep its literal folder and name, if any."""
        value = word.value
        head = value.split(COMPUTED, 1)[0]
        folder = head.rsplit("/", 1)[0] if "/" in head else ""
        within = None
        if folder or head.startswith("/"):
            base = Path(folder or "/")
            if base.is_absolute():
                within = Path(os.path.normpath(base))
            elif where.cwd is not None:
                within = Path(os.path.normpath(where.cwd / base))
        self.computed.append(Computed(by, within and within.resolve(), _last(value)))

    def computed_write(self, by: str, where: Where, code: str = "") -> None:
        """Code (python -c, awk, find -delete ...) that can write anywhere it likes."""
        self.computed.append(Computed(by, None, "", mentions(code, where.cwd)))
        if names_state(code):
            self.states.append(by)

    def computed_within(self, by: str, folder: Path) -> None:
        """A computed name in a known folder (`cp "$F" build/`)."""
        self.computed.append(Computed(by, folder.resolve()))

    def program(self, shown: str) -> None:
        """A command whose program only running the line decides."""
        self.programs.append(shown)

    def computed_code(self, shown: str) -> None:
        """Shell or interpreter code built at run time."""
        self.code.append(shown)

    def call(self, argv: list[Word], computed: bool, hook: bool = False) -> None:
        """A status.py call: a literal `--approve`, or words computed or globbed, noted."""
        if hook:  # the harness adapter: fed a made-up prompt, it approves
            self.calls.append(Call(tuple(w.raw for w in argv), False, True, hook=True))
            return
        approves = any(not w.computed and w.value in APPROVING_FLAGS for w in argv)
        unknown = computed or any(w.computed or COMPUTED in w.value or w.glob for w in argv[1:])
        self.calls.append(Call(tuple(w.raw for w in argv), unknown, approves))

    def approval_in(self, text: str, shown: str) -> None:
        """Code that names `--approve`, or the harness adapter, approves, whatever runs it."""
        plain = text.replace('"', "").replace("'", "")
        if "--approve" in plain:
            self.calls.append(Call((shown,), False, True))
        elif _ADAPTER_TEXT.search(plain):
            self.calls.append(Call((shown,), False, True, hook=True))

    def hook(self, shown: str) -> None:
        """A way the line skips or reroutes git's hooks."""
        self.hooks.append(shown)

    def result(self) -> ShellLine:
        """What the line does, as one record."""
        if self.status_named and self.programs:  # `S=automaton-status; $S ...`
            self.calls.append(Call((self.programs[0],), True, False))
        return _as_line(self)


def _as_line(reading: Reading) -> ShellLine:
    """A reading's lists as one immutable record."""
    return ShellLine(
        tuple(reading.writes),
        tuple(reading.computed),
        tuple(reading.programs),
        tuple(reading.code),
        tuple(reading.calls),
        tuple(reading.hooks),
        tuple(reading.states),
        tuple(dict.fromkeys(reading.named))[:MAX_MENTIONS],
        reading.unread,
        tuple(reading.interactive),
    )


def _last(value: str) -> str:
    """A path's last part, when no computed part is in it."""
    name = value.rstrip("/").rsplit("/", 1)[-1]
    return "" if COMPUTED in name else name


def _paths(value: str, base: Path | None, glob: bool) -> list[Path]:
    """The paths a word names: a glob expanded as bash does (no match: the word itself)."""
    joined = value if base is None else os.path.join(base, value)
    if glob:
        import glob as globbing

        pattern = value if base is None else os.path.join(globbing.escape(str(base)), value)
        found = sorted(globbing.glob(pattern))[:MAX_GLOB]
        if found:
            return [Path(path).resolve() for path in found]
    return [Path(joined).resolve()]


def mentions(code: str, cwd: Path | None) -> tuple[Path, ...]:
    """Paths named in code the guard cannot read (`open('automaton.toml', 'w')`)."""
    found = []
    for token in _TOKEN.findall(code):
        if len(token) < 3 or "*" in token or ("/" not in token and "." not in token):
            continue
        path = Path(os.path.expanduser(token))
        if not path.is_absolute():
            if cwd is None:
                continue
            path = cwd / path
        found.append(Path(os.path.normpath(path)))
    return tuple(dict.fromkeys(found))[:MAX_MENTIONS]
