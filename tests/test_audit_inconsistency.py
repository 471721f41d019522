"""Audit category 2, state-artifact inconsistency (AR201–AR209): a state without its
artifacts or behind them, an approved state with no approval, .state edited by hand,
a history whose digest chain is broken or holds moves status.py never makes, approval
lines forged or edited, approved artifacts changed afterwards, and deleted histories.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    assert_clean,
    history,
    now,
    rewrite_history,
    stamp,
    with_code,
    write_config,
)

from automaton_rules.core import machine
from automaton_rules.testing import AutomatonProject

# ------------------------------------------- AR201, AR202: the state and its artifacts


@pytest.mark.parametrize(
    ("state", "artifact", "leftover"),
    [
        ("design:approved", "DESIGN.md", None),
        ("bug_find", "IMPLEMENTATION.md", None),
        ("bug_find", "IMPLEMENTATION.md", "   \n"),
        ("referee", "SPEC.md", None),
    ],
)
def test_ar201_state_without_its_artifacts(
    automaton_project: AutomatonProject, state: str, artifact: str, leftover: str | None
) -> None:
    folder = automaton_project.task("login", state)
    assert with_code(automaton_project.audit(), "AR201") == []
    (folder / artifact).unlink()
    if leftover is not None:
        (folder / artifact).write_text(leftover)
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR201")
    assert finding["task"] == "login"
    assert finding["severity"] == "error"
    assert finding["message"] == f'.state says "{state}" but {artifact} is missing or empty'
    assert f'[FAIL] login: .state says "{state}" but {artifact} is missing or empty' in (audit.text)
    assert audit.exit_code == 1


def test_ar201_decomposed_parent_completes_without_implementation(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("payments", "decomposition:approved")
    automaton_project.task("payments/stripe-client", "complete")
    result = automaton_project.run("--task", "payments", "--transition", "complete")
    assert result.exit_code == 0, result
    audit = automaton_project.audit()
    assert with_code(audit, "AR201") == [], audit.text


def test_ar202_artifact_ahead_of_the_state_is_a_warning_with_a_correction(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("ahead", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    audit = automaton_project.audit("--ignore", "AR101")
    (finding,) = audit.findings
    assert finding["code"] == "AR202"
    assert finding["severity"] == "warning"
    assert finding["correction"] == "implement"
    assert finding["category"] == "State-Artifact Inconsistency"
    assert (
        '[WARN] ahead: .state says "research" but IMPLEMENTATION.md exists'
        " — suggested correction: implement"
    ) in audit.text.splitlines()
    assert audit.exit_code == 0  # a warning alone does not fail the audit


def test_ar202_names_every_artifact_ahead(automaton_project: AutomatonProject) -> None:
    automaton_project.task("ahead", "design", files=["IMPLEMENTATION.md", "BUG_REPORT.md"])
    (finding,) = with_code(automaton_project.audit(), "AR202")
    assert finding["message"] == '.state says "design" but IMPLEMENTATION.md, BUG_REPORT.md exist'
    assert finding["correction"] == "bug_find"


# --------------------------------------------- AR203, AR204: the state and its records


def test_ar203_approved_state_without_approval_line(automaton_project: AutomatonProject) -> None:
    automaton_project.task("approved", "research:approved")
    folder = automaton_project.task("forged", "research:awaiting_approval")
    assert_clean(automaton_project.audit())
    (folder / ".state").write_text("research:approved\n")
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR203")
    assert finding["task"] == "forged"
    assert finding["message"] == (
        '.state says "research:approved" but .state.approvals has no research:approved line'
    )
    assert automaton_project.audit().for_task("approved") == []
    assert audit.exit_code == 1


def test_ar204_state_edited_by_hand(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("eager", "research:approved")
    automaton_project.task("honest", "implement")
    assert_clean(automaton_project.audit())
    (folder / ".state").write_text("implement\n")  # echo implement > .state
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR204")
    assert finding["task"] == "eager"
    assert finding["path"] == ".automaton/tasks/eager/.state"
    assert 'ends at "research:approved"' in finding["message"]
    assert "changed outside status.py" in finding["message"]
    assert audit.for_task("honest") == []
    assert audit.exit_code == 1


def test_ar204_last_history_line_not_json(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("chained", "design")
    path = folder / ".state.history"
    lines = path.read_text().splitlines()
    lines[-1] = "not json at all"
    path.write_text("".join(f"{line}\n" for line in lines))
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR204")
    assert "an unreadable line" in finding["message"]
    assert finding["message"].startswith('.state says "design" but .state.history ends at ')
    assert audit.exit_code == 1


# ----------------------------------------------------------- AR205, AR209: the history


def _edit_line(lines: list[str]) -> list[str]:
    entry = json.loads(lines[2])
    entry["actor"] = "someone-else"
    return [*lines[:2], json.dumps(entry, separators=(",", ":")), *lines[3:]]


@pytest.mark.parametrize(
    ("tamper", "line"),
    [
        pytest.param(_edit_line, 4, id="line-edited"),
        pytest.param(lambda lines: lines[:2] + lines[3:], 3, id="line-deleted"),
        pytest.param(lambda lines: lines[2:], 1, id="first-lines-truncated"),
    ],
)
def test_ar205_history_tampered(automaton_project: AutomatonProject, tamper, line: int) -> None:
    folder = automaton_project.task("chained", "design:approved")
    assert_clean(automaton_project.audit())
    path = folder / ".state.history"
    lines = path.read_text().splitlines()
    assert len(lines) == 7
    path.write_text("".join(f"{x}\n" for x in tamper(lines)))
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR205")
    assert finding["message"].startswith(f".state.history line {line} ")
    assert finding["path"] == ".automaton/tasks/chained/.state.history"
    assert "AR204" not in audit.codes  # the last line still matches .state
    assert audit.exit_code == 1


def test_ar205_history_truncated_and_rechained(automaton_project: AutomatonProject) -> None:
    """Cutting the first lines and fixing up the chain still leaves a history without a start."""
    folder = automaton_project.task("chained", "design:approved")
    rewrite_history(folder, history(folder)[2:])
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR205")
    assert finding["message"] == (
        ".state.history line 1 does not start the task's history (earlier lines were removed)"
    )


def _appended(source: str, target: str, command: str) -> dict[str, Any]:
    return {"time": stamp(now()), "from": source, "to": target, "actor": "a", "command": command}


@pytest.mark.parametrize(
    ("state", "extra", "words"),
    [
        pytest.param(
            "research",
            _appended("research", "implement", "--transition implement"),
            "'research' to 'implement' is not a legal transition",
            id="skips-the-gates",
        ),
        pytest.param(
            "design:awaiting_approval",
            _appended(
                "design:awaiting_approval", "design:approved", "--transition design:approved"
            ),
            "'design:awaiting_approval' to 'design:approved' is not a legal transition",
            id="approval-as-a-transition",
        ),
        pytest.param(
            "research",
            _appended("research", "research:approved", "--approve"),
            "approves 'research:approved' from 'research'",
            id="approval-of-a-gate-not-reached",
        ),
        pytest.param(
            "research",
            _appended("implement", "bug_find", "--transition bug_find"),
            "starts at 'implement' but the line before ends at 'research'",
            id="does-not-follow",
        ),
        pytest.param(
            "research",
            _appended("research", "research:awaiting_approval", "--edit"),
            "command '--edit' does not change a task's state",
            id="unknown-command",
        ),
    ],
)
def test_ar209_a_rechained_line_that_is_no_move(
    automaton_project: AutomatonProject, state: str, extra: dict[str, Any], words: str
) -> None:
    """A line appended by hand with a correct digest passes AR205, and not AR209."""
    folder = automaton_project.task("forged", state)
    assert_clean(automaton_project.audit())
    entries = history(folder)
    rewrite_history(folder, [*entries, extra])
    (folder / ".state").write_text(f"{extra['to']}\n")  # and .state to match: AR204 is silent
    audit = automaton_project.audit()
    assert "AR205" not in audit.codes and "AR204" not in audit.codes, audit.text
    (finding,) = with_code(audit, "AR209")
    assert finding["message"] == (
        f".state.history line {len(entries) + 1} is not a move status.py makes: {words}"
    )
    assert audit.exit_code == 1


def test_an_approval_line_of_no_phase_is_reported_not_a_crash(
    automaton_project: AutomatonProject,
) -> None:
    """A forged `--approve` line naming no phase is a finding (AR209), never a rule error."""
    folder = automaton_project.task("forged", "research:approved")
    bogus = {
        **history(folder)[-1],
        "from": "research:approved",
        "to": "bogus:approved",
        "artifact_sha256": "0" * 64,
    }
    rewrite_history(folder, [*history(folder), bogus])
    audit = automaton_project.audit()
    assert audit.exit_code == 1, audit.text
    assert "AR209" in audit.codes
    assert json.loads(automaton_project.run("--audit", "--json").out)["errors"] == []


def test_ar209_every_move_status_py_makes_is_one(automaton_project: AutomatonProject) -> None:
    """Approvals, transitions back from human_intervention, sub-tasks, restores: all clean."""
    automaton_project.task("whole", "complete")
    folder = automaton_project.task("back", "human_intervention", files=["TEST_PLAN.md"])
    for artifact in ("DESIGN.md", "TEST_PLAN.md", "IMPLEMENTATION.md", "BUG_REPORT.md"):
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    for artifact in ("ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md", "VERDICT.md"):
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    assert automaton_project.run("--task", "back", "--transition", "design").exit_code == 0
    automaton_project.task("parent", "decomposition:approved")
    automaton_project.task("parent/sub", "implement")
    restored = automaton_project.task("restored", "design")
    (restored / ".state").write_text("garbage\n")
    assert automaton_project.run("--upgrade").exit_code == 0
    audit = automaton_project.audit()
    assert "AR209" not in audit.codes, audit.text
    assert_clean(audit)


def test_ar205_history_line_that_is_not_json(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("chained", "design")
    path = folder / ".state.history"
    lines = path.read_text().splitlines()
    lines[1] = "not json"
    path.write_text("".join(f"{x}\n" for x in lines))
    (finding,) = with_code(automaton_project.audit(), "AR205")
    assert finding["message"] == ".state.history line 2 is not a JSON object"


# ------------------------------------------------------------- AR206, AR207: approvals


def _forge(text: str) -> str:
    return text + "design:approved|2026-01-01T00:00:00Z|mallory\n"


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        pytest.param(_forge, "was not written by --approve", id="forged"),
        pytest.param(
            lambda text: text.replace("|user", "|mallory"),
            "differs from the approval recorded in .state.history",
            id="approver-edited",
        ),
        pytest.param(
            lambda text: text.replace(text[18:22], "1999"),
            "differs from the approval recorded in .state.history",
            id="time-edited",
        ),
        pytest.param(lambda text: "", "is missing from .state.approvals", id="deleted"),
    ],
)
def test_ar206_approval_log_tampered(automaton_project: AutomatonProject, tamper, words) -> None:
    folder = automaton_project.task("gated", "design")
    assert_clean(automaton_project.audit())
    path = folder / ".state.approvals"
    original = path.read_text()
    assert original.startswith("research:approved|")
    path.write_text(tamper(original))
    audit = automaton_project.audit()
    found = with_code(audit, "AR206")
    assert len(found) == 1, audit.text
    assert words in found[0]["message"]
    assert found[0]["path"] == ".automaton/tasks/gated/.state.approvals"
    assert audit.exit_code == 1


def test_ar207_approved_artifact_rewritten(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("signed", "design")
    assert_clean(automaton_project.audit())
    (folder / "SPEC.md").write_text("# A different spec\n")
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR207")
    assert finding["message"].startswith("SPEC.md changed after its approval at ")
    assert finding["path"] == ".automaton/tasks/signed/SPEC.md"
    assert audit.exit_code == 1


def test_ar207_approved_artifact_removed(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("signed", "design:approved")
    (folder / "DESIGN.md").unlink()
    (finding,) = with_code(automaton_project.audit(), "AR207")
    assert finding["message"].startswith("DESIGN.md was removed after its approval at ")


def _reopen_at_research(project: AutomatonProject) -> Path:
    """A task taken to human_intervention, its SPEC.md rewritten, resumed at research after
    the later artifacts were archived (as docs/decisions.md asks); SPEC.md rewritten again."""
    folder = project.task("reopened", "human_intervention", files=["TEST_PLAN.md"])
    (folder / "SPEC.md").write_text("# The spec, rethought\n")
    assert "AR207" in project.audit().codes  # still under the old approval
    for artifact in (
        "DESIGN.md",
        "TEST_PLAN.md",
        "IMPLEMENTATION.md",
        "BUG_REPORT.md",
        "ADVERSARIAL_BUG_REPORT.md",
        "DOC_REVIEW.md",
        "VERDICT.md",
    ):
        (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    result = project.run("--task", "reopened", "--transition", "research")
    assert result.exit_code == 0, result
    (folder / "SPEC.md").write_text("# The spec, rethought again\n")
    return folder


def test_ar207_reopened_phase_is_not_held_to_its_old_approval(
    automaton_project: AutomatonProject,
) -> None:
    _reopen_at_research(automaton_project)
    audit = automaton_project.audit()
    assert [f for f in with_code(audit, "AR207") if f["path"].endswith("/SPEC.md")] == []


def test_ar207_not_reported_after_the_task_is_reopened(
    automaton_project: AutomatonProject,
) -> None:
    """human_intervention → research reopens research and every phase after it: the old
    sign-offs of DESIGN.md and TEST_PLAN.md no longer hold either (those files had to be
    archived for the transition to be allowed at all)."""
    _reopen_at_research(automaton_project)
    audit = automaton_project.audit()
    assert "AR207" not in audit.codes, audit.text
    assert_clean(audit)


# ------------------------------------------------------------ AR208: a deleted history


def test_ar208_deleted_history_of_a_task_made_by_status_py_is_an_error(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("made", "design:approved")
    (folder / ".state").write_text("implement\n")
    (folder / ".state.history").unlink()
    audit = automaton_project.audit()
    assert audit.exit_code == 1
    (finding,) = [f for f in audit.findings if f["code"] == "AR208"]
    assert finding["severity"] == "error"
    assert finding["message"].startswith(".state.history was deleted")


def test_ar208_task_without_history_is_a_note_not_tampering(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("legacy", "research:approved")
    (folder / ".state.history").unlink()
    (folder / ".state.mutex").unlink()  # a task from an older version has neither
    audit = automaton_project.audit()
    assert audit.codes == ["AR208"]
    (finding,) = audit.findings
    assert finding["severity"] == "note"
    assert finding["path"] == ".automaton/tasks/legacy/.state.history"
    assert not {"AR203", "AR204", "AR205", "AR206", "AR207"} & set(audit.codes)
    assert audit.exit_code == 0
    lines = audit.text.splitlines()
    assert any(line.startswith("[NOTE] legacy: no .state.history") for line in lines)
    assert "0 violations found" in lines
    assert not any(line.startswith("  - legacy") for line in lines)  # notes stay out


def test_ar208_deleted_history_is_an_error(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("made", "research", files=["SPEC.md"])
    assert (folder / ".state.mutex").exists()
    (folder / ".state.history").unlink()
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR208")
    assert finding["severity"] == "error"
    assert ".state.history was deleted" in finding["message"]
    assert audit.exit_code == 1
    assert any(
        line.startswith("[FAIL] made: .state.history was deleted")
        for line in audit.text.splitlines()
    )


def test_ar208_task_from_an_older_version_is_a_note(automaton_project: AutomatonProject) -> None:
    folder = automaton_project.task("legacy", "research", files=["SPEC.md"])
    (folder / ".state.history").unlink()
    (folder / ".state.mutex").unlink()
    audit = automaton_project.audit()
    assert audit.codes == ["AR208"]
    assert audit.findings[0]["severity"] == "note"
    assert ".state.history was deleted" not in audit.findings[0]["message"]
    assert audit.exit_code == 0


# --------------------------------------- AR212: long in implement, no IMPLEMENTATION.md

# The specification's example: "If .state says "implement" but only SPEC.md exists (no
# IMPLEMENTATION.md), the state may be wrong".
SPEC_ONLY = (
    '.state says "implement" but only SPEC.md exists (no IMPLEMENTATION.md after 24 hours '
    "in implement), the state may be wrong"
)


def _spec_only(project: AutomatonProject, name: str = "login") -> Path:
    """A task that went from research straight to implement: only SPEC.md exists."""
    return project.task(name, "implement", via=["research:approved"])


def test_ar212_task_in_implement_with_only_spec_md_warns_after_the_threshold(
    automaton_project: AutomatonProject,
) -> None:
    _spec_only(automaton_project)
    assert with_code(automaton_project.audit(), "AR212") == []
    automaton_project.clock.advance(hours=24)  # exactly the threshold: not yet longer
    assert with_code(automaton_project.audit(), "AR212") == []
    automaton_project.clock.advance(seconds=1)
    audit = automaton_project.audit()
    (finding,) = with_code(audit, "AR212")
    assert finding["task"] == "login"
    assert finding["severity"] == "warning"
    assert finding["message"] == SPEC_ONLY
    assert finding["correction"] == "research"
    assert f"[WARN] login: {SPEC_ONLY} — suggested correction: research" in (
        audit.text.splitlines()
    )
    assert audit.exit_code == 0  # a warning: the task may simply be slow


def test_ar212_threshold_is_implementation_due_hours(
    automaton_project: AutomatonProject,
) -> None:
    write_config(automaton_project, "implementation-due-hours = 1.5\n")
    _spec_only(automaton_project)
    automaton_project.clock.advance(minutes=90)
    assert with_code(automaton_project.audit(), "AR212") == []
    automaton_project.clock.advance(minutes=5)
    (finding,) = with_code(automaton_project.audit(), "AR212")
    assert "(no IMPLEMENTATION.md after 95 minutes in implement)" in finding["message"]
    automaton_project.clock.advance(hours=72)
    (finding,) = with_code(automaton_project.audit(), "AR212")
    assert "(no IMPLEMENTATION.md after 3 days in implement)" in finding["message"]


def test_ar212_names_the_artifacts_present_and_an_empty_implementation(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("full-route", "implement", files=["TEST_PLAN.md"])
    (folder / "IMPLEMENTATION.md").write_text(" \n")
    automaton_project.clock.advance(hours=30)
    (finding,) = with_code(automaton_project.audit(), "AR212")
    assert finding["message"] == (
        '.state says "implement" but only SPEC.md, DESIGN.md and TEST_PLAN.md exist '
        "(IMPLEMENTATION.md is empty after 30 hours in implement), the state may be wrong"
    )
    assert finding["correction"] == "test_design"


def test_ar212_quiet_once_implementation_md_is_written_or_the_task_moved_on(
    automaton_project: AutomatonProject,
) -> None:
    folder = _spec_only(automaton_project, "written")
    (folder / "IMPLEMENTATION.md").write_text("# Done\n")
    automaton_project.task("reviewed", "bug_find", via=["research:approved"])
    automaton_project.clock.advance(hours=48)
    assert with_code(automaton_project.audit(), "AR212") == []


def test_ar212_counts_from_the_last_time_the_task_entered_implement(
    automaton_project: AutomatonProject,
) -> None:
    folder = automaton_project.task("again", "human_intervention", via=["research:approved"])
    for artifact in machine.ARTIFACTS.values():  # archived for the new round
        if artifact != "SPEC.md" and (folder / artifact).exists():
            (folder / artifact).rename(folder / artifact.replace(".md", ".v1.md"))
    automaton_project.clock.advance(hours=47)
    moved = automaton_project.run("--task", "again", "--transition", "implement")
    assert moved.exit_code == 0, moved
    automaton_project.clock.advance(hours=2)
    assert with_code(automaton_project.audit(), "AR212") == []
    automaton_project.clock.advance(hours=23)
    (finding,) = with_code(automaton_project.audit(), "AR212")
    assert "after 25 hours in implement" in finding["message"]


def test_ar212_without_history_counts_from_when_state_was_written(
    automaton_project: AutomatonProject,
) -> None:
    """A task from before the history, or a `.state` written by hand: `.state`'s mtime."""
    folder = _spec_only(automaton_project)
    (folder / ".state.history").unlink()
    (folder / ".state.mutex").unlink()
    written = automaton_project.clock.time() - 26 * 3600
    os.utime(folder / ".state", (written, written))
    (finding,) = with_code(automaton_project.audit(), "AR212")
    assert "after 26 hours in implement" in finding["message"]
    hand = automaton_project.task("by-hand", "test_design:approved")
    (hand / ".state").write_text("implement\n")
    os.utime(hand / ".state", (written, written))
    audit = automaton_project.audit()
    assert {f["task"] for f in with_code(audit, "AR212")} == {"login", "by-hand"}
    assert [f["task"] for f in with_code(audit, "AR204")] == ["by-hand"]
