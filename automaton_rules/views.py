"""Text and JSON for each command's result, in the specification's formats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import machine, store
from .errors import printable
from .findings import OUT_OF_ORDER, Finding
from .project import Project, Task, status_command
from .runner import RunResult
from .workflow import Change

DASH = "—"
_LABELS = {"error": "FAIL", "warning": "WARN", "note": "NOTE"}


@dataclass
class Outcome:
    """What a command prints: the text, the JSON payload, the exit code."""

    exit_code: int
    text: str
    payload: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    raw: bool = False


def join_choices(items: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`: how the specification lists alternatives."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def next_step(state: str) -> str:
    """The --list column: where the task goes next, in a few words."""
    if machine.is_awaiting(state):
        return "approval (--approve)"
    if state == machine.SUBTASK_PARENT_STATE:
        return "sub-tasks, then complete"
    targets = machine.legal_targets(state)
    if state == "human_intervention":
        return f"user decides: {join_choices(targets)}"
    return join_choices(targets) or DASH


def _proceed(project: Project, task: Task, subtasks: Sequence[Task]) -> str:
    state = task.state or ""
    root = project.root
    if machine.is_awaiting(state):
        return "after the user says APPROVED: " + status_command(
            "--task", task.name, "--approve", "--project", root
        )
    if state == machine.SUBTASK_PARENT_STATE and task.parent is None:
        done = bool(subtasks) and all(sub.state == "complete" for sub in subtasks)
        if done:
            return status_command(
                "--task", task.name, "--transition", "complete", "--project", root
            )
        create = status_command("--create-task", f"{task.name}/SUB-TASK", "--project", root)
        return f"{create} (for each sub-task; complete this task when all are complete)"
    targets = machine.legal_targets(state)
    if not targets:
        return DASH
    target = targets[0] if len(targets) == 1 else "PHASE"
    command = status_command("--task", task.name, "--transition", target, "--project", root)
    if len(targets) > 1:
        command += f" (PHASE: {join_choices(targets)})"
    return f"the user decides: {command}" if state == "human_intervention" else command


def approval_status(task: Task, approvals: Sequence[store.Approval | None]) -> str:
    """One line on the approval gate of the current phase."""
    state = task.state or ""
    if not machine.needs_approval(state):
        return "not required in this phase"
    artifact = machine.required_artifact(state)
    if machine.is_awaiting(state):
        return f"awaiting approval of {artifact} (the user approves with --approve)"
    if machine.is_approved(state):
        for approval in reversed(approvals):
            if approval is not None and approval.state == state:
                return f"approved by {printable(approval.approver)} at {printable(approval.time)}"
        return "approved, but no line in .state.approvals records it"
    return f"not requested yet ({artifact} needs the user's approval before the task moves on)"


def task_view(
    project: Project, task: Task, parent: Task | None, subtasks: Sequence[Task]
) -> Outcome:
    """The full view of `--task`."""
    state = task.state or ""
    info = machine.guidance(state)
    approvals = store.read_approvals(task.path)
    lines = [
        f"Task: {task.name}",
        f"Phase: {state} (from .state)",
        f"State file: {task.path / store.STATE}",
        f"Approval status: {approval_status(task, approvals)}",
    ]
    if parent is not None:
        lines.append(f"Parent task: {parent.name} (phase: {parent.state or 'untracked'})")
    if subtasks:
        listed = ", ".join(
            f"{sub.name.split('/')[1]} ({sub.state or 'untracked'})" for sub in subtasks
        )
        lines.append(f"Sub-tasks: {listed}")
    lines.append("Allowed actions:")
    lines.extend(f"  - {item}" for item in info.allowed)
    lines.append("Forbidden actions:")
    lines.extend(f"  - {item}" for item in info.forbidden)
    next_states = (
        [f"{s} (via --approve)" for s in info.next_states] if info.via_approve else info.next_states
    )
    command = _proceed(project, task, subtasks)
    lines += [
        f"Next artifact needed: {info.next_artifact or DASH}",
        f"Next phase: {join_choices(next_states) or DASH}",
        f"Command to proceed: {command}",
    ]
    payload = {
        "task": {
            "name": task.name,
            "state": state,
            "phase": machine.base_phase(state),
            "state_file": str(task.path / store.STATE),
            "approval_status": approval_status(task, approvals),
            "approvals": [a.__dict__ for a in approvals if a is not None],
            "parent": None if parent is None else {"name": parent.name, "state": parent.state},
            "subtasks": [{"name": sub.name, "state": sub.state} for sub in subtasks],
            "allowed_actions": list(info.allowed),
            "forbidden_actions": list(info.forbidden),
            "next_artifact": info.next_artifact,
            "next_states": list(info.next_states),
            "next_via_approve": info.via_approve,
            "can_edit": machine.is_edit_phase(state),
            "command_to_proceed": command,
        }
    }
    return Outcome(0, "\n".join(lines), payload)


@dataclass(frozen=True)
class ListRow:
    """One line of --list."""

    name: str
    state: str | None
    problem: str | None = None


def list_view(project: Project, rows: Sequence[ListRow]) -> Outcome:
    """Task / Phase / Next Step, sub-tasks indented under their parent."""
    shown = []
    for row in rows:
        label = f"  {row.name}" if "/" in row.name else row.name
        if row.problem is not None:
            phase, step = "unknown", row.problem
        elif row.state is None:
            phase, step = "untracked", "run --upgrade"
        else:
            phase, step = row.state, next_step(row.state)
        shown.append((label, phase, step))
    width_task = max([25, *(len(label) + 2 for label, _, _ in shown)])
    width_phase = max([21, *(len(phase) + 2 for _, phase, _ in shown)])
    lines = [f"{'Task':<{width_task}}{'Phase':<{width_phase}}Next Step"]
    lines += [f"{label:<{width_task}}{phase:<{width_phase}}{step}" for label, phase, step in shown]
    if not rows:
        lines.append(f"(no tasks in {project.tasks_label})")
    payload = {
        "project": str(project.root),
        "tasks": [
            {
                "name": row.name,
                "parent": row.name.split("/")[0] if "/" in row.name else None,
                "state": row.state,
                "tracked": row.state is not None,
                "awaiting_approval": bool(row.state and machine.is_awaiting(row.state)),
                "next_step": step,
                "problem": row.problem,
            }
            for row, (_, _, step) in zip(rows, shown)
        ],
    }
    problems = [row.problem for row in rows if row.problem]
    return Outcome(2 if problems else 0, "\n".join(lines), payload, errors=problems)


def validate_block(task: Task, findings: Sequence[Finding]) -> list[str]:
    """One task's --validate-folder report, word for word as the specification gives it."""
    lines = [f"Task: {task.name}"]
    if task.state is None:
        lines += [
            "Phase: unknown (no .state file found)",
            "Folder validation: FAIL — task was created manually (no .state file). Use "
            f"'{status_command('--create-task')}' to create tasks properly.",
        ]
        return lines
    lines.append(f"Phase: {task.state} (from .state)")
    skipped = [f for f in findings if f.category == OUT_OF_ORDER and f.artifact]
    if not skipped:
        lines.append("Folder validation: PASS — no out-of-order artifacts found")
    else:
        lines.append("Folder validation: FAIL — found out-of-order artifacts:")
        lines += [
            f"  - {f.artifact} (belongs to {f.data.get('phase', 'a later')} phase, not yet reached)"
            for f in skipped
        ]
        lines += [
            "These artifacts indicate phase-skipping. The task is in "
            f"{task.phase} phase but has artifacts from future phases.",
            "Remove the out-of-order artifacts or revert to the correct phase.",
        ]
    lines += [
        f"[{_LABELS.get(f.severity, 'NOTE')}] {f.code}: {f.message}"
        for f in findings
        if f not in skipped
    ]
    return lines


def validate_view(tasks: Sequence[Task], result: RunResult, errors: Sequence[str]) -> Outcome:
    """--validate-folder for one task or all of them."""
    by_task: dict[str, list[Finding]] = {}
    for finding in result.findings:
        by_task.setdefault(finding.task or "", []).append(finding)
    blocks = ["\n".join(validate_block(task, by_task.get(task.name, []))) for task in tasks]
    failed = [
        task.name
        for task in tasks
        if task.state is None or any(f.severity == "error" for f in by_task.get(task.name, []))
    ]
    if len(tasks) != 1:
        blocks.append(f"Validated {len(tasks)} task(s): {len(failed)} failed")
    all_errors = [*errors, *(f"plugin {e.plugin}: {e.message}" for e in result.errors)]
    exit_code = 2 if all_errors else (1 if failed else 0)
    payload = {
        "tasks": [
            {
                "name": task.name,
                "state": task.state,
                "tracked": task.state is not None,
                "passed": task.name not in failed,
            }
            for task in tasks
        ],
        "findings": [f.as_dict() for f in result.findings],
        "errors": all_errors,
    }
    return Outcome(exit_code, "\n\n".join(blocks), payload, errors=all_errors)


def change_view(project: Project, change: Change, command: str) -> Outcome:
    """Confirmation of create, transition and approve, with the next command to run."""
    if command == "create-task":
        text = f"Created task '{change.task}' in state 'new'. Use --transition research to begin."
    elif command == "approve":
        text = (
            f"Approved {machine.base_phase(change.after)} for task '{change.task}' by "
            f"{change.approver}: '{change.before}' -> '{change.after}'. "
            f"Next: {next_step(change.after)}"
        )
    else:
        text = (
            f"Transitioned task '{change.task}' from '{change.before}' to '{change.after}'. "
            f"Next: {next_step(change.after)}"
        )
    payload = {
        "task": change.task,
        "from": change.before,
        "to": change.after,
        "recovered": change.recovered,
        "next_step": next_step(change.after),
    }
    if change.approver is not None:
        payload["approver"] = change.approver
    return Outcome(0, text, payload)


def upgrade_view(project: Project, changes: Sequence[Change]) -> Outcome:
    """One line per adopted task, so the user sees what was inferred."""
    if not changes:
        text = f"No untracked tasks in {project.tasks_label}"
    else:
        text = "\n".join(
            f"Upgraded task '{c.task}': .state set to '{c.after}' "
            f"({'inferred from ' + c.inferred_from if c.inferred_from else 'no artifacts'})"
            for c in changes
        )
    payload = {
        "upgraded": [
            {"task": c.task, "state": c.after, "inferred_from": c.inferred_from} for c in changes
        ]
    }
    return Outcome(0, text, payload)
