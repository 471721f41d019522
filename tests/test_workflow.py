"""Moving tasks beyond the acceptance tests: a sub-task never enters decomposition,
--approve consults the transition rules, resuming from human_intervention needs the
later artifacts archived, and --upgrade restores a lost or corrupt .state from its
history before it guesses from artifacts. Then the v2.0 workflow's statements (seeds/001:
its release notes and workflow.md) that status.py carries out, each test named after the
statement it checks and quoting it. Claims and follow-up tasks, the other operations,
have their own files (test_claims.py, test_follow_up.py).
"""

from __future__ import annotations

import pytest
from helpers import OUT_OF_ORDER_PASS, SCRIPT_CALL, Project, one_line, path_to, put

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


# --------------------------------------------------- the v2.0 workflow's statements


def test_autopilot_pauses_when_the_referee_identifies_tie_breaks(project, task_in):
    """v2.0, Autopilot Rules 5: "If the Referee marks a task as FAIL, NEEDS_REVIEW, or
    identifies "Tie-Breaks", the Autopilot pauses and waits for user input." A PASS that
    names tie-breaks does not complete; the task goes to human_intervention."""
    name = task_in("referee")
    verdict = project.write(
        name,
        "VERDICT.md",
        "Verdict: PASS\n\n## Tie-Breaks\n- retries stay at 3: BUG_REPORT.md and "
        "ADVERSARIAL_BUG_REPORT.md disagreed\n",
    )
    result = project.run("--task", name, "--transition", "complete")
    assert result.rc == 1, result
    root = project.root.resolve()
    assert result.err == (
        f"ERROR: Cannot transition from 'referee' to 'complete'. VERDICT.md says PASS but "
        "names tie-breaks: the task does not complete on points the user has not settled; the "
        "workflow pauses for the user. Move it to human_intervention "
        f"({SCRIPT_CALL} --task {name} --transition human_intervention --project {root}), where "
        f"the user decides; {SCRIPT_CALL} --task {name} --follow-up --project {root} creates the "
        "tiebreak task.\n"
    )
    assert project.state(name) == "referee\n"
    verdict.write_text("Verdict: PASS\n\n## Tie-Breaks\nNone.\n")  # none named: it completes
    assert project.run("--task", name, "--transition", "complete").rc == 0


def test_task_creation_from_bugs_creates_fix_review_tiebreak_tasks(project, task_in):
    """v2.0, Task creation from bugs: the Orchestrator "uses status.py --create-task
    --project {project} to create fix/review/tiebreak tasks" -- `--follow-up` makes each:
    a fix task after FAIL, a review task after NEEDS_REVIEW, a tiebreak task after a PASS
    that names tie-breaks, the last starting in referee for a fresh ruling."""
    made = {}
    for verdict in ("FAIL", "NEEDS_REVIEW", "PASS\n\nTie-breaks: the cache size"):
        name = task_in("referee", name=f"from-{verdict[:4].lower().rstrip('_')}")
        project.write(name, "VERDICT.md", f"Verdict: {verdict}\n")
        assert project.run("--task", name, "--transition", "human_intervention").rc == 0
        result = project.run("--task", name, "--follow-up")
        assert result.rc == 0, result
        made[verdict.split()[0]] = result.out.splitlines()[0]
    assert made == {
        "FAIL": "Created task 'from-fail-fix' in state 'bug_find' from task 'from-fail' "
        "(VERDICT.md says FAIL). Next: adversarial_bug_find",
        "NEEDS_REVIEW": "Created task 'from-need-review' in state 'referee' from task "
        "'from-need' (VERDICT.md says NEEDS_REVIEW). Next: complete or human_intervention",
        "PASS": "Created task 'from-pass-tiebreak' in state 'referee' from task 'from-pass' "
        "(VERDICT.md says PASS with tie-breaks). Next: complete or human_intervention",
    }
    shown = project.run("--task", "from-pass-tiebreak").out
    assert (
        "Follow-up of: from-pass (VERDICT.md said PASS with tie-breaks; see ORIGIN_VERDICT.md)"
        in shown.splitlines()
    )
    copied = sorted(p.name for p in project.task_dir("from-pass-tiebreak").iterdir())
    assert "ORIGIN_VERDICT.md" in copied and "VERDICT.md" not in copied


def test_orchestrator_copies_relevant_artifacts_spec_md_bug_report_md(project, task_in):
    """v2.0: "The Orchestrator also copies relevant artifacts (SPEC.md, BUG_REPORT.md,
    etc.) and sets .state to the appropriate phase (e.g., bug_find for fix tasks)"."""
    name = task_in("referee")
    project.write(name, "BUG_REPORT.md", "# Bugs\n- the login times out\n")
    project.write(name, "VERDICT.md", "Verdict: FAIL\n")
    assert project.run("--task", name, "--follow-up").rc == 0
    fix = project.task_dir(f"{name}-fix")
    assert project.state(f"{name}-fix") == "bug_find\n"
    assert (fix / "SPEC.md").read_bytes() == (project.task_dir(name) / "SPEC.md").read_bytes()
    assert (fix / "BUG_REPORT.md").read_text() == "# Bugs\n- the login times out\n"
    assert not (fix / "ADVERSARIAL_BUG_REPORT.md").exists()  # a later phase: not carried


def test_claim_default_timeout_30_minutes_configurable_in_agent_md(project, monkeypatch):
    """v2.0, .state.lock: "Default timeout: 30 minutes (configurable in .agent.md)", with
    automaton.toml's `claim-timeout-minutes` taking precedence when it sets one."""
    monkeypatch.delenv("AUTOMATON_AGENT", raising=False)
    put(project, "research", name="shared")
    agent = project.root / ".agent.md"

    def claimed_for(setting: str) -> str:
        agent.write_text(f"# Agents\n\nMode: multi-agent\n{setting}")
        project.run("--task", "shared", "--release", "--agent", "a1")
        result = project.run("--task", "shared", "--claim", "--agent", "a1")
        assert result.rc == 0, result
        return result.out

    assert "for 30 minutes" in claimed_for("")
    assert "for 45 minutes" in claimed_for("Claim timeout: 45 minutes\n")
    assert "for 90 minutes" in claimed_for("- **Claim timeout:** 1.5 hours\n")
    (project.root / "automaton.toml").write_text("claim-timeout-minutes = 10\n")
    assert "for 10 minutes" in claimed_for("Claim timeout: 45 minutes\n")
    (project.root / "automaton.toml").write_text("")
    agent.write_text("Mode: multi-agent\nClaim timeout: forever\n")
    refused = project.run("--task", "shared", "--claim", "--agent", "a2")
    assert refused.rc == 2
    assert refused.err == (
        f"ERROR: 'claim timeout' in {agent} must be a positive number of minutes "
        "(e.g. 'Claim timeout: 45 minutes'), not 'forever'\n"
    )


def test_project_flag_added_to_all_status_py_commands(project, task_in):
    """v2.0: "--project flag added to all status.py commands": every command status.py
    suggests names the project, so it runs as pasted from any folder (the one exception
    is the specification's own sentence "Use '... --create-task' to create tasks
    properly", kept word for word)."""
    task_in("research:awaiting_approval", name="waiting")
    task_in("referee", name="judged")
    project.write("judged", "VERDICT.md", "Verdict: FAIL\n")
    (project.tasks / "by-hand").mkdir()
    (project.tasks / "by-hand" / "SPEC.md").write_text("# spec\n")
    outputs = [
        project.run("--task", "waiting"),
        project.run("--list"),
        project.run("--validate-folder", "--task", "by-hand"),
        project.run("--task", "by-hand"),
        project.run("--task", "judged", "--transition", "complete"),
        project.run("--task", "waiting", "--transition", "design"),
        project.run("--task", "judged", "--approve"),
    ]
    suggested = [
        line[line.index(SCRIPT_CALL) :]
        for result in outputs
        for line in (result.out + result.err).splitlines()
        if SCRIPT_CALL in line and "to create tasks properly" not in line
    ]
    assert len(suggested) >= 6, suggested
    root = f"--project {project.root.resolve()}"
    assert [line for line in suggested if root not in line] == []
