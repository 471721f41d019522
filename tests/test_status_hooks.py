"""Specification section 14, "Tool integration hooks" (seeds/000): --can-edit,
--can-create-task, --scope-check and --same-session.

The section's four acceptance criteria, each in-process and through `python status.py`
as a tool integration calls it. The harness adapter built on them is tested in
tests/test_harness.py and the tests of the guard.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import age_task, put
from spec_tables import STATES, base

# --------------------------------------------------------------------------------------
# Tool integration hooks (spec section 14)
# --------------------------------------------------------------------------------------

EDIT_PHASES = ("implement", "doc_review")


@pytest.mark.parametrize("state", STATES)
def test_can_edit_returns_allowed_denied_based_on_current_phase(project, state):
    """Criterion: "--can-edit returns ALLOWED/DENIED based on current phase (optional, for
    tool integration)".

    Spec section 14: exit 0 + "ALLOWED" in implement and doc_review; otherwise exit 1 +
    "DENIED: Task '{task-name}' is in {phase} phase. Code edits require implement or
    doc_review phase." Checked for every state, in-process.
    """
    name = put(project, state, name="add-user-auth")
    result = project.run("--can-edit", "--task", name)
    if base(state) in EDIT_PHASES:
        assert (result.rc, result.out) == (0, "ALLOWED\n"), result
    else:
        assert result.rc == 1, result
        assert result.out == (
            f"DENIED: Task 'add-user-auth' is in {base(state)} phase. "
            "Code edits require implement or doc_review phase.\n"
        )
    assert result.err == ""


def test_can_edit_returns_allowed_denied_based_on_current_phase_end_to_end(project):
    """Criterion: "--can-edit returns ALLOWED/DENIED based on current phase" -- through
    `python status.py`, as a tool integration calls it; the answer follows the task."""
    name = put(project, "test_design:approved", name="add-user-auth", artifacts=["TEST_PLAN.md"])
    args = ("--can-edit", "--task", name, "--project", str(project.root))
    result = project.script(*args)
    assert result.rc == 1, result
    assert result.out == (
        "DENIED: Task 'add-user-auth' is in test_design phase. "
        "Code edits require implement or doc_review phase.\n"
    )
    assert project.run("--task", name, "--transition", "implement").rc == 0
    result = project.script(*args)
    assert (result.rc, result.out, result.err) == (0, "ALLOWED\n", "")


def test_can_create_task_returns_allowed(project):
    """Criterion: "--can-create-task returns ALLOWED (optional, reserved for future tool
    integration)" -- always exit 0 + ALLOWED, with or without tasks, in-process and through
    `python status.py`."""
    project.tasks.mkdir(parents=True)
    result = project.run("--can-create-task")
    assert (result.rc, result.out, result.err) == (0, "ALLOWED\n", "")
    put(project, "research", name="add-user-auth")
    result = project.run("--can-create-task")
    assert (result.rc, result.out, result.err) == (0, "ALLOWED\n", "")
    result = project.script("--can-create-task", "--project", str(project.root))
    assert (result.rc, result.out, result.err) == (0, "ALLOWED\n", "")


def test_scope_check_returns_in_scope_out_of_scope(project, tmp_path):
    """Criterion: "--scope-check returns IN_SCOPE/OUT_OF_SCOPE (optional, for tool
    integration)" -- exit 0 + "IN_SCOPE" inside the project; exit 1 + "OUT_OF_SCOPE: File
    '{file-path}' is outside project '{project}'." otherwise."""
    name = put(project, "implement", name="add-user-auth")
    inside = project.root / "src" / "app.py"
    inside.parent.mkdir()
    inside.write_text("x = 1\n")
    for file in (inside, project.root / "not-yet-there.py", project.task_dir(name) / "notes.md"):
        result = project.run("--scope-check", "--task", name, "--file", str(file))
        assert (result.rc, result.out, result.err) == (0, "IN_SCOPE\n", ""), file

    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("s\n")
    for file in (outside, Path("/etc/passwd")):
        result = project.run("--scope-check", "--task", name, "--file", str(file))
        assert result.rc == 1, result
        assert result.out == (
            f"OUT_OF_SCOPE: File '{file}' is outside project '{project.root.resolve()}'.\n"
        )
        assert result.err == ""

    result = project.script(
        "--scope-check", "--task", name, "--file", str(outside), "--project", str(project.root)
    )
    assert result.rc == 1, result
    assert result.out == (
        f"OUT_OF_SCOPE: File '{outside}' is outside project '{project.root.resolve()}'.\n"
    )


def test_same_session_returns_same_session_different_session_heuristic(project):
    """Criterion: "--same-session returns SAME_SESSION/DIFFERENT_SESSION heuristic (optional,
    for tool integration)" -- a task created within the last 30 minutes (the default) is
    "SAME_SESSION" with exit 1; an hour-old one is "DIFFERENT_SESSION" with exit 0."""
    project.create("add-user-auth")
    result = project.run("--same-session", "--task", "add-user-auth")
    assert (result.rc, result.out, result.err) == (1, "SAME_SESSION\n", "")

    age_task(project, "add-user-auth", 60)
    result = project.run("--same-session", "--task", "add-user-auth")
    assert (result.rc, result.out, result.err) == (0, "DIFFERENT_SESSION\n", "")
    result = project.script(
        "--same-session", "--task", "add-user-auth", "--project", str(project.root)
    )
    assert (result.rc, result.out) == (0, "DIFFERENT_SESSION\n"), result
