"""What a shell line does (`ShellLine`), and the pre-scan that answers plain reads without
the parser or the table: this module imports no other shell module when it loads.
"""

from __future__ import annotations

import re
from pathlib import Path

from automaton_rules.support.patterns import Lazy
from automaton_rules.support.record import KW_ONLY, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell.reading import Reading


def names(text: str) -> frozenset[str]:
    """A table of program names, written as words."""
    return frozenset(text.split())


STATE_PREFIX = ".state"  # `.state`, `.state.history`, `.state.approvals`, `.state.lock`
STATE_NAMES = (".state", ".state.history", ".state.approvals", ".state.lock")
MAX_NAMED = 100  # paths held by variables or `echo` that a computed write is checked against


class Write(Record):
    """A file or folder the line writes, resolved as the write would reach it."""

    path: Path
    shown: str  # the word as written, for the refusal
    by: str  # the command that writes it
    removes: bool = False  # deletes or moves away the path and everything below it


class Computed(Record):
    """A write whose target only running the line decides, with what is known of it."""

    by: str  # the command, e.g. "python3 -c" or "xargs rm"
    within: Path | None  # a folder the target is known to lie in
    name: str  # the target's last part when that part is literal
    mentions: tuple[Path, ...]  # paths named in code that can write anywhere


class Call(Record):
    """One status.py (or automaton-status) call the line makes."""

    argv: tuple[str, ...]  # the words as written
    computed: bool  # its program or an argument is only known when it runs
    approves: bool  # a literal --approve, or the adapter, which approves for a prompt
    hook: bool = False  # the harness adapter (automaton-hook), not status.py


class ShellLine(Record):
    """Everything the guard needs to know about one shell line; a field not given is empty."""

    _: KW_ONLY
    writes: tuple[Write, ...] = ()
    computed: tuple[Computed, ...] = ()  # writes to computed targets
    programs: tuple[str, ...] = ()  # commands whose program is computed
    code: tuple[str, ...] = ()  # shell or interpreter code built at run time (eval "$X", | sh)
    calls: tuple[Call, ...] = ()
    hooks: tuple[str, ...] = ()  # how the line skips or reroutes git's hooks
    states: tuple[str, ...] = ()  # words that can name a `.state*` file
    named: tuple[Path, ...] = ()  # paths a variable or `echo` holds, which a computed write may use
    unreadable: bool = False  # the parser could not read all of it
    interactive: tuple[str, ...] = ()  # shells or interpreters left reading what is typed
    unknown: tuple[str, ...] = ()  # programs no row of the table knows, as written

    @property
    def writes_files(self) -> bool:
        """It writes something, where or not known."""
        return bool(self.writes or self.computed)

    @property
    def approves(self) -> bool:
        """A status.py call with a literal `--approve`."""
        return any(call.approves for call in self.calls)


def read(command: str, cwd: Path | None, home: Path | None = None) -> ShellLine:
    """Parse one shell line run in `cwd` (the harness's working folder)."""
    from automaton_rules.guards.shell.parse import walk
    from automaton_rules.guards.shell.programs import Interpreter
    from automaton_rules.guards.shell.words import Where

    start = Where(None if cwd is None else Path(cwd), home=home or Path.home())
    interpreter = Interpreter(start.cwd)
    walk(command, start, interpreter)
    return _line(interpreter)


def scan(text: str, cwd: Path, shown: str) -> ShellLine:
    """Text of a language the reader does not parse (PowerShell), judged on what it names."""
    from automaton_rules.guards.shell.reading import Reading
    from automaton_rules.guards.shell.words import Where

    reading = Reading(cwd)
    reading.scan(text, Where(cwd), shown)
    return _line(reading)


def _line(reading: Reading) -> ShellLine:
    """What a reading collected, as one record."""
    calls = [Call(*call) for call in reading.calls]
    if reading.status_named and reading.programs:  # `S=automaton-status; $S ...`
        calls.append(Call((reading.programs[0],), True, False))
    return ShellLine(
        writes=tuple(Write(*write) for write in reading.writes),
        computed=tuple(Computed(*computed) for computed in reading.computed),
        programs=tuple(reading.programs),
        code=tuple(reading.code),
        calls=tuple(calls),
        hooks=tuple(reading.hooks),
        states=tuple(shown for text, shown in reading.states if names_state(text)),
        named=tuple(dict.fromkeys(reading.named))[:MAX_NAMED],
        unreadable=reading.unread,
        interactive=tuple(reading.interactive),
        unknown=tuple(reading.unknown),
    )


def names_state(word: str) -> bool:
    """A word (or a path or glob inside one) that can name a `.state*` file."""
    from fnmatch import fnmatchcase

    for token in re.findall(r"[^\s'\"`=:;,(){}<>|&$]+", word):
        name = token.rstrip("/").rsplit("/", 1)[-1].lower()
        if name.startswith(STATE_PREFIX):
            return True
        pattern = name.startswith(".") and any(c in name for c in "*?[")
        if pattern and any(fnmatchcase(state, name) for state in STATE_NAMES):
            return True
    return False


# Programs that read and run no code but their own, whatever the line gives them: a line
# of these (and git's reads below), read by the pre-scan, needs no sandbox.
INERT = names(
    "cat head tail ls ll tree wc grep egrep fgrep pwd echo printf which type whereis file "
    "stat du df diff cmp cut tr nl column jq realpath readlink basename dirname date whoami "
    "id uname hostname true false test [ sleep md5sum sha1sum sha256sum sha512sum cksum od "
    "hexdump strings nproc free ps uptime seq printenv find"
)
# Programs that read (or run the project's own tests and checks) whatever their
# arguments; the table agrees (tests/test_shell_table.py holds it to it). Test runners and
# linters run the project's code or plugins, `rg --pre` and `fd -x` programs: not inert.
READERS = INERT | names(
    "rg ag ack fd fdfind pytest mypy flake8 pylint pyright pyflakes pydocstyle bandit vulture"
)
INERT |= {"git"}
# Programs that read only with the sub-commands named here.
READ_SUBCOMMANDS = {
    "git": names(
        "status diff log show blame grep ls-files ls-tree rev-parse describe shortlog "
        "cat-file rev-list whatchanged show-ref merge-base name-rev count-objects "
        "help version"
    ),
    "cargo": names("check test tree metadata"),
    "go": names("test vet list version env doc"),
    "npm": names("test ls list view outdated audit why"),
    "uv": names("tree version"),
    "pip": names("list show freeze check --version"),
    "pip3": names("list show freeze check --version"),
}
# Options that make a reader write or run a program (`find -delete`, `fd -x`,
# `git diff --output=F`, `rg --pre CMD`, `pytest --debug=F`): a line with one goes to the
# parser, and so does a path outside the project given to a reader that runs code.
# (Word tests, not one regex: the alternation took 9 ms to compile, on every shell line.)
_WRITING_EXACT = frozenset({"-o", "-delete", "-fls", "-x", "-X", "--pre"})
_WRITING_PREFIXES = (
    "-O", "--output", "-exec", "-ok", "-fprint", "--fix", "--basetemp", "--junit", "--html",
    "--report-log", "--result-log", "--cache-dir", "--cov-report", "--data-file", "--pre=",
    "--hostname-bin", "--pager", "--debug", "--log-file", "--override-ini", "--init-hook",
    "--script-shell", "--exec-path", "--upload-pack", "--open-files-in-pager", "-toolexec",
    "-vettool",
)  # fmt: skip
# The long options among those a reader accepts abbreviated (git, GNU getopt_long and
# argparse take any unique prefix): `--open-files=CMD` is `--open-files-in-pager=CMD`.
_ABBREVIATED = names(
    "--output --output-directory --open-files-in-pager --exec --exec-path --ext-diff "
    "--textconv --upload-pack --receive-pack --extcmd --tool --config-env --pager --pre "
    "--delete --fprint --fix --basetemp --debug --log-file --cache-dir --override-ini "
    "--init-hook --script-shell --hostname-bin --junit-xml --html --report-log --result-log "
    "--cov-report --data-file --rcfile --confcutdir --rootdir"
)
_OUTSIDE = Lazy(r"(?:^|[=:])[/~]|(?:^|[=:/])\.\.(?:/|$)")
_QUOTED = Lazy(r"'([^']*)'|\"([^\"$`\\]*)\"")
_NOT_PLAIN = Lazy(r"[^\w@%+=:,./~^*?\[\]-]")
_HARMLESS_REDIRECT = Lazy(r"(?:(?:[12]?>|&>)\s*/dev/null|[12]?>&[12])(?=$|[\s;|&])")
_SEPARATORS = Lazy(r"\|\||&&|[|;\n]")
_PATH_PROGRAMS = frozenset({"pytest", "mypy", "python", "python3"})


def _unquote(match: re.Match[str]) -> str:
    """A quoted string's text as one word, whatever it holds: `'-delete'` is `-delete`."""
    return _NOT_PLAIN.sub("_", match.group(1) if match.group(1) is not None else match.group(2))


def _segments(command: str) -> list[list[str]] | None:
    """The words of each command of a line with no redirection to a file, no expansion and
    no substitution (None for any other line)."""
    if len(command) > 2000:
        return None
    bare = _HARMLESS_REDIRECT.sub(" ", _QUOTED.sub(_unquote, command))
    if any(char in bare.replace("&&", ";") for char in "<>$`\\'\"(){}&#!"):
        return None
    return [segment.split() for segment in _SEPARATORS.split(bare)]


def plain_read(command: str) -> bool:
    """A line of plain reads only, answered without the parser."""
    segments = _segments(command)
    return segments is not None and all(segment and _reader(segment) for segment in segments)


def _reader(words: list[str]) -> bool:
    """One command of the pre-scan: a known reader, with no option that writes."""
    if any(_NOT_PLAIN.search(word) or _writes(word) for word in words):
        return False
    if any(word[:2] == "--" and _abbreviates(word) for word in words[1:]):
        return False
    program = words[0].rsplit("/", 1)[-1]
    if "/" in words[0] and program not in _PATH_PROGRAMS:
        return False
    if program not in INERT and any(_OUTSIDE.search(word) for word in words[1:]):
        return False
    if program in ("python", "python3"):
        return words[1:3] == ["-m", "pytest"]
    if program in READ_SUBCOMMANDS:
        return len(words) > 1 and words[1] in READ_SUBCOMMANDS[program]
    return program in READERS


def _writes(word: str) -> bool:
    """An option by which a reader writes or runs a program (`-delete`, `--output=F`)."""
    if word in _WRITING_EXACT or word.startswith(_WRITING_PREFIXES):
        return True
    return word[:2] == "--" and "-report" in word[2:]


def _abbreviates(word: str) -> bool:
    """`--open-files`, `--out=F`: a prefix of an option by which a reader writes or runs."""
    name = word.partition("=")[0]
    return len(name) > 2 and any(option.startswith(name) for option in _ABBREVIATED)


# Options by which one of those runs a program after all: `git grep -O CMD`, `git diff
# --ext-diff`, `git -c core.pager=CMD`, `find -exec` (the pre-scan refuses that one).
_RUNS_A_PROGRAM = tuple(
    names(
        "-O --open-files-in-pager --ext-diff --textconv --exec -c --config-env --upload-pack "
        "--receive-pack --pre -x --extcmd --tool"
    )
)


def inert(command: str) -> bool:
    """A line of plain reads by programs that run no other code: it runs unsandboxed."""
    segments = _segments(command) if plain_read(command) else None
    return segments is not None and all(
        segment[0].rsplit("/", 1)[-1] in INERT
        and not any(word.startswith(_RUNS_A_PROGRAM) for word in segment[1:])
        for segment in segments
    )
