"""Moving tasks beyond the acceptance tests: a sub-task never enters decomposition,
--approve consults the transition rules, resuming from human_intervention needs the
later artifacts archived, and --upgrade restores a lost or corrupt .state from its
history before it guesses from artifacts. Claims and follow-up tasks, the other
operations, have their own files (test_claims.py, test_follow_up.py).
"""

from __future__ import annotations

import pytest
from helpers import OUT_OF_ORDER_PASS, Project, one_line, path_to

# ----------------------------------------------- a sub-task never enters decomposition


@pytest.fixture
def subtask_at_research_approved(project: Project, task_in) -> str:
    task_in("decomposition:approved", name="p")
    project.create("p/a")
    project.advance("p/a", path_to("research:approved"))
    assert project.state("p/a") == "research:approved\n"
    return "p/a"


def test_subtask_transition_to_decomposition_is_refused(
    project: Project, subtask_at_research_approved: str
) -> None:
    result = project.run("--task", "p/a", "--transition", "decomposition")
    assert result.rc == 1
    assert result.err == (
        "ERROR: Cannot transition from 'research:approved' to 'decomposition'. "
        "Legal transitions from 'research:approved' are: design, implement\n"
    )
    assert project.state("p/a") == "research:approved\n"


def test_subtask_view_does_not_offer_decomposition(
    project: Project, subtask_at_research_approved: str
) -> None:
    result = project.run("--task", "p/a")
    assert result.rc == 0
    assert one_line(result.out, "Next phase:") == "Next phase: design or implement"
    assert "decomposition" not in one_line(result.out, "Command to proceed:")
    assert one_line(result.out, "Command to proceed:").endswith("(PHASE: design or implement)")


def test_subtask_list_json_excludes_decomposition(
    project: Project, subtask_at_research_approved: str
) -> None:
    result = project.run("--list", "--json")
    assert result.rc == 0
    rows = {row["name"]: row for row in result.json["tasks"]}
    assert rows["p/a"]["next_states"] == ["design", "implement"]
    assert rows["p/a"]["next_step"] == "design or implement"


def test_top_level_task_may_still_decompose(project: Project, task_in) -> None:
    task_in("research:approved", name="top")
    listed = {row["name"]: row for row in project.run("--list", "--json").json["tasks"]}
    assert listed["top"]["next_states"] == ["decomposition", "design", "implement"]
    view = project.run("--task", "top")
    assert one_line(view.out, "Next phase:") == "Next phase: decomposition, design or implement"
    result = project.run("--task", "top", "--transition", "decomposition")
    assert result.rc == 0, result
    assert project.state("top") == "decomposition\n"


# -------------------------------------------------------------- --approve and resuming


def test_approve_refuses_with_a_forbidden_artifact(project: Project, task_in) -> None:
    name = task_in("design:awaiting_approval")
    project.write(name, "IMPLEMENTATION.md", "# skipped ahead\n")
    folder = project.task_dir(name)
    approvals = (folder / ".state.approvals").read_bytes()
    history = (folder / ".state.history").read_bytes()
    result = project.run("--task", name, "--approve")
    assert result.rc == 1
    assert "Found forbidden artifact 'IMPLEMENTATION.md'" in result.err
    assert result.err.startswith("ERROR: ")
    assert (folder / ".state.approvals").read_bytes() == approvals
    assert (folder / ".state.history").read_bytes() == history
    assert project.state(name) == "design:awaiting_approval\n"


LATER_THAN_RESEARCH = (
    "DESIGN.md",
    "TEST_PLAN.md",
    "IMPLEMENTATION.md",
    "BUG_REPORT.md",
    "ADVERSARIAL_BUG_REPORT.md",
    "DOC_REVIEW.md",
    "VERDICT.md",
)


def test_resume_at_research_needs_later_artifacts_archived(project: Project, task_in) -> None:
    name = task_in("human_intervention")
    result = project.run("--task", name, "--transition", "research")
    assert result.rc == 1
    prefix = "ERROR: Cannot transition from 'human_intervention' to 'research'."
    assert (
        f"{prefix} Found artifact 'IMPLEMENTATION.md' of a later phase in task folder. "
        "To resume at 'research', archive it first (rename it, e.g. to IMPLEMENTATION.v1.md)."
    ) in result.err.splitlines()
    for artifact in LATER_THAN_RESEARCH:
        assert f"Found artifact '{artifact}' of a later phase" in result.err, artifact
    assert "phase-skipping" not in result.err
    assert project.state(name) == "human_intervention\n"

    folder = project.task_dir(name)
    for artifact in LATER_THAN_RESEARCH:
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    result = project.run("--task", name, "--transition", "research")
    assert result.rc == 0, result
    assert project.state(name) == "research\n"

    validate = project.run("--validate-folder", "--task", name)
    assert ".v1.md" not in validate.out
    assert OUT_OF_ORDER_PASS in validate.out.splitlines()
    assert validate.rc == 0, validate


# --------------------------------------------------------------------------- --upgrade


def test_upgrade_restores_deleted_state_from_history(project: Project, task_in) -> None:
    name = task_in("design:approved", name="x")
    (project.task_dir(name) / ".state").unlink()
    result = project.run("--upgrade")
    assert result.rc == 0, result
    assert result.out == (
        "Upgraded task 'x': .state restored to 'design:approved' from .state.history\n"
    )
    assert project.state(name) == "design:approved\n"


def test_upgrade_restores_corrupt_state_from_history(project: Project, task_in) -> None:
    name = task_in("design:approved", name="x")
    (project.task_dir(name) / ".state").write_text("implemnt\n")
    result = project.run("--upgrade")
    assert result.rc == 0, result
    assert result.out == (
        "Upgraded task 'x': .state restored to 'design:approved' from .state.history\n"
    )
    assert project.state(name) == "design:approved\n"
    assert project.run("--task", name).rc == 0


def test_upgrade_reports_unrestorable_state_and_adopts_the_rest(project: Project, task_in) -> None:
    name = task_in("design", name="x")
    (project.task_dir(name) / ".state").write_text("implemnt\n")
    (project.task_dir(name) / ".state.history").unlink()
    (project.tasks / "hand-a").mkdir()
    (project.tasks / "hand-a" / "SPEC.md").write_text("# spec\n")
    (project.tasks / "hand-b").mkdir()
    result = project.run("--upgrade")
    assert result.rc == 2
    assert result.err.startswith("ERROR: task x: Unknown phase 'implemnt'")
    assert "no .state.history to restore it from" in result.err
    assert project.state("hand-a") == "research\n"
    assert project.state("hand-b") == "new\n"
    assert project.state("x") == "implemnt\n"
    assert "Upgraded task 'hand-a': .state set to 'research' (inferred from SPEC.md)" in result.out
    assert "Upgraded task 'hand-b': .state set to 'new' (no artifacts)" in result.out


def test_upgrade_is_idempotent(project: Project, task_in) -> None:
    name = task_in("design:approved", name="x")
    (project.task_dir(name) / ".state").unlink()
    (project.tasks / "hand").mkdir()
    first = project.run("--upgrade")
    assert first.rc == 0, first
    history = (project.task_dir(name) / ".state.history").read_bytes()
    second = project.run("--upgrade")
    assert second.rc == 0, second
    assert second.out == f"No untracked tasks in {project.tasks.resolve()}/\n"
    assert (project.task_dir(name) / ".state.history").read_bytes() == history
    assert project.state(name) == "design:approved\n"
    assert project.state("hand") == "new\n"
