"""git's readers: what skips or reroutes the hooks, and the sub-commands whose writes no
row can say (`config`, `checkout`, `apply`, `clone`, `init`); the table's `GIT` has the rest.
"""

from __future__ import annotations

import re

from automaton_rules.guards.shell.handlers import patch_targets
from automaton_rules.guards.shell.words import COMPUTED, Args, Where, Word, names
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell.reading import Reading
    from automaton_rules.guards.shell.row import Spec

HOOK_KEYS = Lazy(r"^(core\.hookspath|include\.path|includeif\..*\.path)$", re.IGNORECASE)
NO_VERIFY = "--no-verify"
SHORT_N = Lazy(r"(?:^|\s)-[A-Za-z]*n")  # `-n` alone or in a cluster such as `-qn`
# Settings naming a program git runs on its own: whatever it is, it runs.
PROGRAM_KEYS = Lazy(
    r"^(core\.(fsmonitor|sshcommand|pager|editor|askpass|hookspath)|diff\..*\.(textconv|command)"
    r"|diff\.external|filter\..*\.(clean|smudge|process)|sequence\.editor|gpg\..*program"
    r"|credential\.helper|merge\..*\.driver|pager\..*|web\.browser|uploadpack\.packobjectshook)$",
    re.IGNORECASE,
)
# Environment that points git at settings (or a new repository's hooks) the line chose.
CONFIG_ENV = names(
    "GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CONFIG "
    "GIT_DIR GIT_COMMON_DIR HOME XDG_CONFIG_HOME GIT_TEMPLATE_DIR"
)
# `git config`'s options that only look, and those that change a setting without a value.
CONFIG_LOOKS = names("-l --list --get --get-all --get-regexp --get-urlmatch")
CONFIG_CHANGES = names("--unset --unset-all --add --replace-all --rename-section --remove-section")
COMMIT_VALUES = (
    "mFcCt",
    names(
        "--message --file --reuse-message --reedit-message --template --author --date --fixup "
        "--squash --trailer --cleanup --pathspec-from-file"
    ),
)


def git(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """git's own options (`-C DIR`, `-c KEY=VALUE`, `--work-tree`), then its sub-command."""
    for name, value in where.env:  # `HOME=/tmp git commit`: settings from a file the line chose
        if name in CONFIG_ENV or name.startswith("GIT_CONFIG_KEY_"):
            it.hooks.append(f"{name}=... git")
        elif name == "GIT_WORK_TREE":
            where = where.into(value)
    for setting in args.every("-c", "--config-env"):
        _setting(it, setting)
    rest = args.positional
    if rest and not rest[0].known:
        it.programs.append(f"git {rest[0].raw}")
        return
    if rest and rest[0].value not in (spec.subs or {}):  # an alias, or `git-NAME` on PATH
        it.unknown.append(f"git {rest[0].raw}"[:80])
        return
    if rest:
        _skips(it, rest[0].value, rest[1:])
    it.dispatch(spec, rest, words, where, "git")


def _skips(reading: Reading, sub: str, args: list[Word]) -> None:
    """`--no-verify` (or a prefix git accepts) anywhere; `-n` in commit's clusters."""
    short, long = COMMIT_VALUES if sub == "commit" else ("mFsX", frozenset({"--message", "--file"}))
    parsed = Args(args, short, long)
    for flag in parsed.flags:
        if flag.startswith("--no-v") and NO_VERIFY.startswith(flag):
            reading.hooks.append(f"git {sub} {flag}")
            return
    if sub == "commit" and "-n" in parsed.flags:
        reading.hooks.append(f"git {sub} -n")


def _reroutes(key: str, value: str) -> bool:
    """A setting that moves the hooks, includes other settings, or aliases a skip."""
    if HOOK_KEYS.match(key):
        return True
    alias = key.lower().startswith("alias.")
    return alias and (NO_VERIFY in value or value.startswith("!") or bool(SHORT_N.search(value)))


def _setting(reading: Reading, word: Word) -> None:
    """`git -c core.hooksPath=X`, includes, aliases; a setting naming a program is code."""
    key, _, value = word.value.partition("=")
    if _reroutes(key, value) or word.computed:
        reading.hooks.append(f"git -c {word.raw}")
    elif PROGRAM_KEYS.match(key):
        reading.code.append(f"git -c {word.raw}"[:80])


def config(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`git config [--global] core.hooksPath X`, `--unset`, `git config set ...`, `--edit`."""
    names = [w.value for w in args.positional]
    sub = names.pop(0) if names and names[0] in ("set", "unset", "get", "list", "edit") else ""
    if sub == "edit" or args.has("-e", "--edit"):
        it.hooks.append("git config --edit")
        return
    looks = sub in ("get", "list") or args.has(*CONFIG_LOOKS)
    changes = sub in ("set", "unset") or len(names) > 1 or args.has(*CONFIG_CHANGES)
    if looks or not changes or not names:
        return
    value = names[1] if len(names) > 1 else ""
    if _reroutes(names[0], value) or any(w.computed for w in args.positional[:1]):
        it.hooks.append(f"git config {names[0]}")
    elif PROGRAM_KEYS.match(names[0]):
        it.code.append(f"git config {names[0]}")
    target = args.value("-f", "--file")
    if target is not None:
        it.write(target, where, "git config --file")


def checkout(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`checkout -- PATHS`, `checkout PATHS`, `checkout BRANCH` (the tree), not `-b NEW`."""
    rest = words[1:]
    dashes = next((i for i, word in enumerate(rest) if word.value == "--"), len(rest))
    before, paths = rest[:dashes], rest[dashes + 1 :]  # the paths follow a `--`
    parsed = Args(before, spec.short, spec.long)
    positional = parsed.positional
    if paths:
        targets = paths
    elif parsed.has("-b", "-B", "--orphan"):  # a new branch: the refs, and the tree
        targets = [Word(".")]
    elif positional and _exists(positional[0], where):
        targets = positional
    elif positional or parsed.has("-f", "--force"):  # `checkout -f` resets the tree
        targets = [Word("."), *positional[1:]]
    else:
        targets = []
    for target in targets:
        it.write(target, where, "git checkout")


def _exists(word: Word, where: Where) -> bool:
    """`git checkout X` restores X when X is a path, switches branch otherwise."""
    if not word.known or where.cwd is None:
        return False
    return (where.cwd / word.value).exists() or word.glob or word.value in (".", "..")


def apply(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """git apply writes the files its patch names, unless it only checks or stages."""
    looks = args.has("--check", "--stat", "--numstat", "--summary") and not args.has("--apply")
    if looks:
        return
    if args.has("--cached", "--index"):  # the index: a write of the repository
        it.write(Word("."), where, "git apply --cached")
        if args.has("--cached"):
            return
    strip = args.value("-p")
    level = int(strip.value) if strip and strip.value.isdigit() else 1
    sources: list[Word | None] = [*args.positional] or [None]  # none: standard input
    for source in sources:
        patch_targets(it, source, where, args.value("--directory"), level, "git apply")


def clone(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`git clone URL [DIR]` writes DIR, else the repository's name; `-c` may set hooks."""
    for value in args.every("-c", "--config"):
        _setting(it, value)
    if len(args.positional) > 1:
        it.write(args.positional[1], where, "git clone")
    elif args.positional:
        url = args.positional[0]
        name = url.value.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        name = name[:-4] if name.endswith(".git") else name
        it.write(Word(name, url.computed or COMPUTED in name), where, "git clone")


def init(it: Reading, spec: Spec, args: Args, words: list[Word], where: Where) -> None:
    """`git init [DIR]` writes DIR/.git, which may bring hooks with it."""
    folder = args.positional[0].value if args.positional else "."
    it.write(Word(folder.rstrip("/") + "/.git"), where, "git init")
