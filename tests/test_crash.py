"""Crash recovery: a command killed at any write point is finished by the next run."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import ROOT, chained_history, path_to, sized

from automaton_rules.core import store
from automaton_rules.support import clock

WRITES = ("append_approval", "append_history", "write_state")


def die_at_write(monkeypatch: pytest.MonkeyPatch, n: int, exc: type[BaseException]) -> list[str]:
    """Make the n-th store write of the next command raise `exc` instead of writing."""
    calls: list[str] = []

    def wrap(name: str):
        real = getattr(store, name)

        def wrapper(*args, **kwargs):
            calls.append(name)
            if len(calls) == n:
                raise exc()
            return real(*args, **kwargs)

        return wrapper

    for name in WRITES:
        monkeypatch.setattr(store, name, wrap(name))
    return calls


def run_dying(project, args: tuple[str, ...], exc: type[BaseException]):
    """Run a command that dies; KeyboardInterrupt is caught by the CLI (exit 2)."""
    if exc is KeyboardInterrupt:
        result = project.run(*args)
        assert result.rc not in (0, 1), result  # exit 2 is checked on its own below
        assert "Traceback" not in result.err
    else:
        with pytest.raises(exc):
            project.run(*args)


TRANSITION_CASES = [
    ("research", "SPEC.md", "research:awaiting_approval"),
    ("implement", "IMPLEMENTATION.md", "bug_find"),
    ("research:approved", None, "design"),
    ("referee", "VERDICT.md", "complete"),
]


@pytest.mark.parametrize("exc", [SystemExit, KeyboardInterrupt])
@pytest.mark.parametrize("n", [1, 2], ids=["at-history", "at-state"])
@pytest.mark.parametrize("start,artifact,target", TRANSITION_CASES)
def test_transition_killed_then_rerun_finishes(
    project, task_in, monkeypatch, exc, n, start, artifact, target
) -> None:
    name = task_in(start)
    if artifact:
        project.write(name, artifact)
    task_dir = project.task_dir(name)
    before = chained_history(task_dir)
    approvals_before = project.approvals(name)

    calls = die_at_write(monkeypatch, n, exc)
    run_dying(project, ("--task", name, "--transition", target), exc)
    monkeypatch.undo()
    assert calls == ["append_history", "write_state"][:n]
    # The kill really happened before .state changed.
    assert project.state(name) == f"{start}\n"
    assert len(chained_history(task_dir)) == len(before) + (n - 1)

    result = project.run("--task", name, "--transition", target)
    assert result.rc == 0, result
    assert project.state(name) == f"{target}\n"
    after = chained_history(task_dir)
    assert after[: len(before)] == before
    assert len(after) == len(before) + 1
    assert (after[-1]["from"], after[-1]["to"]) == (start, target)
    assert after[-1]["command"] == f"--transition {target}"
    assert project.approvals(name) == approvals_before
    assert not (task_dir / store.STATE_TMP).exists()


@pytest.mark.parametrize("exc", [SystemExit, KeyboardInterrupt])
@pytest.mark.parametrize("n", [1, 2, 3], ids=["at-approval", "at-history", "at-state"])
@pytest.mark.parametrize("phase", ["research", "test_design"])
def test_approve_killed_then_rerun_finishes(project, task_in, monkeypatch, exc, n, phase) -> None:
    name = task_in(f"{phase}:awaiting_approval")
    task_dir = project.task_dir(name)
    before = chained_history(task_dir)
    approvals_before = project.approvals(name)

    calls = die_at_write(monkeypatch, n, exc)
    run_dying(project, ("--task", name, "--approve"), exc)
    monkeypatch.undo()
    assert calls == list(WRITES[:n])
    assert project.state(name) == f"{phase}:awaiting_approval\n"

    result = project.run("--task", name, "--approve")
    assert result.rc == 0, result
    assert project.state(name) == f"{phase}:approved\n"
    approvals = project.approvals(name)
    assert approvals[: len(approvals_before)] == approvals_before
    new_lines = approvals[len(approvals_before) :]
    assert len(new_lines) == 1, approvals
    assert new_lines[0].startswith(f"{phase}:approved|")
    assert new_lines[0].endswith("|user")
    after = chained_history(task_dir)
    assert after[: len(before)] == before
    assert len(after) == len(before) + 1
    assert (after[-1]["from"], after[-1]["to"]) == (
        f"{phase}:awaiting_approval",
        f"{phase}:approved",
    )
    assert after[-1]["command"] == "--approve"
    assert not (task_dir / store.STATE_TMP).exists()


@pytest.mark.parametrize("command", ["transition", "approve"])
def test_killed_between_tmp_write_and_rename(project, task_in, monkeypatch, command) -> None:
    """A kill inside write_state leaves .state.tmp behind; the rerun still finishes."""
    start = "research" if command == "transition" else "research:awaiting_approval"
    name = task_in(start)
    project.write(name, "SPEC.md")
    args = (
        ("--task", name, "--transition", "research:awaiting_approval")
        if command == "transition"
        else ("--task", name, "--approve")
    )
    target = "research:awaiting_approval" if command == "transition" else "research:approved"

    def killed(*a: object, **k: object) -> None:
        raise SystemExit()

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(SystemExit):
        project.run(*args)
    monkeypatch.undo()
    task_dir = project.task_dir(name)
    assert project.state(name) == f"{start}\n"
    assert (task_dir / store.STATE_TMP).read_text() == f"{target}\n"

    result = project.run(*args)
    assert result.rc == 0, result
    assert project.state(name) == f"{target}\n"
    entries = chained_history(task_dir)
    assert [e["to"] for e in entries].count(target) == 1
    assert len(project.approvals(name)) == (1 if command == "approve" else 0)


def test_killed_transition_is_rolled_forward_by_another_command(
    project, task_in, monkeypatch
) -> None:
    """The journal line is finished by whatever command takes the lock next."""
    name = task_in("research")
    project.write(name, "SPEC.md")
    die_at_write(monkeypatch, 2, SystemExit)
    with pytest.raises(SystemExit):
        project.run("--task", name, "--transition", "research:awaiting_approval")
    monkeypatch.undo()
    assert project.state(name) == "research\n"

    result = project.run("--task", name, "--approve")
    assert result.rc == 0, result
    assert project.state(name) == "research:approved\n"
    entries = chained_history(project.task_dir(name))
    assert [e["to"] for e in entries] == [
        "new",
        "research",
        "research:awaiting_approval",
        "research:approved",
    ]
    assert len(project.approvals(name)) == 1


def test_killed_create_task_leaves_no_visible_task(project, monkeypatch) -> None:
    die_at_write(monkeypatch, 1, SystemExit)
    with pytest.raises(SystemExit):
        project.run("--create-task", "half-made")
    monkeypatch.undo()
    assert not project.task_dir("half-made").exists()
    listed = project.run("--list", "--json")
    assert listed.rc == 0
    assert listed.json["tasks"] == []
    project.create("half-made")
    assert project.state("half-made") == "new\n"
    assert len(chained_history(project.task_dir("half-made"))) == 1


def forge_journal_line(task_dir: Path, source: str, target: str, command: str) -> None:
    """Append a history line as a killed command would leave it, digest and all."""
    lines = (task_dir / store.HISTORY).read_text().splitlines()
    entry = {"time": clock.stamp(time.time()), "from": source, "to": target, "actor": "agent"}
    entry |= {"command": command, "prev": store.line_digest(lines[-1])}
    store.append_line(task_dir / store.HISTORY, json.dumps(entry, separators=(",", ":")))


@pytest.mark.parametrize(
    ("start", "target", "command"),
    [
        ("research", "implement", "--transition implement"),
        ("research:awaiting_approval", "research:approved", "--approve"),  # no approval line
        ("research:awaiting_approval", "research:approved", "--transition research:approved"),
        ("research", "research:awaiting_approval", "--transition design"),
    ],
    ids=["illegal-transition", "approval-without-its-line", "approval-as-transition", "mismatch"],
)
def test_a_journal_line_that_is_no_move_is_never_carried_out(
    project, task_in, start: str, target: str, command: str
) -> None:
    name = task_in(start)
    project.write(name, "SPEC.md")
    task_dir = project.task_dir(name)
    forge_journal_line(task_dir, start, target, command)
    # Any command that changes the task finishes the journal first: this one would.
    result = project.run("--task", name, "--transition", "complete")
    assert result.rc == 1, result
    assert f"Cannot transition from '{start}' to 'complete'" in result.err
    assert project.state(name) == f"{start}\n"
    audit = project.run("--audit", "--json")
    codes = {f["code"] for f in audit.json["findings"]}
    assert codes & {"AR204", "AR209"}, audit.json["findings"]


def test_interrupt_exits_2_with_a_message(project, task_in, monkeypatch) -> None:
    """Ctrl-C in the middle of a command: exit 2 and an ERROR line, never another code."""
    name = task_in("research:awaiting_approval")
    die_at_write(monkeypatch, 1, KeyboardInterrupt)
    result = project.run("--task", name, "--approve")
    monkeypatch.undo()
    assert result.rc == 2, result
    assert "ERROR: Interrupted." in result.err
    assert project.state(name) == "research:awaiting_approval\n"


def test_second_approval_of_same_phase_is_recorded(project, task_in) -> None:
    """Re-approving a phase after human_intervention -> research must add a new line.

    The recovery check for an approval line written before its history line must not
    mistake the earlier approval of the same phase for a pending one.
    """
    project.clock.set(project.clock.time())  # an agent working within one second
    name = task_in("research:approved")
    project.advance(
        name, ["implement", "bug_find", "adversarial_bug_find", "doc_review", "referee"]
    )
    project.write(name, "VERDICT.md")
    assert project.run("--task", name, "--transition", "human_intervention").rc == 0
    for later in (
        "IMPLEMENTATION.md",
        "BUG_REPORT.md",
        "ADVERSARIAL_BUG_REPORT.md",
        "DOC_REVIEW.md",
        "VERDICT.md",
    ):
        (project.task_dir(name) / later).unlink()
    assert project.run("--task", name, "--transition", "research").rc == 0
    result = project.run("--task", name, "--transition", "research:awaiting_approval")
    assert result.rc == 0, result
    result = project.run("--task", name, "--approve")
    assert result.rc == 0, result
    assert project.state(name) == "research:approved\n"
    approvals = project.approvals(name)
    assert [line.split("|")[0] for line in approvals] == ["research:approved"] * 2, approvals
    entries = chained_history(project.task_dir(name))
    assert [e["to"] for e in entries].count("research:approved") == 2


# --- a real SIGKILL ---------------------------------------------------------------------

# Runs status.py exactly as an agent does, with fsync slowed down so that random kills
# land between the writes as well as before and after them.
SLOW_FSYNC = textwrap.dedent(
    """
    import os, runpy, sys, time
    real_fsync = os.fsync
    def slow_fsync(fd):
        time.sleep(0.015)
        return real_fsync(fd)
    os.fsync = slow_fsync
    sys.argv = [sys.argv[1], *sys.argv[2:]]
    runpy.run_path(sys.argv[0], run_name="__main__")
    """
)


def test_sigkill_during_approve_is_always_recoverable(project, task_in, tmp_path) -> None:
    shim = tmp_path / "slow_fsync.py"
    shim.write_text(SLOW_FSYNC)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(20240614)
    expected_to = ["new", *path_to("research:awaiting_approval"), "research:approved"]

    # How long a complete run takes, to spread the kills over its whole life: the shortest
    # of three, since one run slowed by other work on the machine would put every kill
    # after the writes of the runs that follow (the command is short: 0.1 s).
    durations = []
    for index in range(3):
        probe = task_in("research:awaiting_approval", name=f"probe-{index}")
        start = time.monotonic()
        subprocess.run(
            [sys.executable, str(shim), str(ROOT / "status.py"), "--task", probe, "--approve"],
            cwd=project.root,
            env=env,
            capture_output=True,
            timeout=60,
            check=True,
        )
        durations.append(time.monotonic() - start)
    full = min(durations)

    outcomes = {"before": 0, "between": 0, "after": 0}
    # The machine's speed changes while this runs (other work starts and stops): each kill
    # that lands after every write brings the next one earlier, each that lands before
    # them all later, so kills keep landing across the writes whatever the load does.
    scale = 1.0
    least = sized(6, 10)
    deadline = time.monotonic() + sized(3, 10)
    for i in range(30):
        if time.monotonic() > deadline and i >= least:
            break
        name = task_in("research:awaiting_approval", name=f"kill-{i}")
        task_dir = project.task_dir(name)
        proc = subprocess.Popen(
            [sys.executable, str(shim), str(ROOT / "status.py"), "--task", name, "--approve"],
            cwd=project.root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.5 * full, 1.1 * full) * scale)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

        approvals = project.approvals(name)
        state = project.state(name)
        if state == "research:approved\n":
            outcomes["after"] += 1
            scale *= 0.7
        elif approvals or len(chained_history(task_dir)) == len(expected_to):
            outcomes["between"] += 1
        else:
            outcomes["before"] += 1
            scale = min(scale * 1.3, 2.0)

        result = project.run("--task", name, "--approve")
        if state == "research:approved\n":
            # The killed run had finished every write: there is nothing left to approve.
            assert result.rc == 1, (i, result)
        else:
            assert result.rc == 0, (i, state, approvals, result)
        assert project.state(name) == "research:approved\n", i
        approvals = project.approvals(name)
        assert len(approvals) == 1, (i, approvals)
        assert approvals[0].startswith("research:approved|") and approvals[0].endswith("|user")
        entries = chained_history(task_dir)
        assert [e["to"] for e in entries] == expected_to, i
        assert not (task_dir / store.STATE_TMP).exists()
    assert sum(outcomes.values()) >= least
    assert outcomes["before"] + outcomes["between"] > 0, outcomes
