"""What one simple command runs: wrappers followed to the command they run, shells and
`eval` parsed again, interpreters' code, and status.py spotted however it is started.

Writers, git and formatters have their own tables (guards/shell_writers.py,
guards/shell_git.py); a program in none of them reads, as far as the guard can tell.
"""

from __future__ import annotations

import os
import re

from automaton_rules.guards.shell import names
from automaton_rules.guards.shell_parse import (
    COMPUTED,
    MAX_DEPTH,
    PIPE_PATH,
    Stdin,
    Where,
    Word,
    folder,
    walk,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from automaton_rules.guards.shell_reading import Reading

    Handler = Callable[[Reading, list[Word], Where], None]

STATUS_NAMES = frozenset({"status.py", "automaton-status"})
# The harness adapter: fed a user-prompt event, it approves as the user would, so an
# agent never runs it (`python -m automaton_rules.guards...` is the same program). Nor the
# dashboard: it approves for whoever holds the address it prints.
HOOK_NAMES = frozenset({"automaton-hook", "automaton-board"})
HOOK_MODULES = "automaton_rules.guards"
BOARD_MODULES = "automaton_rules.board"
STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
SCRATCH = ("/tmp/", "/var/tmp/", "/dev/shm/", "/run/user/")
# Where installed programs live: run by their path, they are no agent's code.
SYSTEM = ("/usr/", "/bin/", "/sbin/", "/opt/", "/nix/", "/snap/", "/Applications/", "/Library/")
STATUS_TEXT = re.compile(r"status\.py|automaton[-_]status|automaton_rules", re.IGNORECASE)
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
PYTHON = re.compile(r"^(python|pypy)[\d.]*$|^py$")
# Modules `python -m` runs as the program of the same name.
MODULE_PROGRAMS = names(
    "black isort ruff autopep8 yapf autoflake pyupgrade docformatter pip pytest mypy"
)
# Wrappers that run the rest of their words: (short options with a value, long options
# with a value, positional words before the command).
WRAPPERS: dict[str, tuple[str, tuple[str, ...], int]] = {
    "builtin": ("", (), 0),
    "exec": ("a", (), 0),
    "nohup": ("", (), 0),
    "time": ("fo", ("--format", "--output"), 0),
    "nice": ("n", ("--adjustment",), 0),
    "ionice": ("cnp", ("--class", "--classdata", "--pid"), 0),
    "stdbuf": ("ioe", ("--input", "--output", "--error"), 0),
    "setsid": ("", (), 0),
    "timeout": ("sk", ("--signal", "--kill-after"), 1),
    "doas": ("uC", (), 0),
    "caffeinate": ("tw", (), 0),
    "unbuffer": ("", (), 0),
    "chrt": ("", (), 1),
    "taskset": ("", (), 1),
    "strace": ("eoOpPsSuIXbE", ("--output", "--trace"), 0),
    "ltrace": ("eoOpPsSuIXbEn", ("--output",), 0),
    "valgrind": ("", (), 0),
    "xvfb-run": ("nsfelp", ("--server-num", "--server-args", "--auth-file"), 0),
    "torsocks": ("", (), 0),
    "proxychains": ("f", (), 0),
    "proxychains4": ("f", (), 0),
    "noglob": ("", (), 0),
    "nocorrect": ("", (), 0),
    "then": ("", (), 0),
}
SUDO_VALUES = "CDghprRtTUu"
SUDO_LONG = ("--chdir", "--group", "--host", "--prompt", "--role", "--type", "--user")


def options_end(words: list[Word], start: int, short: str = "", long: tuple[str, ...] = ()) -> int:
    """The index of the first word after a command's options; `short` letters and `long`
    names take a value (attached, `-n10`, or the next word)."""
    index = start
    while index < len(words):
        value = words[index].value
        if value == "--":
            return index + 1
        if not value.startswith("-") or value == "-" or words[index].computed:
            return index
        if value.startswith("--"):
            if "=" not in value and value in long:
                index += 1
        else:
            for position, char in enumerate(value[1:], 1):
                if char in short:
                    index += position == len(value) - 1
                    break
        index += 1
    return index


class Args:
    """A command's words read the GNU way: options anywhere, `--` ends them."""

    def __init__(self, words: list[Word], short: str = "", long: tuple[str, ...] = ()) -> None:
        self.flags: set[str] = set()
        self.values: dict[str, list[Word]] = {}
        self.positional: list[Word] = []
        index = 0
        while index < len(words):
            word = words[index]
            value = word.value
            if value == "--":
                self.positional.extend(words[index + 1 :])
                break
            if not value.startswith("-") or value == "-" or word.computed:
                self.positional.append(word)
            elif value.startswith("--"):
                name, equals, rest = value.partition("=")
                if equals:
                    self.values.setdefault(name, []).append(Word(rest, word.computed))
                elif name in long and index + 1 < len(words):
                    index += 1
                    self.values.setdefault(name, []).append(words[index])
                else:
                    self.flags.add(name)
            else:
                index += self._cluster(value, words[index + 1 : index + 2], short)
            index += 1

    def _cluster(self, value: str, following: list[Word], short: str) -> int:
        """`-sSLo FILE`, `-ofile`: flags up to the first letter that takes a value."""
        for position, char in enumerate(value[1:], 1):
            if char in short:
                rest = value[position + 1 :]
                taken = following[0] if not rest and following else Word(rest)
                self.values.setdefault(char, []).append(taken)
                return 0 if rest or not following else 1
            self.flags.add(char)
        return 0

    def has(self, *names: str) -> bool:
        """Any of these options given, with or without a value."""
        return any(name in self.flags or name in self.values for name in names)

    def value(self, *names: str) -> Word | None:
        """The last value given to any of these options."""
        found = [word for name in names for word in self.values.get(name, [])]
        return found[-1] if found else None


def name_of(word: Word) -> str:
    """A program's name: the last part of its path, without `.exe`."""
    name = word.value.rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


def _tables() -> tuple[dict[str, Handler], ...]:
    """Every table of programs, loaded with the first command read."""
    from automaton_rules.guards import (
        shell_fetch,
        shell_git,
        shell_interpreters,
        shell_packages,
        shell_writers,
    )

    return (
        HANDLERS,
        shell_interpreters.HANDLERS,
        shell_writers.HANDLERS,
        shell_fetch.HANDLERS,
        shell_git.HANDLERS,
        shell_packages.HANDLERS,
    )


def handler_for(name: str) -> Handler | None:
    """What reads a program's words; None for a program that only reads."""
    for table in _tables():
        if name in table:
            return table[name]
    if PYTHON.match(name):
        return _python
    if name in SHELLS:
        return _shell
    if name in WRAPPERS:
        short, long, skip = WRAPPERS[name]
        return lambda reading, words, where: run(
            reading, words[options_end(words, 1, short, long) + skip :], where
        )
    return None


def run(reading: Reading, words: list[Word], where: Where) -> None:
    """One simple command, as the shell runs it."""
    if not words:
        return
    program = words[0]
    if program.computed or COMPUTED in program.value:
        _computed_program(reading, words)
        return
    name = name_of(program)
    if name in STATUS_NAMES:
        reading.call(words, False)
        return
    if name in HOOK_NAMES:
        reading.call(words, False, hook=True)
        return
    handler = handler_for(name)
    if handler is not None:
        handler(reading, words, where)
    elif (
        "/" in program.value
        and not program.value.startswith(SYSTEM)
        and foreign(program, where, reading.origin)
    ):  # a program run by its path from outside the project: no code of the project's
        reading.program(program.raw)


def _computed_program(reading: Reading, words: list[Word]) -> None:
    """`$X args`, `$(which automaton-status) ...`: unknown, unless it names status.py."""
    names_status = any(STATUS_TEXT.search(word.raw) for word in words)
    if names_status or any(word.value == "--approve" for word in words):
        reading.call(words, True)
    else:
        reading.program(" ".join(word.raw for word in words)[:80])


def again(reading: Reading, text: str, where: Where, shown: str) -> None:
    """Shell code given as a string (`bash -c`, `eval`, `trap`): parsed like the line."""
    if where.depth >= MAX_DEPTH:
        reading.computed_code(shown)
        return
    walk(text, where.but(depth=where.depth + 1, stdin=Stdin(), env=()), reading)


def shell_string(reading: Reading, word: Word, where: Where, shown: str) -> None:
    """A word that a shell runs: computed, it could be anything."""
    if word.computed or COMPUTED in word.value:
        reading.computed_code(f"{shown} {word.raw}"[:80])
    else:
        again(reading, word.value, where, shown)


def stdin_code(reading: Reading, where: Where, shown: str, bash_syntax: bool = False) -> None:
    """A program that reads its code from standard input."""
    stdin = where.stdin
    if stdin.kind == "text" and bash_syntax:  # a heredoc's `$X` parses as the shell reads it
        again(reading, stdin.text, where, shown)
    elif stdin.kind == "pipe" or (stdin.kind == "text" and stdin.computed):
        reading.computed_code(f"{shown} reading a pipe" if stdin.kind == "pipe" else shown)
    elif stdin.kind == "text":
        code(reading, Word(stdin.text), where, shown)
    elif stdin.kind == "file" and not bash_syntax:  # `sh < script.sh` runs a file, as `sh FILE`
        reading.computed_write(shown, where)
    elif stdin.kind == "none":  # the terminal: whatever is typed into it later runs
        reading.interactive.append(shown)


def code(reading: Reading, word: Word, where: Where, shown: str) -> None:
    """An interpreter's code: it can write anywhere, and it may run status.py."""
    if word.computed or COMPUTED in word.value:
        reading.computed_code(f"{shown} {word.raw}"[:80])
        return
    reading.computed_write(shown, where, word.value)
    reading.approval_in(word.value, shown)


# ------------------------------------------------------------------------- wrappers


def _env(reading: Reading, words: list[Word], where: Where) -> None:
    """`env [-i] [-C DIR] [-S STRING] [NAME=VALUE]... COMMAND`."""
    index = 1
    while index < len(words):
        value = words[index].value
        if value in ("-C", "--chdir") and index + 1 < len(words):
            where = where.but(cwd=folder(words[index + 1], where.cwd))
            index += 2
            continue
        if value.startswith("--chdir="):
            where = where.but(cwd=folder(Word(value.split("=", 1)[1]), where.cwd))
        elif value in ("-S", "--split-string") and index + 1 < len(words):
            joined = Word(
                " ".join(w.value for w in words[index + 1 :]),
                any(w.computed for w in words[index + 1 :]),
            )
            shell_string(reading, joined, where, "env -S")
            return
        elif value in ("-u", "--unset"):
            index += 1
        elif "=" in value and not value.startswith("-"):
            name, _, assigned = value.partition("=")
            reading.assign(name, Word(assigned, words[index].computed), where)
        elif not value.startswith("-") or value == "-":
            run(reading, words[index:], where)
            return
        index += 1


def _command(reading: Reading, words: list[Word], where: Where) -> None:
    """`command -v X` only looks a program up; `command X` runs it."""
    start = options_end(words, 1)
    if any(w.value in ("-v", "-V") for w in words[1:start]):
        return
    run(reading, words[start:], where)


def _sudo(reading: Reading, words: list[Word], where: Where) -> None:
    """`sudo [-u USER] [-D DIR] COMMAND`; `sudo -e FILE` (sudoedit) writes the file."""
    start = options_end(words, 1, SUDO_VALUES, SUDO_LONG)
    options = [w.value for w in words[1:start]]
    if name_of(words[0]) == "sudoedit" or any(
        o == "--edit" or (o.startswith("-") and not o.startswith("--") and "e" in o)
        for o in options
    ):
        for word in words[start:]:
            reading.write(word, where, "sudoedit")
        return
    for index, option in enumerate(options):
        if option in ("-D", "--chdir") and 2 + index < len(words):
            where = where.but(cwd=folder(words[2 + index], where.cwd))
    run(reading, words[start:], where)


def _xargs(reading: Reading, words: list[Word], where: Where) -> None:
    """`xargs CMD ARGS`: CMD runs with words read from its input, so they are computed
    (appended, or in place of `-I STR`'s string)."""
    start = options_end(
        words,
        1,
        "adEeILlnPs",
        (
            "--arg-file",
            "--delimiter",
            "--eof",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
            "--replace",
        ),
    )
    options = words[1:start]
    replace = None
    for index, option in enumerate(options):
        if option.value in ("-I", "--replace") and index + 1 < len(options):
            replace = options[index + 1].value
        elif option.value.startswith(("-I", "--replace=")) and len(option.value) > 2:
            replace = option.value.split("=", 1)[-1] if "=" in option.value else option.value[2:]
        elif option.value == "-i":
            replace = "{}"
    command = words[start:] or [Word("echo")]
    read = Word(COMPUTED, True, False, "<input>")
    if replace:
        command = [read if replace in word.value else word for word in command]
        run(reading, command, where)
    else:
        run(reading, [*command, read], where)


def _parallel(reading: Reading, words: list[Word], where: Where) -> None:
    """`parallel CMD ::: ARGS` runs CMD with computed arguments."""
    start = options_end(words, 1, "jSa", ("--jobs", "--arg-file"))
    command = []
    for word in words[start:]:
        if word.value in (":::", "::::", ":::+"):
            break
        command.append(word)
    run(reading, [*command, Word(COMPUTED, True, raw="<input>")], where)


def _flock(reading: Reading, words: list[Word], where: Where) -> None:
    """`flock FILE -c STRING` or `flock FILE COMMAND`."""
    for index, word in enumerate(words[:-1]):
        if word.value in ("-c", "--command"):
            shell_string(reading, words[index + 1], where, "flock -c")
            return
    start = options_end(words, 1, "wE", ("--wait", "--timeout", "--conflict-exit-code"))
    run(reading, words[start + 1 :], where)


def _shell_option(reading: Reading, words: list[Word], where: Where) -> None:
    """`su -c STRING`, `runuser -c STRING`: the string is shell code."""
    for index, word in enumerate(words[:-1]):
        if word.value in ("-c", "--command"):
            shell_string(reading, words[index + 1], where, f"{name_of(words[0])} -c")


def _script(reading: Reading, words: list[Word], where: Where) -> None:
    """`script -qec STRING [FILE]` runs the string with a shell, in a pseudo-terminal;
    without `-c`, a shell reading standard input. Either way it writes its typescript."""
    args = Args(
        words[1:],
        "cIOBTEom",
        (
            "--command",
            "--log-in",
            "--log-out",
            "--log-io",
            "--log-timing",
            "--echo",
            "--output-limit",
        ),
    )
    command = args.value("c", "--command")
    if command is not None:
        shell_string(reading, command, where, "script -c")
    else:
        stdin_code(reading, where, "script", bash_syntax=True)
    typescript = args.positional[0] if args.positional else Word("typescript")
    reading.write(typescript, where, "script")


def _make(reading: Reading, words: list[Word], where: Where) -> None:
    """`make -f FILE`, `make -C DIR`: a makefile from outside the project is no code of
    the project's (in the project, its recipes are the project's own scripts)."""
    args = Args(words[1:], "fCIojlW", ("--file", "--makefile", "--directory", "--include-dir"))
    folder_word = args.value("C", "--directory")
    here = where if folder_word is None else where.but(cwd=folder(folder_word, where.cwd))
    makefile = args.value("f", "--file", "--makefile")
    for word, base in ((folder_word, where), (makefile, here)):
        if word is not None and foreign(word, base, reading.origin):
            reading.program(f"make {word.raw}")
            return


def _watch(reading: Reading, words: list[Word], where: Where) -> None:
    """`watch CMD ARGS` joins its words and runs them with `sh -c` (`-x`: as they are)."""
    start = options_end(words, 1, "n", ("--interval", "--differences"))
    rest = words[start:]
    if any(w.value in ("-x", "--exec") for w in words[1:start]):
        run(reading, rest, where)
    elif rest:
        joined = Word(" ".join(w.value for w in rest), any(w.computed for w in rest))
        shell_string(reading, joined, where, "watch")


def _eval(reading: Reading, words: list[Word], where: Where) -> None:
    """`eval WORDS` runs its words joined, as shell code."""
    rest = words[1:]
    joined = Word(
        " ".join(w.value for w in rest),
        any(w.computed for w in rest),
        False,
        " ".join(w.raw for w in rest),
    )
    shell_string(reading, joined, where, "eval")


def _source(reading: Reading, words: list[Word], where: Where) -> None:
    """`source FILE` runs a file of the project, as `bash FILE` does; `source <(...)` or
    `source /dev/stdin` runs what a pipe brings."""
    if len(words) > 1:
        script(reading, words[1], where, words[0].value, bash_syntax=True)


def script(reading: Reading, word: Word, where: Where, shown: str, bash_syntax: bool) -> None:
    """A program's script argument: a file runs (the project's own code), a pipe or
    standard input is code the line builds, a computed name is unknown."""
    if word.computed or COMPUTED in word.value or foreign(word, where, reading.origin):
        reading.program(f"{shown} {word.raw}")  # a scratch file is no code of the project's
    elif word.value == PIPE_PATH:
        reading.computed_code(f"{shown} {word.raw}"[:80])
    elif word.value in STDIN_PATHS:
        stdin_code(reading, where, shown, bash_syntax)


def foreign(word: Word, where: Where, origin: Path | None) -> bool:
    """A script that is not the project's code: in a scratch folder, or outside the folder
    the line starts in, however the path is spelt (`../x.py`, `//tmp/x`, `~/x.sh`)."""
    value = word.value
    if value in STDIN_PATHS or value == PIPE_PATH:
        return False
    if value.startswith("~") and where.home is not None:
        value = str(where.home) + value[1:]
    base = where.cwd if where.cwd is not None else origin
    path = os.path.normpath(os.path.join(str(base or "/"), value))
    if origin is None:
        return path.startswith(tuple(prefix.rstrip("/") + "/" for prefix in SCRATCH))
    return not (path == str(origin) or path.startswith(str(origin).rstrip("/") + "/"))


def _echo(reading: Reading, words: list[Word], where: Where) -> None:
    """What `echo` prints may be piped to `xargs rm`: its words are named paths."""
    for word in words[1:]:
        reading.name(word, where)


def _alias(reading: Reading, words: list[Word], where: Where) -> None:
    """`alias x='...'`: the alias's text is shell code that may run later in the line."""
    for word in words[1:]:
        if "=" in word.value:
            name, _, text = word.value.partition("=")
            shell_string(reading, Word(text, word.computed), where, f"alias {name}")
            # An alias is a word another alias's trailing blank may bring after status.py.
            reading.approval_in(text, f"alias {name}")


def _trap(reading: Reading, words: list[Word], where: Where) -> None:
    """`trap CODE SIGNAL`: the code runs when the signal comes."""
    if len(words) > 2 and not words[1].value.startswith("-"):
        shell_string(reading, words[1], where, "trap")


def _shell(reading: Reading, words: list[Word], where: Where) -> None:
    """`bash -c STRING`, `bash <<EOF`, `... | sh`, `bash FILE` (a script: it runs)."""
    shown = name_of(words[0])
    index = 1
    standard_input = False  # `-s`: the script comes on standard input, words are arguments
    while index < len(words):
        value = words[index].value
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if value == "--" or not value.startswith(("-", "+")) or words[index].computed:
            break
        if not value.startswith("--") and "c" in value[1:]:
            if index + 1 < len(words):
                shell_string(reading, words[index + 1], where, f"{shown} -c")
            return
        standard_input = standard_input or (not value.startswith("--") and "s" in value[1:])
        index += 1
    index += index < len(words) and words[index].value == "--"
    if standard_input:
        stdin_code(reading, where, shown, bash_syntax=True)
    elif index < len(words) and name_of(words[0]) == "busybox":
        run(reading, words[index:], where)
    elif index < len(words):
        script(reading, words[index], where, shown, bash_syntax=True)
    else:
        stdin_code(reading, where, shown, bash_syntax=True)


def _python(reading: Reading, words: list[Word], where: Where) -> None:
    """`python -c CODE`, `python -m MODULE`, `python FILE`, `python - <<EOF`."""
    shown = name_of(words[0])
    index = 1
    while index < len(words):
        word = words[index]
        value = word.value
        if value == "-" or word.computed or not value.startswith("-"):
            break
        if value in ("--version", "--help", "-V", "-h"):
            return
        if value.startswith("--"):
            index += 1 + (value == "--check-hash-based-pycs")
            continue
        for position, char in enumerate(value[1:], 1):
            if char in "cmWX":
                attached = value[position + 1 :]
                argument = Word(attached) if attached else _at(words, index + 1)
                rest = words[index + (1 if attached else 2) :]
                if char == "c":
                    code(reading, argument, where, f"{shown} -c")
                    return
                if char == "m":
                    _module(reading, argument, rest, where)
                    return
                index += not attached
                break
        index += 1
    if index < len(words) and name_of(words[index]) in STATUS_NAMES:
        reading.call(words[index:], False)
    elif index < len(words) and name_of(words[index]) in HOOK_NAMES:
        reading.call(words[index:], False, hook=True)
    elif index < len(words):
        script(reading, words[index], where, shown, bash_syntax=False)
    else:
        stdin_code(reading, where, f"{shown} -")


def _at(words: list[Word], index: int) -> Word:
    """The word after an option, or an empty one."""
    return words[index] if index < len(words) else Word("")


def _module(reading: Reading, module: Word, rest: list[Word], where: Where) -> None:
    """`python -m black .` is black; `python -m automaton_rules` is status.py."""
    name = module.value
    if module.computed or COMPUTED in name:
        reading.program(f"python -m {module.raw}")
    elif any(name == m or name.startswith(m + ".") for m in (HOOK_MODULES, BOARD_MODULES)):
        reading.call([module, *rest], False, hook=True)
    elif name == "automaton_rules" or name.startswith("automaton_rules."):
        reading.call([module, *rest], False)
    elif name in MODULE_PROGRAMS:
        run(reading, [Word(name), *rest], where)
    elif name in MODULE_WRITES:
        _module_writes(reading, name, rest, where)


# Standard-library modules run as tools that write: `-m json.tool IN OUT`,
# `-m tarfile -e ARCHIVE DIR`, `-m zipfile -e ARCHIVE DIR`. (`-m venv` is setting up, as
# a package manager's install is.)
MODULE_WRITES = frozenset({"json.tool", "tarfile", "zipfile"})


def _module_writes(reading: Reading, name: str, rest: list[Word], where: Where) -> None:
    """The path a writing module's arguments name: the last positional word."""
    positional = [word for word in rest if not word.value.startswith("-")]
    if name in ("tarfile", "zipfile"):
        extracting = any(word.value in ("-e", "--extract") for word in rest)
        if not extracting:
            return
        target = positional[1] if len(positional) > 1 else Word(".")
    else:  # json.tool: IN OUT; with one file it prints
        if len(positional) < 2:
            return
        target = positional[1]
    reading.write(target, where, f"python -m {name}")


HANDLERS: dict[str, Handler] = {
    "env": _env,
    "command": _command,
    "sudo": _sudo,
    "sudoedit": _sudo,
    "xargs": _xargs,
    "parallel": _parallel,
    "flock": _flock,
    "su": _shell_option,
    "runuser": _shell_option,
    "watch": _watch,
    "script": _script,
    "make": _make,
    "gmake": _make,
    "eval": _eval,
    "source": _source,
    ".": _source,
    "trap": _trap,
    "echo": _echo,
    "printf": _echo,
    "alias": _alias,
}


def scan_unreadable(
    reading: Reading, text: str, where: Where, label: str = "a line the parser cannot read"
) -> None:
    """A line the parser cannot read fully: status.py named in it counts as a call with
    computed arguments, `--approve` as an approval, a `.state` name as a state write."""
    from automaton_rules.guards.shell import names_state

    plain = text.replace('"', "").replace("'", "").replace("\\", "")
    if STATUS_TEXT.search(plain) or "--approve" in plain:
        reading.call([Word(text[:80], True)], True)
    reading.approval_in(plain, "an unreadable line")
    reading.computed_write(label, where, plain)
    if names_state(plain):
        reading.states.append(text[:80])
