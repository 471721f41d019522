"""The edit-time commands' import budget: what they may import, not how many seconds.

Harnesses run these before every edit, so their time is the interpreter's start-up plus
imports. Each command runs under `python -X importtime`; the modules it imports beyond
a baseline interpreter that has loaded the standard modules any path-handling program
loads (pathlib, re, os, ...) must be on an explicit allow-list, and the heavy ones
(typer, click, pluggy, importlib.metadata, rich, pydantic, filelock, json, hashlib,
typing, dataclasses, ...) must be absent. The controls at the end show that every
forbidden name is seen when it is imported, so each assertion here can fail.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HOOK, ROOT, STATUS_PY, Project, edit_event, modules_imported, put, shell_event

from automaton_rules.guards.sandbox import mechanisms

# Loaded by any program that handles paths; the budget counts what comes on top.
BASELINE = "import collections.abc, contextlib, errno, functools, os, pathlib, re, stat, sys, time"

CORE = {
    "__future__",  # every module of the package starts with `from __future__ import`
    "automaton_rules",
    "automaton_rules.core",
    "automaton_rules.support",
    "automaton_rules.support.version",  # the package's top names its version
    "automaton_rules.guards",
    "automaton_rules.support.clock",
    "automaton_rules.support.context",  # the run's clock and invocation, passed down
    "contextvars",  # where no argument reaches, the run under way (`context.current`)
    "_contextvars",
    "automaton_rules.core.config",
    "automaton_rules.support.errors",
    "automaton_rules.core.integrity",  # .state held to the history's last line
    "automaton_rules.guards.edits",  # each room of guards/ is a package of docstring only
    "automaton_rules.guards.edits.checks",
    "automaton_rules.guards.edits.protected",  # the guard's own files, asked before every edit
    "automaton_rules.core.guard_files",
    "automaton_rules.core.machine",
    "automaton_rules.support.output",
    "automaton_rules.support.patterns",  # regular expressions compiled on first use
    "automaton_rules.core.project",
    "automaton_rules.support.record",
    "automaton_rules.core.severity",
    "automaton_rules.core.store",
}
# status.py: the command line reads the line against its table and answers hooks first;
# shlex quotes the suggested commands.
STATUS_BUDGET = CORE | {
    "automaton_rules.cli",
    "automaton_rules.cli.entry",
    "automaton_rules.cli.actions",
    "automaton_rules.guards.edits.flags",
    "shlex",
}
# The adapter reads JSON on stdin, so json is in its budget.
HOOK_BUDGET = CORE | {
    "automaton_rules.launch",  # the console script's entry, which survives a broken install
    "automaton_rules.guards.hooks",
    "automaton_rules.guards.hooks.adapter",
    "automaton_rules.guards.hooks.harnesses",  # the harness table: its events and answers
    "automaton_rules.guards.hooks.events",  # the event, read strictly
    "automaton_rules.support.console",  # the console scripts' shared argument reading
    "json",
    "json.decoder",
    "json.encoder",
    "json.scanner",
    "_json",
}

FORBIDDEN = (
    "typer",
    "click",
    "pluggy",
    "importlib.metadata",
    "importlib_metadata",
    "rich",
    "pydantic",
    "filelock",
    "hashlib",
    "_hashlib",
    "dataclasses",
    "inspect",
    "typing",
    "datetime",
    "secrets",
    "shutil",
    "subprocess",
    "tomllib",
    "tomli",
    "automaton_rules.engine",
    "automaton_rules.engine.rule",
    "automaton_rules.engine.runner",
    "automaton_rules.engine.plugins",
    "automaton_rules.workflow",
    "automaton_rules.engine.findings",
    "automaton_rules.cli.parser",
)
FORBIDDEN_IN_STATUS = (
    *FORBIDDEN,
    "json",
    "automaton_rules.guards.hooks.adapter",
    "automaton_rules.guards.shell.reader",
)
# The shell parser and what reads its tree: loaded only for a shell line the pre-scan
# cannot answer (guards/shell/reader.py), never for a file edit.
SHELL_PARSER = (
    "tree_sitter",
    "tree_sitter_bash",
    "automaton_rules.guards.shell.parse",
    "automaton_rules.guards.shell.verdict",
)
FORBIDDEN_IN_HOOK = (
    *FORBIDDEN,
    *SHELL_PARSER,
    "automaton_rules.guards.shell.reader",
    "automaton_rules.cli.entry",
    "shlex",
)
# A plain read (`git status`, `grep`, `pytest`) loads the pre-scan, then goes inside the
# sandbox like every line: the boundary, the mechanism, the user's permission rules, the
# configuration's reader, the quoting, and the session's watch on its rewrites.
SANDBOXED_READ_BUDGET = HOOK_BUDGET | {
    "automaton_rules.guards.hooks.witness",
    "zlib",
    "automaton_rules.guards.shell",
    "automaton_rules.guards.shell.reader",
    "automaton_rules.guards.hooks.shell_plan",
    "automaton_rules.guards.hooks.moves",
    "automaton_rules.guards.sandbox",
    "automaton_rules.guards.sandbox.mechanisms",
    "automaton_rules.guards.sandbox.boundary",
    "automaton_rules.guards.sandbox.bubblewrap",
    "automaton_rules.guards.hooks.permissions",
    "shlex",
    "tomllib",
    "tomllib._parser",
    "tomllib._re",
    "tomllib._types",
    "tomli",
    "tomli._parser",
    "tomli._re",
    "tomli._types",
    "string",
    "_string",
    "fnmatch",
    "posixpath",
    "glob",
    "datetime",
    "_datetime",
}


def baseline(cwd: Path) -> set[str]:
    return modules_imported(["-c", BASELINE], cwd)[2]


def over_budget(names: set[str], budget: set[str]) -> list[str]:
    return sorted(names - budget)


def forbidden_in(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """Forbidden modules imported, a package's submodules counting as the package."""
    return sorted(
        name for name in names for bad in forbidden if name == bad or name.startswith(bad + ".")
    )


@pytest.fixture
def bench(project: Project) -> Project:
    """A project with tasks in several phases, one of them editing, and a source file."""
    for index, state in enumerate(("research", "design", "implement", "complete")):
        put(project, state, f"task-{index}")
    put(project, "doc_review", "task-0/part-a")
    (project.root / "src").mkdir()
    (project.root / "src" / "app.py").write_text("x = 1\n")
    return project


STATUS_COMMANDS = {
    "can-edit --task (denied)": ("--can-edit", "--task", "task-0"),
    "can-edit --task (allowed)": ("--can-edit", "--task", "task-2"),
    "can-edit --task --file": ("--can-edit", "--task", "task-2", "--file", "src/app.py"),
    "can-edit (project)": ("--can-edit",),
    "scope-check": ("--scope-check", "--file", "src/app.py"),
    "scope-check (outside)": ("--scope-check", "--file", "/etc/passwd"),
}


@pytest.mark.parametrize("args", STATUS_COMMANDS.values(), ids=STATUS_COMMANDS.keys())
def test_status_hooks_stay_within_their_import_budget(bench: Project, args) -> None:
    code, out, names = modules_imported([str(STATUS_PY), *args], bench.root)
    assert code in (0, 1), out
    assert out.split(":")[0].strip() in ("ALLOWED", "DENIED", "IN_SCOPE", "OUT_OF_SCOPE")
    extra = names - baseline(bench.root)
    assert over_budget(extra, STATUS_BUDGET) == []
    assert forbidden_in(extra, FORBIDDEN_IN_STATUS) == []


@pytest.mark.parametrize("relative", ["src/app.py", ".automaton/tasks/task-2/IMPLEMENTATION.md"])
def test_the_adapter_on_one_edit_stays_within_its_import_budget(bench, relative) -> None:
    code, out, names = modules_imported(
        [str(HOOK), "--harness", "claude"], bench.root, edit_event(bench, relative)
    )
    assert (code, out) == (0, ""), out
    extra = names - baseline(bench.root)
    assert over_budget(extra, HOOK_BUDGET) == []
    assert forbidden_in(extra, FORBIDDEN_IN_HOOK) == []


def test_a_denied_edit_stays_within_the_adapters_budget(bench: Project) -> None:
    code, out, names = modules_imported(
        [str(HOOK), "--harness", "claude", "--task", "task-0"],
        bench.root,
        edit_event(bench, "src/app.py"),
    )
    assert code == 0 and "permissionDecision" in out, out
    extra = names - baseline(bench.root)
    assert over_budget(extra, HOOK_BUDGET) == []
    assert forbidden_in(extra, FORBIDDEN_IN_HOOK) == []


# tree-sitter's compiled modules are loaded from their files, which `-X importtime` does
# not report: the hook's own `sys.modules` says whether they were loaded.
LOADED = (
    "import sys; from automaton_rules.guards.hooks.adapter import main; code = main(sys.argv[1:]); "
    "sys.stderr.write('LOADED ' + ' '.join(sorted(sys.modules)) + chr(10)); sys.exit(code)"
)


def loaded(project: Project, stdin: str) -> tuple[str, set[str]]:
    """Run the adapter in-process in a fresh interpreter; its stdout and every module loaded."""
    proc = subprocess.run(
        [sys.executable, "-c", LOADED, "--harness", "claude"],
        cwd=project.root,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("LOADED "))
    return proc.stdout, set(line.split()[1:])


@pytest.mark.parametrize("relative", ["src/app.py", ".automaton/tasks/task-2/IMPLEMENTATION.md"])
def test_a_file_edit_never_loads_the_shell_parser(bench: Project, relative: str) -> None:
    out, modules = loaded(bench, edit_event(bench, relative))
    assert out == ""
    assert forbidden_in(modules, SHELL_PARSER) == []
    assert "automaton_rules.guards.shell.reader" not in modules


@pytest.mark.parametrize("command", ["git status", "grep -rn TODO src | head -20", "pytest -q"])
def test_a_plain_read_stays_within_the_budget_and_never_loads_the_parser(bench, command) -> None:
    """Reads run inside the sandbox too, yet still without the parser or the reader's table."""
    event = shell_event(bench, command)
    code, out, names = modules_imported([str(HOOK), "--harness", "claude"], bench.root, event)
    assert code == 0
    assert ("updatedInput" in out) is (mechanisms.choose() is not None), out
    extra = names - baseline(bench.root)
    assert over_budget(extra, SANDBOXED_READ_BUDGET) == []
    _, modules = loaded(bench, shell_event(bench, command))
    assert forbidden_in(modules, SHELL_PARSER) == []


def test_a_shell_line_that_writes_loads_the_parser(bench: Project) -> None:
    """The control: the checks above see the parser when it is loaded."""
    out, modules = loaded(bench, shell_event(bench, "echo x > src/app.py"))
    assert "deny" not in out  # task-2 is in implement: it runs (inside the sandbox, if one works)
    assert {"tree_sitter._binding", "tree_sitter_bash._binding"} <= modules
    assert "automaton_rules.guards.shell.parse" in modules


# A line the pre-scan cannot answer: the parser, the reader's table and its interpreter,
# still without dataclasses or the engine (their modules keep the light record style).
SHELL_WRITE_BUDGET = SANDBOXED_READ_BUDGET | {
    *SHELL_PARSER,
    "tree_sitter._binding",
    "tree_sitter_bash._binding",
    "automaton_rules.guards.shell.words",
    "automaton_rules.guards.shell.reading",
    "automaton_rules.guards.shell.row",
    "automaton_rules.guards.shell.table",
    "automaton_rules.guards.shell.programs",
    "automaton_rules.guards.shell.handlers",
    "automaton_rules.guards.shell.git",
}


@pytest.mark.parametrize(
    "line", ["cd src && sed -i 's/x/y/' app.py > /tmp/log", "echo x > src/app.py"]
)
def test_a_parsed_shell_line_stays_within_its_budget(bench: Project, line: str) -> None:
    code, out, names = modules_imported(
        [str(HOOK), "--harness", "claude"], bench.root, shell_event(bench, line)
    )
    assert code == 0, out
    extra = names - baseline(bench.root)
    assert "automaton_rules.guards.shell.parse" in extra
    assert forbidden_in(extra, FORBIDDEN) == []
    assert over_budget(extra, SHELL_WRITE_BUDGET) == []


def test_a_configuration_without_plugins_loads_its_reader_and_nothing_heavy(bench: Project) -> None:
    (bench.root / "automaton.toml").write_text('untracked = "refuse"\n')
    code, _, names = modules_imported(
        [str(STATUS_PY), "--can-edit", "--task", "task-2"], bench.root
    )
    assert code == 0
    extra = names - baseline(bench.root)
    reader = "tomllib" if sys.version_info >= (3, 11) else "tomli"
    assert reader in extra
    heavy = ("typer", "click", "pluggy", "importlib.metadata", "rich", "pydantic", "filelock")
    assert forbidden_in(extra, (*heavy, "json", "hashlib", "dataclasses", "inspect")) == []


def test_inferring_an_untracked_task_never_loads_the_engine(bench: Project) -> None:
    """`untracked = "infer"` brings the workflow onto the edit path, but not the engine."""
    (bench.root / "automaton.toml").write_text('untracked = "infer"\n')
    (bench.root / ".automaton" / "tasks" / "by-hand").mkdir()
    (bench.root / ".automaton" / "tasks" / "by-hand" / "SPEC.md").write_text("# Spec\n")
    code, out, names = modules_imported(
        [str(STATUS_PY), "--can-edit", "--task", "by-hand"], bench.root
    )
    assert code == 1, out
    assert (bench.root / ".automaton" / "tasks" / "by-hand" / ".state").read_text() == "research\n"
    assert "automaton_rules.workflow" in names
    assert forbidden_in(names, ("automaton_rules.engine", "pluggy", "typer")) == []


# --------------------------------------------------------------------------------------
# Controls: the checks above see what they forbid
# --------------------------------------------------------------------------------------


def test_every_forbidden_module_is_seen_when_imported(tmp_path: Path) -> None:
    present = [
        name
        for name in sorted(set(FORBIDDEN_IN_STATUS + FORBIDDEN_IN_HOOK))
        if importlib.util.find_spec(name.split(".")[0]) is not None
    ]
    code = "import " + ", ".join(present)
    _, _, names = modules_imported(["-c", code], tmp_path)
    extra = names - baseline(tmp_path)
    missing = [name for name in present if not forbidden_in(extra, (name,))]
    assert missing == []
    assert over_budget(extra, STATUS_BUDGET)


def test_the_full_command_line_is_over_budget(bench: Project) -> None:
    """A line typer reads (`--task=NAME`) loads it, and `--task` runs the rule engine: the
    same checks must flag them."""
    code, _, names = modules_imported([str(STATUS_PY), "--task=task-0"], bench.root)
    assert code == 0
    extra = names - baseline(bench.root)
    flagged = forbidden_in(extra, FORBIDDEN_IN_STATUS)
    for name in ("typer", "dataclasses", "automaton_rules.engine.runner"):
        assert name in flagged, name
    assert over_budget(extra, STATUS_BUDGET)


# `--task NAME`, the view agents call most: read by hand, its rules run without pluggy (no
# plugin configured, no entry point installed), the entry-point scan, hashlib's OpenSSL
# bindings (store.sha256), git's reader, signing or the other commands' code.
TASK_VIEW_FORBIDDEN = (
    "typer",
    "click",
    "pluggy",
    "importlib.metadata",
    "hashlib",
    "_hashlib",
    "automaton_rules.workflow",
    "automaton_rules.support.signing",
    "automaton_rules.engine.gitlog",
    "automaton_rules.engine.manager",
    "automaton_rules.cli.parser",
    "automaton_rules.cli.commands",
    "automaton_rules.cli.views",
)


def test_the_task_view_loads_only_what_it_shows(bench: Project) -> None:
    code, out, names = modules_imported([str(STATUS_PY), "--task", "task-0"], bench.root)
    assert (code, out.splitlines()[0]) == (0, "Task: task-0"), out
    assert forbidden_in(names - baseline(bench.root), TASK_VIEW_FORBIDDEN) == []


def test_the_task_view_with_plugins_loads_pluggy(bench: Project) -> None:
    """The control: a project that lists plugins runs them, through pluggy."""
    (bench.root / "rules.py").write_text(
        "from automaton_rules import hookimpl\n\n\n"
        "@hookimpl\ndef register_rules(register):\n    pass\n"
    )
    (bench.root / "automaton.toml").write_text('plugins = ["rules.py"]\n')
    code, out, names = modules_imported([str(STATUS_PY), "--task", "task-0"], bench.root)
    assert code == 0, out
    assert "pluggy" in forbidden_in(names, TASK_VIEW_FORBIDDEN)


def test_listing_plugins_brings_pluggy_onto_the_edit_path(bench: Project) -> None:
    """A project that lists plugins pays for them, and only then: pluggy is seen."""
    (bench.root / "rules.py").write_text(
        "from automaton_rules import hookimpl\n\n\n"
        "@hookimpl\ndef register_rules(register):\n    pass\n"
    )
    (bench.root / "automaton.toml").write_text('plugins = ["rules.py"]\n')
    code, out, names = modules_imported(
        [str(STATUS_PY), "--can-edit", "--task", "task-2"], bench.root
    )
    assert (code, out) == (0, "ALLOWED\n")
    extra = names - baseline(bench.root)
    assert "pluggy" in forbidden_in(extra, FORBIDDEN_IN_STATUS)
    assert forbidden_in(extra, ("importlib.metadata", "automaton_rules.builtin")) == []


def _budgeted() -> set[str]:
    """Every module of the package some edit-time budget above lets load."""
    budgets = (STATUS_BUDGET, HOOK_BUDGET, SANDBOXED_READ_BUDGET, SHELL_WRITE_BUDGET)
    return {name for budget in budgets for name in budget if name.startswith("automaton_rules")}


def test_the_light_record_style_lives_only_where_a_budget_needs_it() -> None:
    """`support.record.Record` exists because `dataclasses` costs the edit-time path; a
    module no budget lists uses `@dataclass` like the rest of the package (one style)."""
    light = sorted(
        module
        for path in sorted((ROOT / "automaton_rules").rglob("*.py"))
        for module in [".".join(path.relative_to(ROOT).with_suffix("").parts)]
        if re.search(r"^class \w+\((?:Record|TaskFiles)\b", path.read_text(), re.M)
    )
    assert light, "the check finds no Record at all"
    assert [module for module in light if module not in _budgeted()] == []
