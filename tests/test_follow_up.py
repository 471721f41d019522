"""--follow-up: the fix task after a FAIL verdict, the review task after NEEDS_REVIEW.

Issue 4: "when a VERDICT.md says FAIL or NEEDS_REVIEW, one command creates the follow-up
task with the relevant artifacts copied and the start phase the workflow calls for
(e.g. bug_find), recording where it came from."
"""

from __future__ import annotations

import os

import pytest
from helpers import Project, history, path_to

EARLY = ("SPEC.md", "DESIGN.md", "TEST_PLAN.md", "IMPLEMENTATION.md")
LATE = ("BUG_REPORT.md", "ADVERSARIAL_BUG_REPORT.md", "DOC_REVIEW.md")


def content(artifact: str) -> bytes:
    """Distinct bytes per artifact, with CRLF, a non-UTF-8 byte and no final newline."""
    return f"# {artifact}\r\n\r\nbody of {artifact}\r\n".encode() + b"\xff\x00 end"


def artifacts_of(project: Project, name: str) -> dict[str, bytes]:
    """Every file of a task folder except the workflow's own `.state*` files."""
    folder = project.task_dir(name)
    return {
        entry.name: entry.read_bytes()
        for entry in folder.iterdir()
        if entry.is_file() and not entry.name.startswith(".state")
    }


# Spec section 6: the artifact each phase writes (typed out, not imported from the code).
OWN = {
    "research": "SPEC.md",
    "design": "DESIGN.md",
    "test_design": "TEST_PLAN.md",
    "implement": "IMPLEMENTATION.md",
    "bug_find": "BUG_REPORT.md",
    "adversarial_bug_find": "ADVERSARIAL_BUG_REPORT.md",
    "doc_review": "DOC_REVIEW.md",
}


@pytest.fixture
def judged(project: Project):
    """A task walked to referee through status.py, each artifact written in its own phase
    (with `content` bytes, so approvals stay valid), then VERDICT.md written."""

    def make(verdict_text: str, name: str = "add-user-auth", state: str = "referee") -> str:
        project.create(name)
        folder = project.task_dir(name)
        for target in path_to("referee"):
            phase = project.state(name).strip().split(":")[0]
            if phase in OWN and not (folder / OWN[phase]).exists():
                (folder / OWN[phase]).write_bytes(content(OWN[phase]))
            if target.endswith(":approved"):
                result = project.run("--task", name, "--approve")
            else:
                result = project.run("--task", name, "--transition", target)
            assert result.rc == 0, (target, result)
        assert project.state(name) == "referee\n"
        for artifact in EARLY + LATE:
            assert (folder / artifact).read_bytes() == content(artifact), artifact
        (folder / "VERDICT.md").write_text(verdict_text)
        if state == "complete":  # a failed verdict completes only as the user decides
            assert project.run("--task", name, "--transition", "human_intervention").rc == 0
        if state != "referee":
            assert project.run("--task", name, "--transition", state).rc == 0
        return name

    return make


FAIL_TEXT = "# Verdict\n\nThe tests PASS locally but the edge case crashes.\n\nVerdict: FAIL\n"
REVIEW_TEXT = "# Verdict\n\nVerdict: NEEDS_REVIEW\n\nA human should look at the migration.\n"


# --------------------------------------------------------------------------------------
# FAIL -> NAME-fix in bug_find
# --------------------------------------------------------------------------------------


def test_fail_creates_the_fix_task_in_bug_find(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 0, result
    assert result.out.startswith(
        f"Created task '{name}-fix' in state 'bug_find' from task '{name}' (VERDICT.md says FAIL)."
    ), result.out
    assert project.state(f"{name}-fix") == "bug_find\n"
    assert project.approvals(f"{name}-fix") == []


def test_fail_copies_the_earlier_artifacts_and_the_bug_report_byte_for_byte(
    project: Project, judged
) -> None:
    """v2.0: the fix task gets "relevant artifacts (SPEC.md, BUG_REPORT.md, etc.)": those
    before bug_find, and the bug report it starts from."""
    name = judged(FAIL_TEXT)
    assert project.run("--task", name, "--follow-up").rc == 0
    copied = artifacts_of(project, f"{name}-fix")
    expected = {artifact: content(artifact) for artifact in (*EARLY, "BUG_REPORT.md")}
    expected["ORIGIN_VERDICT.md"] = FAIL_TEXT.encode()
    assert copied == expected


def test_fail_copies_only_the_artifacts_present(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    os.unlink(project.task_dir(name) / "DESIGN.md")
    (project.task_dir(name) / "TEST_PLAN.md").write_text("   \n")  # empty: not carried
    assert project.run("--task", name, "--follow-up").rc == 0
    assert set(artifacts_of(project, f"{name}-fix")) == {
        "SPEC.md",
        "IMPLEMENTATION.md",
        "BUG_REPORT.md",
        "ORIGIN_VERDICT.md",
    }


def test_origin_task_is_left_as_it_was(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    folder = project.task_dir(name)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert project.run("--task", name, "--follow-up").rc == 0
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert after == before


def test_fix_task_history_records_its_origin(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    assert project.run("--task", name, "--follow-up").rc == 0
    entries = history(project.task_dir(f"{name}-fix"))
    assert len(entries) == 1
    first = entries[0]
    assert first["command"] == "--follow-up"
    assert (first["origin"], first["verdict"]) == (name, "FAIL")
    assert (first["from"], first["to"]) == (None, "bug_find")
    assert first["prev"] is None


def test_task_view_of_the_fix_task_names_its_origin(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    assert project.run("--task", name, "--follow-up").rc == 0
    result = project.run("--task", f"{name}-fix")
    assert result.rc == 0, result
    lines = result.out.splitlines()
    assert "Phase: bug_find (from .state)" in lines
    assert f"Follow-up of: {name} (VERDICT.md said FAIL; see ORIGIN_VERDICT.md)" in lines


def test_task_view_of_an_ordinary_task_has_no_follow_up_line(project: Project, task_in):
    task_in("implement", name="plain-task")
    assert "Follow-up of:" not in project.run("--task", "plain-task").out


def test_verdict_line_wins_over_other_verdict_words(project: Project, judged) -> None:
    """FAIL_TEXT mentions PASS before its `Verdict: FAIL` line."""
    name = judged(FAIL_TEXT)
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 0, result
    assert project.task_dir(f"{name}-fix").is_dir()


@pytest.mark.parametrize("state", ["complete", "human_intervention"])
def test_follow_up_after_the_referee_has_moved_on(project: Project, judged, state: str):
    name = judged(FAIL_TEXT, state=state)
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 0, result
    assert project.state(f"{name}-fix") == "bug_find\n"


# --------------------------------------------------------------------------------------
# NEEDS_REVIEW -> NAME-review in referee
# --------------------------------------------------------------------------------------


def test_needs_review_creates_the_review_task_in_referee(project: Project, judged) -> None:
    name = judged(REVIEW_TEXT)
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 0, result
    assert result.out.startswith(
        f"Created task '{name}-review' in state 'referee' from task '{name}' "
        "(VERDICT.md says NEEDS_REVIEW)."
    ), result.out
    assert project.state(f"{name}-review") == "referee\n"
    expected = {artifact: content(artifact) for artifact in EARLY + LATE}
    expected["ORIGIN_VERDICT.md"] = REVIEW_TEXT.encode()
    assert artifacts_of(project, f"{name}-review") == expected
    assert "VERDICT.md" not in artifacts_of(project, f"{name}-review")
    first = history(project.task_dir(f"{name}-review"))[0]
    assert (first["command"], first["origin"], first["verdict"]) == (
        "--follow-up",
        name,
        "NEEDS_REVIEW",
    )
    lines = project.run("--task", f"{name}-review").out.splitlines()
    assert f"Follow-up of: {name} (VERDICT.md said NEEDS_REVIEW; see ORIGIN_VERDICT.md)" in lines


# --------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------


def test_pass_verdict_is_refused(project: Project, judged) -> None:
    name = judged("# Verdict\n\nVerdict: PASS\n")
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 1, result
    assert "says PASS" in result.err
    assert not project.task_dir(f"{name}-fix").exists()
    assert sorted(p.name for p in project.tasks.iterdir()) == [name]


def test_no_verdict_is_refused(project: Project, judged) -> None:
    name = judged("# Verdict\n\nStill thinking.\n")
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 1, result
    assert sorted(p.name for p in project.tasks.iterdir()) == [name]


@pytest.mark.parametrize("state", ["research", "implement", "doc_review"])
def test_before_referee_is_refused(project: Project, task_in, state: str) -> None:
    name = task_in(state)
    (project.task_dir(name) / "VERDICT.md").write_text(FAIL_TEXT)
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 1, result
    assert result.err.startswith("ERROR: "), result
    assert sorted(p.name for p in project.tasks.iterdir()) == [name]


def test_name_option_names_the_new_task(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    result = project.run("--task", name, "--follow-up", "--name", "retry-auth")
    assert result.rc == 0, result
    assert project.state("retry-auth") == "bug_find\n"
    assert not project.task_dir(f"{name}-fix").exists()
    assert history(project.task_dir("retry-auth"))[0]["origin"] == name


def test_name_option_must_be_kebab_case(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    result = project.run("--task", name, "--follow-up", "--name", "Retry Auth")
    assert result.rc == 2, result
    assert "Invalid task name" in result.err


def test_existing_name_is_refused(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    assert project.run("--task", name, "--follow-up").rc == 0
    fix = project.task_dir(f"{name}-fix")
    before = {p.name: p.read_bytes() for p in fix.iterdir() if p.is_file()}
    result = project.run("--task", name, "--follow-up")
    assert result.rc == 1, result
    assert "already exists" in result.err
    assert {p.name: p.read_bytes() for p in fix.iterdir() if p.is_file()} == before

    project.create("taken-name")
    result = project.run("--task", name, "--follow-up", "--name", "taken-name")
    assert result.rc == 1, result
    assert "already exists" in result.err
    assert project.state("taken-name") == "new\n"


def test_follow_up_needs_task(project: Project) -> None:
    project.tasks.mkdir(parents=True)
    result = project.run("--follow-up")
    assert result.rc == 2
    assert result.err.startswith("ERROR: ")


# --------------------------------------------------------------------------------------
# The new task is a proper task
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [FAIL_TEXT, REVIEW_TEXT], ids=["fix", "review"])
def test_new_task_audits_clean(project: Project, judged, text: str) -> None:
    name = judged(text)
    assert project.run("--task", name, "--follow-up").rc == 0
    result = project.run("--audit", "--select", "AR1,AR2")
    assert result.rc == 0, result.out + result.err
    result = project.run("--validate-folder")
    assert result.rc == 0, result.out + result.err


def test_fix_task_continues_along_the_workflow(project: Project, judged) -> None:
    name = judged(FAIL_TEXT)
    assert project.run("--task", name, "--follow-up").rc == 0
    fix = f"{name}-fix"
    project.write(fix, "BUG_REPORT.md", "# bugs\n")
    result = project.run("--task", fix, "--transition", "adversarial_bug_find")
    assert result.rc == 0, result
