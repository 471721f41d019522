"""Errors that say what to do next (issue 13): a corrupt `.state` names --upgrade, which
restores it; a misspelt phase gets "did you mean"; "This phase does not require
approval." names the state and the command that moves the task on. The specification's
words come first, unchanged.
"""

from __future__ import annotations

import shlex

import pytest
from helpers import Project

from automaton_rules.core import machine


def command(project: Project, *args: str) -> str:
    """A command as the in-process CLI suggests it."""
    return " ".join(["python3 ~/.automaton/scripts/status.py", *map(shlex.quote, args)])


# ----------------------------------------------------------------- a corrupt .state


@pytest.mark.parametrize("args", [(), ("--transition", "research:awaiting_approval")])
def test_unknown_phase_names_upgrade_which_restores_it(
    project: Project, task_in, args: tuple[str, ...]
) -> None:
    """The issue: `ERROR: Unknown phase 'implemnt' in .state file` did not mention
    --upgrade, which restores it."""
    name = task_in("research")
    (project.task_dir(name) / ".state").write_text("implemnt\n")
    result = project.run("--task", name, *args)
    assert result.rc == 2
    upgrade = command(project, "--upgrade", "--project", str(project.root))
    assert result.err == (
        f"ERROR: Unknown phase 'implemnt' in .state file. Run '{upgrade}' to restore it "
        "from .state.history.\n"
    )
    assert project.run("--upgrade").rc == 0
    assert project.state(name) == "research\n"
    assert project.run("--task", name).rc == 0


def test_unknown_phase_without_history_says_what_to_write(project: Project) -> None:
    folder = project.tasks / "legacy"
    folder.mkdir(parents=True)
    (folder / ".state").write_text("implemnt\n")
    result = project.run("--task", "legacy", "--json")
    assert result.rc == 2
    error = result.json["error"]
    assert error["message"].startswith("Unknown phase 'implemnt' in .state file; ")
    assert "(did you mean 'implement'?)" in error["message"]
    assert "remove .state and run" in error["message"]
    assert result.json["next"]["did_you_mean"] == "implement"
    assert result.json["next"]["restores"] is False


def test_list_and_audit_name_the_way_out(project: Project, task_in) -> None:
    name = task_in("research")
    (project.task_dir(name) / ".state").write_text("implemnt\n")
    listed = project.run("--list")
    assert listed.rc == 2
    (row,) = [line for line in listed.out.splitlines() if line.startswith(name)]
    assert row.endswith(f"{name}: Unknown phase 'implemnt' in .state file (--upgrade restores it)")
    audit = project.run("--audit")
    assert any(
        line.startswith(f"ERROR: task {name}: Unknown phase 'implemnt' in .state file. Run '")
        and "--upgrade" in line
        for line in audit.out.splitlines()
    ), audit.out


# ----------------------------------------------------------------- a misspelt phase


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("implemnt", "implement"),
        ("reserch", "research"),
        ("Research", "research"),
        ("research:awaiting", "research:awaiting_approval"),
        ("bug-find", "bug_find"),
    ],
)
def test_a_misspelt_phase_gets_did_you_mean(
    project: Project, task_in, typed: str, meant: str
) -> None:
    name = task_in("new")
    result = project.run("--task", name, "--transition", typed)
    assert result.rc == 2
    assert result.err.startswith(f"ERROR: Unknown phase '{typed}'. Did you mean '{meant}'? ")
    assert "Known phases: new, research" in result.err
    assert project.state(name) == "new\n"
    answer = project.run("--task", name, "--transition", typed, "--json").json
    assert answer["next"]["did_you_mean"] == meant


def test_a_phase_like_nothing_gets_no_guess(project: Project, task_in) -> None:
    name = task_in("new")
    result = project.run("--task", name, "--transition", "coding")
    assert result.err.startswith("ERROR: Unknown phase 'coding'. Known phases: ")
    assert machine.closest_state("zzz") is None


# -------------------------------------------------------- a phase without approval


def test_no_approval_needed_names_the_state_and_the_command(project: Project, task_in) -> None:
    """The issue: `This phase does not require approval.` named nothing to do."""
    name = task_in("implement")
    result = project.run("--task", name, "--approve")
    assert result.rc == 1
    move = command(
        project, "--task", name, "--transition", "bug_find", "--project", str(project.root)
    )
    assert result.err.splitlines() == [
        "This phase does not require approval.",
        f"Task '{name}' is in 'implement', which has no approval gate: it moves on with {move}",
    ]
    answer = project.run("--task", name, "--approve", "--json").json
    assert answer["error"]["code"] == "approval-not-required"
    assert answer["error"]["message"].startswith("This phase does not require approval. ")
    assert answer["next"] == {"state": "implement", "transitions": ["bug_find"], "command": move}


def test_from_new_it_names_the_gate_ahead(project: Project, task_in) -> None:
    name = task_in("new")
    second = project.run("--task", name, "--approve").err.splitlines()[1]
    assert f"--task {name} --transition research --project" in second
    assert second.endswith("(research asks for approval at research:awaiting_approval)")


def test_with_several_ways_on_it_names_them(project: Project, task_in) -> None:
    name = task_in("referee")
    second = project.run("--task", name, "--approve").err.splitlines()[1]
    assert "--transition PHASE" in second
    assert second.endswith("(PHASE: complete, human_intervention)")


def test_complete_has_nothing_left(project: Project, task_in) -> None:
    name = task_in("complete")
    lines = project.run("--task", name, "--approve").err.splitlines()
    assert lines == [
        "This phase does not require approval.",
        f"Task '{name}' is in 'complete': no approval gate and no next phase.",
    ]


def test_not_awaiting_keeps_its_words_and_gives_the_command_in_json(
    project: Project, task_in
) -> None:
    name = task_in("design")
    result = project.run("--task", name, "--approve", "--json").json
    assert result["error"]["message"] == (
        "Current phase is 'design' (not awaiting approval). Current sub-state must be "
        "'design:awaiting_approval' before approval can be granted."
    )
    assert result["next"]["command"] == command(
        project,
        "--task",
        name,
        "--transition",
        "design:awaiting_approval",
        "--project",
        str(project.root),
    )
