"""The audit's fast paths say exactly what the slow ones said (issue 13).

An audit with thirty thousand findings escapes, stamps and writes each of them; the
quick ways of doing so are held here to the plain definitions they replaced. The
late-adopted benchmark project is checked to have the shape performance.md measures.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from automaton_rules.engine.findings import Finding
from automaton_rules.support.output import json_text, printable


def escaped_one_by_one(value: str, limit: int | None) -> str:
    """`printable` as it was written first: character by character."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in value)
    return shown if limit is None or len(shown) <= limit else shown[: limit - 3] + "..."


def json_module_text(value: Any, indent: int | None) -> str:
    """`json_text` as it was written first: the json module, then the line breaks."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    for raw, escaped in {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}.items():
        text = text.replace(raw, escaped)
    return text


@given(st.text(), st.sampled_from([None, 80, 5, 3]))
def test_printable_matches_escaping_one_character_at_a_time(value: str, limit: int | None):
    assert printable(value, limit) == escaped_one_by_one(value, limit)


def test_printable_escapes_what_a_terminal_would_act_on():
    assert printable("a\nb\x1b[31mc\u2028") == "a\\nb\\x1b[31mc\\u2028"
    assert printable("plain text", None) == "plain text"
    assert printable("x" * 100) == "x" * 77 + "..."


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and the infinities included: json writes those its own way
    st.text(),
)
dict_keys = st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(dict_keys, inner, max_size=4),
    ),
    max_leaves=30,
)


@settings(max_examples=300)
@given(values, st.sampled_from([2, 0, 4, None]))
def test_json_text_matches_the_json_module(value: Any, indent: int | None):
    assert json_text(value, indent) == json_module_text(value, indent)


def test_json_text_of_an_audit_shaped_answer_matches_the_json_module():
    finding = {
        "code": "AR301",
        "task": "task-1",
        "message": "src/a.py was modified during research phase (state: research)",
        "path": None,
        "data": {"detail": "line\u2028break \x85", "count": 3, "ratio": 0.5, "empty": {}},
    }
    answer = {"ok": False, "findings": [finding] * 3, "errors": [], "tasks": [{"x": []}]}
    assert json_text(answer) == json_module_text(answer, 2)
    assert "\u2028" not in json_text(answer)


def test_json_text_fails_as_the_json_module_does():
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        json_text({"a": circular})
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text({"a": object()})


def finding_fields() -> st.SearchStrategy[Finding]:
    text = st.text(max_size=20)
    return st.builds(
        Finding,
        message=text,
        path=st.none() | text,
        correction=st.none() | text,
        data=st.dictionaries(st.text(max_size=5), text, max_size=3),
        severity=st.sampled_from(["", "error", "warning", "note"]),
        task=st.none() | text,
    )


@given(
    finding_fields(),
    st.sampled_from(["error", "warning", "note", ""]),
    st.none() | st.text(max_size=10),
)
def test_stamping_a_finding_is_dataclasses_replace(
    finding: Finding, severity: str, task: str | None
):
    stamped = finding.stamped("AR999", "Some Category", severity, task)
    expected = replace(
        finding, code="AR999", category="Some Category", severity=severity, task=task
    )
    assert type(stamped) is Finding
    assert stamped == expected
    assert vars(stamped) == vars(expected)
    assert stamped.data is finding.data


def test_stamping_checks_what_replace_checks():
    with pytest.raises(ValueError, match="severity"):
        Finding("m").stamped("AR1", "c", "fatal", "t")


def test_stamping_a_subclass_keeps_its_class():
    class Mine(Finding):
        pass

    stamped = Mine("m").stamped("AR1", "c", "error", "t")
    assert type(stamped) is Mine and stamped.task == "t"


@given(st.text(alphabet="ab./\\ ", max_size=12))
def test_a_findings_artifact_is_the_paths_file_name(path: str):
    expected = PurePosixPath(path).name if path else None
    assert Finding("m", path=path).artifact == expected


def test_a_findings_artifact_prefers_the_one_it_names():
    assert Finding("m", path="a/b/SPEC.md", data={"artifact": "PLAN.md"}).artifact == "PLAN.md"
    assert Finding("m", path=".automaton/tasks/t/.").artifact == "t"
    assert Finding("m").artifact is None


def test_the_late_adopted_benchmark_project_has_its_shape(tmp_path: Path):
    """Hand-made folders, tasks without a history, and commits naming tasks in phases
    that forbid editing: each kind reported, about three findings per task in all."""
    project = tmp_path / "late"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "generate.py"),
            str(project),
            *("--tasks", "50", "--commits", "100", "--files", "200"),
            *("--shape", "late-adopted"),
        ],
        check=True,
        capture_output=True,
    )
    audit = subprocess.run(
        [sys.executable, str(ROOT / "status.py"), "--audit", "--format", "json"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert audit.returncode == 1, audit.stderr
    findings = json.loads(audit.stdout)["findings"]
    codes = [finding["code"] for finding in findings]
    assert codes.count("AR401") == 10  # two in ten left as made by hand
    assert codes.count("AR208") == 10  # two in ten with a .state an older version wrote
    assert codes.count("AR301") > 50
    assert 100 <= len(findings) <= 200
    assert {f["code"] for f in findings} == {"AR401", "AR208", "AR301"}
