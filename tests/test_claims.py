"""Multi-agent mode (DESIGN.md section 6): claims, holder-only changes, no self-approval.

Mode is switched on either by `mode = "multi-agent"` in automaton.toml or by the line
`Mode: multi-agent` in the project's .agent.md; every test below runs with both.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import TIME_FORMAT, Project, stamp

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
LOCK = re.compile(
    rf"agent: (?P<agent>\S+)\nphase: (?P<phase>\S+)\nclaimed: (?P<claimed>{STAMP})\n"
    rf"expires: (?P<expires>{STAMP})\n"
)


def parse_time(text: str) -> datetime:
    """A time stamp of the task files as a datetime in UTC."""
    return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=timezone.utc)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@pytest.fixture(params=["automaton.toml", ".agent.md"])
def multi(request, project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project in multi-agent mode, switched on one way or the other."""
    monkeypatch.delenv("AUTOMATON_AGENT", raising=False)
    project.root.mkdir(exist_ok=True)
    if request.param == "automaton.toml":
        (project.root / "automaton.toml").write_text('mode = "multi-agent"\n')
    else:
        (project.root / ".agent.md").write_text(
            "# Agent setup\n\nMode: multi-agent\nOther: things\n"
        )
    return project


@pytest.fixture
def researching(multi: Project) -> str:
    """A task in research with its SPEC.md written, nobody holding it (set up by `setup`)."""
    name = "shared-task"
    multi.create(name)
    for args in (
        ("--claim", "--agent", "setup"),
        ("--transition", "research", "--agent", "setup"),
        ("--release", "--agent", "setup"),
    ):
        result = multi.run("--task", name, *args)
        assert result.rc == 0, (args, result)
    (multi.task_dir(name) / "SPEC.md").write_text("# Spec\n\ncontent\n")
    assert not (multi.task_dir(name) / ".state.lock").exists()
    return name


def lock_of(project: Project, name: str) -> dict[str, str]:
    text = (project.task_dir(name) / ".state.lock").read_text()
    match = LOCK.fullmatch(text)
    assert match, text
    return match.groupdict()


def set_lock(project: Project, name: str, **fields: str) -> None:
    """Rewrite fields of the claim file in place (to age it, or expire it)."""
    lock = {**lock_of(project, name), **fields}
    (project.task_dir(name) / ".state.lock").write_text(
        "".join(f"{key}: {lock[key]}\n" for key in ("agent", "phase", "claimed", "expires"))
    )


# --------------------------------------------------------------------------------------
# --claim / --release
# --------------------------------------------------------------------------------------


def test_claim_writes_the_lock_file(multi: Project, researching: str) -> None:
    before = utc_now().replace(microsecond=0)
    result = multi.run("--task", researching, "--claim", "--agent", "alice")
    after = utc_now()
    assert result.rc == 0, result
    assert result.out == f"Claimed task '{researching}' for agent 'alice' for 30 minutes.\n"
    lock = lock_of(multi, researching)
    assert (lock["agent"], lock["phase"]) == ("alice", "research")
    claimed, expires = parse_time(lock["claimed"]), parse_time(lock["expires"])
    assert before <= claimed <= after
    assert expires - claimed == timedelta(minutes=30)


def test_claim_agent_from_environment(multi: Project, researching: str, monkeypatch) -> None:
    monkeypatch.setenv("AUTOMATON_AGENT", "env-agent")
    result = multi.script("--task", researching, "--claim", "--project", str(multi.root))
    assert result.rc == 0, result
    assert lock_of(multi, researching)["agent"] == "env-agent"
    # --agent on the line wins over the environment.
    result = multi.script(
        "--task", researching, "--release", "--agent", "other", "--project", str(multi.root)
    )
    assert result.rc == 1, result
    assert "is claimed by agent 'env-agent'" in result.err
    result = multi.script("--task", researching, "--release", "--project", str(multi.root))
    assert result.rc == 0, result
    assert not (multi.task_dir(researching) / ".state.lock").exists()


def test_claim_renewal_by_the_same_agent(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    earlier = utc_now() - timedelta(minutes=20)
    set_lock(
        multi,
        researching,
        claimed=stamp(earlier),
        expires=stamp(earlier + timedelta(minutes=30)),
    )
    before = utc_now().replace(microsecond=0)
    result = multi.run("--task", researching, "--claim", "--agent", "alice")
    assert result.rc == 0, result
    lock = lock_of(multi, researching)
    assert lock["agent"] == "alice"
    assert parse_time(lock["claimed"]) >= before
    assert parse_time(lock["expires"]) - parse_time(lock["claimed"]) == timedelta(minutes=30)


def test_claim_refused_for_another_agent(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    lock = (multi.task_dir(researching) / ".state.lock").read_bytes()
    result = multi.run("--task", researching, "--claim", "--agent", "bob")
    assert result.rc == 1, result
    assert result.err.startswith(
        f"ERROR: Task '{researching}' is claimed by agent 'alice' until "
    ), result
    assert (multi.task_dir(researching) / ".state.lock").read_bytes() == lock


def test_expired_claim_is_taken_over(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    past = utc_now() - timedelta(hours=2)
    set_lock(multi, researching, claimed=stamp(past), expires=stamp(past + timedelta(minutes=30)))
    result = multi.run("--task", researching, "--claim", "--agent", "bob")
    assert result.rc == 0, result
    assert "taken over from 'alice'" in result.out
    lock = lock_of(multi, researching)
    assert lock["agent"] == "bob"
    assert parse_time(lock["expires"]) > utc_now()


def test_release_by_holder_and_by_others(multi: Project, researching: str) -> None:
    result = multi.run("--task", researching, "--release", "--agent", "alice")
    assert result.rc == 1, result
    assert "is not claimed" in result.err
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    result = multi.run("--task", researching, "--release", "--agent", "bob")
    assert result.rc == 1
    assert "is claimed by agent 'alice'" in result.err
    assert (multi.task_dir(researching) / ".state.lock").exists()
    result = multi.run("--task", researching, "--release", "--agent", "alice")
    assert result.rc == 0, result
    assert not (multi.task_dir(researching) / ".state.lock").exists()


def test_claim_needs_an_agent(multi: Project, researching: str) -> None:
    result = multi.run("--task", researching, "--claim")
    assert result.rc == 2
    assert "--agent" in result.err
    assert not (multi.task_dir(researching) / ".state.lock").exists()


@pytest.mark.parametrize("agent", ["bad agent", "-x", "a/b", ""])
def test_claim_refuses_a_malformed_agent_id(multi: Project, researching: str, agent: str):
    result = multi.run("--task", researching, "--claim", "--agent", agent)
    assert result.rc == 2, result
    assert not (multi.task_dir(researching) / ".state.lock").exists()


def test_claim_timeout_minutes_config_is_honoured(multi: Project, researching: str) -> None:
    config = multi.root / "automaton.toml"
    existing = config.read_text() if config.exists() else ""
    config.write_text(existing + "claim-timeout-minutes = 5\n")
    result = multi.run("--task", researching, "--claim", "--agent", "alice")
    assert result.rc == 0, result
    assert result.out == f"Claimed task '{researching}' for agent 'alice' for 5 minutes.\n"
    lock = lock_of(multi, researching)
    assert parse_time(lock["expires"]) - parse_time(lock["claimed"]) == timedelta(minutes=5)


def test_claim_outside_multi_agent_mode_is_exit_2(project: Project, monkeypatch) -> None:
    monkeypatch.delenv("AUTOMATON_AGENT", raising=False)
    project.create("solo-task")
    for action in ("--claim", "--release"):
        result = project.run("--task", "solo-task", action, "--agent", "alice")
        assert result.rc == 2, result
        assert "multi-agent" in result.err
    assert not (project.task_dir("solo-task") / ".state.lock").exists()


def test_agent_md_without_the_mode_line_is_single_agent(project: Project) -> None:
    project.root.mkdir(exist_ok=True)
    (project.root / ".agent.md").write_text("# Agent\n\nMode: single\nmulti-agent is off\n")
    project.create("solo-task")
    assert project.run("--task", "solo-task", "--claim", "--agent", "alice").rc == 2
    # Single-agent mode: transitions need no agent.
    assert project.run("--task", "solo-task", "--transition", "research").rc == 0


# --------------------------------------------------------------------------------------
# Changes to a claimed task: only by its holder
# --------------------------------------------------------------------------------------

GATE = "research:awaiting_approval"


def test_transition_refused_without_agent(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    result = multi.run("--task", researching, "--transition", GATE)
    assert result.rc == 1, result
    assert "--agent" in result.err
    assert multi.state(researching) == "research\n"


def test_transition_refused_without_agent_even_when_unclaimed(
    multi: Project, researching: str
) -> None:
    result = multi.run("--task", researching, "--transition", GATE)
    assert result.rc == 1, result
    assert multi.state(researching) == "research\n"


def test_transition_refused_without_a_claim(multi: Project, researching: str) -> None:
    result = multi.run("--task", researching, "--transition", GATE, "--agent", "alice")
    assert result.rc == 1, result
    assert f"claim task '{researching}'" in result.err
    assert "--claim --agent alice" in result.err
    assert multi.state(researching) == "research\n"


def test_transition_refused_with_an_expired_claim(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    set_lock(multi, researching, expires=stamp(utc_now() - timedelta(minutes=1)))
    result = multi.run("--task", researching, "--transition", GATE, "--agent", "alice")
    assert result.rc == 1, result
    assert multi.state(researching) == "research\n"


def test_transition_refused_for_a_non_holder(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    result = multi.run("--task", researching, "--transition", GATE, "--agent", "bob")
    assert result.rc == 1, result
    assert f"Task '{researching}' is claimed by agent 'alice'" in result.err
    assert multi.state(researching) == "research\n"


def test_transition_allowed_for_the_holder_and_claim_follows(
    multi: Project, researching: str
) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    claimed = lock_of(multi, researching)
    result = multi.run("--task", researching, "--transition", GATE, "--agent", "alice")
    assert result.rc == 0, result
    assert multi.state(researching) == f"{GATE}\n"
    lock = lock_of(multi, researching)
    assert lock == {**claimed, "phase": GATE}


def test_holder_transition_records_the_agent_in_history(multi: Project, researching: str):
    import json

    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    assert multi.run("--task", researching, "--transition", GATE, "--agent", "alice").rc == 0
    last = json.loads((multi.task_dir(researching) / ".state.history").read_text().splitlines()[-1])
    assert (last["to"], last["actor"]) == (GATE, "alice")


# --------------------------------------------------------------------------------------
# No self-approval
# --------------------------------------------------------------------------------------


@pytest.fixture
def at_gate(multi: Project, researching: str) -> str:
    """alice holds the task, which waits at research:awaiting_approval."""
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    assert multi.run("--task", researching, "--transition", GATE, "--agent", "alice").rc == 0
    return researching


def test_approve_by_the_holder_is_refused(multi: Project, at_gate: str) -> None:
    approvals = (multi.task_dir(at_gate) / ".state.approvals").read_bytes()
    result = multi.run("--task", at_gate, "--approve", "--agent", "alice")
    assert result.rc == 1, result
    assert "cannot approve its own work" in result.err
    assert multi.state(at_gate) == f"{GATE}\n"
    assert (multi.task_dir(at_gate) / ".state.approvals").read_bytes() == approvals


def test_approve_by_the_holder_named_as_approver_is_refused(multi: Project, at_gate: str):
    result = multi.run("--task", at_gate, "--approve", "--approver", "alice")
    assert result.rc == 1, result
    assert "cannot approve its own work" in result.err
    assert multi.state(at_gate) == f"{GATE}\n"


def test_approve_by_another_agent_records_that_agent(multi: Project, at_gate: str) -> None:
    result = multi.run("--task", at_gate, "--approve", "--agent", "carol")
    assert result.rc == 0, result
    assert multi.state(at_gate) == "research:approved\n"
    lines = multi.approvals(at_gate)
    assert len(lines) == 1
    state, when, who = lines[0].split("|")
    assert (state, who) == ("research:approved", "carol")
    assert re.fullmatch(STAMP, when)


def test_approve_by_the_user_records_user(multi: Project, at_gate: str) -> None:
    result = multi.run("--task", at_gate, "--approve")
    assert result.rc == 0, result
    assert multi.approvals(at_gate)[-1].split("|")[::2] == ["research:approved", "user"]


def test_holder_may_approve_after_its_claim_expired_is_not_self_approval(
    multi: Project, at_gate: str
) -> None:
    """An expired claim holds nothing: approval by that agent is no longer self-approval."""
    set_lock(multi, at_gate, expires=stamp(utc_now() - timedelta(minutes=1)))
    result = multi.run("--task", at_gate, "--approve", "--agent", "alice")
    assert result.rc == 0, result
    assert multi.approvals(at_gate)[-1].endswith("|alice")


# --------------------------------------------------------------------------------------
# --list shows holders
# --------------------------------------------------------------------------------------


def test_list_shows_an_agent_column_with_the_holder(multi: Project, researching: str) -> None:
    multi.create("free-task")
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    expires = lock_of(multi, researching)["expires"]
    result = multi.run("--list")
    assert result.rc == 0, result
    lines = result.out.splitlines()
    assert lines[0].split() == ["Task", "Phase", "Next", "Step", "Agent"]
    row = next(line for line in lines if line.startswith(researching))
    assert row.endswith(f"alice until {expires}")
    free = next(line for line in lines if line.startswith("free-task"))
    assert "alice" not in free
    assert free.rstrip().endswith("—")

    data = multi.run("--list", "--json").json
    holders = {task["name"]: task["holder"] for task in data["tasks"]}
    assert holders == {researching: f"alice until {expires}", "free-task": None}


def test_list_marks_an_expired_claim(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    set_lock(multi, researching, expires=stamp(utc_now() - timedelta(minutes=1)))
    row = next(line for line in multi.run("--list").out.splitlines() if "shared" in line)
    assert row.endswith("(expired)")


def test_list_judges_a_claim_by_the_runs_clock_as_the_workflow_does(
    multi: Project, researching: str
) -> None:
    """A claim --list shows as live is one the workflow refuses to let another agent take,
    and the other way round: both read the run's clock (the fixture's, frozen in 2020)."""
    multi.clock.set(datetime(2020, 1, 1, tzinfo=timezone.utc))
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    row = next(line for line in multi.run("--list").out.splitlines() if "alice" in line)
    assert not row.endswith("(expired)")
    assert multi.run("--task", researching, "--claim", "--agent", "bob").rc == 1
    multi.clock.advance(hours=2)
    row = next(line for line in multi.run("--list").out.splitlines() if "alice" in line)
    assert row.endswith("(expired)")
    assert multi.run("--task", researching, "--claim", "--agent", "bob").rc == 0


def test_list_has_no_agent_column_in_single_mode(project: Project) -> None:
    project.create("solo-task")
    header = project.run("--list").out.splitlines()[0]
    assert "Agent" not in header


def test_multi_agent_mode_via_agent_md_under_automaton_folder(project: Project) -> None:
    project.create("solo-task")
    (project.root / ".automaton" / ".agent.md").write_text("Mode: multi-agent\n")
    assert project.run("--task", "solo-task", "--claim", "--agent", "alice").rc == 0


def test_lock_file_path(multi: Project, researching: str) -> None:
    assert multi.run("--task", researching, "--claim", "--agent", "alice").rc == 0
    assert Path(multi.task_dir(researching) / ".state.lock").is_file()
    assert not (multi.task_dir(researching) / ".state.lock.tmp").exists()
