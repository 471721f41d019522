"""Property tests: random command sequences never break the task's invariants."""

from __future__ import annotations

import tempfile
from collections import deque
from pathlib import Path

from helpers import chained_history, run, sized
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automaton_rules.core import machine, store

TASK = "prop-task"
ARTIFACT_NAMES = tuple(machine.ARTIFACTS.values())
STATE_CHANGING = {"create", "transition", "legal", "approve"}


def _reachable() -> frozenset[str]:
    seen, queue = {"new"}, deque(["new"])
    while queue:
        state = queue.popleft()
        nxt = set(machine.TRANSITIONS[state])
        if machine.is_awaiting(state):
            nxt.add(machine.base_phase(state) + machine.APPROVED)
        for target in nxt - seen:
            seen.add(target)
            queue.append(target)
    return frozenset(seen)


REACHABLE = _reachable()

others = st.one_of(
    st.just(("create",)),
    st.tuples(st.just("transition"), st.sampled_from(machine.STATES)),
    st.tuples(st.just("legal"), st.integers(0, 4)),
    st.just(("approve",)),
    st.tuples(st.just("write"), st.sampled_from(ARTIFACT_NAMES)),
    st.just(("write_required",)),
    st.tuples(st.just("blank"), st.sampled_from(ARTIFACT_NAMES)),
    st.tuples(st.just("delete"), st.sampled_from(ARTIFACT_NAMES)),
)
# Half of the commands `advance` (see expand), so examples get deep into the workflow.
command_steps = st.one_of(st.tuples(st.just("advance"), st.integers(0, 4)), others)


def read_state(task_dir: Path) -> str | None:
    path = task_dir / store.STATE
    if not path.exists():
        return None
    raw = path.read_text()
    assert raw.endswith("\n") and raw.count("\n") == 1, repr(raw)
    return raw[:-1]


def approvals(task_dir: Path) -> list[str]:
    path = task_dir / store.APPROVALS
    return path.read_text().splitlines() if path.exists() else []


def step(root: Path, task_dir: Path, command: tuple) -> None:
    """Run one command and check every invariant around it."""
    kind = command[0]
    before = read_state(task_dir)
    before_history = chained_history(task_dir)
    before_approvals = approvals(task_dir)
    rc: int | None = None
    target: str | None = None

    if kind == "create":
        rc, output = run(root, "--create-task", TASK)
    elif kind in ("transition", "legal"):
        if kind == "transition":
            target = command[1]
        else:
            legal = machine.legal_targets(before) if before else ()
            target = legal[command[1] % len(legal)] if legal else "research"
        rc, output = run(root, "--task", TASK, "--transition", target)
    elif kind == "approve":
        rc, output = run(root, "--task", TASK, "--approve")
    elif task_dir.is_dir():
        name = command[1] if len(command) > 1 else None
        if kind == "write_required":
            name = machine.required_artifact(before or "new")
            if name:
                (task_dir / name).write_text(f"# {name}\n")
        elif kind == "write":
            (task_dir / name).write_text(f"# {name}\n")
        elif kind == "blank":
            (task_dir / name).write_text(" \n\t\n")
        elif kind == "delete":
            (task_dir / name).unlink(missing_ok=True)

    after = read_state(task_dir)
    entries = chained_history(task_dir)
    lines = approvals(task_dir)

    if rc is not None:
        assert rc in (0, 1, 2), (command, rc, output)
        assert "Traceback" not in output
    if after is not None:
        assert machine.is_state(after), after
        assert after in REACHABLE
        assert entries, "a task with .state and no history"
        assert entries[-1]["to"] == after
    if rc == 0 and kind in STATE_CHANGING:
        assert len(entries) == len(before_history) + 1, (command, output)
        assert entries[-1]["from"] == before
    else:
        assert after == before, (command, rc, output)
        assert entries == before_history
    if before is None and kind in ("transition", "legal", "approve"):
        assert rc == 2 and "not found" in output, (command, rc, output)
    if kind == "create":
        assert rc == (0 if before is None else 1), (before, rc, output)
        if rc == 0:
            assert after == "new" and lines == []
    if kind in ("transition", "legal") and rc == 0:
        assert before is not None
        assert target in machine.TRANSITIONS[before], (before, target)
        assert after == target
    if kind == "approve" and rc == 0:
        assert before is not None and machine.is_awaiting(before)
        assert after == machine.approval_target(before)
        assert len(lines) == len(before_approvals) + 1
        assert lines[-1].startswith(f"{after}|") and lines[-1].endswith("|user")
    else:
        assert lines == before_approvals
    if kind == "approve" and before is not None:
        artifact = machine.required_artifact(before)
        ready = machine.is_awaiting(before) and has_content(task_dir, artifact)
        if ready:
            # An approval is a move too: no skipped-phase artifact may be present.
            present = {name for name in ARTIFACT_NAMES if (task_dir / name).exists()}
            target = machine.approval_target(before) or ""
            ready = not present & (
                machine.forbidden_artifacts(before) | machine.forbidden_artifacts(target)
            )
        assert rc == (0 if ready else 1), (before, output)
    if kind in ("transition", "legal") and before is not None:
        assert rc == (0 if may_transition(task_dir, before, target) else 1), (
            before,
            target,
            output,
        )


def has_content(task_dir: Path, name: str | None) -> bool:
    path = task_dir / name if name else None
    return path is not None and path.is_file() and bool(path.read_text().strip())


def may_transition(task_dir: Path, source: str, target: str) -> bool:
    """The oracle: a legal edge, the source's artifact written, no skipped-phase artifact."""
    if target not in machine.TRANSITIONS[source]:
        return False
    if source == machine.SUBTASK_PARENT_STATE and target == "complete":
        return False  # this task never has sub-tasks
    required = machine.required_artifact(source)
    if required and not has_content(task_dir, required):
        return False
    present = {name for name in ARTIFACT_NAMES if (task_dir / name).exists()}
    forbidden = machine.forbidden_artifacts(source) | machine.forbidden_artifacts(target)
    return not present & forbidden


def expand(task_dir: Path, command: tuple) -> list[tuple]:
    """`advance`: clear skipped-phase artifacts, write the one needed, then move on."""
    if command[0] != "advance":
        return [command]
    state = read_state(task_dir) or "new"
    if machine.is_awaiting(state):
        clear = machine.forbidden_artifacts(state)
        return [*(("delete", name) for name in sorted(clear)), ("write_required",), ("approve",)]
    legal = machine.legal_targets(state)
    if not legal:
        return [("legal", command[1])]
    target = legal[command[1] % len(legal)]
    clear = machine.forbidden_artifacts(state) | machine.forbidden_artifacts(target)
    return [
        *(("delete", name) for name in sorted(clear)),
        ("write_required",),
        ("transition", target),
    ]


@settings(
    max_examples=sized(20, 60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(command_steps, min_size=8, max_size=20))
def test_random_command_sequences_keep_the_invariants(sequence: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        task_dir = root / ".automaton" / "tasks" / TASK
        for command in [("create",), *sequence]:
            for single in expand(task_dir, command):
                step(root, task_dir, single)
        rc, output = run(root, "--task", TASK)
        assert rc == 0, output
        assert f"Phase: {read_state(task_dir)} (from .state)" in output
