"""Commands that write files, and where: `cp`, `mv`, `rm`, `tee`, `curl -o`, `tar -x`...

Each handler names its targets as the command would: the last argument of `cp`, or
each source's name inside it when it is a folder; `-t DIR`; `dd of=`; `curl -O`'s name
taken from the URL; the folder an archive is unpacked into.
"""

from __future__ import annotations

import os
from pathlib import Path

from automaton_rules.guards.shell import names
from automaton_rules.guards.shell_parse import COMPUTED, Where, Word
from automaton_rules.guards.shell_programs import Args, name_of, run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell_programs import Handler
    from automaton_rules.guards.shell_reading import Reading

MAX_PATCH = 1 << 20  # bytes of a patch file read to learn the files it changes
# Options that take a value, per command (short letters, long names).
COPY_VALUES = {
    "cp": ("tS", ("--target-directory", "--suffix", "--backup", "--reflink", "--sparse")),
    "mv": ("tS", ("--target-directory", "--suffix", "--backup")),
    "ln": ("tS", ("--target-directory", "--suffix", "--backup")),
    "install": ("tSmogC", ("--target-directory", "--suffix", "--mode", "--owner", "--group")),
}


def _into(reading: Reading, folder: Word, sources: list[Word], where: Where, by: str) -> None:
    """Each source lands in `folder` under its own name."""
    from automaton_rules.guards.shell_reading import _paths

    if (
        folder.computed
        or COMPUTED in folder.value
        or (where.cwd is None and not os.path.isabs(folder.value))
    ):
        reading.write(folder, where, by)
        return
    base = Path(folder.value) if where.cwd is None else where.cwd / folder.value
    for source in sources:
        if source.computed or COMPUTED in source.value:
            reading.computed_within(by, base)
            continue
        for path in _paths(source.value, where.cwd, source.glob):
            reading.write_path(base / path.name, f"{folder.raw}/{path.name}", by)


def _is_folder(word: Word, where: Where) -> bool:
    """A destination that is a folder gets each source inside it."""
    if word.computed or COMPUTED in word.value:
        return False
    if word.value.endswith("/"):
        return True
    path = Path(word.value)
    if not path.is_absolute():
        if where.cwd is None:
            return False
        path = where.cwd / path
    return path.is_dir()


def _copy(reading: Reading, words: list[Word], where: Where) -> None:
    """cp, mv, ln, install: the destination (or each source inside it) is written;
    mv also removes its sources."""
    name = name_of(words[0])
    short, long = COPY_VALUES[name]
    args = Args(words[1:], short, long)
    by = name
    if name == "install" and args.has("d", "--directory"):
        for word in args.positional:
            reading.write(word, where, by)
        return
    target = args.value("t", "--target-directory")
    sources = args.positional
    if target is None:
        if not sources:
            return
        if name == "ln" and len(sources) == 1:
            target, sources = Word("."), sources
        else:
            target, sources = sources[-1], sources[:-1]
        if not args.has("T", "--no-target-directory") and _is_folder(target, where) and sources:
            _into(reading, target, sources, where, by)
        else:
            reading.write(target, where, by)
    else:
        _into(reading, target, sources, where, by)
    if name == "mv":
        for source in sources:
            reading.write(source, where, by, removes=True)
    if name == "ln":
        _linked(reading, args, target, sources, where)


def _linked(
    reading: Reading, args: Args, link: Word | None, sources: list[Word], where: Where
) -> None:
    """A link is a door: writing through it later writes what it points to, so making one
    counts as writing everything below its target (a link to the project from /tmp, or
    to the project's top from inside it, would reach the guard's files)."""
    symbolic = args.has("s", "--symbolic")
    folder = ""
    if symbolic and link is not None and not _is_folder(link, where):
        folder = os.path.dirname(link.value)
    for source in sources:
        value = source.value
        if symbolic and folder and not os.path.isabs(value) and COMPUTED not in value:
            value = os.path.join(folder, value)
        reading.write(Word(value, source.computed, source.glob, source.raw), where, "ln", True)


def _remove(reading: Reading, words: list[Word], where: Where) -> None:
    """rm, rmdir, unlink, shred: each argument goes, with all below it."""
    args = Args(words[1:], "n" if name_of(words[0]) == "shred" else "", ("--interactive",))
    for word in args.positional:
        reading.write(word, where, name_of(words[0]), removes=True)


def _each(short: str = "", long: tuple[str, ...] = (), skip: int = 0) -> Handler:
    """A command that writes each of its arguments (after the first `skip` of them)."""

    def handler(reading: Reading, words: list[Word], where: Where) -> None:
        args = Args(words[1:], short, long)
        for word in args.positional[skip:]:
            reading.write(word, where, name_of(words[0]))

    return handler


def _mode_first(reading: Reading, words: list[Word], where: Where) -> None:
    """chmod, chown, chgrp, chattr: a mode or owner first (`-x` is a mode), then files."""
    known = {
        "-R",
        "-c",
        "-f",
        "-v",
        "-h",
        "-H",
        "-L",
        "-P",
        "--recursive",
        "--changes",
        "--silent",
        "--quiet",
        "--verbose",
        "--no-dereference",
        "--dereference",
    }
    rest = [w for w in words[1:] if w.value not in known]
    reference = any(w.value.startswith("--reference") for w in rest)
    rest = [w for w in rest if not w.value.startswith("--")]
    for word in rest if reference else rest[1:]:
        reading.write(word, where, name_of(words[0]))


def _dd(reading: Reading, words: list[Word], where: Where) -> None:
    """`dd of=FILE` writes FILE."""
    for word in words[1:]:
        if word.value.startswith("of="):
            target = Word(word.value[3:], word.computed, word.glob, word.raw[3:])
            reading.write(target, where, "dd")


def _option_targets(*options: str) -> Handler:
    """A command that writes only the files some options name (`sort -o F`)."""
    short = "".join(o[1] for o in options if len(o) == 2)
    long = tuple(o for o in options if o.startswith("--"))

    def handler(reading: Reading, words: list[Word], where: Where) -> None:
        args = Args(words[1:], short, long)
        for option in options:
            key = option[1] if len(option) == 2 else option
            for word in args.values.get(key, []):
                reading.write(word, where, f"{name_of(words[0])} {option}")

    return handler


def _split(reading: Reading, words: list[Word], where: Where) -> None:
    """`split IN PREFIX`, `csplit -f PREFIX IN ...`: files named after a prefix appear."""
    name = name_of(words[0])
    if name == "csplit":
        args = Args(words[1:], "bfn", ("--suffix-format", "--prefix", "--digits"))
        prefix = args.value("f", "--prefix") or Word("xx")
    else:
        args = Args(words[1:], "abCdlnt", ("--suffix-length", "--bytes", "--lines", "--number"))
        prefix = args.positional[1] if len(args.positional) > 1 else Word("x")
    reading.write(Word(f"{prefix.value}*", prefix.computed, True, prefix.raw), where, name)


def _uniq(reading: Reading, words: list[Word], where: Where) -> None:
    """`uniq IN OUT` writes OUT."""
    args = Args(words[1:], "fsw", ("--skip-fields", "--skip-chars", "--check-chars"))
    if len(args.positional) > 1:
        reading.write(args.positional[1], where, "uniq")


def _compressor(reading: Reading, words: list[Word], where: Where) -> None:
    """gzip and its kin replace each file, unless they write to stdout or only look."""
    args = Args(words[1:], "S", ("--suffix",))
    if args.has("c", "--stdout", "l", "--list", "t", "--test"):
        return
    for word in args.positional:
        reading.write(word, where, name_of(words[0]))


def _rsync(reading: Reading, words: list[Word], where: Where) -> None:
    """`rsync SRC DEST` writes DEST when it is here; `--delete` removes in it."""
    args = Args(words[1:], "efT", ("--exclude", "--include", "--filter", "--rsh", "--temp-dir"))
    if len(args.positional) < 2:
        return
    target = args.positional[-1]
    if _remote(target.value):
        return
    removes = any(flag.startswith("--delete") for flag in args.flags)
    reading.write(target, where, "rsync", removes=removes)
    if args.has("--remove-source-files"):
        for source in args.positional[:-1]:
            reading.write(source, where, "rsync", removes=True)


def _remote(value: str) -> bool:
    """`host:path` or `user@host:path`: a path on another machine."""
    head = value.split("/", 1)[0]
    return ":" in head and not value.startswith(("/", "./", "~"))


def _scp(reading: Reading, words: list[Word], where: Where) -> None:
    """`scp SRC DEST` writes DEST when it is on this machine."""
    args = Args(words[1:], "cFiJloPS", ())
    if len(args.positional) >= 2 and not _remote(args.positional[-1].value):
        reading.write(args.positional[-1], where, "scp")


def _editor(reading: Reading, words: list[Word], where: Where) -> None:
    """vi, nano, ed, ex: a person (or a script, `ex -sc wq`) saves the files they open."""
    args = Args(words[1:], "cSTtui", ())
    for word in args.positional:
        if not word.value.startswith("+"):
            reading.write(word, where, name_of(words[0]))


def _find(reading: Reading, words: list[Word], where: Where) -> None:
    """find: `-exec`/`-ok` commands run on each path found, `-delete`, `-fprint FILE`."""
    index = 1
    while index < len(words) and words[index].value in ("-H", "-L", "-P"):
        index += 1
    starts = []
    while index < len(words) and not words[index].value.startswith(("-", "(", "!", ")")):
        starts.append(words[index])
        index += 1
    found = [_under(start) for start in starts or [Word(".")]]
    expression = words[index:]
    position = 0
    while position < len(expression):
        value = expression[position].value
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = position + 1
            while end < len(expression) and expression[end].value not in (";", "+"):
                end += 1
            command = expression[position + 1 : end]
            for path in found[:4]:
                run(reading, [path if "{}" in w.value else w for w in command], where)
            position = end
        elif value == "-delete":
            for path in found:
                reading.write(path, where, "find -delete")
        elif value in ("-fprint", "-fprint0", "-fls", "-fprintf") and position + 1 < len(
            expression
        ):
            reading.write(expression[position + 1], where, f"find {value}")
        position += 1


def _under(start: Word) -> Word:
    """A path find reaches below a start folder: known folder, computed name."""
    return Word(start.value.rstrip("/") + "/" + COMPUTED, True, False, "{}")


def _fd(reading: Reading, words: list[Word], where: Where) -> None:
    """`fd PATTERN -x CMD` runs CMD on each path found."""
    for index, word in enumerate(words):
        if word.value in ("-x", "--exec", "-X", "--exec-batch"):
            command = [w for w in words[index + 1 :] if w.value != ";"]
            run(reading, [*command, Word(COMPUTED, True, False, "{}")], where)
            return


# Test and check tools write reports, caches and temporary folders where an option says:
# option -> whether the folder is emptied first (pytest clears its --basetemp).
REPORT_OPTIONS: dict[str, bool] = {
    "--basetemp": True,
    "--junitxml": False,
    "--junit-xml": False,
    "--junit-prefix": False,
    "--html": False,
    "--report-log": False,
    "--result-log": False,
    "--cache-dir": False,
    "--html-report": False,
    "--xml-report": False,
    "--txt-report": False,
    "--linecount-report": False,
    "--linecoverage-report": False,
    "--lineprecision-report": False,
    "--cobertura-xml-report": False,
    "--any-exprs-report": False,
    "--cov-report": False,
    "--data-file": False,
}


def _reports(reading: Reading, words: list[Word], where: Where) -> None:
    """pytest, mypy, coverage: the files and folders their report options name."""
    by = name_of(words[0])
    rest = words[1:]
    for index, word in enumerate(rest):
        option, equals, value = word.value.partition("=")
        if option not in REPORT_OPTIONS:
            continue
        if not equals:
            if index + 1 >= len(rest):
                continue
            value = rest[index + 1].value
        if option == "--cov-report":  # `xml:PATH`, `html:DIR`; a bare kind writes its default
            _, colon, value = value.partition(":")
            if not colon:
                continue
        target = Word(value, word.computed, word.glob, value)
        reading.write(target, where, by, removes=REPORT_OPTIONS[option])


HANDLERS: dict[str, Handler] = {
    "pytest": _reports,
    "py.test": _reports,
    "mypy": _reports,
    "dmypy": _reports,
    "coverage": _reports,
    "cp": _copy,
    "mv": _copy,
    "ln": _copy,
    "install": _copy,
    "rm": _remove,
    "rmdir": _remove,
    "unlink": _remove,
    "shred": _remove,
    "tee": _each("", ("--output-error",)),
    "sponge": _each(),
    "touch": _each("dtr", ("--date", "--reference")),
    "mkdir": _each("m", ("--mode", "--context")),
    "mkfifo": _each("m", ("--mode",)),
    "truncate": _each("sr", ("--size", "--reference")),
    "dos2unix": _each(),
    "unix2dos": _each(),
    "rename": _each("", (), 1),
    "chmod": _mode_first,
    "chown": _mode_first,
    "chgrp": _mode_first,
    "chattr": _mode_first,
    "dd": _dd,
    "sort": _option_targets("-o", "--output"),
    "shuf": _option_targets("-o", "--output"),
    "split": _split,
    "csplit": _split,
    "tree": _option_targets("-o"),
    "uniq": _uniq,
    "rsync": _rsync,
    "scp": _scp,
    "find": _find,
    "fd": _fd,
    "fdfind": _fd,
    **{name: _compressor for name in names("gzip gunzip bzip2 bunzip2 xz unxz lzma zstd unzstd")},
    **{name: _editor for name in ("vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico")},
}
