"""Docs that fail the build when the code outgrows them."""

from __future__ import annotations

import inspect
import re

import pytest
from helpers import README, ROOT, WRITING_RULES

from automaton_rules.cli import parser
from automaton_rules.engine import hookspecs
from automaton_rules.engine.runner import Engine


def _hookspec_names() -> list[str]:
    return [
        name
        for name, func in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(func, "automaton_rules_spec")
    ]


def test_there_are_hookspecs() -> None:
    assert "register_rules" in _hookspec_names()


@pytest.mark.parametrize("name", _hookspec_names())
def test_every_hookspec_is_documented_for_rule_authors(name: str) -> None:
    assert re.search(rf"`{name}\(", WRITING_RULES), f"hook {name} missing from writing-rules.md"


@pytest.mark.parametrize("name", _hookspec_names())
def test_every_hookspec_has_a_docstring(name: str) -> None:
    assert (getattr(hookspecs, name).__doc__ or "").strip()


def test_every_builtin_rule_is_in_the_readme() -> None:
    for _, rule in Engine.create(entry_points=False).rules:
        assert f"| {rule.code} | {rule.category} |" in README


def test_every_cli_option_is_in_the_readme() -> None:
    options = [
        opt
        for param in parser.command().params
        for opt in param.opts
        if opt.startswith("--") and opt not in ("--help", "--version")
    ]
    assert options
    spans = set(re.split(r"[\s`|\[\]()]+", README))
    for opt in options:
        assert opt in spans, f"{opt} is not documented in README.md"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_rule_writing_guide_works_as_written(tmp_path) -> None:
    """The guide's rule and its tests, copied out of the page, pass under pytest."""
    import os
    import subprocess
    import sys

    blocks = _python_blocks(WRITING_RULES)
    rule_source = next(b for b in blocks if b.startswith("# acme_rules/__init__.py"))
    test_source = next(b for b in blocks if b.startswith("# tests/test_acme.py"))
    (tmp_path / "acme_rules").mkdir()
    (tmp_path / "acme_rules" / "__init__.py").write_text(rule_source)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_acme.py").write_text(test_source)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout


# The files the v2.0 notes name by path, and where the project keeps each (issue 32).
V2_PATHS = {
    "plugins/automaton-guard/plugin.ts": (
        "automaton_rules/guards/hooks/opencode_plugin.js",
        "integrations/opencode/automaton-guard.js",
    ),
    "scripts/git-hooks/pre-commit": ("githooks/pre-commit",),
    "contracts/harness-integration.md": ("docs/harness-integration.md",),
}


@pytest.mark.parametrize("named", sorted(V2_PATHS))
def test_every_path_the_v2_notes_name_is_a_recorded_move(named: str) -> None:
    """No pointer file at the named path; decisions.md's row names it and the real files,
    which exist."""
    decisions = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    assert not (ROOT / named).exists()
    row = _one_row(decisions, f"| `{named}`")
    for real in V2_PATHS[named]:
        assert (ROOT / real).is_file(), real
        assert real.rsplit("/", 1)[-1] in row, real
    assert "| why |" in decisions


def _one_row(text: str, start: str) -> str:
    """The one table row of `text` that begins with `start`."""
    rows = [line for line in text.splitlines() if line.startswith(start)]
    assert len(rows) == 1, rows
    return rows[0]


def _shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def test_the_guides_shell_blocks_run_as_written(tmp_path) -> None:
    """Every shell block of docs/writing-rules.md, run by bash in a fresh folder holding a
    copy of the template, with `AUTOMATON_RULES` the checkout, as the guide says to set
    it: pip installs automaton-rules from there. The template's README gives the guide's
    block for the template, run from its own folder."""
    import os
    import shutil
    import subprocess

    from helpers import ROOT

    template = ROOT / "examples" / "acme-rules"
    readme = (template / "README.md").read_text(encoding="utf-8")
    junk = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".pytest_cache")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(AUTOMATON_RULES=str(ROOT), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("VIRTUAL_ENV", None)
    guide = _shell_blocks(WRITING_RULES)
    assert len(guide) == 3, guide  # the tutorial's venv, the listener's command, the template
    (in_readme,) = _shell_blocks(readme)
    first, _, rest = guide[2].partition("\n")
    assert (first.split("#")[0].strip(), rest) == ("cd examples/acme-rules", in_readme)
    for number, block in enumerate(guide):
        where = tmp_path / f"block{number}"
        shutil.copytree(template, where / "examples" / "acme-rules", ignore=junk)
        proc = subprocess.run(
            ["bash", "-euc", block],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, f"{block}\n{proc.stdout}\n{proc.stderr}"
        if "--list-rules" in block:
            assert "plugin acme" in proc.stdout, proc.stdout
