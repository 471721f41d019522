"""The layers of docs/architecture.md hold: imports point one way, and nothing grows too big.

Read from the source with `ast`, so a lazy import inside a function counts as much as one
at the top of a module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "automaton_rules"
TESTS = ROOT / "tests"

# Each layer and the layers it may import, beside itself. `builtin` is loaded by module
# name (engine/plugins.py), exactly like a team's plugins, never imported.
MAY_IMPORT: dict[str, set[str]] = {
    "core": set(),
    "engine": {"core"},
    "builtin": {"core", "engine"},
    "workflow": {"core", "engine"},
    "guards": {"core", "engine", "workflow"},
    "report": {"core", "engine"},
    "cli": {"core", "engine", "workflow", "guards", "report"},
}
# Beyond these, the package's top (its public names, the pytest plugin) imports any layer.
TOP_LEVEL = {"__init__", "testing"}
# typer reads options from a signature: a command that only declares them may be long.
DECLARATIONS = {("cli/parser.py", "build_command"), ("cli/parser.py", "status")}
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES = 150


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def _imported(path: Path) -> set[str]:
    """The package's layers a module imports, anywhere in its body."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "automaton_rules":
                names = [f"automaton_rules.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "automaton_rules" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_every_package_file_is_in_a_known_layer() -> None:
    layers = {_layer(path) for path in _modules()}
    assert layers <= set(MAY_IMPORT) | TOP_LEVEL, layers - set(MAY_IMPORT) - TOP_LEVEL


def test_no_relative_imports_hide_a_layer() -> None:
    relative = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level > 0
    ]
    assert relative == []


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_the_layers(path: Path) -> None:
    layer = _layer(path)
    if layer in TOP_LEVEL:
        return
    wrong = {name for name in _imported(path) if name in MAY_IMPORT} - MAY_IMPORT[layer] - {layer}
    assert not wrong, f"{layer} may not import {sorted(wrong)}"
    assert "testing" not in _imported(path)


def test_the_checker_sees_a_wrong_import(tmp_path: Path) -> None:
    module = tmp_path / "bad.py"
    module.write_text("def f():\n    from automaton_rules.cli import entry\n")
    assert _imported(module) == {"cli"}


def _sizes(path: Path) -> list[tuple[str, int, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, node.end_lineno - node.lineno + 1, MAX_CLASS_LINES)
        if isinstance(node, ast.ClassDef)
        else (node.name, node.end_lineno - node.lineno + 1, MAX_FUNCTION_LINES)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.end_lineno is not None
    ]


def test_no_class_or_function_too_long_to_read_at_once() -> None:
    too_long = [
        f"{path.relative_to(PACKAGE)}::{name} ({lines} lines, limit {limit})"
        for path in _modules()
        for name, lines, limit in _sizes(path)
        if lines >= limit and (path.relative_to(PACKAGE).as_posix(), name) not in DECLARATIONS
    ]
    assert too_long == []


def test_no_test_module_imports_another() -> None:
    own = {path.stem for path in TESTS.glob("test_*.py")}
    pattern = re.compile(r"^\s*(?:from|import)\s+(\w+)", re.MULTILINE)
    borrowing = {
        path.name: sorted(set(pattern.findall(path.read_text(encoding="utf-8"))) & own)
        for path in TESTS.glob("*.py")
    }
    assert {name: found for name, found in borrowing.items() if found} == {}


def test_the_architecture_document_names_every_module() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [
        path.relative_to(PACKAGE).as_posix()
        for path in _modules()
        if path.name != "__init__.py" and path.relative_to(PACKAGE).as_posix() not in text
    ]
    assert missing == []
