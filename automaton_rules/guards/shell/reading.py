"""What one shell line does, collected as the interpreter reads it: words made resolved
paths, globs expanded as the shell would. It knows no program. Imports only the words.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from automaton_rules.guards.shell.words import COMPUTED, Where, Word, located
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell.row import Spec
    from automaton_rules.guards.shell.words import Args

MAX_GLOB = 200  # paths one glob may name before the rest count as computed
MAX_MENTIONS = 100  # paths named in one piece of code that are looked at
DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/")
SCRATCH = ("/tmp/", "/var/tmp/", "/dev/shm/", "/run/user/")
STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
STATUS_TEXT = Lazy(r"status\.py|automaton[-_]status|automaton_rules", re.IGNORECASE)
_TOKEN = Lazy(r"[\w.~/*?\[\]@+-]+")
# Code that names the harness adapter (`automaton-hook`, `automaton_rules.guards...`) can
# feed it a prompt of its own making, which approves in prompt mode.
# status.py's flags that approve: `--serve` starts the dashboard, which approves for
# whoever holds the address it prints.
APPROVING_FLAGS = ("--approve", "--serve")
_ADAPTER_TEXT = Lazy(
    r"automaton[-_](?:hook|board)|automaton_rules\W+(?:import\W+)?(?:guards|board)\b"
)
_HOOK_ENV = Lazy(r"^GIT_CONFIG_(PARAMETERS|COUNT|KEY_\d+|VALUE_\d+)$")
# Variables whose value a shell runs as code when it starts: an exported function
# (`BASH_FUNC_f%%=() {...}`), the start-up file of a non-interactive bash or a POSIX sh.
_CODE_ENV = Lazy(r"^(BASH_FUNC_.+|BASH_ENV|ENV)$")


def foreign(word: Word, where: Where, origin: Path | None) -> bool:
    """A script or folder that is not the project's: in a scratch folder, or outside the
    folder the line starts in, however the path is spelt (`../x.py`, `//tmp/x`, `~/x`)."""
    value = word.value
    if value in STDIN_PATHS or value == "/dev/fd/63":
        return False
    if value.startswith("~") and where.home is not None:
        value = str(where.home) + value[1:]
    base = where.cwd if where.cwd is not None else origin
    path = os.path.normpath(os.path.join(str(base or "/"), value))
    if origin is None:
        return path.startswith(tuple(prefix.rstrip("/") + "/" for prefix in SCRATCH))
    return not (path == str(origin) or path.startswith(str(origin).rstrip("/") + "/"))


class Reading:
    """What the commands of one line report: writes, calls, code, hooks, and the rest."""

    def __init__(self, origin: Path | None = None) -> None:
        self.origin = origin  # the folder the line starts in
        self.writes: list[tuple[Path, str, str, bool]] = []  # path, shown, by, removes
        self.computed: list[tuple[str, Path | None, str, tuple[Path, ...]]] = []
        self.calls: list[tuple[tuple[str, ...], bool, bool, bool]] = []
        self.programs: list[str] = []  # programs only running the line names
        self.code: list[str] = []  # code built at run time
        self.hooks: list[str] = []
        self.states: list[tuple[str, str]] = []  # (text that may name a .state file, shown)
        self.named: list[Path] = []
        self.status_named = False  # a variable or `echo` holds status.py's name
        self.unread = False
        self.interactive: list[str] = []  # shells left reading what is typed into them
        self.unknown: list[str] = []  # programs no row of the table knows

    def command(self, words: list[Word], where: Where) -> None:
        self.states.extend((word.value, word.value) for word in words)
        self.run(words, where)

    def run(self, words: list[Word], where: Where) -> None:
        """What a command does: the interpreter (guards/shell/programs.py) knows."""

    def dispatch(
        self, spec: Spec, rest: list[Word], words: list[Word], where: Where, by: str
    ) -> None:
        """A sub-command by its own row: the interpreter's, called back by the readers."""

    def effects(self, spec: Spec, args: Args, where: Where, by: str) -> None:
        """What a row says the command does: the interpreter's."""

    def read_code(self, word: Word, where: Where, shown: str, bash: bool = False) -> None:
        """Code a program runs: the interpreter's."""

    def redirect(self, target: Word, where: Where) -> None:
        self.states.append((target.value, target.value))
        self.write(target, where, f"> {target.raw}")

    def unreadable(self, text: str, where: Where) -> None:
        self.unread = True
        self.scan(text, where)

    def assign(self, name: str, value: Word, where: Where) -> None:
        """`NAME=value`: some names change what git or a shell runs."""
        if _HOOK_ENV.match(name):
            self.hooks.append(f"{name}={value.raw}")
        if _CODE_ENV.match(name):
            self.code.append(f"{name}={value.raw}"[:80])
        self.name(value, where)

    def name(self, word: Word, where: Where) -> None:
        """A literal a variable or `echo` holds: a computed write may be using it."""
        value = word.value
        if not word.known or not value or value.startswith("-"):
            return
        self.states.append((value, value))
        self.status_named = self.status_named or bool(STATUS_TEXT.search(value))
        base = where.cwd or self.origin
        if base is not None or os.path.isabs(value):
            joined = value if base is None else os.path.join(base, value)
            self.named.append(Path(os.path.normpath(joined)))

    def write(self, word: Word, where: Where, by: str, removes: bool = False) -> None:
        """A write to the path one word names, in the folder the command runs in."""
        value = word.value
        if not value or value.startswith(DEVICES):
            return  # `2>/dev/null`, `>&2`, `tee /dev/stderr`: no file is written
        if not word.known:
            self.computed_target(word, where, by)
            return
        if where.cwd is None and not os.path.isabs(value):  # after `cd "$X"`: a likely guess
            guess = () if self.origin is None else (Path(os.path.normpath(self.origin / value)),)
            self.computed.append((by, None, _last(value), guess))
            return
        for path in paths(value, where.cwd, word.glob):
            self.writes.append((path, word.raw, by, removes))

    def computed_target(self, word: Word, where: Where, by: str) -> None:
        """A target only running decides: keep its literal folder and name, if any."""
        head = word.value.split(COMPUTED, 1)[0]
        parent = head.rsplit("/", 1)[0] if "/" in head else ""
        base = located(Word(parent or "/"), where.cwd) if parent or head.startswith("/") else None
        within = None if base is None else Path(os.path.normpath(base)).resolve()
        self.computed.append((by, within, _last(word.value), ()))

    def computed_write(self, by: str, where: Where, code: str = "") -> None:
        """Code (python -c, awk, find -delete ...) that can write anywhere it likes."""
        self.computed.append((by, None, "", mentions(code, where.cwd)))
        self.states.append((code, by))

    def call(self, argv: list[Word], computed: bool, hook: bool = False) -> None:
        """A status.py call: a literal `--approve`, or words computed or globbed, noted."""
        shown = tuple(w.raw for w in argv)
        if hook:  # the harness adapter: fed a made-up prompt, it approves
            self.calls.append((shown, False, True, True))
            return
        approves = any(not w.computed and w.value in APPROVING_FLAGS for w in argv)
        unknown = computed or any(not w.known or w.glob for w in argv[1:])
        self.calls.append((shown, unknown, approves, False))

    def approval_in(self, text: str, shown: str) -> None:
        """Code that names `--approve`, or the harness adapter, approves, whatever runs it."""
        plain = text.replace('"', "").replace("'", "")
        if "--approve" in plain or _ADAPTER_TEXT.search(plain):
            self.calls.append(((shown,), False, True, "--approve" not in plain))

    def scan(self, text: str, where: Where, label: str = "a line the parser cannot read") -> None:
        """Text not read fully: status.py, `--approve` and `.state` names in it count."""
        plain = text.replace('"', "").replace("'", "").replace("\\", "")
        if STATUS_TEXT.search(plain) or "--approve" in plain:
            self.call([Word(text[:80], True)], True)
        self.approval_in(plain, "an unreadable line")
        self.computed_write(label, where, plain)
        self.states.append((plain, text[:80]))


def _last(value: str) -> str:
    """A path's last part, when no computed part is in it."""
    name = value.rstrip("/").rsplit("/", 1)[-1]
    return "" if COMPUTED in name else name


def paths(value: str, base: Path | None, glob: bool) -> list[Path]:
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
