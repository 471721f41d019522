"""The public API rule authors import from `automaton_rules`: every argument's type, a
task's records typed (history entries, approvals, claim, verdict), the phase order, the
categories; lazy, typed (`py.typed`, a sample plugin under `mypy --strict`), documented.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import ROOT, TIME_FORMAT, WRITING_RULES, Project, status_env

import automaton_rules
from automaton_rules import (
    PHASES,
    Approval,
    Claim,
    Commit,
    HistoryEntry,
    Phase,
    reached,
)
from automaton_rules.core.project import project_at
from automaton_rules.testing import AutomatonProject

TYPED_SAMPLE = ROOT / "tests" / "fixtures" / "typed_plugin" / "typed_rules.py"
UTC = timezone.utc


def _sample_rules():
    """The sample plugin's module, imported by path as a configured plugin is."""
    from automaton_rules.engine.plugins import load_plugin

    return load_plugin(str(TYPED_SAMPLE))[1]


# ------------------------------------------------------------------- the names themselves


def test_every_public_name_loads_and_says_what_it_is() -> None:
    for name in automaton_rules.__all__:
        value = getattr(automaton_rules, name)
        if callable(value) and name != "Severity" and name != "Verdict":
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_what_rule_authors_never_need_is_not_public() -> None:
    for name in ("Engine", "RunResult", "hookspec"):
        assert name not in automaton_rules.__all__
        with pytest.raises(ImportError):
            exec(f"from automaton_rules import {name}", {})
    from automaton_rules.engine.hookspecs import hookspec
    from automaton_rules.engine.result import RunResult
    from automaton_rules.engine.runner import Engine

    assert Engine and RunResult and hookspec


@pytest.mark.parametrize("name", sorted(set(automaton_rules.__all__) - {"__version__"}))
def test_every_public_name_is_in_the_rule_authors_guide(name: str) -> None:
    assert re.search(rf"\b{name}\b", WRITING_RULES), f"{name} is not in docs/writing-rules.md"


def test_public_names_load_only_when_asked_for() -> None:
    """The edit-time hooks import the package: naming nothing loads nothing behind it."""
    script = (
        "import json, sys, automaton_rules\n"
        "before = sorted(m for m in sys.modules if m.startswith('automaton_rules'))\n"
        "automaton_rules.HistoryEntry\n"
        "after = sorted(m for m in sys.modules if m.startswith('automaton_rules'))\n"
        "print(json.dumps([before, after]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], env=status_env(), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    before, after = json.loads(proc.stdout)
    # The version is the one module the package's top loads: a constant, read by --version.
    assert before == [
        "automaton_rules",
        "automaton_rules.support",
        "automaton_rules.support.version",
    ]
    assert "automaton_rules.core.history" in after
    assert not any(".engine" in name for name in after)


def test_the_package_ships_its_types() -> None:
    assert (ROOT / "automaton_rules" / "py.typed").is_file()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["automaton_rules"]


# ----------------------------------------------------------- mypy --strict on a rule package


def _mypy(tmp_path: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict as a team's CI runs it on its own package, with no config of ours."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(config),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports=silent",  # the package's own modules are checked by its CI
            *map(str, files),
        ],
        cwd=tmp_path,
        env=status_env(MYPYPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_plugin_naming_every_argument_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    proc = _mypy(tmp_path, TYPED_SAMPLE)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found in 1 source file" in proc.stdout


def test_mypy_strict_sees_the_real_types(tmp_path: Path) -> None:
    """The control: the types are real, not Any, so a misuse is caught."""
    wrong = tmp_path / "wrong_rules.py"
    wrong.write_text(
        "from automaton_rules import GitHistory, Task\n\n\n"
        "def misread(task: Task, git: GitHistory) -> list[str]:\n"
        "    return [task.entries[0].time, git.commits[0].time, task.claim]\n"
    )
    proc = _mypy(tmp_path, wrong)
    assert proc.returncode == 1, proc.stdout
    assert (
        '"datetime"' in proc.stdout and '"int"' in proc.stdout and '"Claim | None"' in proc.stdout
    )


def test_the_sample_plugin_runs_through_status_py(automaton_project: AutomatonProject) -> None:
    automaton_project.use_plugins(str(TYPED_SAMPLE))
    automaton_project.task("shipped", "implement", files={"DESIGN.md": "# Design\n"})
    listed = automaton_project.run("--list-rules", "--json")
    assert listed.exit_code == 0, listed.err
    codes = [row["code"] for row in listed.json()["rules"]]
    assert [code for code in codes if code.startswith("TY")] == [f"TY1{n:02}" for n in range(1, 11)]
    audit = automaton_project.audit()
    assert audit.errors == []
    (rollback,) = [f for f in audit.findings if f["code"] == "TY102"]
    assert rollback["message"] == "DESIGN.md has no '## Rollback plan' section"
    automaton_project.task("quick", "research:approved")
    refused = automaton_project.run("--task", "quick", "--transition", "implement")
    assert refused.exit_code == 1
    assert "research:approved -> implement without DESIGN.md (TY105)" in refused.err
    generated = str(automaton_project.root / "generated" / "api.py")
    denied = automaton_project.run("--can-edit", "--task", "shipped", "--file", generated)
    assert denied.exit_code == 1
    assert denied.out == "DENIED: generated/api.py is generated under task shipped (TY106)\n"


# ---------------------------------------------------------------- a task's history, typed


def test_history_entries_are_typed(project: Project) -> None:
    project.create("login")
    project.advance("login", ["research", "research:awaiting_approval", "research:approved"])
    task = project_at(project.root).load("login")
    created, research, asked, approved = task.entries
    assert (created.source, created.target, created.command) == (None, "new", "--create-task")
    assert (research.source, research.target) == ("new", "research")
    assert research.command == "--transition research"
    assert asked.target == "research:awaiting_approval"
    assert all(isinstance(e.time, datetime) and e.time.tzinfo == UTC for e in task.entries)
    assert [e.time for e in task.entries] == sorted(e.time for e in task.entries)
    assert all(e.actor for e in task.entries)
    assert not research.is_approval and approved.is_approval
    assert approved.approver == "user" and approved.via == "cli"
    assert approved.artifact == "SPEC.md"
    spec = (task.path / "SPEC.md").read_bytes()
    assert approved.artifact_sha256 == hashlib.sha256(spec).hexdigest()
    assert approved.data["to"] == "research:approved"  # the line as written
    assert research.via is None and research.approver is None


def _write_history(folder: Path, lines: list[dict[str, object]]) -> None:
    (folder / ".state.history").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_history_lines_without_a_readable_time_or_target_are_left_out(project: Project) -> None:
    project.create("odd")
    folder = project.task_dir("odd")
    _write_history(
        folder,
        [
            {"time": "2025-01-02T03:04:05Z", "from": None, "to": "new", "command": "--create-task"},
            {"time": "yesterday", "from": "new", "to": "research"},
            {"time": "2025-01-02T03:04:06Z", "from": "new"},
        ],
    )
    (folder / ".state.history").write_text((folder / ".state.history").read_text() + "not json\n")
    task = project_at(project.root).load("odd")
    assert len(task.history) == 4
    (entry,) = task.entries
    assert entry.time == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert entry.actor == "" and entry.via is None


def test_a_history_entry_keeps_its_time_in_utc() -> None:
    moment = datetime(2025, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    entry = HistoryEntry(moment, "new", "research")
    assert entry.time == moment and entry.time.tzinfo == UTC and entry.time.hour == 3
    with pytest.raises(ValueError, match="timezone-aware"):
        HistoryEntry(datetime(2025, 1, 2), "new", "research")


def test_a_time_based_rule_reads_the_history(project: Project) -> None:
    """The sample's TY101: less than a minute between research and its approval request."""
    rules = _sample_rules()
    project.create("rushed")
    folder = project.task_dir("rushed")
    start = datetime(2025, 1, 2, 3, 0, 0, tzinfo=UTC)

    def asked_after(seconds: int) -> list[str]:
        _write_history(
            folder,
            [
                {"time": start.strftime(TIME_FORMAT), "from": "new", "to": "research"},
                {
                    "time": (start + timedelta(seconds=seconds)).strftime(TIME_FORMAT),
                    "from": "research",
                    "to": "research:awaiting_approval",
                    "actor": "agent-7",
                },
            ],
        )
        task = project_at(project.root).load("rushed")
        return [f.message for f in rules.research_not_rushed(task)]

    assert asked_after(30) == ["approval requested 30s after research began"]
    assert asked_after(59) == ["approval requested 59s after research began"]
    assert asked_after(60) == []
    assert asked_after(600) == []


# ----------------------------------------------------------------- time, as rules see it


def test_now_is_public_and_follows_the_fixtures_clock(
    automaton_project: AutomatonProject,
) -> None:
    """`automaton_rules.now()` is the time status.py records: in a test, the fixture's."""
    assert automaton_rules.now() == automaton_project.clock.now
    later = automaton_project.clock.advance(hours=3)
    assert automaton_rules.now() == later
    assert automaton_rules.now().tzinfo is not None  # comparable with every recorded time


def test_a_rule_naming_now_is_tested_by_moving_the_clock(
    automaton_project: AutomatonProject,
) -> None:
    """The sample's TY109 compares the history with `now`: the fixture's clock decides."""
    automaton_project.use_plugins(str(TYPED_SAMPLE))
    automaton_project.task("waiting", "research:awaiting_approval")
    automaton_project.clock.advance(hours=24)
    assert "TY109" not in automaton_project.audit().codes  # a day exactly: not yet
    automaton_project.clock.advance(hours=1)
    audit = automaton_project.audit()
    (waited,) = [f for f in audit.findings if f["code"] == "TY109"]
    assert waited["message"] == "research:awaiting_approval has waited 1 day(s) for its approval"
    assert waited["task"] == "waiting"


def test_state_at_reads_the_state_of_any_moment(automaton_project: AutomatonProject) -> None:
    start = automaton_project.clock.set(datetime(2025, 3, 1, 9, 0, 0, tzinfo=UTC))
    automaton_project.task("login", "new")
    automaton_project.clock.advance(60)
    automaton_project.advance("login", ["research"])
    automaton_project.clock.advance(60)
    automaton_project.advance("login", ["research:awaiting_approval", "research:approved"])
    task = automaton_project.load("login")
    assert task.state_at(start - timedelta(seconds=1)) is None  # before it existed
    assert task.state_at(start) == "new"
    assert task.state_at(start + timedelta(seconds=59.9)) == "new"
    assert task.state_at(start + timedelta(seconds=60)) == "research"
    # two moves in one second: at that second, the last state of it
    assert task.state_at(start + timedelta(seconds=120)) == "research:approved"
    assert task.state_at(start.timestamp() + 90) == "research"  # POSIX seconds, as Commit.time
    with pytest.raises(ValueError, match="naive datetime"):
        task.state_at(datetime(2025, 3, 1, 9, 0, 30))


def test_states_during_counts_a_second_of_change_whole(
    automaton_project: AutomatonProject,
) -> None:
    """What AR301 judges a change against: in a second in which the task moved, every
    state it held in that second."""
    start = automaton_project.clock.set(datetime(2025, 3, 1, 9, 0, 0, tzinfo=UTC))
    automaton_project.task("login", "new")
    automaton_project.clock.advance(60)
    automaton_project.advance("login", ["research", "research:awaiting_approval"])
    task = automaton_project.load("login")
    second = start + timedelta(seconds=60)
    assert task.states_during(second, second) == ("new", "research", "research:awaiting_approval")
    assert task.states_during(start, start + timedelta(seconds=59)) == ("new",)
    assert task.states_during(start - timedelta(hours=1), start) == ("new",)
    assert task.states_during(second + timedelta(seconds=1), second + timedelta(hours=1)) == (
        "research:awaiting_approval",
    )
    assert task.states_during(start - timedelta(hours=2), start - timedelta(hours=1)) == ()
    with pytest.raises(ValueError, match="end comes before start"):
        task.states_during(second, start)


# --------------------------------------------------------- approvals, claim and verdict


def test_approvals_are_typed_with_their_time(project: Project) -> None:
    project.create("login")
    project.advance("login", ["research", "research:awaiting_approval", "research:approved"])
    (approval,) = project_at(project.root).load("login").approvals
    assert isinstance(approval, Approval)
    assert (approval.state, approval.approver, approval.via) == ("research:approved", "user", "cli")
    assert approval.at is not None and approval.at.tzinfo == UTC
    assert approval.at.strftime(TIME_FORMAT) == approval.time
    assert Approval("design:approved", "whenever", "user").at is None


def test_a_task_claim_is_typed(project: Project) -> None:
    project.create("held")
    task = project_at(project.root).load("held")
    assert task.claim is None
    (project.task_dir("held") / ".state.lock").write_text(
        "agent: agent-7\nphase: research\nclaimed: 2025-01-02T03:00:00Z\n"
        "expires: 2025-01-02T03:30:00Z\n"
    )
    claim = project_at(project.root).load("held").claim
    assert isinstance(claim, Claim)
    assert (claim.agent, claim.phase) == ("agent-7", "research")
    assert claim.claimed == datetime(2025, 1, 2, 3, 0, tzinfo=UTC)
    assert claim.expires == datetime(2025, 1, 2, 3, 30, tzinfo=UTC)
    assert not claim.expired(datetime(2025, 1, 2, 3, 29, tzinfo=UTC))
    assert claim.expired(datetime(2025, 1, 2, 3, 30, tzinfo=UTC))
    assert Claim("agent-7").expired(datetime(2025, 1, 2, tzinfo=UTC))  # no expiry: expired


def test_a_commit_says_when_it_was_made() -> None:
    commit = Commit("abc1234", 1735787045, ("src/app.py",))
    assert commit.at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


# ------------------------------------------------------------------------ the phase order


def test_phases_in_workflow_order() -> None:
    assert PHASES[:3] == ("new", "research", "decomposition")
    assert PHASES[-2:] == ("complete", "human_intervention")
    assert Phase("design") < Phase("implement") <= Phase("implement") < "referee"
    assert Phase.of("design:approved") == Phase("design")
    assert Phase.of("test_design:awaiting_approval") > "design"
    assert str(Phase("bug_find")) == "bug_find"


def test_the_two_ends_of_the_referee_phase_are_side_by_side() -> None:
    complete, stopped = Phase("complete"), Phase("human_intervention")
    assert not complete < stopped and not stopped < complete
    assert not reached("human_intervention", "complete")
    assert not reached("complete", "human_intervention")
    assert reached("human_intervention", "referee") and reached("complete", "implement")


@pytest.mark.parametrize(
    ("state", "phase", "expected"),
    [
        ("implement", "implement", True),
        ("bug_find", "implement", True),
        ("design:approved", "design", True),
        ("design:awaiting_approval", "test_design", False),
        ("research:approved", "implement", False),
        ("new", "new", True),
        (None, "new", False),  # a folder with no .state has reached nothing
        ("implemented", "new", False),  # nor has an unknown state
    ],
)
def test_reached(state: str | None, phase: str, expected: bool) -> None:
    assert reached(state, phase) is expected


def test_task_reached(project: Project) -> None:
    project.create("walked")
    project.advance("walked", ["research"])
    task = project_at(project.root).load("walked")
    assert task.reached("research") and task.reached(Phase("new"))
    assert not task.reached("design")


def test_a_misspelt_phase_is_an_error_not_false() -> None:
    with pytest.raises(ValueError, match=r"unknown phase 'implemnt'.*did you mean 'implement'"):
        reached("bug_find", "implemnt")
    with pytest.raises(ValueError, match=r"'design:approved' is a state, not a phase.*'design'"):
        reached("bug_find", "design:approved")
    with pytest.raises(ValueError, match="unknown state"):
        Phase.of("designing")


# ------------------------------------------------------------- phase and state, defined once


def test_phase_and_state_are_defined_in_the_guide() -> None:
    text = WRITING_RULES.split("### Phase and state\n", 1)[1].split("\n#", 1)[0]
    assert "*phase*" in text and "*state*" in text
    assert "reached(" in text and "Phase" in text
