"""Issue 30: a plugin rule's time limit is one budget for the whole audit, not one per
call (a hanging rule cost tasks x timeout), and `--durations` lists the slowest rules."""

from __future__ import annotations

import json

from automaton_rules.testing import AutomatonProject

HANGING = """
import time

from automaton_rules import hookimpl, rule


@rule("HANG101", summary="hangs", category="Slow Checks")
def hangs(task, project):
    with open(project.root / "calls.txt", "a") as calls:
        calls.write(task.name + "\\n")
    time.sleep(60)


@hookimpl
def register_rules(register):
    register(hangs)
"""


def _hanging(project: AutomatonProject) -> AutomatonProject:
    for name in ("a", "b", "c", "d"):
        project.task(name, "research")
    project.write_plugin(HANGING, name="hang")
    project.configure(plugin_timeout_seconds=0.5)
    return project


def test_a_hanging_rule_spends_one_budget_for_every_task(
    automaton_project: AutomatonProject,
) -> None:
    project = _hanging(automaton_project)
    audit = project.audit(expect_errors=True)
    assert (project.root / "calls.txt").read_text() == "a\n"  # stopped once, called no more
    (error,) = audit.errors
    assert error.code == "HANG101" and error.tasks == ("a", "b", "c", "d")
    assert error.exception == (
        "PluginTimeout: ran out of its budget of 0.5 seconds for the whole run"
    )
    assert "failed on 4 tasks (a, b, c, d), first on task 'a' at hang.py:" in error
    assert audit.exit_code == 2
    assert "[ERROR] d: rule HANG101 failed (see Errors)" in audit.text or (
        "Error: rule HANG101 failed (see Errors); no verdict" in audit.text
    )


def test_durations_lists_the_slowest_rules(automaton_project: AutomatonProject) -> None:
    project = _hanging(automaton_project)
    run = project.run("--audit", "--durations", "0", "--format", "json")
    assert run.exit_code == 2
    rows = json.loads(run.out)["durations"]
    (hang,) = [row for row in rows if row["code"] == "HANG101"]
    assert (hang["plugin"], hang["calls"], hang["budget_spent"]) == (
        str(project.root / "hang.py"),
        1,
        True,
    )
    assert {"AR101", "AR201"} <= {row["code"] for row in rows}  # the built-in rules too
    lines = run.err.splitlines()
    start = lines.index("slowest rules (--durations 0: all):")
    assert any(
        line.startswith("  ") and " HANG101 (plugin " in line and "its time budget spent" in line
        for line in lines[start + 1 :]
    )
    two = project.run("--audit", "--durations", "2")
    listed = two.err.splitlines()
    first = listed.index("slowest rules (--durations 2):")
    assert len([line for line in listed[first + 1 :] if line.startswith("  ")]) == 2
    assert "Audit Report for " in two.out  # stdout stays the report


def test_durations_takes_a_number(automaton_project: AutomatonProject) -> None:
    automaton_project.task("a", "research")
    run = automaton_project.run("--audit", "--durations", "many")
    assert run.exit_code == 2
    assert run.err == "ERROR: --durations takes a number of rules (0: all), not 'many'.\n"
    assert run.out == ""


def test_one_second_is_singular() -> None:
    from automaton_rules.engine.plugins import seconds_text

    assert [seconds_text(s) for s in (1, 2, 0.5)] == ["1 second", "2 seconds", "0.5 seconds"]
