"""Docs that fail the build when the code outgrows them."""

from __future__ import annotations

import inspect
import re

import pytest
from conftest import ROOT

from automaton_rules import Engine, hookspecs
from automaton_rules.cli import _build_command

WRITING_RULES = (ROOT / "docs" / "writing-rules.md").read_text()
README = (ROOT / "README.md").read_text()


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
        for param in _build_command().params
        for opt in param.opts
        if opt.startswith("--") and opt not in ("--help", "--version")
    ]
    assert options
    spans = set(re.split(r"[\s`|\[\]()]+", README))
    for opt in options:
        assert opt in spans, f"{opt} is not documented in README.md"
