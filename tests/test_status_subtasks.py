"""Specification section 9, "Sub-task support" (seeds/000): a sub-task's own .state in
{parent}/subtasks/{sub}/, created while the parent is in decomposition:approved.

The acceptance criterion "Sub-task support (reading .state from sub-task folder)".
"""

from __future__ import annotations

import pytest
from helpers import put


def test_subtask_support_reading_state_from_subtask_folder(project, task_in):
    """Criterion: "Sub-task support (reading .state from sub-task folder)" -- spec 9: the
    sub-task lives at {project}/.automaton/tasks/{parent}/subtasks/{sub}/ and --task
    reports parent context."""
    task_in("decomposition:approved", name="parent-task")
    result = project.run("--create-task", "parent-task/subtask-a")
    assert result.rc == 0, result
    folder = project.root / ".automaton" / "tasks" / "parent-task" / "subtasks" / "subtask-a"
    assert (folder / ".state").read_text() == "new\n"
    assert (folder / ".state.approvals").read_bytes() == b""

    assert project.run("--task", "parent-task/subtask-a", "--transition", "research").rc == 0
    result = project.run("--task", "parent-task/subtask-a")
    assert result.rc == 0, result
    lines = result.out.splitlines()
    assert lines[0] == "Task: parent-task/subtask-a"
    assert "Phase: research (from .state)" in lines
    assert f"State file: {folder.resolve() / '.state'}" in lines
    parent_lines = [line for line in lines if "parent-task" in line and "Parent" in line]
    assert parent_lines, result.out
    assert "decomposition:approved" in parent_lines[0]

    # Transitions act on the sub-task's own .state, not the parent's.
    (folder / "SPEC.md").write_text("# spec\n")
    assert (
        project.run(
            "--task", "parent-task/subtask-a", "--transition", "research:awaiting_approval"
        ).rc
        == 0
    )
    assert (folder / ".state").read_text() == "research:awaiting_approval\n"
    assert project.state("parent-task") == "decomposition:approved\n"


@pytest.mark.parametrize(
    "parent_state",
    [
        "new",
        "research",
        "research:approved",
        "decomposition",
        "decomposition:awaiting_approval",
        "design",
        "implement",
        "complete",
    ],
)
def test_subtask_support_subtasks_created_only_while_parent_in_decomposition_approved(
    project, parent_state
):
    """Criterion: "Sub-task support" -- sub-tasks are created only while the parent is in
    decomposition:approved (DESIGN.md section 2)."""
    put(project, parent_state, name="parent-task")
    result = project.run("--create-task", "parent-task/subtask-a")
    assert result.rc == 1, result
    assert result.err.startswith("ERROR: ")
    assert "decomposition:approved" in result.err
    assert not (project.task_dir("parent-task") / "subtasks").exists()


def test_subtask_support_parent_completes_only_when_every_subtask_is_complete(project, task_in):
    """Criterion: "Sub-task support" -- decomposition:approved -> complete only when every
    sub-task is complete (spec 5: "sub-task research, parent awaits")."""
    parent = task_in("decomposition:approved", name="parent-task")
    result = project.run("--task", parent, "--transition", "complete")
    assert result.rc == 1, result  # no sub-tasks yet
    assert project.state(parent) == "decomposition:approved\n"

    project.task("parent-task/part-a", "complete")
    project.task("parent-task/part-b", "referee", files={"VERDICT.md": "Verdict: PASS\n"})
    result = project.run("--task", parent, "--transition", "complete")
    assert result.rc == 1, result
    assert result.err.startswith("ERROR: Cannot transition from 'decomposition:approved'")
    assert "part-b" in result.err
    assert project.state(parent) == "decomposition:approved\n"

    assert project.run("--task", "parent-task/part-b", "--transition", "complete").rc == 0
    result = project.run("--task", parent, "--transition", "complete")
    assert result.rc == 0, result
    assert project.state(parent) == "complete\n"
