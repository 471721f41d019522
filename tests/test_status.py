"""Acceptance tests of the status.py specification (seeds/000, "Acceptance Criteria").

Each test is named after the criterion it checks and quotes it in its docstring.
The workflow tables (states, legal transitions, required and forbidden artifacts)
are typed out from the specification in spec_tables.py on purpose: the tests compare
the code with the specification, so they must not import the tables from the code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import Project, backdate, git_project, now, with_code
from conftest import section as report_section
from spec_tables import (
    ALL_ARTIFACTS,
    APPROVAL_PHASES,
    FORBIDDEN_TABLE,
    ILLEGAL_PAIRS,
    LEGAL,
    LEGAL_EDGES,
    OWNER,
    PHASES,
    REQUIRED,
    STATES,
    base,
)

from automaton_rules.cli import entry as cli

ROOT = Path(__file__).resolve().parent.parent
STATUS_PY = ROOT / "status.py"
SCRIPT = "python3 ~/.automaton/scripts/status.py"
SPEC_SCRIPT = "python ~/.automaton/scripts/status.py"  # the specification's own sentence

APPROVAL_LINE = re.compile(
    r"^(?P<state>[a-z_]+:approved)\|(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\|(?P<who>.+)$"
)
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

# --------------------------------------------------------------------------------------
# Helpers (own to this file; conftest.py is shared).
# --------------------------------------------------------------------------------------


def put(project, state: str, name: str = "demo-task", artifacts=()) -> str:
    """A task folder laid out as --create-task makes it, set to `state`, with artifacts.

    Written directly (not through --create-task) to keep the several hundred
    parametrized cases fast; --create-task itself is tested below.
    """
    folder = project.task_dir(name)
    folder.mkdir(parents=True)
    (folder / ".state").write_text(f"{state}\n")
    (folder / ".state.approvals").write_bytes(b"")
    for artifact in artifacts:
        verdict = "Verdict: PASS\n" if artifact == "VERDICT.md" else ""
        project.write(name, artifact, f"# {artifact}\n\nsome content\n{verdict}")
    return name


def own_artifacts(state: str) -> list[str]:
    """The artifact the phase of `state` must write (spec section 6), if it has one."""
    return [REQUIRED[base(state)]] if base(state) in REQUIRED else []


def tasks_label(project) -> str:
    return f"{project.root.resolve()}/.automaton/tasks/"


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def section(out: str, header: str) -> list[str]:
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
    matches = [line[len(prefix) :] for line in out.splitlines() if line.startswith(prefix)]
    assert len(matches) == 1, (prefix, out)
    return matches[0]


def no_traceback(result) -> None:
    assert "Traceback" not in result.out + result.err, result


def run_here(capsys, *args: str):
    """Call status.py in-process without --project (the current directory decides)."""
    capsys.readouterr()
    rc = cli.main(list(args))
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


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
    allowed = section(out, "Allowed actions:")
    forbidden = section(out, "Forbidden actions:")
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
    assert section(out, "Allowed actions:") == [
        "Read project files",
        "Ask clarifying questions",
        "Write SPEC.md",
    ]
    forbidden = section(out, "Forbidden actions:")
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
    before = tree(everywhere)
    result = project.run("--create-task", bad)
    assert result.rc == 2, result
    assert result.err.startswith("ERROR: ")
    assert "kebab-case" in result.err
    assert tree(everywhere) == before
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
        f"To adopt the folder as it is: {SCRIPT} --upgrade --project {project.root.resolve()}",
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


# --------------------------------------------------------------------------------------
# Clear error messages
# --------------------------------------------------------------------------------------


# The commands that read one named task; "{task}" stands for its name.
TASK_COMMANDS = {
    "task": ("--task", "{task}"),
    "transition": ("--task", "{task}", "--transition", "research"),
    "approve": ("--task", "{task}", "--approve"),
    "validate-folder": ("--validate-folder", "--task", "{task}"),
}


def task_command(command: str, task: str) -> tuple[str, ...]:
    return tuple(arg.replace("{task}", task) for arg in TASK_COMMANDS[command])


@pytest.mark.parametrize("command", TASK_COMMANDS)
def test_clear_error_messages_for_invalid_states(project, command):
    """Criterion: "Clear error messages for invalid states, ..." -- spec 12: "ERROR: Unknown
    phase '{phase}' in .state file", exit 2."""
    put(project, "new")
    (project.task_dir("demo-task") / ".state").write_text("x\n")
    result = project.run(*task_command(command, "demo-task"))
    assert result.rc == 2, result
    (line,) = result.err.splitlines()
    assert line.startswith("ERROR: Unknown phase 'x' in .state file")
    assert "--upgrade" in line  # issue 13: the next step, restoring it from the history
    assert project.state("demo-task") == "x\n"
    no_traceback(result)


@pytest.mark.parametrize("command", TASK_COMMANDS)
def test_clear_error_messages_task_not_found(project, command):
    """Criterion: "Clear error messages ..." -- spec 12: "ERROR: Task '{task-name}' not found
    in {project}/.automaton/tasks/", exit 2."""
    project.tasks.mkdir(parents=True)
    result = project.run(*task_command(command, "x"))
    assert result.rc == 2, result
    assert result.err.splitlines() == [f"ERROR: Task 'x' not found in {tasks_label(project)}"]


def test_clear_error_messages_for_illegal_transitions(project):
    """Criterion: "Clear error messages for ... illegal transitions" -- the spec's own
    example: research directly to bug_find."""
    name = put(project, "research", artifacts=["SPEC.md"])
    result = project.run("--task", name, "--transition", "bug_find")
    assert result.rc == 1
    assert result.err.splitlines() == [
        "ERROR: Cannot transition from 'research' to 'bug_find'. "
        "Legal transitions from 'research' are: research:awaiting_approval"
    ]


def test_clear_error_messages_for_missing_artifacts(project):
    """Criterion: "Clear error messages for ... missing artifacts"."""
    name = put(project, "implement")
    result = project.run("--task", name, "--transition", "bug_find")
    assert result.rc == 1
    assert result.err.splitlines() == [
        "ERROR: Cannot transition from 'implement' to 'bug_find'. Required artifact "
        "'IMPLEMENTATION.md' is missing or empty in task folder."
    ]


def test_clear_error_messages_for_out_of_order_artifacts(project):
    """Criterion: "Clear error messages for ... out-of-order artifacts"."""
    name = put(project, "implement", artifacts=["IMPLEMENTATION.md", "BUG_REPORT.md"])
    result = project.run("--task", name, "--transition", "bug_find")
    assert result.rc == 1
    assert result.err.splitlines() == [
        "ERROR: Cannot transition from 'implement' to 'bug_find'. Found forbidden artifact "
        "'BUG_REPORT.md' in task folder. This indicates phase-skipping. Remove the artifact or "
        "revert to the correct phase."
    ]


def test_clear_error_messages_for_approval_violations(project, task_in):
    """Criterion: "Clear error messages for ... approval violations" -- the refusal names the
    approved sub-state and the --approve command that reaches it."""
    name = task_in("design:awaiting_approval")
    result = project.run("--task", name, "--transition", "design:approved")
    assert result.rc == 1
    assert result.err.startswith(
        "ERROR: Cannot transition from 'design:awaiting_approval' to 'design:approved'. "
        "Legal transitions from 'design:awaiting_approval' are: "
    )
    assert "design:approved" in result.err.split("are: ", 1)[1]
    assert "--approve" in result.err


# --------------------------------------------------------------------------------------
# Sub-tasks
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Project path resolution
# --------------------------------------------------------------------------------------


@pytest.fixture
def fake_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def test_project_path_resolution_defaults_to_cwd(project, fake_home, monkeypatch):
    """Criterion: "Project path resolution (defaults to CWD, ...)" -- `python status.py`
    run in the project folder without --project finds its tasks."""
    put(project, "research", name="add-user-auth")
    result = project.script("--task", "add-user-auth", cwd=project.root)
    assert result.rc == 0, result
    assert "Phase: research (from .state)" in result.out.splitlines()
    no_traceback(result)


def test_project_path_resolution_walks_up_to_parents(project, fake_home, monkeypatch, capsys):
    """Criterion: "Project path resolution (defaults to CWD, ...)" -- from a sub-folder of the
    project, the nearest parent holding .automaton/tasks/ is used (DESIGN.md section 4)."""
    put(project, "implement", name="add-user-auth")
    deep = project.root / "src" / "pkg" / "deep"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    rc, out, err = run_here(capsys, "--task", "add-user-auth")
    assert rc == 0, err
    assert "Phase: implement (from .state)" in out.splitlines()
    state_file = project.root.resolve() / ".automaton" / "tasks" / "add-user-auth" / ".state"
    assert f"State file: {state_file}" in out.splitlines()


def test_project_path_resolution_explicit_project_wins(
    project, tmp_path, fake_home, monkeypatch, capsys
):
    """Criterion: "Project path resolution" -- --project wins over the current directory."""
    put(project, "new", name="same-name")
    other = tmp_path / "other"
    (other / ".automaton" / "tasks" / "same-name").mkdir(parents=True)
    (other / ".automaton" / "tasks" / "same-name" / ".state").write_text("implement\n")
    monkeypatch.chdir(other)
    rc, out, _ = run_here(capsys, "--task", "same-name")
    assert rc == 0
    assert "Phase: implement (from .state)" in out.splitlines()
    rc, out, _ = run_here(capsys, "--task", "same-name", "--project", str(project.root))
    assert rc == 0
    assert "Phase: new (from .state)" in out.splitlines()


def test_project_path_resolution_no_project_found(tmp_path, fake_home, monkeypatch, capsys):
    """Criterion: "Project path resolution" -- nothing found: DESIGN.md section 4's v2.0
    error, exit 2, no silent fallback."""
    empty = tmp_path / "empty" / "inner"
    empty.mkdir(parents=True)
    monkeypatch.chdir(empty)
    for args in (("--task", "x"), ("--list",)):
        rc, out, err = run_here(capsys, *args)
        assert rc == 2
        assert out == ""
        assert err.splitlines() == [
            f"ERROR: No .automaton/tasks/ folder found in {empty.resolve()} or its parents. "
            "Pass --project or create a task with --create-task."
        ]
    assert tree(tmp_path / "empty") == {"inner"}


def test_project_path_resolution_never_uses_home_automaton_from_a_project(
    tmp_path, fake_home, monkeypatch, capsys
):
    """Criterion: "Project path resolution (..., handles ~/.automaton/)" -- ~/.automaton is
    the framework's home, not the project of a folder below $HOME (DESIGN.md section 4)."""
    (fake_home / ".automaton" / "tasks" / "framework-task").mkdir(parents=True)
    (fake_home / ".automaton" / "tasks" / "framework-task" / ".state").write_text("new\n")
    work = fake_home / "code" / "app"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    rc, _, err = run_here(capsys, "--task", "framework-task")
    assert rc == 2
    assert err.startswith(f"ERROR: No .automaton/tasks/ folder found in {work.resolve()}")


def test_project_path_resolution_handles_home_automaton(project, tmp_path, monkeypatch):
    """Criterion: "Project path resolution (defaults to CWD, handles ~/.automaton/)" -- spec
    8: "If running from ~/.automaton/, use ~/.automaton/tasks/". Real subprocess, HOME set
    to a temporary folder."""
    home = tmp_path / "home"
    scripts = home / ".automaton" / "scripts"
    scripts.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    result = project.script("--create-task", "framework-task", cwd=scripts)
    assert result.rc == 0, result
    folder = home / ".automaton" / "tasks" / "framework-task"
    assert (folder / ".state").read_text() == "new\n"
    assert not (scripts / ".automaton").exists()

    result = project.script("--task", "framework-task", cwd=home / ".automaton")
    assert result.rc == 0, result
    assert f"State file: {folder.resolve() / '.state'}" in result.out.splitlines()
    result = project.script("--list", cwd=scripts)
    assert result.rc == 0, result
    assert "framework-task" in result.out


# --------------------------------------------------------------------------------------
# Tests in tests/test_status.py
# --------------------------------------------------------------------------------------


def test_tests_in_tests_test_status_py():
    """Criterion: "Tests in tests/test_status.py"."""
    assert Path(__file__).resolve() == ROOT / "tests" / "test_status.py"
    assert STATUS_PY.parent == ROOT


# --------------------------------------------------------------------------------------
# Exit codes, tracebacks, JSON (DESIGN.md section 7)
# --------------------------------------------------------------------------------------


def test_exit_code_0_when_done(project):
    """Exit code 0: done or clean (--task, --transition, --list, --validate-folder)."""
    name = put(project, "new")
    assert project.run("--task", name).rc == 0
    assert project.run("--list").rc == 0
    assert project.run("--validate-folder", "--task", name).rc == 0
    assert project.run("--task", name, "--transition", "research").rc == 0


def test_exit_code_1_when_the_workflow_refuses(project):
    """Exit code 1: the workflow refused (illegal transition, missing artifact, approval)."""
    name = put(project, "research")
    assert project.run("--task", name, "--transition", "implement").rc == 1
    assert project.run("--task", name, "--transition", "research:awaiting_approval").rc == 1
    assert project.run("--task", name, "--approve").rc == 1


@pytest.mark.parametrize(
    "args",
    [
        ("--task", "nope"),
        ("--task", "Bad Name"),
        ("--create-task", "../escape"),
        ("--bogus-flag",),
        ("--task",),
        ("--transition", "research"),
        (),
    ],
    ids=["not-found", "bad-name", "bad-create", "unknown-flag", "no-value", "no-task", "nothing"],
)
def test_exit_code_2_on_error(project, args):
    """Exit code 2: error (not found, bad arguments), with an ERROR line and no traceback."""
    project.tasks.mkdir(parents=True)
    result = project.run(*args)
    assert result.rc == 2, result
    assert result.err.startswith("ERROR: "), result
    no_traceback(result)


@pytest.mark.parametrize(
    "setup",
    ["state-is-a-folder", "binary-state", "unknown-flag", "missing-value"],
)
def test_no_output_ever_contains_traceback(project, setup):
    """No command ever prints a traceback, even on broken input (real subprocess)."""
    name = put(project, "new")
    state = project.task_dir(name) / ".state"
    args: tuple[str, ...] = ("--task", name, "--project", str(project.root))
    if setup == "state-is-a-folder":
        state.unlink()
        state.mkdir()
    elif setup == "binary-state":
        state.write_bytes(b"\xff\xfe\x00garbage\x00\n")
    elif setup == "unknown-flag":
        args = (*args, "--frobnicate")
    else:
        args = ("--task",)
    result = project.script(*args)
    assert result.rc == 2, result
    assert "ERROR" in result.err
    no_traceback(result)


def _one_json_object(result) -> dict:
    data = json.loads(result.out)  # exactly one JSON document on stdout
    assert isinstance(data, dict)
    assert "schema_version" in data
    assert "Traceback" not in result.out + result.err
    return data


def test_json_output_task_and_list(project):
    """--json prints exactly one JSON object with a schema_version."""
    name = put(project, "research:awaiting_approval", artifacts=["SPEC.md"])
    result = project.run("--task", name, "--json")
    assert result.rc == 0
    data = _one_json_object(result)
    assert json.dumps(data)  # round-trips
    assert name in result.out
    assert "research:awaiting_approval" in result.out

    result = project.run("--list", "--json")
    assert result.rc == 0
    data = _one_json_object(result)
    assert name in json.dumps(data)


def test_json_output_refusal_carries_error_code_and_next(project):
    """--json on a refusal: one object with schema_version, error.code and next."""
    name = put(project, "research", artifacts=["SPEC.md"])
    result = project.run("--task", name, "--transition", "bug_find", "--json")
    assert result.rc == 1
    assert result.err == ""
    data = _one_json_object(result)
    assert data["error"]["code"]
    assert "Cannot transition from 'research' to 'bug_find'" in data["error"]["message"]
    assert "next" in data
    assert "research:awaiting_approval" in json.dumps(data["next"])

    result = project.run("--task", name, "--approve", "--json")
    assert result.rc == 1
    data = _one_json_object(result)
    assert data["error"]["code"]
    assert "next" in data


def test_json_output_error_carries_error_code(project):
    """--json on an error (task not found): one object, exit 2, error.code and next."""
    project.tasks.mkdir(parents=True)
    result = project.run("--task", "nope", "--json")
    assert result.rc == 2
    data = _one_json_object(result)
    assert data["error"]["code"]
    assert "not found" in data["error"]["message"]
    assert "next" in data


def test_json_output_end_to_end(project):
    """--json through `python status.py`: stdout is exactly one JSON object."""
    name = put(project, "new")
    result = project.script("--task", name, "--json", "--project", str(project.root))
    assert result.rc == 0, result
    _one_json_object(result)


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


def _age_task(project, name: str, minutes: float) -> None:
    """Rewrite the time of the task's first history line `minutes` into the past."""
    history = project.task_dir(name) / ".state.history"
    lines = history.read_text().splitlines()
    first = json.loads(lines[0])
    then = datetime.now(timezone.utc) - timedelta(minutes=minutes)
    first["time"] = then.strftime("%Y-%m-%dT%H:%M:%SZ")
    lines[0] = json.dumps(first, separators=(",", ":"))
    history.write_text("\n".join(lines) + "\n")


def test_same_session_returns_same_session_different_session_heuristic(project):
    """Criterion: "--same-session returns SAME_SESSION/DIFFERENT_SESSION heuristic (optional,
    for tool integration)" -- a task created within the last 30 minutes (the default) is
    "SAME_SESSION" with exit 1; an hour-old one is "DIFFERENT_SESSION" with exit 0."""
    project.create("add-user-auth")
    result = project.run("--same-session", "--task", "add-user-auth")
    assert (result.rc, result.out, result.err) == (1, "SAME_SESSION\n", "")

    _age_task(project, "add-user-auth", 60)
    result = project.run("--same-session", "--task", "add-user-auth")
    assert (result.rc, result.out, result.err) == (0, "DIFFERENT_SESSION\n", "")
    result = project.script(
        "--same-session", "--task", "add-user-auth", "--project", str(project.root)
    )
    assert (result.rc, result.out) == (0, "DIFFERENT_SESSION\n"), result


def test_fallback_to_artifact_heuristic_when_state_doesnt_exist(project):
    """Criterion: "Fallback to artifact heuristic when .state doesn't exist" -- with
    `untracked = "infer"` (DESIGN.md section 5, the specification's reading), --task on a
    folder made by hand infers the phase of its latest artifact, writes .state and shows it.
    """
    (project.root / "automaton.toml").write_text('untracked = "infer"\n')
    folder = project.task_dir("hand-made")
    folder.mkdir(parents=True)
    (folder / "SPEC.md").write_text("# spec\n")
    (folder / "IMPLEMENTATION.md").write_text("# implementation\n")
    result = project.run("--task", "hand-made")
    assert result.rc == 0, result
    assert (folder / ".state").read_text() == "implement\n"
    assert "Phase: implement (from .state)" in result.out.splitlines()
    assert not (folder / ".state.tmp").exists()


def test_fallback_to_artifact_heuristic_default_refuses_naming_phase_and_upgrade(project):
    """Criterion: "Fallback to artifact heuristic when .state doesn't exist" -- by default
    (v2.0, DESIGN.md section 5) the untracked folder is refused with exit 2, an error that
    names the inferred phase and the --upgrade command, and nothing is written."""
    folder = project.task_dir("hand-made")
    folder.mkdir(parents=True)
    (folder / "SPEC.md").write_text("# spec\n")
    (folder / "IMPLEMENTATION.md").write_text("# implementation\n")
    result = project.run("--task", "hand-made")
    assert result.rc == 2, result
    assert result.out == ""
    assert result.err.startswith("ERROR: "), result
    assert "'implement'" in result.err
    assert f"--upgrade --project {project.root.resolve()}" in result.err
    assert sorted(p.name for p in folder.iterdir()) == ["IMPLEMENTATION.md", "SPEC.md"]


# --------------------------------------------------------------------------------------
# The v2.0 workflow's statements (seeds/001) and the specification's last gaps: each test
# is named after the statement it checks and quotes it.
# --------------------------------------------------------------------------------------


def test_report_unknown_if_neither_state_nor_enough_artifacts_exist_to_determine_state(
    project,
):
    """Spec section 3: "Report "unknown" -- if neither .state nor enough artifacts exist to
    determine state". Even with the specification's fallback (`untracked = "infer"`), a
    folder with no artifact is not given a phase: it is reported unknown, nothing written."""
    (project.root / "automaton.toml").write_text('untracked = "infer"\n')
    empty = project.task_dir("empty-hand-made")
    empty.mkdir(parents=True)
    upgrade = f"{SCRIPT} --upgrade --project {project.root.resolve()}"
    for args in (
        ("--task", "empty-hand-made"),
        ("--task", "empty-hand-made", "--transition", "research"),
    ):
        result = project.run(*args)
        assert result.rc == 2, result
        assert result.err == (
            "ERROR: Task 'empty-hand-made' is untracked (no .state file) and has no artifacts: "
            f"its phase is unknown. Run '{upgrade}' to adopt it in phase 'new'.\n"
        )
    answer = project.run("--task", "empty-hand-made", "--json").json
    assert answer["next"]["phase"] == "unknown"
    assert list(empty.iterdir()) == []  # nothing inferred, nothing written
    validated = project.run("--validate-folder", "--task", "empty-hand-made")
    assert "Phase: unknown (no .state file found)" in validated.out.splitlines()


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
        f"({SCRIPT} --task {name} --transition human_intervention --project {root}), where "
        f"the user decides; {SCRIPT} --task {name} --follow-up --project {root} creates the "
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
        line[line.index(SCRIPT) :]
        for result in outputs
        for line in (result.out + result.err).splitlines()
        if SCRIPT in line and "to create tasks properly" not in line
    ]
    assert len(suggested) >= 6, suggested
    root = f"--project {project.root.resolve()}"
    assert [line for line in suggested if root not in line] == []


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


# --------------------------------------------------------------------------- --audit
# The specification's six --audit criteria, each through `status.py --audit` as CI runs it.


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
    assert "[PASS] clean-task: no violations" in report_section(
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
        report_section(audit.text, "=== Category 4: Manually Created Task Folders ===")
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
