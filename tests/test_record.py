"""Record, the frozen value class the edit-time path uses instead of dataclasses."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import PACKAGE

from automaton_rules import Rule, Transition
from automaton_rules.core.config import Config
from automaton_rules.core.project import Task
from automaton_rules.guards.edits.checks import Decision


def test_records_compare_and_hash_by_value_and_class() -> None:
    assert Transition("a", "b") == Transition("a", "b")
    assert Transition("a", "b") != Transition("a", "c")
    assert hash(Transition("a", "b")) == hash(Transition("a", "b"))
    assert len({Transition("a", "b"), Transition("a", "b")}) == 1
    assert Transition("a", "b") != ("a", "b")
    assert Config() == Config() and Config(mode="multi-agent") != Config()


def test_records_are_frozen() -> None:
    settings = Config()
    with pytest.raises(AttributeError, match="frozen Config"):
        settings.mode = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del settings.mode
    move = Transition("a", "b")  # a dataclass now, as frozen
    with pytest.raises(AttributeError):
        move.source = "x"  # type: ignore[misc]


def test_defaults_are_fresh_per_record() -> None:
    first, second = Decision(True, "ALLOWED", "allowed"), Decision(True, "ALLOWED", "allowed")
    first.details["k"] = 1
    assert second.details == {} and Config().severity is not Config().severity


def test_repr_names_fields_and_hides_the_unshown() -> None:
    assert repr(Transition("a", "b")) == "Transition(source='a', target='b')"
    shown = repr(Rule("XT1", lambda task: None, "s", "c"))
    assert shown.startswith("Rule(code='XT1', summary='s', category='c', severity='error'")
    assert "func" not in shown


def test_cached_properties_still_work_on_a_frozen_task(tmp_path: Path) -> None:
    task = Task("t", tmp_path, "research", frozenset({"SPEC.md", "notes.txt"}))
    assert task.artifacts == ("SPEC.md",)
    assert task.history_lines == ()
    task.release()
    assert task.history_lines == ()


def test_a_record_declares_each_field_once_by_its_annotation() -> None:
    """The annotations give `_fields`, in order, and the constructor; a record that
    derives from another keeps the base's fields first."""
    from automaton_rules.support.record import KW_ONLY, Record, field

    class Point(Record):
        x: int
        y: int = 0
        _: KW_ONLY
        tags: list[str] = field(default_factory=list)

    class Named(Point):
        name: str = ""

    assert Point._fields == ("x", "y", "tags") and Named._fields == ("x", "y", "tags", "name")
    assert Point(1) == Point(1, 0, tags=[]) and repr(Point(1, 2)) == "Point(x=1, y=2, tags=[])"
    assert Point(1).tags is not Point(1).tags
    assert Named(1, name="n").name == "n"
    for call, message in [
        (lambda: Point(), "missing required argument: 'x'"),
        (lambda: Point(1, 2, []), "takes 2 positional arguments but 3 were given"),
        (lambda: Point(1, z=3), "unexpected keyword argument 'z'"),
        (lambda: Point(1, x=1), "multiple values for argument 'x'"),
    ]:
        with pytest.raises(TypeError, match=message):
            call()


def test_a_record_fills_in_what_it_was_not_given_after_it_is_made() -> None:
    from automaton_rules.cli.actions import Option
    from automaton_rules.guards.shell.words import Word

    assert Word("x").raw == "x" and Word("x", raw="'x'").raw == "'x'"
    assert (Option("a", "--a", "h").kind, Option("a", "--a", "h").default) == ("switch", False)
    assert Option("a", "--a", "h", "A", default=1).default == 1


def test_no_record_writes_its_fields_out_by_hand() -> None:
    """`_fields` and a constructor that only stores its arguments come from the
    annotations; a record writes an `__init__` only to convert what it is given."""
    by_hand = [
        f"{path.relative_to(PACKAGE)}::{node.name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "Record" for base in node.bases)
        for item in node.body
        if (isinstance(item, ast.Assign) and "_fields" in map(ast.unparse, item.targets))
        or (
            isinstance(item, ast.FunctionDef)
            and item.name == "__init__"
            and [ast.unparse(s) for s in item.body if not isinstance(s, ast.Expr)]
            == [f"self._init({', '.join(a.arg for a in item.args.args[1:])})"]
        )
    ]
    assert by_hand == []
