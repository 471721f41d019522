"""What must hold before a task moves: a legal edge, finished sub-tasks, the phase's
artifact, an approved artifact as it was approved, a referee's verdict that lets the
task complete, and no objection from a transition rule. Each refusal is a `Refusal` in
the specification's words where it has some, carrying what the agent can do next."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automaton_rules.core import machine
from automaton_rules.core.phases import follow_up_cause
from automaton_rules.core.phases import verdict_of as verdict_of  # also the workflow's
from automaton_rules.core.policy import approval_entry
from automaton_rules.core.project import Project, Task, refuse_hand_edit
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable

if TYPE_CHECKING:  # the engine loads when a move consults the rules, not for `infer`
    from collections.abc import Sequence

    from automaton_rules.engine.findings import Finding
    from automaton_rules.engine.plugins import PluginError
    from automaton_rules.engine.runner import Engine


def refuse_illegal(project: Project, task: Task, target: str, *, reopen: bool = False) -> None:
    """Refuse a move along no edge of the machine, or out of a parent with open sub-tasks;
    `reopen`: the approval in force does not stand, so the way back to the gate is open."""
    current = task.state or ""
    legal = machine.legal_targets(current, subtask=task.parent is not None)
    if target == reapproval_gate(task) or (reopen and target == machine.reapproval_target(current)):
        return
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


def refuse_unless_awaiting(project: Project, task: Task) -> None:
    """Only a task waiting at a gate can be approved; the refusal names the state the task
    is in and the command that moves it on (to its gate, or past a phase with none)."""
    current = task.state or ""
    targets = machine.legal_targets(current, subtask=task.parent is not None)
    root = project.root
    target = targets[0] if len(targets) == 1 else None
    command = (
        project.context.command(
            "--task", task.name, "--transition", target or "PHASE", "--project", root
        )
        if targets
        else None
    )
    if not machine.needs_approval(current):
        said = "This phase does not require approval."
        if command is None:
            step = f"Task '{task.name}' is in '{current}': no approval gate and no next phase."
        else:
            choice = f" (PHASE: {', '.join(targets)})" if target is None else ""
            gated = [t for t in targets if machine.needs_approval(t)]
            later = "; ".join(f"{t} asks for approval at {t}{machine.AWAITING}" for t in gated)
            step = (
                f"Task '{task.name}' is in '{current}', which has no approval gate: it moves on "
                f"with {command}{choice}" + (f" ({later})" if later else "")
            )
        raise Refusal(
            "approval-not-required",
            f"{said} {step}",
            text=f"{said}\n{step}",
            next_steps={"state": current, "transitions": list(targets), "command": command},
        )
    if not machine.is_awaiting(current):
        phase = machine.base_phase(current)
        gate = phase + machine.AWAITING
        raise Refusal(
            "not-awaiting-approval",
            f"Current phase is '{current}' (not awaiting approval). Current sub-state must be "
            f"'{gate}' before approval can be granted.",
            next_steps={
                "state": current,
                "gate": gate,
                "command": project.context.command(
                    "--task", task.name, "--transition", gate, "--project", root
                )
                if gate in targets
                else None,
            },
        )


def _refuse_open_subtasks(project: Project, task: Task, target: str) -> None:
    subtasks = [project.load(name, strict=False) for name in project.subtask_names(task.name)]
    for sub in subtasks:  # a sub-task made `complete` by hand completes nothing
        refuse_hand_edit(project, sub)
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
    from automaton_rules.engine.findings import refusal

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


def plugin_failure(errors: Sequence[PluginError]) -> AutomatonError:
    """A rule that failed before a move or an edit, as one error naming each failure;
    with AUTOMATON_DEBUG set, each traceback under it (pluggy's lines as lines)."""
    import os

    from automaton_rules.support.output import message_lines

    message = printable("; ".join(str(e) for e in errors), None)
    lines = [f"ERROR: {message}"]
    if os.environ.get("AUTOMATON_DEBUG"):
        lines += [line for e in errors if e.trace for line in message_lines(e.trace, "  ")]
    return AutomatonError("plugin-error", message, text="\n".join(lines))


def consult_rules(
    engine: Engine, project: Project, task: Task, target: str, *, required: bool = True
) -> None:
    """Ask every transition rule about the move; a broken rule refuses it (fail closed)."""
    from automaton_rules.engine.rule import Transition

    current = task.state or ""
    result = engine.run("transition", project, [task], Transition(current, target))
    if result.errors:
        raise plugin_failure(result.errors)
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
                "command": project.context.command(
                    "--validate-folder", "--task", task.name, "--project", project.root
                ),
            },
        )


def approval_in_force(task: Task) -> dict[str, Any] | None:
    """The `--approve` line that let the task into its `X:approved` state, if it recorded
    the artifact's digest (older versions did not); None in any other state."""
    entry = approval_entry(task)
    return entry if entry is not None and isinstance(entry.get("artifact_sha256"), str) else None


def changed_since_approval(task: Task) -> tuple[str, dict[str, Any]] | None:
    """The approved artifact and its approval, when its bytes are no longer those approved."""
    entry = approval_in_force(task)
    if entry is None:
        return None
    named = entry.get("artifact")
    artifact = named if isinstance(named, str) and machine.is_artifact(named) else None
    artifact = artifact or machine.required_artifact(task.state or "") or ""
    if task.digest(artifact) == entry.get("artifact_sha256"):
        return None
    return artifact, entry


def reapproval_gate(task: Task) -> str | None:
    """`X:awaiting_approval`, the way back to the gate from `X:approved`, open only while
    the approved artifact has changed: the user approves the new one there."""
    gate = machine.reapproval_target(task.state or "")
    return gate if gate is not None and changed_since_approval(task) is not None else None


def refuse_changed_approval(project: Project, task: Task, target: str) -> None:
    """Leaving `X:approved` needs the artifact byte for byte as the user approved it."""
    changed = changed_since_approval(task)
    gate = machine.base_phase(task.state or "") + machine.AWAITING
    if changed is None or target == gate:
        return
    artifact, entry = changed
    change = "was removed" if task.digest(artifact) is None else "changed"
    command = project.context.command(
        "--task", task.name, "--transition", gate, "--project", project.root
    )
    raise Refusal(
        "approved-artifact-changed",
        f"Cannot transition from '{task.state}' to '{target}'. {artifact} {change} after its "
        f"approval at {printable(str(entry.get('time')))}: the approval covers {artifact} as "
        f"it was approved. Put the approved {artifact} back, or re-request approval: "
        f"{command} (then the user approves the new {artifact}).",
        next_steps={
            "artifact": artifact,
            "approved_at": entry.get("time"),
            "transition": gate,
            "command": command,
        },
    )


def refuse_failed_verdict(project: Project, task: Task, target: str) -> None:
    """From `referee`, only a PASS completes the task: FAIL, NEEDS_REVIEW or tie-breaks
    pause the autopilot for the user (v2.0 rule 5), who decides in human_intervention,
    and a VERDICT.md that names no verdict decides nothing (the gate fails closed)."""
    if task.state != "referee" or target != "complete":
        return
    if not task.has_content(machine.ARTIFACTS["referee"]):
        return  # the required-artifact check names it missing, in the specification's words
    text = task.read(machine.ARTIFACTS["referee"]) or ""
    verdict, cause = verdict_of(text), follow_up_cause(text)
    if verdict == "PASS" and cause is None:
        return
    root = project.root
    pause = project.context.command(
        "--task", task.name, "--transition", "human_intervention", "--project", root
    )
    follow = project.context.command("--task", task.name, "--follow-up", "--project", root)
    if cause == machine.TIE_BREAKS:
        said = (
            "VERDICT.md says PASS but names tie-breaks: the task does not complete on "
            "points the user has not settled"
        )
        then = f"; {follow} creates the {machine.FOLLOW_UPS[cause][0]} task"
    elif cause is not None:
        said = f"VERDICT.md says {verdict}: the task does not complete on it"
        then = f"; {follow} creates the {machine.FOLLOW_UPS[cause][0]} task"
    else:
        said = "VERDICT.md names no verdict (PASS, FAIL or NEEDS_REVIEW)"
        then = ", or the referee writes `Verdict: PASS`"
    raise Refusal(
        "verdict-not-pass",
        f"Cannot transition from 'referee' to 'complete'. {said}; the workflow pauses for "
        f"the user. Move it to human_intervention ({pause}), where the user decides{then}.",
        next_steps={
            "verdict": verdict,
            "tie_breaks": cause == machine.TIE_BREAKS,
            "transition": "human_intervention",
            "command": pause,
            "follow_up": follow,
        },
    )
