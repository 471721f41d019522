"""`status.py --task NAME`: where a task stands, the view agents call most, kept light.

`show_task` reads the task, its parent and sub-tasks, its records and its folder's
validation (the rules that run at `validate`); `task_view` renders the exact text agents
parse (docs/workflow.md, "What --task shows") and its JSON. Neither typer nor the
workflow's writing side load here (the workflow only for `untracked = "infer"` and an
approved artifact's digest), so the line costs little more than its rules (whose
`Finding` brings `dataclasses`, which `TaskState` uses too).
"""

from __future__ import annotations

from dataclasses import dataclass

from automaton_rules.cli.run import Outcome, painted, selection
from automaton_rules.core import machine, store
from automaton_rules.core.project import load_tracked
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from automaton_rules.cli.run import Run
    from automaton_rules.core.config import Config
    from automaton_rules.core.project import Project, Task
    from automaton_rules.engine.findings import Finding
    from automaton_rules.engine.result import RunResult

DASH = "—"


@dataclass(frozen=True)
class TaskState:
    """What `--task` shows: the task among its relatives, its records, its validation."""

    project: Project
    task: Task
    parent: Task | None
    subtasks: Sequence[Task]
    approvals: Sequence[store.Approval | None]
    validation: RunResult
    origin: dict[str, Any] | None = None  # the history's first line, for a follow-up task
    approval: str = "open"  # the project's approval mode, which says how the user approves
    shell: str | None = None  # where no sandbox holds the agent's shell, the line that says so


def show_task(*, run: Run, task: str, project: Path | None, config: Path | None) -> TaskState:
    """`--task NAME`: the task, its relatives and records, and its folder's validation."""
    proj, settings = run.open(project, config)
    if settings.untracked == "infer":
        from automaton_rules.workflow import infer_untracked

        infer_untracked(proj, task, settings.untracked)
    current = load_tracked(proj, task)
    parent = proj.load(current.parent, strict=False) if current.parent else None
    subtasks = (
        [] if current.parent else [proj.load(n, strict=False) for n in proj.subtask_names(task)]
    )
    engine = run.engine(settings)
    result = engine.run(
        "validate", proj, [current], config=settings, selection=selection(engine, settings)
    )
    history = store.read_history(current.path)
    origin = history[0] if history and history[0].get("command") == "--follow-up" else None
    return TaskState(
        proj,
        current,
        parent,
        subtasks,
        store.read_approvals(current.path),
        result,
        origin,
        settings.approval,
        _shell_sandbox(settings),
    )


def _shell_sandbox(settings: Config) -> str | None:
    """The line `--task` adds where no sandbox holds the agent's shell (`sandbox` is not
    "off" and no mechanism works here); None where one does."""
    if settings.sandbox == "off":
        return None
    from automaton_rules.guards.sandbox import mechanisms

    if mechanisms.choose() is not None:
        return None
    then = "refused" if settings.sandbox == "required" else "judged by the reader alone"
    return (
        f"Shell sandbox: none works on this machine, so shell commands are {then} "
        f"({mechanisms.HOW_TO_ENABLE})"
    )


def task_view(shown: TaskState) -> Outcome:
    """The full view of `--task`, in the words docs/workflow.md gives."""
    task, approvals, approval = shown.task, shown.approvals, shown.approval
    state = task.state or ""
    info = machine.guidance(state, subtask=task.parent is not None)
    lines = [
        f"Task: {task.name}",
        f"Phase: {state} (from .state)",
        f"State file: {task.path / store.STATE}",
        f"Approval status: {approval_status(task, approvals, approval)}",
    ]
    lines += _relatives(shown.parent, shown.subtasks, shown.origin)
    lines.append("Allowed actions:")
    lines.extend(f"  - {item}" for item in info.allowed)
    lines.append("Forbidden actions:")
    lines.extend(f"  - {item}" for item in info.forbidden)
    next_states = (
        [f"{s} (via --approve)" for s in info.next_states] if info.via_approve else info.next_states
    )
    command = _proceed(shown.project, task, shown.subtasks, approval)
    lines += [
        f"Next artifact needed: {info.next_artifact or DASH}",
        f"Next phase: {join_choices(next_states) or DASH}",
        f"Command to proceed: {command}",
        f"Folder validation: {folder_validation(task, shown.validation)}",
    ]
    if shown.shell:
        lines.append(shown.shell)
    errors = [str(e) for e in shown.validation.errors]
    text, painter = painted([(line, _task_mark(line, state)) for line in lines])
    return Outcome(
        2 if errors else 0, text, _payload(shown, info, command), errors=errors, painter=painter
    )


def _payload(shown: TaskState, info: machine.Guidance, command: str) -> dict[str, Any]:
    """`--task --json`'s answer."""
    task, parent, origin = shown.task, shown.parent, shown.origin
    state = task.state or ""
    return {
        "task": {
            "name": task.name,
            "state": state,
            "phase": machine.base_phase(state),
            "state_file": str(task.path / store.STATE),
            "approval_status": approval_status(task, shown.approvals, shown.approval),
            "approvals": [a.__dict__ for a in shown.approvals if a is not None],
            "parent": None if parent is None else {"name": parent.name, "state": parent.state},
            "subtasks": [{"name": sub.name, "state": sub.state} for sub in shown.subtasks],
            "origin": None
            if origin is None
            else {"task": origin.get("origin"), "verdict": origin.get("verdict")},
            **_guidance_payload(info, state, command),
            "findings": [f.as_dict() for f in shown.validation.findings],
            "shell_sandbox": shown.shell,
        }
    }


def join_choices(items: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`: how the specification lists alternatives."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def how_to_approve(project: Project, name: str, approval: str) -> str:
    """How the user approves a task under the project's `approval` mode."""
    from automaton_rules.core.policy import Policy

    command = project.context.command("--task", name, "--approve", "--project", project.root)
    policy = Policy(approval)
    if policy.needs_signature:
        return f"the user signs in a terminal: {command} --approver ID"
    if policy.needs_person:
        typed = f"approve {name}"
        return f"ask the user to type `{typed}` in the chat (or to run {command} in a terminal)"
    return f"after the user says APPROVED: {command}"


def _proceed(project: Project, task: Task, subtasks: Sequence[Task], approval: str) -> str:
    state = task.state or ""
    root = project.root
    if machine.is_awaiting(state):
        return how_to_approve(project, task.name, approval)
    if state == machine.SUBTASK_PARENT_STATE and task.parent is None:
        complete = project.context.command(
            "--task", task.name, "--transition", "complete", "--project", root
        )
        if subtasks and all(sub.state == "complete" for sub in subtasks):
            return complete
        if subtasks:
            return f"work on the sub-tasks (--list); once all are complete: {complete}"
        create = project.context.command(
            "--create-task", f"{task.name}/SUB-TASK", "--project", root
        )
        return f"{create} (for each sub-task; complete this task when all are complete)"
    targets = machine.legal_targets(state, subtask=task.parent is not None)
    if not targets:
        return DASH
    target = targets[0] if len(targets) == 1 else "PHASE"
    command = project.context.command(
        "--task", task.name, "--transition", target, "--project", root
    )
    if len(targets) > 1:
        command += f" (PHASE: {join_choices(targets)})"
    return f"the user decides: {command}" if state == "human_intervention" else command


def approval_status(
    task: Task, approvals: Sequence[store.Approval | None], mode: str = "open"
) -> str:
    """One line on the approval gate of the current phase."""
    how = {"prompt": f"types `approve {task.name}` in the chat", "signed": "signs --approve"}
    gives = how.get(mode, "approves with --approve")
    state = task.state or ""
    if not machine.needs_approval(state):
        given = [
            f"{a.state} by {printable(a.approver)} via {a.via}" for a in approvals if a is not None
        ]
        return "not required in this phase" + (
            f" (approved so far: {', '.join(given)})" if given else ""
        )
    artifact = machine.required_artifact(state)
    if machine.is_awaiting(state):
        return f"awaiting approval of {artifact} (the user {gives})"
    if machine.is_approved(state):
        return _approved_status(task, approvals, state, gives)
    return f"not requested yet ({artifact} needs the user's approval before the task moves on)"


def _approved_status(
    task: Task, approvals: Sequence[store.Approval | None], state: str, gives: str
) -> str:
    """Who approved the phase, and whether its artifact changed since."""
    from automaton_rules.workflow.gates import changed_since_approval

    changed = changed_since_approval(task)
    since = (
        f"; {changed[0]} changed since, so the task moves on only once the user approves "
        f"it again (--transition {machine.base_phase(state)}{machine.AWAITING}, then the "
        f"user {gives})"
        if changed
        else ""
    )
    for approval in reversed(approvals):
        if approval is not None and approval.state == state:
            by = (
                f"approved by {printable(approval.approver)} at {printable(approval.time)} "
                f"via {approval.via}"
            )
            return by + since
    return "approved, but no line in .state.approvals records it" + since


def folder_validation(task: Task, result: RunResult) -> str:
    """One line of --validate-folder's verdict, so --task warns before a transition fails."""
    from automaton_rules.engine.findings import OUT_OF_ORDER

    if result.errors:
        failed = "; ".join(str(e) for e in result.errors)
        return f"ERROR — {printable(failed, None)}"
    skipped = [
        printable(f.artifact or "", None) for f in result.findings if f.category == OUT_OF_ORDER
    ]
    others = [
        printable(f"{f.code}: {f.message}", None)
        for f in result.findings
        if f.category != OUT_OF_ORDER
    ]
    failing = failing_rules(result.findings)
    if skipped:
        text = f"FAIL — found out-of-order artifacts: {', '.join(skipped)} (see --validate-folder)"
    elif disagreements(result.findings):
        text = "FAIL — found state-artifact inconsistencies (see --validate-folder)"
    elif failing:
        text = f"FAIL — {failing} (see --validate-folder)"
    else:
        text = "PASS — no out-of-order artifacts found"
    return "; ".join([text, *others])


def failing_rules(findings: Sequence[Finding]) -> str | None:
    """`rule EX201 reports an error` for the rules whose errors fail a folder, or None:
    a task with an error finding never reads PASS, whichever rule found it."""
    codes = list(dict.fromkeys(f.code for f in findings if f.severity == "error"))
    if not codes:
        return None
    if len(codes) == 1:
        return f"rule {printable(codes[0], None)} reports an error"
    return f"rules {printable(', '.join(codes), None)} report errors"


def disagreements(findings: Sequence[Finding]) -> list[Finding]:
    """The errors of the state against the task's files and records: they fail the folder
    as out-of-order artifacts do (a task in bug_find with only SPEC.md is no PASS)."""
    from automaton_rules.engine.findings import INCONSISTENCY

    return [f for f in findings if f.category == INCONSISTENCY and f.severity == "error"]


def _task_mark(line: str, state: str) -> str | None:
    """How a line of --task stands out in a terminal: the phase, a pending approval, the
    folder's verdict."""
    if line.startswith("Phase: "):
        return "bold"
    if line.startswith("Approval status: ") and machine.is_awaiting(state):
        return "yellow"
    if line.startswith("Folder validation: "):
        return "green" if line.startswith("Folder validation: PASS") else "red"
    return None


def _relatives(
    parent: Task | None, subtasks: Sequence[Task], origin: dict[str, Any] | None
) -> list[str]:
    """The lines of --task about the tasks this one comes from or is made of."""
    lines = []
    if origin is not None:
        said = printable(str(origin.get("verdict")))
        said += " with tie-breaks" if origin.get("kind") == "tiebreak" else ""
        lines.append(
            f"Follow-up of: {printable(str(origin.get('origin')))} "
            f"(VERDICT.md said {said}; see ORIGIN_VERDICT.md)"
        )
    if parent is not None:
        lines.append(
            f"Parent task: {parent.name} (phase: {printable(parent.state or 'untracked')})"
        )
    if subtasks:
        listed = ", ".join(
            f"{sub.name.split('/')[1]} ({printable(sub.state or 'untracked')})" for sub in subtasks
        )
        lines.append(f"Sub-tasks: {listed}")
    return lines


def _guidance_payload(info: machine.Guidance, state: str, command: str) -> dict[str, Any]:
    """What the task may do now and next, as --task --json gives it."""
    return {
        "allowed_actions": list(info.allowed),
        "forbidden_actions": list(info.forbidden),
        "next_artifact": info.next_artifact,
        "next_states": list(info.next_states),
        "next_via_approve": info.via_approve,
        "can_edit": machine.is_edit_phase(state),
        "command_to_proceed": command,
    }
