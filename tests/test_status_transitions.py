"""Specification sections 4, 5 and 5b (seeds/000): atomic .state writes, the legal
transitions, the approval log.

The acceptance criteria "Atomic writes for .state file", "Approval log (.state.approvals)
is created and maintained" and "Transition validation (only legal transitions allowed,
including approval sub-states)", the last over every pair of states that spec_tables.py
types out from section 5.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import no_traceback, put
from spec_tables import APPROVAL_LINE, ILLEGAL_PAIRS, LEGAL, LEGAL_EDGES, base, own_artifacts

# --------------------------------------------------------------------------------------
# Atomic writes, approval log
# --------------------------------------------------------------------------------------


def test_atomic_writes_for_state_file_go_through_state_tmp(project, monkeypatch):
    """Criterion: "Atomic writes for .state file" -- spec 4: write .state.tmp, then rename
    it to .state."""
    name = put(project, "new")
    renames: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src, dst, *args, **kwargs):
        renames.append((Path(src).name, Path(dst).name))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", spy)
    assert project.run("--task", name, "--transition", "research").rc == 0
    assert (".state.tmp", ".state") in renames
    assert project.state(name) == "research\n"
    assert not (project.task_dir(name) / ".state.tmp").exists()


@pytest.mark.parametrize(
    ("call", "source", "target"),
    [("replace", "new", "research"), ("write", "research", "research:awaiting_approval")],
    ids=["os.replace", "os.write"],
)
def test_atomic_writes_for_state_file_failed_write_keeps_old_state(
    project, monkeypatch, call, source, target
):
    """Criterion: "Atomic writes for .state file" -- spec 4: "Not corrupt an existing .state
    if the write fails". A write that fails (disk full), or the rename of .state.tmp onto
    .state, leaves the old .state intact; exit 2 with an ERROR line, no traceback."""
    name = put(project, source, artifacts=own_artifacts(source))

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, call, broken)
    result = project.run("--task", name, "--transition", target)
    monkeypatch.undo()
    assert result.rc == 2, result
    assert result.err.startswith("ERROR: ")
    no_traceback(result)
    assert project.state(name) == f"{source}\n"


def test_approval_log_is_created_and_maintained(project, task_in):
    """Criterion: "Approval log (.state.approvals) is created and maintained" -- created
    empty, one line appended per approval, earlier lines never rewritten."""
    name = task_in("research:awaiting_approval")
    assert project.approvals(name) == []
    assert project.run("--task", name, "--approve").rc == 0
    first = project.approvals(name)
    assert len(first) == 1
    assert first[0].startswith("research:approved|")

    project.advance(name, ["design", "design:awaiting_approval"])
    assert project.approvals(name) == first
    assert project.run("--task", name, "--approve", "--approver", "agent-2").rc == 0
    lines = project.approvals(name)
    assert len(lines) == 2
    assert lines[0] == first[0]
    assert lines[1].startswith("design:approved|")
    assert lines[1].endswith("|agent-2")
    assert all(APPROVAL_LINE.match(line) for line in lines)
    assert (project.task_dir(name) / ".state.approvals").read_text().endswith("\n")


# --------------------------------------------------------------------------------------
# Transition validation: every pair of states
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "target"), LEGAL_EDGES)
def test_transition_validation_only_legal_transitions_allowed_legal_edges(project, source, target):
    """Criterion: "Transition validation (only legal transitions allowed, including approval
    sub-states)" -- every transition the specification lists succeeds when its artifact is
    present."""
    name = put(project, source, artifacts=own_artifacts(source))
    if source == "decomposition:approved":
        project.task(f"{name}/only-part", "complete")
    result = project.run("--task", name, "--transition", target)
    assert result.rc == 0, result
    assert project.state(name) == f"{target}\n"


@pytest.mark.parametrize(("source", "target"), ILLEGAL_PAIRS)
def test_transition_validation_only_legal_transitions_allowed_illegal_pairs(
    project, source, target
):
    """Criterion: "Transition validation (only legal transitions allowed, including approval
    sub-states)" -- every pair the specification does not list is refused with spec 12's
    "ERROR: Cannot transition from '{current}' to '{target}'. Legal transitions from
    '{current}' are: {list}"."""
    name = put(project, source, artifacts=own_artifacts(source))
    result = project.run("--task", name, "--transition", target)
    assert result.rc == 1, result
    (line,) = result.err.splitlines()
    prefix = (
        f"ERROR: Cannot transition from '{source}' to '{target}'. "
        f"Legal transitions from '{source}' are: "
    )
    assert line.startswith(prefix), line
    listed = line[len(prefix) :]
    for legal in LEGAL[source]:
        assert legal in listed, (legal, listed)
    if source.endswith(":awaiting_approval"):
        assert f"{base(source)}:approved" in listed
    assert project.state(name) == f"{source}\n"
