"""Record, the frozen value class the edit-time path uses instead of dataclasses."""

from __future__ import annotations

from pathlib import Path

import pytest

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
