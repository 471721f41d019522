"""Formatters and fixers: in write mode they rewrite their path arguments (the folder
they run in when none is given); in check mode (`--check`, `--diff`, no `--write`) they
only read.
"""

from __future__ import annotations

from automaton_rules.guards.shell_parse import Where, Word
from automaton_rules.guards.shell_programs import Args, name_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell_programs import Handler
    from automaton_rules.guards.shell_reading import Reading

ALWAYS = ("",)  # writes unless a check flag is given
# name: (flags that make it write, flags that make it only check, options with a value)
FORMATTERS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "black": (
        ALWAYS,
        ("--check", "--diff", "--code", "-c"),
        (
            "-l",
            "--line-length",
            "-t",
            "--target-version",
            "--include",
            "--exclude",
            "--extend-exclude",
            "--config",
            "--force-exclude",
            "--stdin-filename",
            "-W",
            "--workers",
        ),
    ),
    "isort": (
        ALWAYS,
        ("--check", "--check-only", "-c", "--diff", "--stdout", "--show-files"),
        ("--settings-path", "--sp", "-l", "--line-length", "--profile", "-p"),
    ),
    "pyupgrade": (ALWAYS, (), ()),
    "autopep8": (("-i", "--in-place"), ("-d", "--diff"), ("--max-line-length", "--select")),
    "yapf": (("-i", "--in-place"), ("-d", "--diff"), ("--style",)),
    "autoflake": (("-i", "--in-place"), ("-c", "--check", "--check-diff"), ()),
    "docformatter": (("-i", "--in-place"), ("-c", "--check"), ()),
    "prettier": (
        ("--write", "-w"),
        ("--check", "-c", "--list-different", "-l"),
        ("--config", "--ignore-path", "--parser", "--plugin"),
    ),
    "eslint": (("--fix",), ("--fix-dry-run",), ("-c", "--config", "--ext", "--rule")),
    "gofmt": (("-w",), ("-l", "-d"), ()),
    "goimports": (("-w",), ("-l", "-d"), ()),
    "clang-format": (("-i",), ("--dry-run", "-n"), ()),
    "rustfmt": (ALWAYS, ("--check",), ("--edition", "--config-path")),
    "stylua": (ALWAYS, ("--check", "-c"), ()),
    "shfmt": (("-w", "--write"), ("-d", "-l"), ("-i", "-ln")),
    "standard": (("--fix",), (), ()),
    "stylelint": (("--fix",), (), ("--config",)),
    "markdownlint": (("--fix", "-f"), (), ("-c", "--config")),
    "markdownlint-cli2": (("--fix",), (), ()),
    "rubocop": (
        (
            "-a",
            "-A",
            "--autocorrect",
            "--auto-correct",
            "--autocorrect-all",
            "--auto-correct-all",
            "-x",
            "--fix-layout",
        ),
        (),
        ("-c", "--config"),
    ),
    "swiftformat": (ALWAYS, ("--lint", "--dryrun"), ()),
    "ktlint": (("-F", "--format"), (), ()),
}
# Go's flags are single words (`-w`), and clang-format's long options take one dash.
WHOLE_WORD_FLAGS = frozenset({"gofmt", "goimports", "clang-format", "shfmt"})
SUBCOMMAND_FORMATTERS = {
    "terraform": ("fmt", ALWAYS, ("-check",)),
    "mix": ("format", ALWAYS, ("--check-formatted",)),
    "dotnet": ("format", ALWAYS, ("--verify-no-changes",)),
    "php-cs-fixer": ("fix", ALWAYS, ("--dry-run",)),
    "biome": ("", ("--write", "--apply", "--fix", "--apply-unsafe"), ()),
}


def has_flag(words: list[Word], flags: tuple[str, ...], clusters: bool = True) -> bool:
    """A flag given as a word, `--flag=...`, or a letter in a cluster (`-iv`)."""
    for word in words:
        value = word.value
        if value in flags or value.split("=", 1)[0] in flags:
            return True
        cluster = clusters and value.startswith("-") and not value.startswith("--")
        if cluster and any(f"-{char}" in flags for char in value[1:]):
            return True
    return False


def format_targets(
    reading: Reading, words: list[Word], where: Where, by: str, values: tuple[str, ...] = ()
) -> None:
    """A formatter rewrites its path arguments, or everything below where it runs."""
    short = "".join(v[1] for v in values if len(v) == 2)
    long = tuple(v for v in values if v.startswith("--"))
    paths = [w for w in Args(words, short, long).positional if w.value != "-"]
    if any(w.value == "-" for w in words) and not paths:
        return  # formats its standard input to its output
    for target in paths or [Word(".")]:
        reading.write(target, where, by)


def _formatter(reading: Reading, words: list[Word], where: Where) -> None:
    """A formatter from the table: check flags read, write flags (or none needed) write."""
    name = name_of(words[0])
    writes, checks, values = FORMATTERS[name]
    clusters = name not in WHOLE_WORD_FLAGS
    args = words[1:]
    if has_flag(args, checks, clusters):
        return
    if writes != ALWAYS and not has_flag(args, writes, clusters):
        return
    drop = {w for w in writes if w}
    format_targets(reading, [w for w in args if w.value not in drop], where, name, values)


def _ruff(reading: Reading, words: list[Word], where: Where) -> None:
    """`ruff format` writes unless `--check`/`--diff`; `ruff check` only with `--fix`."""
    args = words[1:]
    sub = args[0].value if args and not args[0].value.startswith("-") else "check"
    rest = args[1:] if args and args[0].value == sub else args
    if sub not in ("format", "check"):
        return
    if has_flag(rest, ("--check", "--diff", "--no-fix")):
        return
    if sub == "check" and not has_flag(rest, ("--fix", "--fix-only")):
        return
    values = (
        "--config",
        "--select",
        "--ignore",
        "--extend-select",
        "--target-version",
        "--line-length",
        "--exclude",
        "--extend-exclude",
        "--output-format",
        "-o",
        "--output-file",
        "--stdin-filename",
    )
    format_targets(reading, rest, where, f"ruff {sub}", values)


def _sub_formatter(reading: Reading, words: list[Word], where: Where) -> None:
    """`terraform fmt`, `mix format`, `dotnet format`, `biome check --write`."""
    name = name_of(words[0])
    sub, writes, checks = SUBCOMMAND_FORMATTERS[name]
    args = words[1:]
    if sub and (not args or args[0].value != sub):
        return
    rest = args[1:] if sub else args[1:] if args else []
    if has_flag(rest, checks, False) or (writes != ALWAYS and not has_flag(rest, writes, False)):
        return
    format_targets(reading, [w for w in rest if w.value not in writes], where, f"{name} {sub}")


HANDLERS: dict[str, Handler] = {
    **{name: _formatter for name in FORMATTERS},
    **{name: _sub_formatter for name in SUBCOMMAND_FORMATTERS},
    "ruff": _ruff,
}
