"""git, read for what changes the work tree and what skips or reroutes the hooks, and
formatters and fixers in write mode (their check modes read).
"""

from __future__ import annotations

import re

from automaton_rules.guards.shell import names
from automaton_rules.guards.shell_parse import COMPUTED, Where, Word, folder
from automaton_rules.guards.shell_programs import Args, name_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from automaton_rules.guards.shell_programs import Handler
    from automaton_rules.guards.shell_reading import Reading

HOOK_KEYS = re.compile(r"^(core\.hookspath|include\.path|includeif\..*\.path)$", re.IGNORECASE)
NO_VERIFY = "--no-verify"
SHORT_N = re.compile(r"(?:^|\s)-[A-Za-z]*n")  # `-n` alone or in a cluster such as `-qn`
# Settings naming a program git runs on its own: whatever it is, it runs.
PROGRAM_KEYS = re.compile(
    r"^(core\.(fsmonitor|sshcommand|pager|editor|askpass|hookspath)|diff\..*\.(textconv|command)"
    r"|diff\.external|filter\..*\.(clean|smudge|process)|sequence\.editor|gpg\..*program"
    r"|credential\.helper|merge\..*\.driver|pager\..*|web\.browser|uploadpack\.packobjectshook)$",
    re.IGNORECASE,
)
# Environment that points git at settings the line chose.
CONFIG_ENV = frozenset(
    {
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG",
        "GIT_DIR",
        "GIT_COMMON_DIR",
        "HOME",
        "XDG_CONFIG_HOME",
    }
)
# Sub-commands that change the whole work tree (when they change files at all).
TREE_WRITERS = names(
    "am merge pull rebase cherry-pick revert bisect submodule checkout-index read-tree"
)
COMMIT_VALUES = (
    "mFcCt",
    (
        "--message",
        "--file",
        "--reuse-message",
        "--reedit-message",
        "--template",
        "--author",
        "--date",
        "--fixup",
        "--squash",
        "--trailer",
        "--cleanup",
        "--pathspec-from-file",
    ),
)


def _skips(reading: Reading, sub: str, args: list[Word]) -> None:
    """`--no-verify` (or a prefix git accepts) anywhere; `-n` in commit's clusters."""
    short, long = COMMIT_VALUES if sub == "commit" else ("mFsX", ("--message", "--file"))
    parsed = Args(args, short, long)
    for flag in parsed.flags:
        if flag.startswith("--no-v") and NO_VERIFY.startswith(flag):
            reading.hook(f"git {sub} {flag}")
            return
    if sub == "commit" and "n" in parsed.flags:
        reading.hook(f"git {sub} -n")


def _reroutes(key: str, value: str) -> bool:
    """A setting that moves the hooks, includes other settings, or aliases a skip."""
    if HOOK_KEYS.match(key):
        return True
    alias = key.lower().startswith("alias.")
    return alias and (NO_VERIFY in value or value.startswith("!") or bool(SHORT_N.search(value)))


def _config_value(reading: Reading, word: Word) -> None:
    """`git -c core.hooksPath=X ...` (also includes and aliases, which can do the same);
    a setting that names a program git runs is code that program's name decides."""
    key, _, value = word.value.partition("=")
    if _reroutes(key, value) or word.computed:
        reading.hook(f"git -c {word.raw}")
    elif PROGRAM_KEYS.match(key):
        reading.computed_code(f"git -c {word.raw}"[:80])


def _environment(reading: Reading, where: Where) -> None:
    """`GIT_CONFIG_GLOBAL=F git commit`, `HOME=/tmp git commit`: settings read from a file
    the line chose, which may move the hooks."""
    for name, _ in where.env:
        if name in CONFIG_ENV or name.startswith("GIT_CONFIG_KEY_"):
            reading.hook(f"{name}=... git")
            return


def _config(reading: Reading, args: list[Word], where: Where) -> None:
    """`git config [--global] core.hooksPath X`, `--unset`, `git config set ...`, `--edit`."""
    parsed = Args(args, "f", ("--file", "--blob", "--type", "--default", "--comment", "--value"))
    names = [w.value for w in parsed.positional]
    sub = names.pop(0) if names and names[0] in ("set", "unset", "get", "list", "edit") else ""
    if sub == "edit" or parsed.has("e", "--edit"):
        reading.hook("git config --edit")
        return
    looks = sub in ("get", "list") or parsed.has(
        "l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch"
    )
    changes = (
        sub in ("set", "unset")
        or len(names) > 1
        or parsed.has(
            "--unset",
            "--unset-all",
            "--add",
            "--replace-all",
            "--rename-section",
            "--remove-section",
        )
    )
    if looks or not changes or not names:
        return
    value = names[1] if len(names) > 1 else ""
    if _reroutes(names[0], value) or any(w.computed for w in parsed.positional[:1]):
        reading.hook(f"git config {names[0]}")
    elif PROGRAM_KEYS.match(names[0]):
        reading.computed_code(f"git config {names[0]}")
    target = parsed.value("f", "--file")
    if target is not None:
        reading.write(target, where, "git config --file")


def _git(reading: Reading, words: list[Word], where: Where) -> None:
    """git's own options (`-C DIR`, `-c KEY=VALUE`, `--work-tree`), then its sub-command."""
    _environment(reading, where)
    index = 1
    while index < len(words):
        value = words[index].value
        following = words[index + 1] if index + 1 < len(words) else Word("")
        if value == "-C":
            where = where.but(cwd=folder(following, where.cwd))
        elif value == "-c":
            _config_value(reading, following)
        elif value in ("--work-tree", "--git-dir", "--namespace", "--config-env"):
            if value == "--work-tree":
                where = where.but(cwd=folder(following, where.cwd))
            if value == "--config-env":
                _config_value(reading, following)
        elif value.startswith(("--work-tree=", "--config-env=")):
            name, _, rest = value.partition("=")
            if name == "--work-tree":
                where = where.but(cwd=folder(Word(rest, words[index].computed), where.cwd))
            else:
                _config_value(reading, Word(rest, words[index].computed))
            index += 1
            continue
        elif value.startswith("-") and not words[index].computed:
            index += 1
            continue
        else:
            break
        index += 2
    if index >= len(words):
        return
    sub, args = words[index].value, words[index + 1 :]
    if words[index].computed:
        reading.program(f"git {words[index].raw}")
        return
    _skips(reading, sub, args)
    _tree(reading, sub, args, where)


def _tree(reading: Reading, sub: str, args: list[Word], where: Where) -> None:
    """What a git sub-command writes in the work tree."""
    handler = SUBCOMMANDS.get(sub)
    if handler is not None:
        handler(reading, args, where)
    elif sub in TREE_WRITERS:
        reading.write(Word("."), where, f"git {sub}")
    elif sub in ("diff", "log", "show", "format-patch", "archive", "bundle"):
        parsed = Args(args, "o", ("--output", "--output-directory"))
        for target in parsed.values.get("o", []) + parsed.values.get("--output", []):
            reading.write(target, where, f"git {sub} --output")
        for target in parsed.values.get("--output-directory", []):
            reading.write(target, where, f"git {sub} -o")


def _paths_after_dashes(args: list[Word]) -> tuple[list[Word], list[Word]]:
    """(words before `--`, paths after it)."""
    for index, word in enumerate(args):
        if word.value == "--":
            return args[:index], args[index + 1 :]
    return args, []


def _exists(word: Word, where: Where) -> bool:
    """`git checkout X` restores X when X is a path, switches branch otherwise."""
    if word.computed or COMPUTED in word.value or where.cwd is None:
        return False
    return (where.cwd / word.value).exists() or word.glob or word.value in (".", "..")


def _checkout(reading: Reading, args: list[Word], where: Where) -> None:
    """`checkout -- PATHS`, `checkout PATHS`, `checkout BRANCH` (the tree), not `-b NEW`."""
    before, paths = _paths_after_dashes(args)
    parsed = Args(before, "bB", ("--orphan", "--conflict", "--pathspec-from-file"))
    positional = parsed.positional
    if paths:
        targets = paths
    elif parsed.has("b", "B", "--orphan"):
        targets = [Word(".")] if positional else []
    elif positional and _exists(positional[0], where):
        targets = positional
    elif positional:
        targets = [Word("."), *positional[1:]]
    else:
        targets = []
    for target in targets:
        reading.write(target, where, "git checkout")


def _switch(reading: Reading, args: list[Word], where: Where) -> None:
    """`git switch BRANCH` changes the tree; `-c NEW` alone does not."""
    parsed = Args(args, "cC", ("--create", "--force-create", "--orphan"))
    creates = parsed.has("c", "C", "--create", "--force-create", "--orphan")
    if parsed.positional or not creates:
        reading.write(Word("."), where, "git switch")


def _restore(reading: Reading, args: list[Word], where: Where) -> None:
    """`git restore PATHS` writes them, unless only the index (`--staged`)."""
    before, paths = _paths_after_dashes(args)
    parsed = Args(before, "s", ("--source", "--pathspec-from-file"))
    if parsed.has("S", "--staged") and not parsed.has("W", "--worktree"):
        return
    for target in paths or parsed.positional:
        reading.write(target, where, "git restore")


def _reset(reading: Reading, args: list[Word], where: Where) -> None:
    """Only `--hard`, `--merge` and `--keep` touch the work tree."""
    parsed = Args(args)
    if parsed.has("--hard", "--merge", "--keep"):
        reading.write(Word("."), where, "git reset --hard")


def _stash(reading: Reading, args: list[Word], where: Where) -> None:
    """`git stash` (push, pop, apply) changes the tree; `list` and `show` read."""
    before, paths = _paths_after_dashes(args)
    parsed = Args(before, "m", ("--message",))
    action = parsed.positional[0].value if parsed.positional else "push"
    if action in ("list", "show", "create", "store", "drop", "clear"):
        return
    for target in paths or [Word(".")]:
        reading.write(target, where, f"git stash {action}")


def _clean(reading: Reading, args: list[Word], where: Where) -> None:
    """git clean removes what git does not track: the guard's records may be among it."""
    before, paths = _paths_after_dashes(args)
    parsed = Args(before, "e", ("--exclude",))
    if parsed.has("n", "--dry-run"):
        return
    for target in paths or parsed.positional or [Word(".")]:
        reading.write(target, where, "git clean", removes=True)


def _apply(reading: Reading, args: list[Word], where: Where) -> None:
    """git apply writes the files its patch names, unless it only checks or stages."""
    from automaton_rules.guards.shell_fetch import patch_targets

    parsed = Args(args, "pC", ("--directory", "--exclude", "--include", "--build-fake-ancestor"))
    looks = parsed.has("--check", "--stat", "--numstat", "--summary") and not parsed.has("--apply")
    if looks or parsed.has("--cached"):
        return
    strip_word = parsed.value("p")
    strip = int(strip_word.value) if strip_word and strip_word.value.isdigit() else 1
    folder = parsed.value("--directory")
    sources: list[Word | None] = [*parsed.positional] or [None]  # none: standard input
    for source in sources:
        patch_targets(reading, source, where, folder, strip, "git apply")


def _move(reading: Reading, args: list[Word], where: Where) -> None:
    """`git mv` writes as `mv` does."""
    from automaton_rules.guards.shell_writers import HANDLERS

    HANDLERS["mv"](reading, [Word("mv"), *args], where)


def _remove(reading: Reading, args: list[Word], where: Where) -> None:
    """`git rm PATHS` removes them, unless only from the index (`--cached`)."""
    parsed = Args(args, "", ("--pathspec-from-file",))
    if parsed.has("--cached", "n", "--dry-run"):
        return
    for target in parsed.positional:
        reading.write(target, where, "git rm", removes=True)


def _clone(reading: Reading, args: list[Word], where: Where) -> None:
    """`git clone URL [DIR]` writes DIR, else the repository's name; `-c` may set hooks."""
    parsed = Args(
        args,
        "bocju",
        (
            "--branch",
            "--origin",
            "--config",
            "--depth",
            "--template",
            "--reference",
            "--separate-git-dir",
            "--filter",
            "--jobs",
        ),
    )
    if parsed.value("c", "--config") is not None:
        for value in parsed.values.get("c", []) + parsed.values.get("--config", []):
            _config_value(reading, value)
    if len(parsed.positional) > 1:
        reading.write(parsed.positional[1], where, "git clone")
    elif parsed.positional:
        name = parsed.positional[0].value.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        computed = parsed.positional[0].computed or COMPUTED in name
        reading.write(
            Word(name[:-4] if name.endswith(".git") else name, computed), where, "git clone"
        )


def _worktree(reading: Reading, args: list[Word], where: Where) -> None:
    """`git worktree add PATH` writes PATH; `remove` takes one away."""
    parsed = Args(args, "bB", ("--reason",))
    if parsed.positional[:1] and parsed.positional[0].value == "add" and len(parsed.positional) > 1:
        reading.write(parsed.positional[1], where, "git worktree add")
    elif parsed.positional[:1] and parsed.positional[0].value in ("remove", "prune"):
        for target in parsed.positional[1:]:
            reading.write(target, where, "git worktree remove", removes=True)


def _init(reading: Reading, args: list[Word], where: Where) -> None:
    """`git init [DIR]` writes DIR/.git, which may bring hooks with it."""
    parsed = Args(args, "b", ("--template", "--separate-git-dir", "--initial-branch"))
    folder = parsed.positional[0].value if parsed.positional else "."
    reading.write(Word(folder.rstrip("/") + "/.git"), where, "git init")


SUBCOMMANDS: dict[str, Callable[[Reading, list[Word], Where], None]] = {  # by sub-command
    "config": _config,
    "checkout": _checkout,
    "switch": _switch,
    "restore": _restore,
    "reset": _reset,
    "stash": _stash,
    "clean": _clean,
    "apply": _apply,
    "mv": _move,
    "rm": _remove,
    "clone": _clone,
    "worktree": _worktree,
    "init": _init,
}


def _hook_managers(reading: Reading, words: list[Word], where: Where) -> None:
    """husky, lefthook, pre-commit: installing a hook manager reroutes git's hooks."""
    name = name_of(words[0])
    action = next((w.value for w in words[1:] if not w.value.startswith("-")), "")
    if name == "husky" or action in ("install", "uninstall", "init", "add"):
        reading.hook(f"{name} {action}".strip())
    elif name == "pre-commit" and action in ("run", "try-repo", ""):
        reading.write(Word("."), where, "pre-commit run")


def _handlers() -> dict[str, Handler]:
    """git, the hook managers and the formatters, by program name."""
    from automaton_rules.guards.shell_format import HANDLERS as FORMATTERS

    return {
        "git": _git,
        "husky": _hook_managers,
        "lefthook": _hook_managers,
        "pre-commit": _hook_managers,
        **FORMATTERS,
    }


HANDLERS: dict[str, Handler] = _handlers()
