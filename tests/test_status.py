"""Acceptance tests of the status.py specification (seeds/000, "Acceptance Criteria").

Each test is named after the criterion it checks and quotes it in its docstring. This file
holds the criteria of the commands: status.py itself (specification section 1), --task
(section 2), --transition (sections 5, 6 and 13), --approve (5a), --create-task (5c),
--list (7) and --validate-folder (10). The criteria that sum up a section of their own are
in the file named after that section:

- tests/test_status_state.py: section 3, state determination (the fallback to the
  artifact heuristic, "unknown");
- tests/test_status_transitions.py: sections 4, 5 and 5b (atomic .state writes,
  transition validation over every pair of states, the approval log);
- tests/test_status_paths.py: section 8, project path resolution;
- tests/test_status_subtasks.py: section 9, sub-task support;
- tests/test_status_audit.py: section 11, the --audit criteria;
- tests/test_status_errors.py: section 12, clear error messages (with DESIGN.md section
  7: exit codes, no traceback, --json);
- tests/test_status_hooks.py: section 14, the tool integration hooks.

The v2.0 workflow's statements (seeds/001) are in tests/test_workflow.py.
spec_tables.ACCEPTANCE_CRITERIA lists every criterion with the name of its tests, and
test_tests_in_tests_test_status_py holds that list to these files. The workflow tables
(states, legal transitions, required and forbidden artifacts) are typed out from the
specification in spec_tables.py on purpose: the tests compare the code with the
specification, so they must not import the tables from the code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import ROOT, SCRIPT_CALL, STATUS_PY, entries_below, no_traceback, one_line, put
from spec_tables import (
    ACCEPTANCE_CRITERIA,
    ALL_ARTIFACTS,
    APPROVAL_LINE,
    APPROVAL_PHASES,
    FORBIDDEN_TABLE,
    LEGAL,
    OWNER,
    PHASES,
    REQUIRED,
    STATES,
    base,
    own_artifacts,
)

SPEC_SCRIPT = "python ~/.automaton/scripts/status.py"  # the specification's own sentence
TASK_PREFIXES = (
    "Task: ",
    "Phase: ",
    "State file: ",
    "Allowed actions:",
    "Forbidden actions:",
    "Next artifact needed: ",
    "Next phase: ",
    "Command to proceed: ",
)


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def items_under(out: str, header: str) -> list[str]:
    """The `  - item` lines under a header such as `Allowed actions:`."""
    lines = out.splitlines()
    start = lines.index(header) + 1
    items = []
    for line in lines[start:]:
        if not line.startswith("  - "):
            break
        items.append(line[4:])
    return items


def field(out: str, prefix: str) -> str:
    """What follows `prefix` on the one line of `out` that starts with it."""
    return one_line(out, prefix)[len(prefix) :]


# --------------------------------------------------------------------------------------
# status.py exists
# --------------------------------------------------------------------------------------


def test_status_py_exists(tmp_path):
    """Criterion: "status.py exists in ~/.automaton/scripts/".

    The repository's status.py is the script that gets installed there; it runs as
    `python status.py --help` in a fresh interpreter and names every action.
    """
    assert STATUS_PY.is_file()
    proc = subprocess.run(
        [sys.executable, str(STATUS_PY), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode == 0, proc
    for flag in ("--task", "--transition", "--approve", "--create-task", "--list"):
        assert flag in proc.stdout
    assert "--validate-folder" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


# --------------------------------------------------------------------------------------
# --task
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", STATES)
def test_task_flag_shows_current_phase_allowed_actions_forbidden_actions_next_artifact_next_phase(
    project, state
):
    """Criterion: "--task flag shows current phase (including approval sub-states), allowed
    actions, forbidden actions, next artifact, next phase".

    Checked for every state with the line prefixes of spec section 2, in its order.
    """
    name = put(project, state)
    result = project.run("--task", name)
    assert result.rc == 0, result
    out = result.out
    lines = lines_of(out)
    assert lines[0] == f"Task: {name}"
    assert f"Phase: {state} (from .state)" in lines
    state_file = project.root.resolve() / ".automaton" / "tasks" / name / ".state"
    assert f"State file: {state_file}" in lines
    # The spec's lines appear in the spec's order (other lines may sit between them).
    positions = [
        next(i for i, line in enumerate(lines) if line.startswith(prefix))
        for prefix in TASK_PREFIXES
    ]
    assert positions == sorted(positions), out
    allowed = items_under(out, "Allowed actions:")
    forbidden = items_under(out, "Forbidden actions:")
    assert allowed, out
    assert forbidden, out
    # Code edits are allowed only in implement and doc_review (spec section 14).
    assert ("Edit code" in forbidden) == (base(state) not in ("implement", "doc_review"))
    # Every artifact of a phase not yet reached is a forbidden action.
    for artifact in FORBIDDEN_TABLE[base(state)]:
        assert f"Create {artifact}" in forbidden, (artifact, out)
    next_artifact = field(out, "Next artifact needed: ")
    if state in REQUIRED:
        assert next_artifact == REQUIRED[state]
    next_phase = field(out, "Next phase: ")
    if state.endswith(":awaiting_approval"):
        assert f"{base(state)}:approved" in next_phase
    for target in LEGAL[state]:
        assert target in next_phase, (target, next_phase)
    command = field(out, "Command to proceed: ")
    if state.endswith(":awaiting_approval"):
        assert "--approve" in command
    elif len(LEGAL[state]) == 1 and state != "decomposition:approved":
        assert f"--transition {LEGAL[state][0]}" in command


def test_task_flag_shows_research_phase_as_in_the_specification_example(project):
    """Criterion: "--task flag shows current phase ..., allowed actions, forbidden actions,
    next artifact, next phase" -- the research example of spec section 2."""
    name = put(project, "research", name="add-user-auth")
    out = project.run("--task", name).out
    assert out.splitlines()[:2] == ["Task: add-user-auth", "Phase: research (from .state)"]
    assert items_under(out, "Allowed actions:") == [
        "Read project files",
        "Ask clarifying questions",
        "Write SPEC.md",
    ]
    forbidden = items_under(out, "Forbidden actions:")
    for item in ("Edit code", "Create IMPLEMENTATION.md", "Create DESIGN.md"):
        assert item in forbidden
    assert "Skip to implementation" in forbidden
    assert field(out, "Next artifact needed: ") == "SPEC.md"


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_task_shows_approval_status_for_phases_with_awaiting_approval_or_approved_substates(
    project, task_in, phase
):
    """Criterion: "--task shows approval status for phases with :awaiting_approval or
    :approved sub-states"."""
    name = task_in(f"{phase}:awaiting_approval")
    out = project.run("--task", name).out
    assert f"Phase: {phase}:awaiting_approval (from .state)" in out.splitlines()
    status = field(out, "Approval status: ")
    assert "awaiting approval" in status
    assert REQUIRED[phase] in status

    assert project.run("--task", name, "--approve", "--approver", "alice").rc == 0
    out = project.run("--task", name).out
    assert f"Phase: {phase}:approved (from .state)" in out.splitlines()
    status = field(out, "Approval status: ")
    logged = project.approvals(name)[-1].split("|")
    assert "approved" in status
    assert "alice" in status
    assert logged[1] in status  # the time recorded in .state.approvals


# --------------------------------------------------------------------------------------
# --transition
# --------------------------------------------------------------------------------------


def test_transition_flag_validates_and_writes_state_transitions(project):
    """Criterion: "--transition flag validates and writes .state transitions (including
    approval sub-states)"."""
    name = put(project, "new")
    result = project.run("--task", name, "--transition", "research")
    assert result.rc == 0, result
    assert project.state(name) == "research\n"

    project.write(name, "SPEC.md")
    result = project.run("--task", name, "--transition", "research:awaiting_approval")
    assert result.rc == 0, result
    assert project.state(name) == "research:awaiting_approval\n"

    assert project.run("--task", name, "--approve").rc == 0
    assert project.state(name) == "research:approved\n"

    result = project.run("--task", name, "--transition", "design")
    assert result.rc == 0, result
    assert project.state(name) == "design\n"
    assert not (project.task_dir(name) / ".state.tmp").exists()


def test_transition_flag_validates_target_is_a_known_phase(project):
    """Criterion: "--transition flag validates and writes .state transitions" -- an unknown
    target phase is an error (exit 2) and .state is untouched."""
    name = put(project, "new")
    result = project.run("--task", name, "--transition", "coding")
    assert result.rc == 2
    assert result.err.startswith("ERROR: Unknown phase 'coding'")
    assert project.state(name) == "new\n"
    no_traceback(result)


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_transition_refuses_transition_from_awaiting_approval_to_anything_other_than_approved(
    project, phase
):
    """Criterion: "--transition refuses transition from :awaiting_approval to anything other
    than :approved" (and, per spec section 5, :approved itself only via --approve).

    Every target state is tried from the gate; none moves the task or logs an approval.
    """
    source = f"{phase}:awaiting_approval"
    name = put(project, source, artifacts=[REQUIRED[phase]])
    for target in STATES:
        result = project.run("--task", name, "--transition", target)
        assert result.rc == 1, (target, result)
        assert result.err.startswith(
            f"ERROR: Cannot transition from '{source}' to '{target}'. "
            f"Legal transitions from '{source}' are: "
        ), result.err
        assert f"{phase}:approved" in result.err
        assert "--approve" in result.err
        assert project.state(name) == f"{source}\n"
    assert project.approvals(name) == []


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_transition_refuses_transition_past_awaiting_approval_without_approval(
    project, task_in, phase
):
    """Criterion: "--transition refuses transition past :awaiting_approval without approval"."""
    name = task_in(f"{phase}:awaiting_approval")
    after_gate = LEGAL[f"{phase}:approved"]
    for target in (f"{phase}:approved", *after_gate):
        result = project.run("--task", name, "--transition", target)
        assert result.rc == 1, (target, result)
        assert "Cannot transition from" in result.err
        assert project.state(name) == f"{phase}:awaiting_approval\n"
    # Nor may the gate be jumped from the phase itself.
    other = put(project, phase, name="other-task", artifacts=[REQUIRED[phase]])
    for target in (f"{phase}:approved", *after_gate):
        result = project.run("--task", other, "--transition", target)
        assert result.rc == 1, (target, result)
        assert project.state(other) == f"{phase}\n"
    # With the approval, the same transition goes through.
    assert project.run("--task", name, "--approve").rc == 0
    if phase == "decomposition":  # the parent waits for its sub-tasks, which may now start
        project.task(f"{name}/part-a", "complete")  # walked there: .state is not hand-written
    result = project.run("--task", name, "--transition", after_gate[0])
    assert result.rc == 0, result
    assert project.state(name) == f"{after_gate[0]}\n"


# --------------------------------------------------------------------------------------
# --approve
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_approve_command_transitions_awaiting_approval_to_approved(project, task_in, phase):
    """Criterion: "--approve command transitions :awaiting_approval to :approved"."""
    name = task_in(f"{phase}:awaiting_approval")
    result = project.run("--task", name, "--approve")
    assert result.rc == 0, result
    assert project.state(name) == f"{phase}:approved\n"
    no_traceback(result)


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_approve_refuses_if_current_phase_is_not_awaiting_approval(project, phase):
    """Criterion: "--approve refuses if current phase is not :awaiting_approval".

    Spec 5a: "ERROR: Current phase is '{phase}' (not awaiting approval). Current sub-state
    must be '{phase}:awaiting_approval' before approval can be granted."
    """
    name = put(project, phase, artifacts=[REQUIRED[phase]])
    result = project.run("--task", name, "--approve")
    assert result.rc == 1, result
    assert result.err.splitlines() == [
        f"ERROR: Current phase is '{phase}' (not awaiting approval). Current sub-state must be "
        f"'{phase}:awaiting_approval' before approval can be granted."
    ]
    assert project.state(name) == f"{phase}\n"
    assert project.approvals(name) == []


@pytest.mark.parametrize("phase", APPROVAL_PHASES)
def test_approve_refuses_if_current_phase_is_already_approved(project, task_in, phase):
    """Criterion: "--approve refuses if current phase is not :awaiting_approval" -- a second
    --approve on an approved phase is refused and logs nothing."""
    name = task_in(f"{phase}:approved")
    logged = project.approvals(name)
    result = project.run("--task", name, "--approve")
    assert result.rc == 1, result
    assert result.err.startswith(
        f"ERROR: Current phase is '{phase}:approved' (not awaiting approval). Current sub-state "
        f"must be '{phase}:awaiting_approval' before approval can be granted."
    )
    assert project.state(name) == f"{phase}:approved\n"
    assert project.approvals(name) == logged


def test_approve_records_approval_in_state_approvals_log(project, task_in):
    """Criterion: "--approve records approval in .state.approvals log".

    Format (spec 5b): {phase}:approved|{ISO-8601-timestamp}|{approver}; approver "user"
    by default, or the id given with --approver.
    """
    name = task_in("research:awaiting_approval")
    before = datetime.now(timezone.utc).replace(microsecond=0)
    assert project.run("--task", name, "--approve").rc == 0
    after = datetime.now(timezone.utc)
    (line,) = project.approvals(name)
    match = APPROVAL_LINE.match(line)
    assert match, line
    assert match["state"] == "research:approved"
    assert match["who"] == "user"
    when = datetime.strptime(match["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert before - timedelta(seconds=1) <= when <= after + timedelta(seconds=1)

    other = task_in("research:awaiting_approval", name="other-task")
    assert project.run("--task", other, "--approve", "--approver", "agent-7").rc == 0
    (line,) = project.approvals(other)
    assert APPROVAL_LINE.match(line)
    assert line.startswith("research:approved|")
    assert line.endswith("|agent-7")


@pytest.mark.parametrize("state", [p for p in PHASES if p not in APPROVAL_PHASES])
def test_approve_refuses_for_phases_that_dont_require_approval(project, state):
    """Criterion: "--approve refuses for phases that don't require approval".

    Spec 5a: "This phase does not require approval."
    """
    name = put(project, state, artifacts=own_artifacts(state))
    result = project.run("--task", name, "--approve")
    assert result.rc == 1, result
    assert "This phase does not require approval." in (result.out + result.err).splitlines()
    assert project.state(name) == f"{state}\n"
    assert project.approvals(name) == []


# --------------------------------------------------------------------------------------
# --create-task
# --------------------------------------------------------------------------------------


def test_create_task_creates_task_folder_with_state_new_and_empty_state_approvals(project):
    """Criterion: "--create-task creates task folder with .state = new and empty
    .state.approvals"."""
    result = project.run("--create-task", "add-user-auth")
    assert result.rc == 0, result
    assert result.out.splitlines() == [
        "Created task 'add-user-auth' in state 'new'. Use --transition research to begin."
    ]
    folder = project.root / ".automaton" / "tasks" / "add-user-auth"
    assert folder.is_dir()
    assert (folder / ".state").read_bytes() == b"new\n"
    assert (folder / ".state.approvals").is_file()
    assert (folder / ".state.approvals").read_bytes() == b""


def test_create_task_creates_task_folder_end_to_end(project):
    """Criterion: "--create-task creates task folder with .state = new and empty
    .state.approvals" -- through `python status.py` in a subprocess."""
    result = project.script("--create-task", "fix-login-bug", "--project", str(project.root))
    assert result.rc == 0, result
    assert (
        result.out.strip()
        == "Created task 'fix-login-bug' in state 'new'. Use --transition research to begin."
    )
    assert project.state("fix-login-bug") == "new\n"
    assert project.approvals("fix-login-bug") == []


@pytest.mark.parametrize(
    "bad",
    ["../x", "Foo", "a b", "/abs", "a--b", "-a", "a-", "a_b", "..", "a/../b", "Add-User", ""],
)
def test_create_task_validates_kebab_case_task_names(project, bad):
    """Criterion: "--create-task validates kebab-case task names" (lowercase, hyphens, no
    spaces): exit 2, an ERROR line, and nothing written anywhere."""
    everywhere = project.root.parent
    before = set(entries_below(everywhere))
    result = project.run("--create-task", bad)
    assert result.rc == 2, result
    assert result.err.startswith("ERROR: ")
    assert "kebab-case" in result.err
    assert set(entries_below(everywhere)) == before
    no_traceback(result)


@pytest.mark.parametrize("good", ["a", "add-user-auth", "fix-bug-2", "v2"])
def test_create_task_validates_kebab_case_task_names_accepts_kebab_case(project, good):
    """Criterion: "--create-task validates kebab-case task names" -- valid names pass."""
    result = project.run("--create-task", good)
    assert result.rc == 0, result
    assert project.state(good) == "new\n"


def test_create_task_refuses_if_task_already_exists(project):
    """Criterion: "--create-task refuses if task already exists"."""
    name = put(project, "research", artifacts=["SPEC.md"])
    folder = project.task_dir(name)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    result = project.run("--create-task", name)
    assert result.rc == 1, result
    assert result.err.startswith(f"ERROR: Task '{name}' already exists")
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert after == before
    assert project.state(name) == "research\n"


# --------------------------------------------------------------------------------------
# --transition: artifacts
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "extra"),
    [
        ("research", "research:awaiting_approval", "IMPLEMENTATION.md"),
        ("research", "research:awaiting_approval", "DESIGN.md"),
        ("new", "research", "SPEC.md"),
        ("design", "design:awaiting_approval", "TEST_PLAN.md"),
        ("implement", "bug_find", "VERDICT.md"),
        ("doc_review", "referee", "VERDICT.md"),
        ("research:approved", "implement", "BUG_REPORT.md"),
    ],
)
def test_transition_refuses_transition_if_forbidden_artifacts_exist_in_task_folder(
    project, source, target, extra
):
    """Criterion: "--transition refuses transition if forbidden artifacts exist in task folder".

    Spec 12: "ERROR: Cannot transition from '{current}' to '{target}'. Found forbidden
    artifact '{artifact}' in task folder. This indicates phase-skipping. Remove the artifact
    or revert to the correct phase."
    """
    name = put(project, source, artifacts=[*own_artifacts(source), extra])
    result = project.run("--task", name, "--transition", target)
    assert result.rc == 1, result
    assert (
        f"ERROR: Cannot transition from '{source}' to '{target}'. Found forbidden artifact "
        f"'{extra}' in task folder. This indicates phase-skipping. Remove the artifact or "
        "revert to the correct phase."
    ) in result.err.splitlines()
    assert project.state(name) == f"{source}\n"


@pytest.mark.parametrize("content", [None, "", "   \n\t\n"], ids=["missing", "empty", "blank"])
# Every phase with a required artifact, and the approved sub-states that leave on it
# (decomposition:approved leaves on its sub-tasks instead).
@pytest.mark.parametrize(
    "source", [*REQUIRED, "research:approved", "design:approved", "test_design:approved"]
)
def test_transition_refuses_transition_if_required_artifact_is_missing_or_empty(
    project, source, content
):
    """Criterion: "--transition refuses transition if required artifact is missing or empty".

    Spec 12: "ERROR: Cannot transition from '{current}' to '{target}'. Required artifact
    '{artifact}' is missing or empty in task folder." White space only counts as empty.
    """
    artifact = REQUIRED[base(source)]
    name = put(project, source)
    if content is not None:
        project.write(name, artifact, content)
    target = LEGAL[source][0]
    result = project.run("--task", name, "--transition", target)
    assert result.rc == 1, result
    assert result.err.splitlines() == [
        f"ERROR: Cannot transition from '{source}' to '{target}'. Required artifact "
        f"'{artifact}' is missing or empty in task folder."
    ]
    assert project.state(name) == f"{source}\n"
    # With the artifact written, the same transition goes through (a verdict that passes).
    project.write(name, artifact, None if artifact == "VERDICT.md" else f"# {artifact}\n")
    assert project.run("--task", name, "--transition", target).rc == 0
    assert project.state(name) == f"{target}\n"


# --------------------------------------------------------------------------------------
# --list
# --------------------------------------------------------------------------------------


def test_list_flag_shows_all_tasks_with_their_current_phase_and_approval_status(project, task_in):
    """Criterion: "--list flag shows all tasks with their current phase and approval status".

    Spec 7: columns Task / Phase / Next Step; spec 8: sub-tasks under their parent, indented.
    """
    put(project, "implement", name="fix-login-bug")
    put(project, "complete", name="add-payment-api")
    put(project, "design:awaiting_approval", name="add-user-auth")
    task_in("decomposition:approved", name="big-feature")
    project.create("big-feature/part-a")
    project.create("big-feature/part-b")
    put(project, "research:approved", name="zz-last")

    result = project.run("--list")
    assert result.rc == 0, result
    lines = result.out.split("\n\n")[0].splitlines()  # the table; its summary follows
    header = lines[0]
    assert re.fullmatch(r"Task\s+Phase\s+Next Step", header), header
    phase_col = header.index("Phase")
    step_col = header.index("Next Step")
    rows = {line.split()[0]: line for line in lines[1:] if line.strip()}

    assert rows["fix-login-bug"].split()[1:] == ["implement", "bug_find"]
    assert rows["fix-login-bug"].index("implement") == phase_col
    assert rows["fix-login-bug"].index("bug_find") == step_col
    assert rows["add-payment-api"].split()[1:] == ["complete", "—"]
    # Approval status is visible in the Phase column.
    assert rows["add-user-auth"].split()[1] == "design:awaiting_approval"
    assert "approv" in rows["add-user-auth"][step_col:]
    assert rows["zz-last"].split()[1] == "research:approved"
    assert rows["big-feature"].split()[1] == "decomposition:approved"

    # Sub-tasks follow their parent, indented, before the next top-level task.
    parent_at = lines.index(rows["big-feature"])
    sub_lines = lines[parent_at + 1 : parent_at + 3]
    assert all(line.startswith(" ") for line in sub_lines), sub_lines
    assert "part-a" in sub_lines[0]
    assert "part-b" in sub_lines[1]
    assert all(" new " in f" {line} " for line in sub_lines), sub_lines
    assert not lines[parent_at + 3].startswith(" ")
    top_level = [line.split()[0] for line in lines[1:] if not line.startswith(" ")]
    assert set(top_level) == {
        "fix-login-bug",
        "add-payment-api",
        "add-user-auth",
        "big-feature",
        "zz-last",
    }


def test_list_flag_shows_all_tasks_with_their_current_phase_even_after_a_hand_edit(
    project, task_in
):
    """Criterion: "--list flag shows all tasks with their current phase and approval
    status" -- the current phase is the one the history records: a `.state` edited to
    `research:approved` (an approval nobody gave) is listed and counted as the
    `research:awaiting_approval` it is, and only its Next Step names the edited value."""
    task_in("research:awaiting_approval", name="forged")
    task_in("research:awaiting_approval", name="waiting")
    (project.task_dir("forged") / ".state").write_text("research:approved\n")

    for command in (("--list",), ("--list", "--project", str(project.root))):
        result = project.script(*command, cwd=project.root)
        assert result.rc == 2, result
        table, summary = result.out.split("\n\n")
        rows = {line.split()[0]: line for line in table.splitlines()[1:]}
        assert rows["forged"].split()[1] == "research:awaiting_approval"
        assert rows["forged"].split(maxsplit=2)[2] == (
            "forged: .state was changed outside status.py to 'research:approved'; "
            ".state.history says 'research:awaiting_approval' (--upgrade restores it)"
        )
        assert rows["waiting"].split()[1] == "research:awaiting_approval"
        assert summary.splitlines()[0] == "2 tasks: research:awaiting_approval 2"
        assert "research:approved" not in summary
        assert result.err.startswith("ERROR: forged: .state was changed outside status.py")

    listed = project.script("--list", "--json", cwd=project.root)
    data = json.loads(listed.out)
    forged = next(task for task in data["tasks"] if task["name"] == "forged")
    assert (forged["state"], forged["edited_state"]) == (
        "research:awaiting_approval",
        "research:approved",
    )
    assert forged["next_states"] == [] and forged["tracked"] is True
    assert data["counts"] == {"research:awaiting_approval": 2}


def test_list_flag_shows_a_hand_edit_over_an_unreadable_history_as_unknown(project, task_in):
    """A history whose last line names no state vouches for nothing: `unknown`."""
    task_in("design", name="garbled")
    history = project.task_dir("garbled") / ".state.history"
    history.write_text(history.read_text() + "not json\n")
    (project.task_dir("garbled") / ".state").write_text("implement\n")
    result = project.script("--list", cwd=project.root)
    assert result.rc == 2, result
    table, summary = result.out.split("\n\n")
    assert table.splitlines()[1].split()[:2] == ["garbled", "unknown"]
    assert summary.splitlines()[0] == "1 task: unknown 1"


# --------------------------------------------------------------------------------------
# --validate-folder
# --------------------------------------------------------------------------------------


def test_validate_folder_flag_checks_for_out_of_order_artifacts_per_phase(project):
    """Criterion: "--validate-folder flag checks for out-of-order artifacts per phase" --
    the PASS and FAIL outputs of spec section 10, word for word."""
    name = put(project, "research", name="add-user-auth", artifacts=["SPEC.md"])
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 0, result
    assert result.out.splitlines() == [
        "Task: add-user-auth",
        "Phase: research (from .state)",
        "Folder validation: PASS — no out-of-order artifacts found",
    ]

    project.write(name, "IMPLEMENTATION.md")
    project.write(name, "BUG_REPORT.md")
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 1, result
    assert result.out.splitlines() == [
        "Task: add-user-auth",
        "Phase: research (from .state)",
        "Folder validation: FAIL — found out-of-order artifacts:",
        "  - IMPLEMENTATION.md (belongs to implement phase, not yet reached)",
        "  - BUG_REPORT.md (belongs to bug_find phase, not yet reached)",
        "These artifacts indicate phase-skipping. The task is in research phase but has "
        "artifacts from future phases.",
        "Remove the out-of-order artifacts or revert to the correct phase.",
    ]


def test_validate_folder_flags_task_folders_without_state_as_manually_created(project):
    """Criterion: "--validate-folder flags task folders without .state as manually created"
    -- the text of spec section 5c, word for word."""
    folder = project.tasks / "fix-broken-thing"
    folder.mkdir(parents=True)
    (folder / "SPEC.md").write_text("# spec\n")
    result = project.run("--validate-folder", "--task", "fix-broken-thing")
    assert result.rc == 1, result
    assert result.out.splitlines() == [
        "Task: fix-broken-thing",
        "Phase: unknown (no .state file found)",
        "Folder validation: FAIL — task was created manually (no .state file). Use "
        f"'{SPEC_SCRIPT} --create-task' to create tasks properly.",
        f"To adopt the folder as it is: {SCRIPT_CALL} --upgrade --project {project.root.resolve()}",
    ]
    assert not (folder / ".state").exists()  # the evidence is not erased


@pytest.mark.parametrize("state", STATES)
def test_validate_folder_uses_the_phase_to_forbidden_artifacts_mapping(project, state):
    """Criterion: "--validate-folder uses the phase-to-forbidden-artifacts mapping" -- every
    phase (and sub-state) of the spec's table, with every artifact present."""
    name = put(project, state, artifacts=ALL_ARTIFACTS)
    expected = FORBIDDEN_TABLE[base(state)]
    result = project.run("--validate-folder", "--task", name)
    listed = [line for line in result.out.splitlines() if line.startswith("  - ")]
    if not expected:
        assert result.rc == 0, result
        assert "Folder validation: PASS — no out-of-order artifacts found" in result.out
        return
    assert result.rc == 1, result
    assert "Folder validation: FAIL — found out-of-order artifacts:" in result.out.splitlines()
    assert sorted(listed) == sorted(
        f"  - {artifact} (belongs to {OWNER[artifact]} phase, not yet reached)"
        for artifact in expected
    )


@pytest.mark.parametrize("state", STATES)
def test_validate_folder_uses_the_phase_to_forbidden_artifacts_mapping_allowed_pass(project, state):
    """Criterion: "--validate-folder uses the phase-to-forbidden-artifacts mapping" -- with
    only the artifacts the table allows, every phase passes."""
    allowed = [a for a in ALL_ARTIFACTS if a not in FORBIDDEN_TABLE[base(state)]]
    name = put(project, state, artifacts=allowed)
    if state.endswith(":approved"):  # an approved state without its approval line fails
        project.write(name, ".state.approvals", f"{state}|2026-06-14T14:30:00Z|user\n")
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 0, result
    assert result.out.splitlines()[-1] == (
        "Folder validation: PASS — no out-of-order artifacts found"
    )


def test_validate_folder_excludes_non_artifact_files(project):
    """Criterion: "--validate-folder excludes non-artifact files (.state, .state.approvals,
    VRAM_CONFIG.md, PARENT_SPEC.md, REVIEW.md)"."""
    name = put(project, "new")
    project.write(name, "VRAM_CONFIG.md")
    project.write(name, "PARENT_SPEC.md")
    project.write(name, "REVIEW.md")
    project.write(name, "notes.txt")
    (project.task_dir(name) / ".state.approvals").write_text(
        "research:approved|2026-06-14T14:30:00Z|user\n"
    )
    result = project.run("--validate-folder", "--task", name)
    assert result.rc == 0, result
    assert result.out.splitlines()[-1] == (
        "Folder validation: PASS — no out-of-order artifacts found"
    )
    # Nor do they block a transition.
    result = project.run("--task", name, "--transition", "research")
    assert result.rc == 0, result


# --------------------------------------------------------------------------------------
# Tests in tests/test_status.py
# --------------------------------------------------------------------------------------


def test_tests_in_tests_test_status_py():
    """Criterion: "Tests in tests/test_status.py" -- this file, and beside it one file per
    section of the specification (test_status_*.py): every acceptance criterion has a test
    named after it in one of them."""
    assert Path(__file__).resolve() == ROOT / "tests" / "test_status.py"
    assert STATUS_PY.parent == ROOT
    files = [Path(__file__), *sorted(Path(__file__).parent.glob("test_status_*.py"))]
    tests = [
        name
        for file in files
        for name in re.findall(r"^def (test_\w+)\(", file.read_text(encoding="utf-8"), re.M)
    ]
    untested = [
        criterion
        for criterion, prefix in ACCEPTANCE_CRITERIA
        if not any(name.startswith(prefix) for name in tests)
    ]
    assert untested == []
    assert len(ACCEPTANCE_CRITERIA) == 38  # the specification's list, none left out
