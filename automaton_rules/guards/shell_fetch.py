"""Downloads, archives and patches: `curl -o`/`-O` (also in clusters such as `-sSLo`),
`wget -O`, `tar -x`/`-c`, `unzip`, `zip`, `patch`, and the files a patch names.
"""

from __future__ import annotations

import re
from pathlib import Path

from automaton_rules.guards.shell_parse import COMPUTED, Where, Word, folder
from automaton_rules.guards.shell_programs import Args

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell_programs import Handler
    from automaton_rules.guards.shell_reading import Reading

MAX_PATCH = 1 << 20  # bytes of a patch file read to learn the files it changes
CURL_VALUES = "AbcCdDeEFHKmoQrtTuUwxXyYzP"
CURL_LONG = (
    "--output",
    "--output-dir",
    "--dump-header",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--etag-save",
    "--libcurl",
    "--data",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--header",
    "--user-agent",
    "--request",
    "--url",
    "--config",
    "--form",
    "--user",
    "--proxy",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--cookie",
    "--referer",
    "--range",
    "--upload-file",
    "--write-out",
    "--cacert",
    "--cert",
    "--key",
    "--resolve",
    "--limit-rate",
    "--retry-delay",
    "--retry-max-time",
    "--json",
)
CURL_WRITES = (
    "o",
    "--output",
    "D",
    "--dump-header",
    "c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--etag-save",
    "--libcurl",
)
WGET_VALUES = "OoaPeiBtTwUlARDQIX"
WGET_LONG = (
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
    "--header",
    "--user-agent",
    "--tries",
    "--timeout",
    "--wait",
    "--level",
    "--accept",
    "--reject",
    "--domains",
    "--user",
    "--password",
    "--post-data",
    "--input-file",
)
_DIFF_TARGET = re.compile(r"^(?:\+\+\+|---) ([^\t\n]+)|^(?:rename|copy) to (.+)$", re.MULTILINE)


def _url_name(word: Word) -> Word:
    """The file `curl -O` or `wget` saves a URL as: the last part of its path."""
    if word.computed or COMPUTED in word.value:
        return Word(COMPUTED, True, False, word.raw)
    path = word.value.split("?", 1)[0].split("#", 1)[0]
    path = path.split("://", 1)[-1]
    name = path.rstrip("/").rsplit("/", 1)[-1] if "/" in path.rstrip("/") else ""
    return Word(name or "index.html", False, False, word.raw)


def _in(into: Word | None, name: Word) -> Word:
    """`name` inside the folder an option names (`--output-dir`, `-P`, `-C`, `-d`)."""
    if into is None or name.value.startswith("/"):
        return name
    computed = into.computed or name.computed
    return Word(into.value.rstrip("/") + "/" + name.value, computed, False, name.raw)


def _curl(reading: Reading, words: list[Word], where: Where) -> None:
    """`curl -o FILE`, `-O` (the URL's name), `--output-dir`, `-D`, `-c`, `--trace`."""
    args = Args(words[1:], CURL_VALUES, CURL_LONG)
    into = args.value("--output-dir")
    for option in CURL_WRITES:
        for target in args.values.get(option, []):
            if target.value != "-":
                reading.write(_in(into, target), where, f"curl {_shown(option)}")
    if args.has("O", "--remote-name", "--remote-name-all"):
        urls = [w for w in args.positional if not w.value.startswith("-")]
        urls += args.values.get("--url", [])
        for url in urls:
            reading.write(_in(into, _url_name(url)), where, "curl -O")


def _shown(option: str) -> str:
    """An option as typed: `-o` or `--output`."""
    return option if option.startswith("--") else f"-{option}"


def _wget(reading: Reading, words: list[Word], where: Where) -> None:
    """`wget URL` saves the URL's name (in `-P DIR`); `-O FILE`, `-o LOG`, `-r` a tree."""
    args = Args(words[1:], WGET_VALUES, WGET_LONG)
    if args.has("--spider"):
        return
    into = args.value("P", "--directory-prefix")
    for option in ("o", "--output-file", "a", "--append-output"):
        for target in args.values.get(option, []):
            reading.write(target, where, f"wget {_shown(option)}")
    document = args.value("O", "--output-document")
    if document is not None:
        if document.value != "-":
            reading.write(document, where, "wget -O")
        return
    if args.has("r", "--recursive", "m", "--mirror"):
        members = Word(COMPUTED, True, False, "(downloaded files)")
        reading.write(_in(into or Word("."), members), where, "wget -r")
        return
    for url in args.positional:
        reading.write(_in(into, _url_name(url)), where, "wget")


TAR_VALUES = "fCbTXKNVgH"
TAR_LONG = ("--file", "--directory", "--exclude", "--files-from", "--exclude-from", "--format")


def _tar(reading: Reading, words: list[Word], where: Where) -> None:
    """`tar -x` writes into its folder (`-C DIR`); `-c`, `-r`, `-u` write the archive."""
    rest = words[1:]
    if rest and not rest[0].value.startswith("-") and re.fullmatch(r"[A-Za-z]+", rest[0].value):
        rest = [Word("-" + rest[0].value), *rest[1:]]  # old style: `tar xzf a.tgz`
    args = Args(rest, TAR_VALUES, TAR_LONG)
    if args.has("x", "--extract", "--get") and not args.has("O", "--to-stdout"):
        into = args.value("C", "--directory") or Word(".")
        reading.write(_in(into, Word(COMPUTED, True, False, "(archive members)")), where, "tar -x")
    if args.has("c", "--create", "r", "--append", "u", "--update", "--delete", "A"):
        archive = args.value("f", "--file")
        if archive is not None and archive.value != "-":
            reading.write(archive, where, "tar")


def _unzip(reading: Reading, words: list[Word], where: Where) -> None:
    """`unzip` writes its members into `-d DIR` (here); `-l`, `-t`, `-p` only read."""
    args = Args(words[1:], "dxP", ())
    if args.has("l", "v", "t", "p", "Z", "z"):
        return
    into = args.value("d") or Word(".")
    reading.write(_in(into, Word(COMPUTED, True, False, "(archive members)")), where, "unzip")


def _zip(reading: Reading, words: list[Word], where: Where) -> None:
    """`zip ARCHIVE FILES` writes the archive."""
    args = Args(words[1:], "bnxitP", ("--exclude", "--include", "--password"))
    if args.positional:
        reading.write(args.positional[0], where, "zip")


def _patch(reading: Reading, words: list[Word], where: Where) -> None:
    """patch writes the file it is given, `-o FILE`, or each file the patch names."""
    args = Args(
        words[1:],
        "pdioBDFrVzgY",
        ("--strip", "--directory", "--input", "--output", "--reject-file", "--prefix", "--suffix"),
    )
    if args.has("--dry-run", "C"):
        return
    output = args.value("o", "--output")
    if output is not None or args.positional[:1]:
        reading.write(output or args.positional[0], where, "patch")
        return
    into = args.value("d", "--directory")
    strip_word = args.value("p", "--strip")
    strip = int(strip_word.value) if strip_word and strip_word.value.isdigit() else None
    source = args.value("i", "--input") or (
        args.positional[1] if len(args.positional) > 1 else None
    )
    patch_targets(reading, source, where, into, strip, "patch")


def patch_targets(
    reading: Reading,
    source: Word | None,
    where: Where,
    directory: Word | None,
    strip: int | None,
    by: str,
) -> None:
    """The files a patch (a file, or standard input) changes; unknown ones are computed."""
    text = _patch_text(source, where)
    place = where if directory is None else where.but(cwd=folder(directory, where.cwd))
    if text is None:
        patched = Word(COMPUTED, True, False, "(patched files)")
        reading.write(_in(directory or Word("."), patched), where, by)
        return
    for target in diff_targets(text, strip):
        reading.write(Word(target), place, by)


def _patch_text(source: Word | None, where: Where) -> str | None:
    """A patch's text: a heredoc or here-string, or a small file read from the disk."""
    if source is None or source.value == "-":
        stdin = where.stdin
        if stdin.kind == "text" and not stdin.computed:
            return stdin.text
        if stdin.kind != "file":
            return None
        source = Word(stdin.text)
    if source.computed or COMPUTED in source.value:
        return None
    path = Path(source.value)
    if not path.is_absolute():
        if where.cwd is None:
            return None
        path = where.cwd / path
    try:
        if path.stat().st_size > MAX_PATCH:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def diff_targets(text: str, strip: int | None) -> list[str]:
    """The files a unified or git diff names; `strip` leading parts dropped (None: all)."""
    found = []
    for match in _DIFF_TARGET.finditer(text):
        name = (match.group(1) or match.group(2) or "").strip()
        if not name or name == "/dev/null":
            continue
        if match.group(1) is not None:
            parts = name.split("/")
            name = parts[-1] if strip is None else "/".join(parts[strip:])
        if name:
            found.append(name)
    return list(dict.fromkeys(found))


HANDLERS: dict[str, Handler] = {
    "curl": _curl,
    "wget": _wget,
    "tar": _tar,
    "bsdtar": _tar,
    "gtar": _tar,
    "unzip": _unzip,
    "zip": _zip,
    "patch": _patch,
}
