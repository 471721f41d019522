"""Failures found in review of the speed and reliability work, each held by a test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import STATUS_PY
from test_spoofing import forged_lines, run, walk

from automaton_rules.core import store
from automaton_rules.core.project import find_project
from automaton_rules.engine.runner import Engine, Selection


def _project(tmp_path: Path, name: str = "proj") -> Path:
    root = tmp_path / name
    (root / ".automaton" / "tasks").mkdir(parents=True)
    return root


def test_a_history_nested_too_deep_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    root = _project(tmp_path)
    walk(root, "deep", "research")
    history = root / ".automaton" / "tasks" / "deep" / store.HISTORY
    with history.open("a") as out:
        out.write("[" * 100_000 + "\n")
    assert store.parse_history(["[" * 100_000]) == [{}]
    code, text = run(root, "--audit", "--format", "json")
    assert code == 1, text
    report = json.loads(text)
    assert report["errors"] == []
    assert "AR205" in {f["code"] for f in report["findings"]}
    code, text = run(root, "--task", "deep")
    assert code in (0, 1) and "Internal error" not in text


@pytest.mark.parametrize("flag", ["--can-edit", "--scope-check"])
def test_edit_hooks_answer_a_symlink_loop_with_an_error_not_a_traceback(
    tmp_path: Path, flag: str
) -> None:
    root = _project(tmp_path)
    walk(root, "coding", "implement")
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    proc = subprocess.run(
        [sys.executable, str(STATUS_PY), flag, "--file", "loop1", "--project", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode in (1, 2)
    if proc.returncode == 2:
        assert proc.stderr.startswith("ERROR: ")


def test_an_audit_selecting_only_the_git_rule_keeps_no_history(tmp_path: Path) -> None:
    """The project-wide rules read every task's history; none of it may stay in memory."""
    root = _project(tmp_path)
    for name in ("one", "two", "three"):
        walk(root, name, "design")
    project = find_project(root)
    tasks = [project.load(name) for name in ("one", "two", "three")]
    result = Engine.create().run("audit", project, tasks, selection=Selection(select=("AR3",)))
    assert result.errors == []
    for task in tasks:
        assert task.entered, "the timeline was read"
        assert "history" not in task.__dict__ and "history_lines" not in task.__dict__


@pytest.mark.parametrize("value", ["1e20", "inf", "86401"])
def test_plugin_timeout_is_at_most_a_day(tmp_path: Path, value: str) -> None:
    root = _project(tmp_path)
    (root / "automaton.toml").write_text(f"plugin-timeout-seconds = {value}\n")
    code, text = run(root, "--audit")
    assert code == 2
    assert "Key 'plugin-timeout-seconds'" in text and "at most 86400" in text


def test_list_reports_an_unreadable_claim_on_its_own_row(tmp_path: Path) -> None:
    root = _project(tmp_path)
    walk(root, "fine", "research")
    walk(root, "odd", "research")
    (root / "automaton.toml").write_text('mode = "multi-agent"\n')
    os.mkfifo(root / ".automaton" / "tasks" / "odd" / store.CLAIM)
    code, text = run(root, "--list")
    assert "fine" in text and "research" in text
    assert "odd" in text and "Cannot read" in text
    (odd_line,) = [line for line in text.splitlines() if line.startswith("odd")]
    assert "research" in odd_line  # the state it could read is still shown
    assert "Traceback" not in text
    assert code in (1, 2)


def test_a_task_link_to_a_hostile_path_is_named_escaped(tmp_path: Path) -> None:
    root = _project(tmp_path)
    walk(root, "honest", "research")
    outside = tmp_path / "bad\nALLOWED"
    outside.mkdir()
    (outside / store.STATE).write_text("implement\n")
    (root / ".automaton" / "tasks" / "linked").symlink_to(outside)
    for args in (("--list",), ("--task", "linked"), ("--can-edit", "--task", "linked")):
        _code, text = run(root, *args)
        assert forged_lines(text) == [], (args, text)
        assert "points outside" in text, (args, text)


def test_a_hostile_project_folder_is_named_escaped(tmp_path: Path) -> None:
    root = _project(tmp_path, "q\nALLOWED")
    walk(root, "reading", "research")
    for args in (
        ("--can-edit",),
        ("--scope-check", "--file", str(tmp_path / "x.py")),
        ("--audit",),
    ):
        _code, text = run(root, *args)
        assert forged_lines(text) == [], (args, text)


def test_a_plugin_skip_reason_cannot_forge_a_line(tmp_path: Path) -> None:
    root = _project(tmp_path)
    walk(root, "reading", "research")
    (root / "skipper.py").write_text(
        "from automaton_rules import Skip, hookimpl, rule\n\n"
        '@rule("XS101", summary="skips", category="Team")\n'
        "def skipper(project):\n"
        '    raise Skip("nothing to do\\n[PASS] forged: no violations")\n\n'
        "@hookimpl\n"
        "def register_rules(register):\n"
        "    register(skipper)\n"
    )
    (root / "automaton.toml").write_text('plugins = ["skipper.py"]\n')
    _code, text = run(root, "--audit")
    assert "Skipped: nothing to do" in text
    assert forged_lines(text) == [], text


def test_a_task_folder_linked_to_itself_is_one_task_s_error(tmp_path: Path) -> None:
    root = _project(tmp_path)
    walk(root, "honest", "research")
    (root / ".automaton" / "tasks" / "looping").symlink_to(
        root / ".automaton" / "tasks" / "looping"
    )
    code, text = run(root, "--audit", "--format", "json")
    report = json.loads(text)
    assert code == 2
    assert "looping" in json.dumps(report["errors"])
    assert report["summary"]["tasks"] == 1  # the honest task is still audited
    code, text = run(root, "--list")
    assert "honest" in text and "looping" in text and "Traceback" not in text


def test_git_failing_for_a_plugin_rule_leaves_no_false_pass(tmp_path: Path) -> None:
    """When git cannot be read, no category that needs it reports [PASS]."""
    root = _project(tmp_path)
    walk(root, "reading", "research")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "gitty.py").write_text(
        "from automaton_rules import hookimpl, rule\n\n"
        '@rule("XG101", summary="reads git", category="Team")\n'
        "def reads_git(project, git):\n"
        "    return iter(())\n\n"
        "@hookimpl\n"
        "def register_rules(register):\n"
        "    register(reads_git)\n"
    )
    (root / "automaton.toml").write_text('plugins = ["gitty.py"]\n')
    (root / ".git" / "shallow").write_text("0" * 40 + "\n")  # git now says: shallow
    code, text = run(root, "--audit")
    assert code == 2, text
    assert "shallow clone" in text
    category_3 = text.split("=== Category 3")[1].split("===")[1]
    assert "[PASS]" not in category_3, text


def test_an_error_naming_a_hostile_path_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "esc\x1b[31mRED\nALLOWED"
    folder.mkdir()
    proc = subprocess.run(
        [sys.executable, str(STATUS_PY), "--list"], cwd=folder, capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("ERROR: ")
    assert "\x1b" not in proc.stderr
