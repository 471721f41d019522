"""Hand-written readers for the programs no row can say (`env`, `xargs`, `find -exec`,
copies and links, `sed` and `awk` scripts, archives, downloads, patches): each is handed
the `Reading` it calls back, the row, the words read against it, the words and the place.
"""

from __future__ import annotations

import os
import re

from automaton_rules.guards.shell.reading import Reading, paths
from automaton_rules.guards.shell.words import (
    COMPUTED,
    MEMBERS,
    Args,
    Where,
    Word,
    inside,
    joined,
    located,
    name_of,
    names,
)
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell.row import Spec

MAX_PATCH = 1 << 20  # bytes of a patch file read to learn the files it changes
_DIFF_TARGET = Lazy(r"^(?:\+\+\+|---) ([^\t\n]+)|^(?:rename|copy) to (.+)$", re.MULTILINE)
_AWK_WRITES = Lazy(r"\bsystem\s*\(|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}\n]*>")
_SED_COMMAND = Lazy(r"(?:^|[;\n{}])\s*(?:\d+|\$|/(?:\\.|[^/\\])*/|[,~+!\s])*([a-zA-Z=#:])")
_MODE_FLAGS = names(
    "-R -c -f -v -h -H -L -P --recursive --changes --silent --quiet --verbose "
    "--no-dereference --dereference"
)


def env(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`env [-i] [-C DIR] [-u NAME] [NAME=VALUE]... COMMAND`; `-S STRING` split into words."""
    operands = args.positional
    while operands and "=" in operands[0].value and not operands[0].value.startswith("-"):
        name, _, value = operands[0].value.partition("=")
        it.assign(name, Word(value, operands[0].computed), where)
        operands = operands[1:]
    split = args.value("-S", "--split-string")
    if split is None:
        it.run(operands, where)
    else:
        whole = joined([split, *operands])
        it.read_code(Word(whole.value, whole.computed), where, "env -S", bash=True)


def alias(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`alias x='...'`: the alias's text is shell code that may run later in the line."""
    for word in words[1:]:
        if "=" in word.value:
            name, _, text = word.value.partition("=")
            it.read_code(Word(text, word.computed), where, f"alias {name}", bash=True)
            # An alias is a word another alias's trailing blank may bring after status.py.
            it.approval_in(text, f"alias {name}")


def xargs(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`xargs CMD ARGS`: CMD runs with computed words from its input (or in place of `-I`'s)."""
    found = args.value("-I", "--replace")
    replace = found.value if found is not None else ("{}" if args.has("-i") else "")
    command = args.positional or [Word("echo")]
    read = Word(COMPUTED, True, False, "<input>")
    if replace:
        it.run([read if replace in word.value else word for word in command], where)
    else:
        it.run([*command, read], where)


def parallel(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`parallel CMD ::: ARGS` runs CMD with computed arguments."""
    values = [word.value for word in args.positional]
    end = min((values.index(s) for s in (":::", "::::", ":::+") if s in values), default=None)
    it.run([*args.positional[:end], Word(COMPUTED, True, raw="<input>")], where)


def flock(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`flock FILE -c STRING`, `flock FILE COMMAND`: creates FILE (a number is a descriptor)."""
    lock = args.positional[0] if args.positional else None
    if lock is not None and not lock.value.isdigit():
        it.write(lock, where, "flock")
    for index, word in enumerate(words[:-1]):
        if word.value in ("-c", "--command"):
            it.read_code(words[index + 1], where, "flock -c", bash=True)
            return
    it.run(args.positional[1:], where)


def find(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """find: `-exec`/`-ok` commands run on each path found, `-delete`, `-fprint FILE`."""
    index = 1
    while index < len(words) and words[index].value in ("-H", "-L", "-P"):
        index += 1
    starts = []
    while index < len(words) and not words[index].value.startswith(("-", "(", "!", ")")):
        starts.append(words[index])
        index += 1
    found = [Word(s.value.rstrip("/") + "/" + COMPUTED, True, False, "{}") for s in starts]
    found = found or [Word("./" + COMPUTED, True, False, "{}")]
    expression, position = words[index:], 0
    while position < len(expression):
        value = expression[position].value
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = position + 1
            while end < len(expression) and expression[end].value not in (";", "+"):
                end += 1
            for path in found[:4]:
                command = expression[position + 1 : end]
                it.run([path if "{}" in w.value else w for w in command], where)
            position = end
        elif value == "-delete":
            for path in found:
                it.write(path, where, "find -delete")
        elif value in ("-fprint", "-fprint0", "-fls", "-fprintf") and expression[position + 1 :]:
            it.write(expression[position + 1], where, f"find {value}")
        position += 1


def fd(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`fd PATTERN -x CMD` runs CMD on each path found."""
    for index, word in enumerate(words):
        if word.value in ("-x", "--exec", "-X", "--exec-batch"):
            command = [w for w in words[index + 1 :] if w.value != ";"]
            it.run([*command, Word(COMPUTED, True, False, "{}")], where)
            return


def copy(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """cp, mv, ln, install: the destination (or each source in it); mv removes, links write."""
    name = name_of(words[0])
    if name == "install" and args.has("-d", "--directory"):
        for word in args.positional:
            it.write(word, where, name)
        return
    target, sources = args.value("-t", "--target-directory"), args.positional
    into = target is not None
    if target is None:
        if not sources:
            return
        if name == "ln" and len(sources) == 1:
            target = Word(".")
        else:
            target, sources = sources[-1], sources[:-1]
        into = not args.has("-T", "--no-target-directory") and bool(sources)
        into = into and _folder(target, where)
    if into:
        _into(it, target, sources, where, name)
    else:
        it.write(target, where, name)
    for source in sources if name == "mv" else []:
        it.write(source, where, name, removes=True)
    links = ("-l", "--link", "-s", "--symbolic-link")
    if name == "ln" or (name == "cp" and args.has(*links)):
        _linked(it, args, target, sources, where, name)


def _into(it: Reading, folder: Word, sources: list[Word], where: Where, by: str) -> None:
    """Each source lands in `folder` under its own name."""
    base = located(folder, where.cwd)
    if base is None:
        it.write(folder, where, by)
        return
    for source in sources:
        if not source.known:
            it.computed.append((by, base.resolve(), "", ()))
            continue
        for path in paths(source.value, where.cwd, source.glob):
            shown = f"{folder.raw}/{path.name}"
            it.writes.append(((base / path.name).resolve(), shown, by, False))


def _folder(word: Word, where: Where) -> bool:
    """A destination that is a folder gets each source inside it."""
    if word.known and word.value.endswith("/"):
        return True
    path = located(word, where.cwd)
    return path is not None and path.is_dir()


def _linked(
    it: Reading, args: Args, link: Word | None, sources: list[Word], where: Where, by: str
) -> None:
    """A link is a door: writing through it later writes what it points to, so making one
    counts as writing everything below its target (a link to the project from /tmp, or
    to the project's top from inside it, would reach the guard's files)."""
    symbolic = args.has("-s", "--symbolic", "--symbolic-link")
    parent = ""
    if symbolic and link is not None and not _folder(link, where):
        parent = os.path.dirname(link.value)
    for source in sources:
        value = source.value
        if symbolic and parent and not os.path.isabs(value) and COMPUTED not in value:
            value = os.path.join(parent, value)
        it.write(Word(value, source.computed, source.glob, source.raw), where, by, True)


def modes(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """chmod, chown, chgrp, chattr: a mode or owner first (`-x` is a mode), then files."""
    rest = [w for w in words[1:] if w.value not in _MODE_FLAGS]
    reference = any(w.value.startswith("--reference") for w in rest)
    rest = [w for w in rest if not w.value.startswith("--")]
    for word in rest if reference else rest[1:]:
        it.write(word, where, name_of(words[0]))


def rsync(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`rsync SRC DEST`, `scp`: DEST when on this machine; `--delete`, `--remove-source-files`."""
    if len(args.positional) < 2 or _remote(args.positional[-1].value):
        return
    by = name_of(words[0])
    removes = by == "rsync" and any(flag.startswith("--delete") for flag in args.flags)
    it.write(args.positional[-1], where, by, removes=removes)
    if by == "rsync" and args.has("--remove-source-files"):
        for source in args.positional[:-1]:
            it.write(source, where, by, removes=True)


def _remote(value: str) -> bool:
    """`host:path` or `user@host:path`: a path on another machine."""
    return ":" in value.split("/", 1)[0] and not value.startswith(("/", "./", "~"))


def editor(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """vi, nano, ed, ex: a person (or a script, `ex -sc wq`) saves the files they open."""
    for word in args.positional:
        if not word.value.startswith("+"):
            it.write(word, where, name_of(words[0]))


def url_name(word: Word, into: Word | None) -> Word:
    """The file `curl -O` or `wget` saves a URL as, in the folder an option names."""
    if not word.known:
        name = Word(COMPUTED, True, False, word.raw)
    else:
        path = word.value.split("?", 1)[0].split("#", 1)[0].split("://", 1)[-1]
        last = path.rstrip("/").rsplit("/", 1)[-1] if "/" in path.rstrip("/") else ""
        name = Word(last or "index.html", False, False, word.raw)
    return name if into is None else inside(into, name)


def curl(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`curl -o FILE` (the row's), and `-O`: the URL's name, in `--output-dir`."""
    it.effects(spec, args, where, "curl")
    if args.has("-O", "--remote-name", "--remote-name-all"):
        into = args.value("--output-dir")
        urls = [w for w in args.positional if not w.value.startswith("-")] + args.every("--url")
        for url in urls:
            it.write(url_name(url, into), where, "curl -O")


def wget(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`wget URL` saves the URL's name (in `-P DIR`); `-O FILE`, `-o LOG`, `-r` a tree."""
    it.effects(spec, args, where, "wget")
    into = args.value("-P", "--directory-prefix")
    document = args.value("-O", "--output-document")
    if document is not None:
        if document.value != "-":
            it.write(document, where, "wget -O")
    elif args.has("-r", "--recursive", "-m", "--mirror"):
        members = Word(COMPUTED, True, False, "(downloaded files)")
        it.write(inside(into or Word("."), members), where, "wget -r")
    else:
        for url in args.positional:
            it.write(url_name(url, into), where, "wget")


def tar(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`tar -x` writes into its folder (`-C DIR`); `-c`, `-r`, `-u` write the archive."""
    rest = words[1:]
    if rest and re.fullmatch(r"[A-Za-z]+", rest[0].value):  # old style: `tar xzf a.tgz`
        args = Args([Word("-" + rest[0].value), *rest[1:]], spec.short, spec.long)
    if args.has("-x", "--extract", "--get") and not args.has("-O", "--to-stdout"):
        into = args.value("-C", "--directory") or Word(".")
        it.write(inside(into, MEMBERS), where, "tar -x")
    if args.has("-c", "--create", "-r", "--append", "-u", "--update", "--delete", "-A"):
        archive = args.value("-f", "--file")
        if archive is not None and archive.value != "-":
            it.write(archive, where, "tar")


def patch(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """patch writes the file it is given, `-o FILE`, or each file the patch names."""
    output = args.value("-o", "--output")
    if output is not None or args.positional[:1]:
        it.write(output or args.positional[0], where, "patch")
        return
    strip = args.value("-p", "--strip")
    level = int(strip.value) if strip and strip.value.isdigit() else None
    folder = args.value("-d", "--directory")
    patch_targets(it, args.value("-i", "--input"), where, folder, level, "patch")


def patch_targets(
    it: Reading,
    source: Word | None,
    where: Where,
    folder: Word | None,
    strip: int | None,
    by: str,
) -> None:
    """The files a patch (a file, or standard input) changes; unknown ones are computed."""
    text = _patch_text(source, where)
    if text is None:
        patched = Word(COMPUTED, True, False, "(patched files)")
        it.write(inside(folder or Word("."), patched), where, by)
        return
    for target in diff_targets(text, strip):
        it.write(Word(target), where.into(folder), by)


def _patch_text(source: Word | None, where: Where) -> str | None:
    """A patch's text: a heredoc or here-string, or a small file read from the disk."""
    if source is None or source.value == "-":
        stdin = where.stdin
        if stdin.kind == "text" and not stdin.computed:
            return stdin.text
        if stdin.kind != "file":
            return None
        source = Word(stdin.text)
    path = located(source, where.cwd)
    if path is None:
        return None
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


def sed(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """sed: its scripts' `w` and `e`; in place with `-i[SUFFIX]`, `-i ''`, `--in-place`."""
    scripts = args.every("-e", "--expression") + [Word("")] * len(args.every("-f", "--file"))
    files = [word for word in args.positional if word.value or word.computed]
    if not scripts:
        scripts, files = files[:1], files[1:]
    for script in scripts:
        writes, runs = sed_effects(script.value)
        if runs:
            it.code.append(f"sed e {script.raw}"[:80])
        elif writes:
            it.computed_write("sed w", where, script.value)
    options = [*args.flags, *args.values]
    if args.has("-i") or any("--in-place".startswith(o) and len(o) > 4 for o in options):
        for file in files:
            it.write(file, where, "sed -i")


def sed_effects(script: str) -> tuple[bool, bool]:
    """(writes a file, runs a command): sed's `w FILE` and `s///w` write, `e` runs."""
    writes = runs = False
    for command in _SED_COMMAND.finditer(script):
        letter, tail = command.group(1), script[command.end(1) :]
        flags = _s_flags(tail) if letter in "sy" and tail else ""
        writes = writes or letter in "wW" or "w" in flags
        runs = runs or letter == "e" or "e" in flags
    return writes, runs


def _s_flags(tail: str) -> str:
    """The flags after `s/a/b/` (the delimiter is tail's first character)."""
    delimiter, count, position = tail[0], 0, 1
    while position < len(tail) and count < 2:
        if tail[position] == "\\":
            position += 1
        elif tail[position] == delimiter:
            count += 1
        position += 1
    match = re.match(r"[gpiImMe0-9w]*", tail[position:])
    return match.group(0) if match else ""


def awk(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """awk: its program writes with `print >`, `system()` or a pipe; `-i inplace`."""
    options, files = words[1 : 1 + args.end], args.positional
    in_place = any(w.value in ("inplace", "-iinplace", "--include=inplace") for w in options)
    programs = args.every("-e", "--source")
    if not args.has("-f", "--file", "-e", "--source") and files:
        programs, files = [*programs, files[0]], files[1:]
    for program in programs:
        if not program.known:
            it.code.append(f"awk {program.raw}"[:80])
        elif _AWK_WRITES.search(program.value):
            it.computed_write("awk", where, program.value)
    for file in files if in_place else []:
        if "=" not in file.value:
            it.write(file, where, "awk -i inplace")
