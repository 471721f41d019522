"""Interpreters and stream editors: code given on the line (`-e`, `-c`, a heredoc)
can write anywhere, and in-place flags in every spelling write their files.

`perl -pi -e`, `perl -pie`, `ruby -i`, `sed -i`, `-ie`, `-i''`, `--in-place`, `gawk -i
inplace`, `yq -i`; sed's own `w` and `e` commands and awk's `print >`, `system()` and
pipes count too.
"""

from __future__ import annotations

import re

from automaton_rules.guards.shell_parse import COMPUTED, Where, Word
from automaton_rules.guards.shell_programs import (
    code,
    foreign,
    name_of,
    options_end,
    stdin_code,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell_programs import Handler
    from automaton_rules.guards.shell_reading import Reading

# Per interpreter: the option that takes code, and the short options that take a value.
EVALUATORS: dict[str, tuple[tuple[str, ...], str]] = {
    "node": (("-e", "--eval", "-p", "--print"), "r"),
    "nodejs": (("-e", "--eval", "-p", "--print"), "r"),
    "bun": (("-e", "--eval", "-p", "--print"), "r"),
    "deno": (("eval",), ""),
    "php": (("-r",), "dcz"),
    "lua": (("-e",), "l"),
    "luajit": (("-e",), "l"),
    "Rscript": (("-e",), ""),
    "julia": (("-e", "--eval", "-E", "--print"), ""),
    "osascript": (("-e",), "l"),
    "pwsh": (("-c", "-Command", "-command"), ""),
    "powershell": (("-c", "-Command", "-command"), ""),
    "tclsh": ((), ""),
    "wish": ((), ""),
    # Tcl whose `spawn` runs any program, in a terminal of its own.
    "expect": (("-c",), "bfD"),
}
_AWK_WRITES = re.compile(r"\bsystem\s*\(|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}\n]*>")
_SED_COMMAND = re.compile(r"(?:^|[;\n{}])\s*(?:\d+|\$|/(?:\\.|[^/\\])*/|[,~+!\s])*([a-zA-Z=#:])")


def evaluator(reading: Reading, words: list[Word], where: Where) -> None:
    """`node -e CODE`, `php -r CODE`, ... ; a script file runs; nothing given: stdin."""
    name = name_of(words[0])
    flags, short = EVALUATORS[name]
    index = 1
    while index < len(words):
        value = words[index].value
        if value in flags and index + 1 < len(words):
            code(reading, words[index + 1], where, f"{name} {value}")
            return
        if value.startswith("--eval=") or value.startswith("--print="):
            code(reading, Word(value.split("=", 1)[1], words[index].computed), where, name)
            return
        if value == "-" or not value.startswith("-"):
            break
        index += 1 + (len(value) == 2 and value[1] in short)
    if index < len(words) and words[index].value != "-":
        if foreign(words[index], where, reading.origin):  # a script from outside the project
            reading.program(f"{name} {words[index].raw}")
        return  # a script, a sub-command (`bun run`, `deno run`): the project's own code
    if name not in ("deno",):
        stdin_code(reading, where, f"{name} -")


def _perl(reading: Reading, words: list[Word], where: Where) -> None:
    """perl and ruby: `-e CODE`, `-i[SUFFIX]` in any cluster (`-pi`, `-pie`, `-i.bak`)."""
    name = name_of(words[0])
    values = "IMmrCEF" if name == "ruby" else "IMmFCx"
    codes: list[Word] = []
    files: list[Word] = []
    in_place = False
    index = 1
    while index < len(words):
        word = words[index]
        value = word.value
        if value == "--":
            files.extend(words[index + 1 :])
            break
        if word.computed or not value.startswith("-") or value == "-":
            files.append(word)
            index += 1
            continue
        taken, found_code, place = _perl_cluster(value, values, _at(words, index + 1))
        in_place = in_place or place
        if found_code is not None:
            codes.append(found_code)
        index += 1 + taken
    if not codes and files and files[0].value != "-":
        files = files[1:]  # the script file, or with -pie the code perl takes for one
    elif not codes:
        stdin_code(reading, where, f"{name} -")
    for found in codes:
        code(reading, found, where, f"{name} -e")
    if in_place:
        for file in files:
            reading.write(file, where, f"{name} -i")


def _at(words: list[Word], index: int) -> Word | None:
    """The word after an option, if there is one."""
    return words[index] if index < len(words) else None


def _perl_cluster(value: str, values: str, following: Word | None) -> tuple[int, Word | None, bool]:
    """One option cluster: (words it takes after it, code it gives, whether it is -i)."""
    if value.startswith("--"):
        return 0, None, False
    position = 1
    while position < len(value):
        char = value[position]
        rest = value[position + 1 :]
        if char in "eE":
            if rest:
                return 0, Word(rest), False
            return 1, following or Word(""), False
        if char == "i":
            return 0, None, True  # the rest of the cluster is a backup suffix
        if char in values:
            return (0 if rest else 1), None, False
        if char in "0l":
            position += 1
            while position < len(value) and value[position] in "0123456789abcdefxABCDEF":
                position += 1
            continue
        position += 1
    return 0, None, False


def _sed(reading: Reading, words: list[Word], where: Where) -> None:
    """sed: in place with `-i`, `-i.bak`, `-ie`, `-i''`, `--in-place`, `-Ei`, `-i ''`."""
    scripts: list[Word] = []
    files: list[Word] = []
    in_place = explicit = False
    index = 1
    while index < len(words):
        word = words[index]
        value = word.value
        if value == "--":
            files.extend(words[index + 1 :])
            break
        if word.computed or not value.startswith("-") or value == "-":
            files.append(word)
        elif value.startswith("--"):
            option, equals, argument = value.partition("=")
            in_place = in_place or ("--in-place".startswith(option) and len(option) > 4)
            if option in ("--expression", "--file"):
                explicit = True
                scripts.append(Word(argument) if equals else _at(words, index + 1) or Word(""))
                index += not equals
        else:
            taken, script, place = _sed_cluster(value, _at(words, index + 1))
            in_place = in_place or place
            if script is not None:
                explicit = True
                scripts.append(script)
            index += taken
        index += 1
    if not explicit and files:
        scripts.append(files.pop(0))
    for script in scripts:
        _sed_script(reading, script, where)
    if in_place:
        for file in files:
            reading.write(file, where, "sed -i")


def _sed_cluster(value: str, following: Word | None) -> tuple[int, Word | None, bool]:
    """One sed option cluster: (words it takes, script it gives, whether it is -i)."""
    for position, char in enumerate(value[1:], 1):
        rest = value[position + 1 :]
        if char == "i":
            empty = not rest and following is not None and following.value == ""
            return (1 if empty else 0), None, True  # BSD's `-i ''`
        if char in "ef":
            script = Word(rest) if rest else following or Word("")
            return (0 if rest else 1), (script if char == "e" else Word("")), False
        if char == "l":
            return (0 if rest else 1), None, False
    return 0, None, False


def _sed_script(reading: Reading, script: Word, where: Where) -> None:
    """sed's `w FILE` and `s///w` write, its `e` and `s///e` run commands."""
    writes, runs = sed_effects(script.value)
    if runs:
        reading.computed_code(f"sed e {script.raw}"[:80])
    elif writes:
        reading.computed_write("sed w", where, script.value)


def sed_effects(script: str) -> tuple[bool, bool]:
    """(writes a file, runs a command): a reading of a sed script's commands."""
    writes = runs = False
    for command in _SED_COMMAND.finditer(script):
        letter = command.group(1)
        tail = script[command.end(1) :]
        if letter in "wW":
            writes = True
        elif letter == "e":
            runs = True
        elif letter in "sy" and tail:
            flags = _s_flags(tail)
            writes = writes or "w" in flags
            runs = runs or "e" in flags
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


def _awk(reading: Reading, words: list[Word], where: Where) -> None:
    """awk: its program writes with `print >`, `system()` or a pipe; `-i inplace`."""
    start = options_end(
        words,
        1,
        "fvFiEle",
        ("--file", "--assign", "--field-separator", "--include", "--source", "--exec", "--load"),
    )
    options = words[1:start]
    in_place = any(w.value in ("inplace", "-iinplace", "--include=inplace") for w in options)
    programs = [
        options[i + 1] for i in range(len(options) - 1) if options[i].value in ("-e", "--source")
    ]
    files = words[start:]
    if not any(w.value in ("-f", "--file", "-e", "--source") for w in options) and files:
        programs.append(files[0])
        files = files[1:]
    for program in programs:
        if program.computed or COMPUTED in program.value:
            reading.computed_code(f"awk {program.raw}"[:80])
        elif _AWK_WRITES.search(program.value):
            reading.computed_write("awk", where, program.value)
    if in_place:
        for file in files:
            if "=" not in file.value:
                reading.write(file, where, "awk -i inplace")


def _yq(reading: Reading, words: list[Word], where: Where) -> None:
    """`yq -i EXPR FILE` rewrites FILE."""
    if any(w.value in ("-i", "--inplace") for w in words[1:]):
        positional = [w for w in words[1:] if not w.value.startswith("-")]
        if positional and positional[0].value in ("e", "eval", "ea", "eval-all"):
            positional = positional[1:]
        for file in positional[1:]:
            reading.write(file, where, "yq -i")


HANDLERS: dict[str, Handler] = {
    **{name: evaluator for name in EVALUATORS if name != "bun"},
    "perl": _perl,
    "ruby": _perl,
    "sed": _sed,
    "gsed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "yq": _yq,
}
