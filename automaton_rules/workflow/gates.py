"""What must hold before a task moves: a legal edge, finished sub-tasks, the phase's
artifact, and no objection from a transition rule. Each refusal is a `Refusal` in the
specification's words, carrying what the agent can do next."""

from __future__ import annotations

from typing import TYPE_CHECKING

from automaton_rules.core import machine
from automaton_rules.core.errors import AutomatonError, Refusal
from automaton_rules.core.output import printable
from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import Finding, refusal
from automaton_rules.engine.rule import Transition

if TYPE_CHECKING:
    from automaton_rules.engine.runner import Engine


def refuse_illegal(project: Project, task: Task, target: str) -> None:
    """Refuse a move along no edge of the machine, or out of a parent with open sub-tasks."""
    current = task.state or ""
    legal = machine.legal_targets(current, subtask=task.parent is not None)
    if target in legal:
        if current == machine.SUBTASK_PARENT_STATE and target == "complete":
            _refuse_open_subtasks(project, task, target)
        return
    shown = list(legal)
    if machine.is_awaiting(current):
        shown = [f"{machine.approval_target(current)} (only via --approve)"]
    listed = ", ".join(shown) if shown else "none"
    raise Refusal(
        "illegal-transition",
        f"Cannot transition from '{current}' to '{target}'. "
        f"Legal transitions from '{current}' are: {listed}",
        next_steps={"legal_transitions": list(legal), "approve": machine.is_awaiting(current)},
    )


def _refuse_open_subtasks(project: Project, task: Task, target: str) -> None:
    subtasks = [project.load(name, strict=False) for name in project.subtask_names(task.name)]
    open_ones = [
        f"{sub.name} ({printable(sub.state or 'untracked')})"
        for sub in subtasks
        if sub.state != "complete"
    ]
    if subtasks and not open_ones:
        return
    reason = (
        f"Sub-tasks not complete: {', '.join(open_ones)}"
        if open_ones
        else "The task has no sub-tasks"
    )
    raise Refusal(
        "subtasks-incomplete",
        f"Cannot transition from '{task.state}' to '{target}'. {reason}.",
        next_steps={"open_subtasks": [s.name for s in subtasks if s.state != "complete"]},
    )


def missing_artifact(task: Task) -> str | None:
    """The artifact the task's phase needs before it can be left, if it is missing or empty."""
    required = machine.required_artifact(task.state or "")
    return required if required and not task.has_content(required) else None


def transition_problems(
    task: Task, target: str, findings: list[Finding], *, required: bool = True
) -> list[str]:
    """Every reason the move is refused, one message each, in the specification's words."""
    current = task.state or ""
    prefix = f"Cannot transition from '{current}' to '{target}'."
    problems = []
    needed = missing_artifact(task) if required else None
    if needed:
        problems.append(
            f"{prefix} Required artifact '{needed}' is missing or empty in task folder."
        )
    for finding in findings:
        problems.append(f"{prefix} {printable(refusal(finding, current, target), None)}")
    return problems


def consult_rules(
    engine: Engine, project: Project, task: Task, target: str, *, required: bool = True
) -> None:
    """Ask every transition rule about the move; a broken rule refuses it (fail closed)."""
    current = task.state or ""
    result = engine.run("transition", project, [task], Transition(current, target))
    if result.errors:
        raise AutomatonError(
            "plugin-error", printable("; ".join(str(e) for e in result.errors), None)
        )
    problems = transition_problems(task, target, result.violations, required=required)
    if problems:
        raise Refusal(
            "transition-refused",
            problems[0],
            text="\n".join(f"ERROR: {p}" for p in problems),
            next_steps={
                "problems": problems,
                "missing_artifact": missing_artifact(task) if required else None,
                "forbidden_artifacts": [f.artifact for f in result.violations if f.artifact],
                "command": project.command(
                    "--validate-folder", "--task", task.name, "--project", project.root
                ),
            },
        )
