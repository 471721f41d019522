"""Package managers and the runners they ship: `npx X`, `uv run X`, `poetry run X` run X
(followed like any wrapper); adding or removing a dependency writes the project's
manifest; installing into an environment, building and testing are not the guard's
business.
"""

from __future__ import annotations

from automaton_rules.guards.shell import names
from automaton_rules.guards.shell_parse import Where, Word
from automaton_rules.guards.shell_programs import name_of, options_end, run, shell_string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.guards.shell_programs import Handler
    from automaton_rules.guards.shell_reading import Reading

# Per manager: its manifest, the sub-commands that change it, the ones that run a command.
MANAGERS: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {
    "npm": (
        "package.json",
        names("install i add uninstall remove rm un update up version init pkg"),
        frozenset({"exec", "x"}),
    ),
    "yarn": (
        "package.json",
        names("add remove up upgrade init version"),
        frozenset({"exec", "dlx"}),
    ),
    "pnpm": (
        "package.json",
        names("add remove rm un uninstall up update init"),
        frozenset({"exec", "dlx"}),
    ),
    "bun": ("package.json", names("add remove rm update init"), frozenset({"x"})),
    "uv": (
        "pyproject.toml",
        frozenset({"add", "remove", "init", "version"}),
        frozenset({"run", "tool"}),
    ),
    "poetry": (
        "pyproject.toml",
        frozenset({"add", "remove", "init", "version"}),
        frozenset({"run"}),
    ),
    "pdm": ("pyproject.toml", frozenset({"add", "remove", "init"}), frozenset({"run"})),
    "rye": ("pyproject.toml", frozenset({"add", "remove", "init"}), frozenset({"run"})),
    "hatch": ("pyproject.toml", frozenset({"new", "version"}), frozenset({"run"})),
    "pipenv": ("Pipfile", frozenset({"install", "uninstall"}), frozenset({"run"})),
    "pixi": ("pixi.toml", frozenset({"add", "remove", "init"}), frozenset({"run", "exec"})),
    "cargo": ("Cargo.toml", frozenset({"add", "remove", "rm", "init"}), frozenset()),
    "go": ("go.mod", frozenset({"get", "mod"}), frozenset()),
    "conda": ("environment.yml", frozenset(), frozenset({"run"})),
    "mamba": ("environment.yml", frozenset(), frozenset({"run"})),
    "micromamba": ("environment.yml", frozenset(), frozenset({"run"})),
}
# Options of the runners that take a value, so the command after them is found.
RUNNER_VALUES = (
    "pnpwce",
    (
        "--with",
        "--with-editable",
        "--with-requirements",
        "--python",
        "--project",
        "--directory",
        "--package",
        "--extra",
        "--group",
        "--env-file",
        "--index",
        "--from",
        "--name",
        "--prefix",
        "--cwd",
        "--spec",
        "--environment",
        "--manifest-path",
        "--workspace",
        "--filter",
        "--config",
        "--call",
    ),
)
# Sub-commands that rewrite the sources (`cargo fmt`, `go generate`): the tree is written.
TREE_SUBCOMMANDS = {
    "cargo": ("fmt", "fix"),
    "go": ("fmt", "generate", "fix"),
}
MANIFEST_WRITERS = frozenset(f"{name} {sub}" for name in MANAGERS for sub in ("add", "remove"))


def _manager(reading: Reading, words: list[Word], where: Where) -> None:
    """`npm install X` writes package.json; `uv run X` runs X; `cargo fmt` the tree."""
    name = name_of(words[0])
    manifest, changes, runs = MANAGERS[name]
    if name == "bun" and any(w.value in ("-e", "--eval", "-p", "--print") for w in words):
        from automaton_rules.guards.shell_interpreters import evaluator

        evaluator(reading, words, where)
        return
    start = options_end(words, 1, "C", ("--prefix", "--cwd", "--directory", "--manifest-path"))
    if start >= len(words):
        return
    sub = words[start].value
    rest = words[start + 1 :]
    if sub in runs:
        _runner(reading, [words[start], *rest], where)
    elif sub in changes and (rest or sub in ("init", "version", "pkg", "mod")):
        if name == "go" and sub == "mod" and rest[:1] and rest[0].value not in ("tidy", "edit"):
            return
        if sub in ("install", "i", "update", "up") and not _names_packages(rest):
            return
        if any(w.value in ("-g", "--global", "--location=global") for w in rest):
            return
        reading.write(Word(manifest), where, f"{name} {sub}")
    elif sub in TREE_SUBCOMMANDS.get(name, ()):
        if not any(w.value in ("--check", "-check", "-n") for w in rest):
            reading.write(Word("."), where, f"{name} {sub}")
    elif name == "cargo" and sub == "clippy" and any(w.value == "--fix" for w in rest):
        reading.write(Word("."), where, "cargo clippy --fix")
    elif name in ("yarn", "pnpm") and not sub.startswith("-"):
        run(reading, words[start:], where)  # `yarn prettier --write .` runs the tool


def _names_packages(words: list[Word]) -> bool:
    """`npm install` alone installs; `npm install PKG` adds a dependency."""
    return any(not w.value.startswith("-") for w in words)


def _runner(reading: Reading, words: list[Word], where: Where) -> None:
    """`npx [-p P] TOOL ARGS`, `uvx TOOL`, `pipx run TOOL`, `npx -c 'STRING'`."""
    for index, word in enumerate(words[:-1]):
        if word.value in ("-c", "--call") and name_of(words[0]) in ("npx", "exec", "x"):
            shell_string(reading, words[index + 1], where, "npx -c")
            return
    short, long = RUNNER_VALUES
    start = options_end(words, 1, short, long)
    if start < len(words) and words[start].value == "run" and name_of(words[0]) in ("pipx", "tool"):
        start = options_end(words, start + 1, short, long)
    if start < len(words):
        tool = words[start]
        name = tool.value
        if not name.startswith("@") and "@" in name:
            tool = Word(name.split("@", 1)[0], tool.computed, tool.glob, tool.raw)
        run(reading, [tool, *words[start + 1 :]], where)


HANDLERS: dict[str, Handler] = {
    **{name: _manager for name in MANAGERS},
    "npx": _runner,
    "pnpx": _runner,
    "bunx": _runner,
    "uvx": _runner,
    "pipx": _runner,
}
