"""Specification section 12, "Error handling" (seeds/000), and DESIGN.md section 7's exit
codes and --json.

The acceptance criterion "Clear error messages for invalid states, illegal transitions,
missing artifacts, out-of-order artifacts, approval violations", with the section's
messages word for word; then what DESIGN.md section 7 adds for every command: exit 0, 1
or 2, never a traceback, and --json printing exactly one object.
"""

from __future__ import annotations

import json

import pytest
from helpers import no_traceback, put


def tasks_label(project) -> str:
    return f"{project.root.resolve()}/.automaton/tasks/"


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
