"""Specification section 11, "Audit command" (seeds/000): the six --audit acceptance
criteria, each through `status.py --audit` as CI runs it, and the section's statement
that category 2 suggests a correction.

The audit's rules one by one are in tests/test_audit_*.py.
"""

from __future__ import annotations

from typing import Any

from helpers import Project, backdate, git_project, now, section, with_code


def _audited(automaton_project: Any) -> Any:
    """Tasks with one violation in each of the four categories, in a git repository."""
    git_project(automaton_project)
    automaton_project.task("clean-task", "design", files=["SPEC.md", "DESIGN.md"])
    automaton_project.task("skipper", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    automaton_project.task("waiting", "research:awaiting_approval", files=["SPEC.md"])
    (automaton_project.tasks_dir / "waiting" / "SPEC.md").unlink()
    automaton_project.task("coder", "research", files=["SPEC.md"])
    backdate(automaton_project)
    automaton_project.commit({"src/app.py": "x = 2\n"}, "code", task="coder", when=now() - 600)
    (automaton_project.tasks_dir / "by-hand").mkdir()
    return automaton_project.audit()


def test_audit_flag_runs_all_categories_of_checks_across_all_tasks(automaton_project) -> None:
    """Criterion: "--audit flag runs all categories of checks across all tasks"."""
    audit = _audited(automaton_project)
    for number in range(1, 5):
        assert f"=== Category {number}:" in audit.text, audit.text
    audited = {task["name"] for task in audit.report["tasks"]}
    assert {"clean-task", "skipper", "waiting", "coder"} <= audited
    assert {f["task"] for f in audit.findings} >= {"skipper", "waiting", "coder", "by-hand"}


def test_audit_category_1_out_of_order_artifacts_per_phase(automaton_project) -> None:
    """Criterion: "--audit Category 1: out-of-order artifacts per phase"."""
    audit = _audited(automaton_project)
    (finding,) = [f for f in with_code(audit, "AR101") if f["task"] == "skipper"]
    assert finding["path"].endswith("skipper/IMPLEMENTATION.md")
    assert (
        "[FAIL] skipper (phase: research): found IMPLEMENTATION.md (implement phase "
        "artifact)" in audit.text
    )
    assert "[PASS] clean-task: no violations" in section(
        audit.text, "=== Category 1: Out-of-order Artifacts ==="
    )


def test_audit_category_2_state_artifact_inconsistency_including_approval_sub_states(
    automaton_project,
) -> None:
    """Criterion: "--audit Category 2: state-artifact inconsistency (including approval
    sub-states)": a task awaiting approval of a SPEC.md that is not there."""
    audit = _audited(automaton_project)
    waiting = [f for f in audit.findings if f["task"] == "waiting"]
    assert any(f["category"] == "State-Artifact Inconsistency" for f in waiting), audit.text
    assert any("research:awaiting_approval" in f["message"] for f in waiting), waiting


def test_audit_category_3_unauthorized_git_modifications_with_graceful_skip(
    automaton_project, tmp_path
) -> None:
    """Criterion: "--audit Category 3: unauthorized git modifications (with graceful skip
    if no git repo)"."""
    audit = _audited(automaton_project)
    (finding,) = with_code(audit, "AR301")
    assert (finding["task"], finding["path"]) == ("coder", "src/app.py")
    bare = Project(tmp_path / "no-git")
    bare.root.mkdir()
    bare.task("coder", "research", files=["SPEC.md"])
    skipped = bare.audit()
    assert skipped.exit_code == 0, skipped.text
    assert "not a git repository" in skipped.text


def test_audit_category_4_manually_created_task_folders(automaton_project) -> None:
    """Criterion: "--audit Category 4: manually created task folders (no .state file)"."""
    audit = _audited(automaton_project)
    (finding,) = with_code(audit, "AR401")
    assert finding["task"] == "by-hand"
    assert "by-hand" in "\n".join(
        section(audit.text, "=== Category 4: Manually Created Task Folders ===")
    )


def test_audit_outputs_structured_report_with_exit_codes(automaton_project, tmp_path) -> None:
    """Criterion: "--audit outputs structured report with exit codes (0=clean,
    1=violations, 2=error)"."""
    audit = _audited(automaton_project)
    assert audit.exit_code == 1
    assert audit.report["exit_code"] == 1
    assert audit.report["summary"]["violations"] >= 4
    clean = Project(tmp_path / "clean")
    clean.root.mkdir()
    clean.task("fine", "design", files=["SPEC.md", "DESIGN.md"])
    assert clean.audit().exit_code == 0
    (clean.root / "automaton.toml").write_text("no-such-key = 1\n")
    broken = clean.run("--audit")
    assert broken.rc == 2
    assert broken.err.startswith("ERROR: ")


# The section's statement beyond the criteria.


def test_audit_category_2_reports_each_inconsistency_with_a_suggested_correction(
    automaton_project,
) -> None:
    """Spec section 11, Category 2: "Reports each inconsistency with a suggested
    correction" -- the phase the task belongs in: a task awaiting approval of a SPEC.md
    that is gone is back in research (not `new`, which no artifact would suggest)."""
    automaton_project.task("waiting", "research:awaiting_approval")
    (automaton_project.task_dir("waiting") / "SPEC.md").unlink()
    automaton_project.task("stalled", "bug_find")
    (automaton_project.task_dir("stalled") / "IMPLEMENTATION.md").write_text("  \n")
    audit = automaton_project.audit()
    corrections = {(f["task"], f["code"]): f["correction"] for f in audit.findings}
    assert corrections[("waiting", "AR201")] == "research"
    assert corrections[("stalled", "AR201")] == "implement"
    assert (
        '[FAIL] waiting: .state says "research:awaiting_approval" but SPEC.md is missing or '
        "empty — suggested correction: research" in audit.text.splitlines()
    )


def test_audit_category_2_implement_with_only_spec_md_may_be_a_wrong_state(
    automaton_project,
) -> None:
    """Spec section 11, Category 2: "If .state says "implement" but only SPEC.md exists (no
    IMPLEMENTATION.md), the state may be wrong" -- a `[WARN]` once the task has been in
    implement longer than `implementation-due-hours` (24 by default): before that, it has
    not written IMPLEMENTATION.md yet."""
    automaton_project.task("fix-login-bug", "implement", via=["research:approved"])
    heading = "=== Category 2: State-Artifact Inconsistency ==="
    fresh = automaton_project.audit()
    assert section(fresh.text, heading) == [
        '[PASS] fix-login-bug: .state ("implement") matches artifacts (SPEC.md exists)'
    ], fresh.text
    automaton_project.clock.advance(hours=25)
    audit = automaton_project.audit()
    assert section(audit.text, heading) == [
        '[WARN] fix-login-bug: .state says "implement" but only SPEC.md exists (no '
        "IMPLEMENTATION.md after 25 hours in implement), the state may be wrong — suggested "
        "correction: research"
    ], audit.text
    assert audit.exit_code == 0
