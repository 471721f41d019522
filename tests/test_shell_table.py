"""The shell reader's table (guards/shell/table.py) and its one interpreter: the pre-scan
agrees with the table, a row's hand-written reader is a function it holds, a program has one row,
a program the table does not know is reported as unknown, and the shell modules import
one way (issue 20, item 5).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from automaton_rules.guards.shell import git as shell_git
from automaton_rules.guards.shell import handlers as shell_handlers
from automaton_rules.guards.shell import reader as shell
from automaton_rules.guards.shell import table as shell_table
from automaton_rules.guards.shell.row import Files, Spec

SHELL = ROOT / "automaton_rules" / "guards" / "shell"


def specs(table: dict[str, Spec]) -> list[Spec]:
    """Every row, its modes' and sub-commands' rows too."""
    found = []
    for spec in table.values():
        found.append(spec)
        found += specs({str(i): mode for i, (_, mode) in enumerate(spec.modes)})
        found += specs(spec.subs or {})
    return found


def test_every_program_the_pre_scan_calls_a_read_is_a_read_in_the_table() -> None:
    for name in shell.READERS:
        assert name in shell_table.TABLE, name
        spec = shell_table.TABLE[name]
        assert not spec.writes or name in ("tree", "pytest", "mypy"), name  # `-o`, reports
    for name in shell.READ_SUBCOMMANDS:
        assert name in shell_table.TABLE, name


PRE_SCAN_READS = [
    *sorted(shell.READERS - {"["}),  # a lone `[` does not parse
    *(f"{name} {sub}" for name, subs in shell.READ_SUBCOMMANDS.items() for sub in sorted(subs)),
]


@pytest.mark.parametrize("command", PRE_SCAN_READS)
def test_what_the_pre_scan_calls_a_read_the_table_reads_too(tmp_path: Path, command) -> None:
    assert shell.plain_read(command)
    line = shell.read(command, tmp_path)
    assert line == shell.ShellLine(states=line.states, named=line.named)


@pytest.mark.parametrize("command", ["git status", "ls -la src", "pytest -q", "find . -name x"])
def test_a_plain_read_is_known_to_the_table(tmp_path: Path, command: str) -> None:
    assert shell.plain_read(command)
    assert shell.read(command, tmp_path).unknown == ()


def commands(table: dict[str, Spec], before: str = "") -> list[tuple[str, Spec]]:
    """Each row with the command that reaches it: `git`, `git grep`, `go test` ..."""
    found = []
    for name, spec in table.items():
        if name not in ("", "*"):
            found.append((f"{before}{name}", spec))
            found += commands(spec.subs or {}, f"{before}{name} ")
    return found


def given(spec: Spec, token: str | Files, value: str) -> str:
    """An option of a row (or its operands) given a value, as a user would write it."""
    option, prefix = (token, "") if isinstance(token, str) else (token.flag, token.prefix)
    if not option:
        return value
    if option[1:] in spec.optional:  # `git grep -O[PAGER]`
        return f"{option}{prefix}{value}"
    return f"{option}={prefix}{value}" if option in spec.long else f"{option} {prefix}{value}"


OUTSIDE = [
    (f"{command} {given(spec, token, '/tmp/x.sh')}", token)
    for command, spec in commands(shell_table.TABLE)
    for token in (*spec.program, *spec.foreign)
] + [
    (f"{command} {flag}", flag)
    for command, spec in commands(shell_table.TABLE)
    for flag in spec.startup
]


@pytest.mark.parametrize(("command", "token"), OUTSIDE, ids=[c for c, _ in OUTSIDE])
def test_a_program_an_option_names_from_outside_is_not_a_read(tmp_path, command, token) -> None:
    """Each option of the table naming a program, code from elsewhere, or start-up files:
    given `/tmp/x.sh` it runs what only running shows, and the pre-scan leaves it to the
    parser."""
    assert len(OUTSIDE) >= 40
    assert shell.read(command, tmp_path).programs, command
    assert not shell.plain_read(command)


ENVIRONMENT = sorted(
    [(name, "program") for name in shell_table.RUN_BY]
    + [(name, "paths") for name in shell_table.LOADED_FROM]
    + [(name, "chooses") for name in shell_table.CHOOSING]
)


@pytest.mark.parametrize(("name", "kind"), ENVIRONMENT, ids=[n for n, _ in ENVIRONMENT])
def test_a_variable_naming_a_program_from_outside_is_not_a_read(tmp_path, name, kind) -> None:
    """Set on the line in any of the ways a program inherits it; one naming the project's
    own (or an installed) program stays a read."""
    outside, inside = ("/tmp/x.sh -v", "true") if kind == "program" else ("-I/tmp/lib", "src")
    for form in ("{}='{}' git log", "export {}='{}'; make", "env {}='{}' ls"):
        assert shell.read(form.format(name, outside), tmp_path).programs, form
        chosen = shell.read(form.format(name, inside), tmp_path).programs
        # PATH, BASH_ENV and the like choose what runs wherever they point
        assert bool(chosen) is (kind == "chooses"), form


def test_a_hand_written_reader_is_a_function_its_row_holds() -> None:
    """Issue 31: no reader is found by its name; the row holds the function itself."""
    readers = {spec.reader for spec in specs(shell_table.TABLE) if spec.reader is not None}
    assert len(readers) >= 20
    modules = {shell_handlers.__name__, shell_git.__name__}
    assert all(callable(found) and found.__module__ in modules for found in readers)


def test_each_program_has_one_row() -> None:
    source = (SHELL / "table.py").read_text(encoding="utf-8")
    table = next(
        node.value.args[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "TABLE"
    )
    assert isinstance(table, ast.Dict)
    names = [name for key in table.keys for name in ast.literal_eval(key).split()]
    assert len(names) == len(set(names)) == len(shell_table.TABLE)


@pytest.mark.parametrize(
    ("command", "unknown"),
    [
        ("docker compose up -d", ("docker",)),
        ("sudo frobnicate --all", ("frobnicate",)),
        ("ls | xargs mystery-tool", ("mystery-tool",)),
        ("./scripts/build.sh && gh pr view 1", ("./scripts/build.sh", "gh")),
        ("bash -c 'cat x | other'", ("other",)),
        ("cat README.md", ()),
        ("python3 -c 'print(1)'", ()),
        ("git commit -m x && npm test", ()),
        ("automaton-status --list", ()),
        ("$EDITOR x", ()),  # a computed program is reported as such, not as unknown
    ],
)
def test_a_program_the_table_does_not_know_is_unknown(tmp_path, command, unknown) -> None:
    (tmp_path / "scripts").mkdir()
    assert shell.read(command, tmp_path).unknown == unknown


def test_an_unknown_program_is_reported_not_read_as_a_write(tmp_path: Path) -> None:
    """What an unknown program does is the verdict's question (the phase, or the
    sandbox), not the reading's: it names no write and no computed program."""
    line = shell.read("docker ps", tmp_path)
    assert line == shell.ShellLine(unknown=("docker",))
    assert not line.writes_files and not line.programs


def test_the_pre_scan_loads_neither_the_parser_nor_the_table() -> None:
    code = (
        "import sys; from automaton_rules.guards.shell import reader as shell; "
        "assert shell.plain_read('git status && ls src | head'); "
        "print(' '.join(sorted(m for m in sys.modules if 'shell' in m)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert proc.stdout.split() == [
        "automaton_rules.guards.shell",
        "automaton_rules.guards.shell.reader",
    ]
