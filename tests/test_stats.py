"""`--stats`: time per phase, visits (rework), waiting for approval and approvals, counted
from each task's `.state.history` alone, up to one frozen reading of the clock."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from helpers import HOUR, ROOT, Project, history, path_to, rewrite_history

from automaton_rules.core.history import HistoryEntry
from automaton_rules.report import stats as figures

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
MINUTE = 60


def _move(project: Project, name: str, target: str, *, after: int, approver: str = "") -> None:
    """`after` seconds on, move the task (an approval when the target is `X:approved`)."""
    project.clock.advance(after)
    if target.endswith(":approved"):
        extra = ("--approver", approver) if approver else ()
        project._ok("--task", name, "--approve", *extra)
    else:
        project._ok("--task", name, "--transition", target)


def _timed_task(project: Project, name: str = "timed") -> None:
    """A task with a known past: 10 minutes new, 2 h research, 30 min waiting, 5 min
    approved, 1 h design, 15 min waiting, 5 min approved, then implement."""
    project.clock.set(START)
    project.create(name)
    folder = project.task_dir(name)
    _move(project, name, "research", after=10 * MINUTE)
    (folder / "SPEC.md").write_text("spec\n")
    _move(project, name, "research:awaiting_approval", after=2 * HOUR)
    _move(project, name, "research:approved", after=30 * MINUTE)
    _move(project, name, "design", after=5 * MINUTE)
    (folder / "DESIGN.md").write_text("design\n")
    _move(project, name, "design:awaiting_approval", after=HOUR)
    _move(project, name, "design:approved", after=15 * MINUTE, approver="alice")
    _move(project, name, "implement", after=5 * MINUTE)


def _phase(answer: dict, task: str, phase: str) -> dict:
    return next(t for t in answer["tasks"] if t["task"] == task)["phases"][phase]


def test_figures_come_exactly_from_the_history_up_to_the_frozen_now(project: Project) -> None:
    _timed_task(project)
    project.clock.advance(20 * MINUTE)  # the task has been in implement for 20 minutes
    answer = project.run("--stats", "--json").json
    assert answer["now"] == "2026-03-02T13:25:00Z"
    assert _phase(answer, "timed", "new") == {
        "seconds": 10 * MINUTE,
        "visits": 1,
        "waiting_seconds": 0,
        "rework": False,
    }
    research = _phase(answer, "timed", "research")
    assert research["seconds"] == 2 * HOUR + 5 * MINUTE  # research, then research:approved
    assert research["waiting_seconds"] == 30 * MINUTE
    design = _phase(answer, "timed", "design")
    assert (design["seconds"], design["waiting_seconds"]) == (HOUR + 5 * MINUTE, 15 * MINUTE)
    assert _phase(answer, "timed", "implement")["seconds"] == 20 * MINUTE
    (task,) = answer["tasks"]
    assert task["state"] == "implement" and task["started"] == "2026-03-02T09:00:00Z"
    assert task["seconds"] == 10 * MINUTE + 2 * HOUR + 5 * MINUTE + HOUR + 5 * MINUTE + 20 * MINUTE
    assert task["waiting_seconds"] == 45 * MINUTE
    assert list(task["phases"]) == ["new", "research", "design", "implement"]


def test_the_current_phase_counts_up_to_now(project: Project) -> None:
    _timed_task(project)
    project.clock.advance(3 * HOUR)
    later = project.run("--stats", "--task", "timed", "--json").json
    assert _phase(later, "timed", "implement")["seconds"] == 3 * HOUR


def test_approvals_by_whom_and_how(project: Project) -> None:
    _timed_task(project)
    answer = project.run("--stats", "--json").json
    assert answer["tasks"][0]["approvals"] == [
        {"phase": "research", "approver": "user", "via": "cli", "time": "2026-03-02T11:40:00Z"},
        {"phase": "design", "approver": "alice", "via": "cli", "time": "2026-03-02T13:00:00Z"},
    ]
    assert answer["project"]["approvals"] == {
        "count": 2,
        "by_approver": {"alice": {"cli": 1}, "user": {"cli": 1}},
        "by_via": {"cli": 2},
    }


def test_an_approval_typed_in_the_chat_is_counted_as_given_there(project: Project) -> None:
    project.create("chatty")
    project.advance("chatty", path_to("research:awaiting_approval"))
    assert project.approve("chatty", via="prompt").exit_code == 0
    (task,) = project.run("--stats", "--json").json["tasks"]
    assert [(a["phase"], a["via"]) for a in task["approvals"]] == [("research", "prompt")]


def test_a_phase_entered_twice_is_rework(project: Project) -> None:
    project.clock.set(START)
    project.create("again")
    project.advance("again", path_to("referee"))
    folder = project.task_dir("again")
    (folder / "VERDICT.md").write_text("Verdict: FAIL\n")
    _move(project, "again", "human_intervention", after=HOUR)
    for report in ("BUG_REPORT", "ADVERSARIAL_BUG_REPORT", "DOC_REVIEW", "VERDICT"):
        (folder / f"{report}.md").rename(folder / f"{report}.v1.md")
    _move(project, "again", "implement", after=2 * HOUR)
    project.clock.advance(HOUR)
    answer = project.run("--stats", "--json").json
    (task,) = answer["tasks"]
    assert task["rework"] == ["implement"]
    assert task["phases"]["implement"]["visits"] == 2
    assert task["phases"]["implement"]["rework"] is True
    assert task["phases"]["referee"] == {
        "seconds": HOUR,
        "visits": 1,
        "waiting_seconds": 0,
        "rework": False,
    }
    assert task["phases"]["human_intervention"]["seconds"] == 2 * HOUR
    assert task["phases"]["implement"]["seconds"] == HOUR  # the first visit took no time
    assert answer["project"]["phases"]["implement"]["rework_tasks"] == 1
    text = project.run("--stats").out
    row = next(line for line in text.splitlines() if line.startswith("  implement"))
    assert row.split() == ["implement", "1h", "00m", "2", "—", "yes"]


def test_stats_json_covers_every_task(project: Project) -> None:
    project.create("alpha")
    project.create("parent")
    project.advance("parent", path_to("decomposition:approved"))
    project.create("parent/child")
    project.folder("by-hand", files=["SPEC.md"])
    result = project.script("--stats", "--json")
    assert result.rc == 0, result.err
    answer = result.json
    assert answer["command"] == "stats" and answer["ok"] is True
    names = [task["task"] for task in answer["tasks"]]
    assert sorted(names) == ["alpha", "by-hand", "parent", "parent/child"]
    assert answer["project"]["tasks"] == 4
    by_hand = next(task for task in answer["tasks"] if task["task"] == "by-hand")
    assert by_hand == {
        "task": "by-hand",
        "history": False,
        "state": None,
        "started": None,
        "seconds": 0,
        "waiting_seconds": 0,
        "rework": [],
        "phases": {},
        "approvals": [],
    }


def test_stats_text_is_a_readable_table(project: Project) -> None:
    _timed_task(project)
    project.folder("by-hand", files=["SPEC.md"])
    project.clock.advance(20 * MINUTE)
    result = project.run("--stats")
    assert result.rc == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "Workflow statistics from .state.history, up to 2026-03-02T13:25:00Z"
    assert "by-hand — no history: nothing to count" in lines
    start = lines.index("timed — implement, since 2026-03-02T09:00:00Z")
    assert lines[start + 1].split() == ["phase", "time", "visits", "waiting", "rework"]
    assert lines[start + 2 : start + 7] == [
        "  new                     10m 00s       1         —",
        "  research                 2h 05m       1   30m 00s",
        "  design                   1h 05m       1   15m 00s",
        "  implement               20m 00s       1         —",
        "  all phases               3h 40m           45m 00s",
    ]
    assert lines[start + 7 : start + 9] == [
        "  approvals: research by user via cli at 2026-03-02T11:40:00Z",
        "             design by alice via cli at 2026-03-02T13:00:00Z",
    ]
    summary = lines.index("All tasks (2 tasks)")
    assert lines[summary + 1] == lines[start + 1]
    assert lines[-1] == "  approvals: alice 1 (cli 1); user 1 (cli 1)"


def test_stats_for_one_task_leaves_the_project_out(project: Project) -> None:
    _timed_task(project)
    project.create("other")
    result = project.run("--stats", "--task", "timed")
    assert result.rc == 0
    assert "timed — implement" in result.out
    assert "other" not in result.out and "All tasks" not in result.out
    answer = project.run("--stats", "--task", "timed", "--json").json
    assert [task["task"] for task in answer["tasks"]] == ["timed"]


def test_stats_of_an_unknown_task_is_exit_2(project: Project) -> None:
    project.create("alpha")
    result = project.script("--stats", "--task", "nope")
    assert (result.rc, result.out) == (2, "")
    assert result.err.startswith("ERROR: Task 'nope' not found")
    assert project.run("--stats", "--format", "dot").err == (
        "ERROR: --format goes with --audit or --graph (use --json elsewhere).\n"
    )


def test_the_rows_add_up_with_a_phase_the_workflow_does_not_know(project: Project) -> None:
    project.clock.set(START)
    project.create("odd")
    folder = project.task_dir("odd")
    written = {"time": "2026-03-02T09:10:00Z", "from": "new", "to": "foo:awaiting_approval"}
    written |= {"actor": "someone", "command": "--transition foo:awaiting_approval"}
    rewrite_history(folder, [*history(folder), written])  # a line written by hand
    project.clock.advance(70 * MINUTE)
    lines = project.run("--stats", "--task", "odd").out.splitlines()
    rows = {line.split()[0]: line for line in lines if line.startswith("  ")}
    assert rows["foo"] == "  foo                          0s       1    1h 00m"
    assert rows["all"] == "  all phases              10m 00s            1h 00m"
    (counted,) = project.run("--stats", "--task", "odd", "--json").json["tasks"]
    assert counted["phases"]["foo"]["waiting_seconds"] == counted["waiting_seconds"] == HOUR


def _entry(minutes: int, source: str | None, target: str, command: str) -> HistoryEntry:
    return HistoryEntry(START + timedelta(minutes=minutes), source, target, command=command)


def test_the_python_api_counts_a_history() -> None:
    history = [
        _entry(0, None, "new", command="--create-task"),
        _entry(5, "new", "research", command="--transition research"),
        _entry(4, "research", "implement", command="--transition implement"),  # dated back
        _entry(30, "implement", "complete", command="--transition complete"),
    ]
    counted = figures.from_entries("t", history, START + timedelta(days=2))
    assert counted.phases["new"].seconds == 5 * MINUTE
    assert counted.phases["research"].seconds == 0  # a line dated before its previous one
    assert counted.phases["implement"].seconds == 26 * MINUTE
    assert counted.phases["complete"].seconds == 0  # a complete task's clock has stopped
    assert counted.waiting == 0 and counted.approvals == []
    assert figures.from_entries("empty", [], START) == figures.TaskStats("empty")
    assert figures.duration(3 * 86400 + 4 * HOUR + 59) == "3d 04h"
    assert figures.duration(59) == "59s"


def test_the_docs_example_is_what_stats_prints(project: Project) -> None:
    views = (ROOT / "docs" / "views.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"^```text\n(Workflow statistics.*?)^```$", views, flags=re.M | re.S)
    _timed_task(project, "add-user-auth")
    project.create("fix-login-bug")
    project.clock.advance(20 * MINUTE)
    project.folder("legacy-notes", files=["SPEC.md"])
    assert project.run("--stats").out == example
