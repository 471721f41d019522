"""support.patterns.Lazy: a pattern compiled on first use answers as re's own."""

from __future__ import annotations

import re

from automaton_rules.support.patterns import Lazy


def test_a_lazy_pattern_compiles_only_when_first_used() -> None:
    pattern = Lazy(r"(\w+)=(\d+)", re.ASCII)
    assert pattern._compiled is None
    assert pattern.search("x a=1").groups() == ("a", "1")  # type: ignore[union-attr]
    assert pattern._compiled is re.compile(r"(\w+)=(\d+)", re.ASCII)


def test_a_lazy_pattern_answers_every_method_as_re_does() -> None:
    text = "a=1 b=2"
    lazy, eager = Lazy(r"(\w)=(\d)"), re.compile(r"(\w)=(\d)")
    assert lazy.findall(text) == eager.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.sub(r"\2", text) == eager.sub(r"\2", text)
    assert lazy.split(text) == eager.split(text)
    assert lazy.fullmatch("a=1") is not None and lazy.match(text, 4) is not None
