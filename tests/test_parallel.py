"""Helper processes share a large audit's built-in rules without changing a word of it.

The threshold is lowered here so a handful of tasks is enough to fork helpers; the
benchmark (docs/performance.md) shows what they buy on 10,000 tasks.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import write_config

from automaton_rules.engine import parallel
from automaton_rules.testing import AutomatonProject


def _mixed_project(project: AutomatonProject) -> None:
    """Tasks in many states, with findings of several rules and a broken task folder."""
    project.task("clean-one", "design:approved")
    project.task("clean-two", "implement")
    project.task("ahead", "research", files=["IMPLEMENTATION.md"])
    edited = project.task("hand-edited", "design")
    (edited / ".state").write_text("implement\n")
    approved = project.task("rewritten", "research:approved")
    (approved / "SPEC.md").write_text("# SPEC.md\n\nchanged after approval\n")
    project.task("parent", "decomposition:approved")
    project.task("parent/sub", "bug_find")
    (project.tasks_dir / "by-hand").mkdir()
    (project.tasks_dir / "by-hand" / "SPEC.md").write_text("# spec\n")
    (project.tasks_dir / "broken").mkdir()
    (project.tasks_dir / "broken" / ".state").write_text("no-such-phase\n")


def _plugin(project: AutomatonProject, filename: str, source: str) -> None:
    (project.root / filename).write_text(textwrap.dedent(source))


def _report(project: AutomatonProject, jobs: int, plugin: str = "") -> tuple[int, dict, str]:
    """The audit, JSON and text, with `jobs` processes (and a plugin file, if named)."""
    plugins = f'plugins = ["{plugin}"]\n' if plugin else ""
    write_config(project, f"{plugins}jobs = {jobs}\n")
    raw = project.run("--audit", "--format", "json")
    text = project.run("--audit")
    return raw.exit_code, json.loads(raw.out), text.out


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Lower the threshold so that small projects fork, and count the helpers started."""
    started: list[int] = []
    real = parallel.Helper.__init__

    def counting(self, work):
        real(self, work)
        started.append(self.pid)

    monkeypatch.setattr(parallel, "MIN_TASKS", 2)
    monkeypatch.setattr(parallel.Helper, "__init__", counting)
    return started


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_helpers_change_nothing_in_any_report(
    automaton_project: AutomatonProject, forks: list[int]
) -> None:
    _mixed_project(automaton_project)
    alone = _report(automaton_project, 1)
    assert forks == []
    shared = _report(automaton_project, 3)
    assert len(forks) == 4  # two helpers, for each of the two reports
    assert shared == alone
    code, report, _ = alone
    assert code == 2  # the broken task is an error, named, and the others still report
    codes = {f["code"] for f in report["findings"]}
    assert {"AR101", "AR204", "AR207", "AR401"} <= codes
    assert "broken" in json.dumps(report["errors"])
    assert report["summary"]["tasks"] == 8


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_a_helper_that_dies_leaves_its_work_to_the_command(
    automaton_project: AutomatonProject, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _mixed_project(automaton_project)
    alone = _report(automaton_project, 1)

    def broken(*args, **kwargs):
        raise MemoryError("the helper cannot send its findings")

    monkeypatch.setattr(parallel.pickle, "dumps", broken)  # only helpers pickle
    assert _report(automaton_project, 2) == alone
    assert len(forks) == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_plugin_rules_run_in_the_command_on_every_task_in_order(
    automaton_project: AutomatonProject, forks: list[int], tmp_path: Path
) -> None:
    """A plugin's rule may keep state between calls, so it never runs in a helper."""
    for name in ("alpha", "bravo", "charlie", "delta"):
        automaton_project.task(name, "research")
    log = tmp_path / "calls.txt"
    _plugin(
        automaton_project,
        "counting.py",
        f"""
            import os
            from automaton_rules import Finding, hookimpl, rule

            SEEN = []

            @rule("XP101", summary="counts", category="Team")
            def counting(task):
                SEEN.append(task.name)
                with open({str(log)!r}, "a") as out:
                    out.write(f"{{os.getpid()}} {{task.name}}\\n")
                if len(SEEN) > 1:
                    yield Finding(f"after {{SEEN[-2]}}")

            @hookimpl
            def register_rules(register):
                register(counting)
            """,
    )
    write_config(automaton_project, 'plugins = ["counting.py"]\njobs = 2\n')
    result = automaton_project.run("--audit", "--format", "json")
    report = json.loads(result.out)
    assert len(forks) == 1
    lines = [line.split() for line in log.read_text().splitlines()]
    assert [name for _, name in lines] == ["alpha", "bravo", "charlie", "delta"]
    assert len({pid for pid, _ in lines}) == 1 and forks[0] not in {int(p) for p, _ in lines}
    chained = sorted(f["message"] for f in report["findings"] if f["code"] == "XP101")
    assert chained == ["after alpha", "after bravo", "after charlie"]


def test_jobs_must_be_a_whole_number_of_processes(automaton_project: AutomatonProject) -> None:
    automaton_project.task("one", "new")
    for bad in ("0", "2.5", '"auto"', "true", "65"):
        write_config(automaton_project, f"jobs = {bad}\n")
        result = automaton_project.run("--audit")
        assert result.exit_code == 2
        assert "Key 'jobs'" in result.err and "whole number of processes" in result.err


@pytest.mark.parametrize(
    ("jobs", "tasks", "expected"),
    [(1, 50_000, 1), (None, 10, 1), (4, 10_000, 4), (64, 10_000, 8), (4, 1_200, 2)],
)
def test_how_many_processes_share_the_work(
    jobs: int | None, tasks: int, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel.sys, "platform", "linux")
    assert parallel.processes(jobs, tasks) == expected


def test_no_helper_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel.sys, "platform", "darwin")
    assert parallel.processes(4, 50_000) == 1


def test_slices_cover_every_item_once_in_order() -> None:
    items = list(range(23))
    for count in range(1, 9):
        parts = parallel.slices(items, count)
        assert len(parts) == count
        assert [x for part in parts for x in part] == items
        assert max(map(len, parts)) - min(map(len, parts)) <= 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_a_fork_that_fails_leaves_the_work_to_the_command(
    automaton_project: AutomatonProject, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _mixed_project(automaton_project)
    alone = _report(automaton_project, 1)

    def no_more_processes() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(parallel.os, "fork", no_more_processes)
    assert _report(automaton_project, 2) == alone


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_errors_come_in_the_same_order_with_helpers(
    automaton_project: AutomatonProject, forks: list[int]
) -> None:
    """Built-in rules failing in a helper and plugin rules failing in the command are
    listed task by task, as one process lists them."""
    import os as _os

    for name in ("a-one", "a-two", "b-one", "b-two", "c-one", "c-two"):
        automaton_project.task(name, "research")
    for name in ("b-two", "c-two"):
        history = automaton_project.task_dir(name) / ".state.history"
        history.unlink()
        _os.mkfifo(history)
    _plugin(
        automaton_project,
        "picky.py",
        """
            from automaton_rules import hookimpl, rule

            @rule("XP201", summary="picky", category="Team")
            def picky(task):
                if task.name.endswith("one"):
                    raise ValueError(f"no {task.name}")
                return iter(())

            @hookimpl
            def register_rules(register):
                register(picky)
            """,
    )
    alone = _report(automaton_project, 1, "picky.py")
    shared = _report(automaton_project, 3, "picky.py")
    assert len(forks) == 4
    assert shared == alone
    messages = [e["message"] if isinstance(e, dict) else e for e in alone[1]["errors"]]
    assert len(messages) >= 5, messages


def test_the_first_slice_can_be_made_smaller() -> None:
    """The command keeps a smaller slice when it also has the project-wide rules to run."""
    items = list(range(1000))
    for count in range(2, 9):
        parts = parallel.slices(items, count, first=0.8)
        assert [x for part in parts for x in part] == items
        assert len(parts[0]) < min(len(part) for part in parts[1:])
        assert abs(len(parts[0]) - 0.8 * len(parts[1])) <= 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_a_plugin_project_rule_sees_every_task_with_helpers(
    automaton_project: AutomatonProject, forks: list[int]
) -> None:
    """Project-wide plugin rules run after every task rule, helpers or not."""
    for name in ("alpha", "bravo", "charlie", "delta"):
        automaton_project.task(name, "research")
    _plugin(
        automaton_project,
        "census.py",
        """
            from automaton_rules import Finding, hookimpl, rule

            SEEN = []

            @rule("XP301", summary="sees", category="Team")
            def sees(task):
                SEEN.append(task.name)
                return iter(())

            @rule("XP302", summary="counts", category="Team")
            def counts(project):
                yield Finding(f"saw {len(SEEN)} tasks")

            @hookimpl
            def register_rules(register):
                register(sees)
                register(counts)
            """,
    )
    alone = _report(automaton_project, 1, "census.py")
    shared = _report(automaton_project, 2, "census.py")
    assert len(forks) == 2
    assert shared == alone
    assert [f["message"] for f in alone[1]["findings"] if f["code"] == "XP302"] == ["saw 4 tasks"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers fork on Linux only")
def test_helpers_when_child_exits_are_ignored(
    automaton_project: AutomatonProject, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some supervisors start commands with SIGCHLD ignored: no exit status to wait for."""
    import signal

    _mixed_project(automaton_project)
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        alone = _report(automaton_project, 1)
        shared = _report(automaton_project, 2)
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert len(forks) == 2
    assert shared == alone
