"""Text and JSON for each command's result, in the specification's formats."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional

from automaton_rules.core import clock, machine, store
from automaton_rules.core.output import printable
from automaton_rules.core.project import SPEC_SCRIPT, Project, Task
from automaton_rules.engine.findings import INCONSISTENCY, OUT_OF_ORDER, Finding
from automaton_rules.engine.result import RunResult
from automaton_rules.workflow import Adopted, ClaimChanged, Created, FollowedUp, Moved
from automaton_rules.workflow.gates import changed_since_approval

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.cli.style import Style
    from automaton_rules.engine.events import EventError

DASH = "—"
_LABELS = {"error": "FAIL", "warning": "WARN", "note": "NOTE"}


@dataclass
class Outcome:
    """What a command prints: the text, the JSON payload, the exit code; `warnings` go to
    stderr as `WARNING:` lines and change no exit code, `errors` as `ERROR:` lines (beside
    a raw report too, so a report sent to a file leaves them in the log). `painter` gives
    the same text in a terminal's colours, for the printing step to use when the stream
    takes colour."""

    exit_code: int
    text: str
    payload: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    raw: bool = False
    warnings: list[str] = field(default_factory=list)
    painter: Callable[[Style], str] | None = None


# A line of text and the name of the `Style` method it is painted with (None: as it is).
Marked = Sequence[tuple[str, Optional[str]]]


def painted(marked: Marked) -> tuple[str, Callable[[Style], str]]:
    """The plain text of marked lines and its painter: one list, so the two never differ
    but for the colour codes."""

    def paint(style: Style) -> str:
        return "\n".join(getattr(style, how)(line) if how else line for line, how in marked)

    return "\n".join(line for line, _ in marked), paint


def with_event_errors(outcome: Outcome, failed: Sequence[EventError]) -> Outcome:
    """A listener that failed on an event is a warning, and an entry of `event_errors` in
    --json; the change it heard of stands, and so does the exit code."""
    if failed:
        outcome.warnings.extend(str(failure) for failure in failed)
        if not outcome.raw:
            outcome.payload["event_errors"] = [failure.as_dict() for failure in failed]
    return outcome


def join_choices(items: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`: how the specification lists alternatives."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def next_step(state: str, *, subtask: bool = False, subtasks_done: bool = False) -> str:
    """The --list column: where the task goes next, in a few words; a decomposed parent
    whose sub-tasks are all complete can move to complete now."""
    if machine.is_awaiting(state):
        return "approval (--approve)"
    if state == machine.SUBTASK_PARENT_STATE and not subtask:
        return "complete" if subtasks_done else "sub-tasks, then complete"
    targets = machine.legal_targets(state, subtask=subtask)
    if state == "human_intervention":
        return f"user decides: {join_choices(targets)}"
    return join_choices(targets) or DASH


def next_states(state: str, *, subtask: bool = False) -> list[str]:
    """The same as a list for JSON: the states --transition (or --approve) leads to."""
    target = machine.approval_target(state)
    return [target] if target else list(machine.legal_targets(state, subtask=subtask))


def how_to_approve(project: Project, name: str, approval: str) -> str:
    """How the user approves a task under the project's `approval` mode."""
    command = project.command("--task", name, "--approve", "--project", project.root)
    if approval == "prompt":
        typed = f"approve {name}"
        return f"ask the user to type `{typed}` in the chat (or to run {command} in a terminal)"
    if approval == "signed":
        return f"the user signs in a terminal: {command} --approver ID"
    return f"after the user says APPROVED: {command}"


def _proceed(project: Project, task: Task, subtasks: Sequence[Task], approval: str) -> str:
    state = task.state or ""
    root = project.root
    if machine.is_awaiting(state):
        return how_to_approve(project, task.name, approval)
    if state == machine.SUBTASK_PARENT_STATE and task.parent is None:
        complete = project.command(
            "--task", task.name, "--transition", "complete", "--project", root
        )
        if subtasks and all(sub.state == "complete" for sub in subtasks):
            return complete
        if subtasks:
            return f"work on the sub-tasks (--list); once all are complete: {complete}"
        create = project.command("--create-task", f"{task.name}/SUB-TASK", "--project", root)
        return f"{create} (for each sub-task; complete this task when all are complete)"
    targets = machine.legal_targets(state, subtask=task.parent is not None)
    if not targets:
        return DASH
    target = targets[0] if len(targets) == 1 else "PHASE"
    command = project.command("--task", task.name, "--transition", target, "--project", root)
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
    return f"not requested yet ({artifact} needs the user's approval before the task moves on)"


def folder_validation(task: Task, result: RunResult) -> str:
    """One line of --validate-folder's verdict, so --task warns before a transition fails."""
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
    failing = _failing(result.findings)
    if skipped:
        text = f"FAIL — found out-of-order artifacts: {', '.join(skipped)} (see --validate-folder)"
    elif _disagreements(result.findings):
        text = "FAIL — found state-artifact inconsistencies (see --validate-folder)"
    elif failing:
        text = f"FAIL — {failing} (see --validate-folder)"
    else:
        text = "PASS — no out-of-order artifacts found"
    return "; ".join([text, *others])


def _failing(findings: Sequence[Finding]) -> str | None:
    """`rule EX201 reports an error` for the rules whose errors fail a folder, or None:
    a task with an error finding never reads PASS, whichever rule found it."""
    codes = list(dict.fromkeys(f.code for f in findings if f.severity == "error"))
    if not codes:
        return None
    if len(codes) == 1:
        return f"rule {printable(codes[0], None)} reports an error"
    return f"rules {printable(', '.join(codes), None)} report errors"


def _disagreements(findings: Sequence[Finding]) -> list[Finding]:
    """The errors of the state against the task's files and records: they fail the folder
    as out-of-order artifacts do (a task in bug_find with only SPEC.md is no PASS)."""
    return [f for f in findings if f.category == INCONSISTENCY and f.severity == "error"]


def task_view(
    project: Project,
    task: Task,
    parent: Task | None,
    subtasks: Sequence[Task],
    approvals: Sequence[store.Approval | None],
    validation: RunResult,
    origin: dict[str, Any] | None = None,
    approval: str = "open",
    shell: str | None = None,
) -> Outcome:
    """The full view of `--task`; `approval` is the project's mode, which says how the
    user approves; `shell`, where no sandbox holds the agent's shell, says so."""
    state = task.state or ""
    info = machine.guidance(state, subtask=task.parent is not None)
    lines = [
        f"Task: {task.name}",
        f"Phase: {state} (from .state)",
        f"State file: {task.path / store.STATE}",
        f"Approval status: {approval_status(task, approvals, approval)}",
    ]
    lines += _relatives(parent, subtasks, origin)
    lines.append("Allowed actions:")
    lines.extend(f"  - {item}" for item in info.allowed)
    lines.append("Forbidden actions:")
    lines.extend(f"  - {item}" for item in info.forbidden)
    next_states = (
        [f"{s} (via --approve)" for s in info.next_states] if info.via_approve else info.next_states
    )
    command = _proceed(project, task, subtasks, approval)
    lines += [
        f"Next artifact needed: {info.next_artifact or DASH}",
        f"Next phase: {join_choices(next_states) or DASH}",
        f"Command to proceed: {command}",
        f"Folder validation: {folder_validation(task, validation)}",
    ]
    if shell:
        lines.append(shell)
    payload = {
        "task": {
            "name": task.name,
            "state": state,
            "phase": machine.base_phase(state),
            "state_file": str(task.path / store.STATE),
            "approval_status": approval_status(task, approvals, approval),
            "approvals": [a.__dict__ for a in approvals if a is not None],
            "parent": None if parent is None else {"name": parent.name, "state": parent.state},
            "subtasks": [{"name": sub.name, "state": sub.state} for sub in subtasks],
            "origin": None
            if origin is None
            else {"task": origin.get("origin"), "verdict": origin.get("verdict")},
            **_guidance_payload(info, state, command),
            "findings": [f.as_dict() for f in validation.findings],
            "shell_sandbox": shell,
        }
    }
    errors = [str(e) for e in validation.errors]
    text, painter = painted([(line, _task_mark(line, state)) for line in lines])
    return Outcome(2 if errors else 0, text, payload, errors=errors, painter=painter)


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


@dataclass(frozen=True)
class ListRow:
    """One line of --list."""

    name: str
    state: str | None
    problem: str | None = None
    holder: str | None = None


def holder_text(claim: dict[str, str] | None) -> str | None:
    """`agent-1 until 2026-…Z`, `(expired)` when it has run out, None when unclaimed."""
    if not claim:
        return None
    expires = clock.parse_time(claim.get("expires", ""))
    expired = expires is None or expires < datetime.now(timezone.utc)
    shown = f"{claim.get('agent', '?')} until {claim.get('expires', '?')}"
    return printable(shown, None) + (" (expired)" if expired else "")


def _subtasks_done(rows: Sequence[ListRow]) -> set[str]:
    """Parents that have sub-tasks, every one complete (and readable): the gate to
    complete is open for them."""
    seen: dict[str, bool] = {}
    for row in rows:
        parent, _, sub = row.name.partition("/")
        if sub:
            complete = row.state == "complete" and row.problem is None
            seen[parent] = seen.get(parent, True) and complete
    return {parent for parent, complete in seen.items() if complete}


def list_view(
    project: Project,
    rows: Sequence[ListRow],
    *,
    holders: bool = False,
    approval: str = "open",
) -> Outcome:
    """Task / Phase / Next Step, sub-tasks indented under their parent; Agent when claimed.
    After the table, a blank line, the count of tasks per phase and one line per task
    awaiting approval saying how the user approves it (`approval` is the project's mode)."""
    shown = _list_cells(rows)
    table = _list_table(rows, shown, holders)
    marked: list[tuple[str, str | None]] = [(table[0], "bold")]
    marked += [(line, _row_mark(row)) for line, row in zip(table[1:], rows)]
    counts = phase_counts(phase for _, phase, _ in shown)
    if rows:
        marked += [("", None), (count_line(counts), None)]
        marked += [(line, "yellow") for line in _awaiting_lines(project, rows, approval)]
    else:
        marked.append((f"(no tasks in {project.tasks_label})", None))
    payload = {
        "project": str(project.root),
        "tasks": [_list_entry(row, step) for row, (_, _, step) in zip(rows, shown)],
        "counts": counts,
    }
    problems = [row.problem for row in rows if row.problem]
    text, painter = painted(marked)
    return Outcome(2 if problems else 0, text, payload, errors=problems, painter=painter)


def _list_cells(rows: Sequence[ListRow]) -> list[tuple[str, str, str]]:
    """Each row's Task, Phase and Next Step cells."""
    shown = []
    done = _subtasks_done(rows)
    for row in rows:
        label = f"  {row.name}" if "/" in row.name else row.name
        if row.problem is not None:
            phase, step = row.state or "unknown", row.problem
        elif row.state is None:
            phase, step = "untracked", "run --upgrade"
        else:
            sub = "/" in row.name
            phase, step = (
                row.state,
                next_step(row.state, subtask=sub, subtasks_done=row.name in done),
            )
        shown.append((label, phase, step))
    return shown


def _list_table(
    rows: Sequence[ListRow], shown: Sequence[tuple[str, str, str]], holders: bool
) -> list[str]:
    """The header and one line per row, each column as wide as its longest value."""
    width_task = max([25, *(len(label) + 2 for label, _, _ in shown)])
    width_phase = max([21, *(len(phase) + 2 for _, phase, _ in shown)])
    lines = [f"{'Task':<{width_task}}{'Phase':<{width_phase}}Next Step"]
    lines += [f"{label:<{width_task}}{phase:<{width_phase}}{step}" for label, phase, step in shown]
    if holders:
        width_step = max([12, *(len(step) + 2 for _, _, step in shown)])
        lines = [f"{lines[0]:<{width_task + width_phase + width_step}}Agent"] + [
            f"{line:<{width_task + width_phase + width_step}}{row.holder or DASH}"
            for line, row in zip(lines[1:], rows)
        ]
    return lines


def _list_entry(row: ListRow, step: str) -> dict[str, Any]:
    """One task of --list --json."""
    return {
        "name": row.name,
        "parent": row.name.split("/")[0] if "/" in row.name else None,
        "state": row.state,
        "tracked": row.state is not None,
        "awaiting_approval": bool(row.state and machine.is_awaiting(row.state)),
        "next_step": None if step == DASH else step,
        "next_states": (
            next_states(row.state, subtask="/" in row.name)
            if row.state and machine.is_state(row.state)
            else []
        ),
        "problem": row.problem,
        "holder": row.holder,
    }


def _awaits(row: ListRow) -> bool:
    """A readable task at an approval gate: the user's turn."""
    return row.problem is None and bool(row.state and machine.is_awaiting(row.state))


def _row_mark(row: ListRow) -> str | None:
    """How a row of --list stands out in a terminal: problems, approvals due, finished work."""
    if row.problem is not None:
        return "red"
    if _awaits(row):
        return "yellow"
    return "dim" if row.state == "complete" else None


def phase_counts(phases: Iterable[str]) -> dict[str, int]:
    """Tasks per phase in the workflow's order; `untracked` and unreadable phases after."""
    counted: dict[str, int] = {}
    for phase in phases:
        counted[phase] = counted.get(phase, 0) + 1
    known = [state for state in machine.STATES if state in counted]
    others = [phase for phase in counted if not machine.is_state(phase)]
    return {phase: counted[phase] for phase in [*known, *others]}


def count_line(counts: dict[str, int]) -> str:
    """`3 tasks: research 1 · implement 2`, the line under --list's table."""
    total = sum(counts.values())
    each = " · ".join(f"{printable(phase, None)} {n}" for phase, n in counts.items())
    return f"{total} {'task' if total == 1 else 'tasks'}: {each}"


def _awaiting_lines(project: Project, rows: Sequence[ListRow], approval: str) -> list[str]:
    """One line per task waiting for the user, with the artifact and how to approve it."""
    return [
        f"Awaiting approval: {row.name} ({machine.required_artifact(row.state or '')}) "
        f"— {how_to_approve(project, row.name, approval)}"
        for row in rows
        if _awaits(row)
    ]


def validate_block(project: Project, task: Task, findings: Sequence[Finding]) -> list[str]:
    """One task's --validate-folder report, word for word as the specification gives it."""
    lines = [f"Task: {printable(task.name, None)}"]
    if task.state is None:
        lines += [
            "Phase: unknown (no .state file found)",
            "Folder validation: FAIL — task was created manually (no .state file). Use "
            f"'{SPEC_SCRIPT} --create-task' to create tasks properly.",
            f"To adopt the folder as it is: {project.command('--upgrade')}",
        ]
        return lines
    lines.append(f"Phase: {task.state} (from .state)")
    skipped = [f for f in findings if f.category == OUT_OF_ORDER and f.artifact]
    listed = skipped or _disagreements(findings)
    failing = _failing(findings)
    if not listed:
        shown = f"FAIL — {failing}:" if failing else "PASS — no out-of-order artifacts found"
        lines.append(f"Folder validation: {shown}")
    elif not skipped:
        lines.append("Folder validation: FAIL — found state-artifact inconsistencies:")
        lines += [printable(f"  - {f.message} ({f.code})", None) for f in listed]
    else:
        lines.append("Folder validation: FAIL — found out-of-order artifacts:")
        lines += [
            printable(
                f"  - {f.artifact} (belongs to {f.data.get('phase', 'a later')} phase, "
                "not yet reached)",
                None,
            )
            for f in skipped
        ]
        lines += [
            "These artifacts indicate phase-skipping. The task is in "
            f"{task.phase} phase but has artifacts from future phases.",
            "Remove the out-of-order artifacts or revert to the correct phase.",
        ]
    lines += [
        f"[{_LABELS.get(f.severity, 'NOTE')}] {printable(f'{f.code}: {f.message}', None)}"
        for f in findings
        if f not in listed
    ]
    return lines


def validate_view(
    project: Project,
    tasks: Sequence[Task],
    result: RunResult,
    errors: Sequence[str],
    *,
    whole_project: bool = False,
) -> Outcome:
    """--validate-folder for one task or, with a summary line, for the whole project."""
    by_task: dict[str, list[Finding]] = {}
    for finding in result.findings:
        by_task.setdefault(finding.task or "", []).append(finding)
    names = {task.name for task in tasks}
    blocks = [
        "\n".join(validate_block(project, task, by_task.get(task.name, []))) for task in tasks
    ]
    blocks += [
        "\n".join(
            [
                f"Folder: {printable(name, None)}",
                *(f"Folder validation: FAIL — {printable(f.message, None)}" for f in found),
            ]
        )
        for name, found in sorted(by_task.items())
        if name not in names
    ]
    failed = [
        name
        for name in [*names, *(n for n in by_task if n not in names)]
        if any(f.severity == "error" for f in by_task.get(name, []))
        or any(t.state is None for t in tasks if t.name == name)
    ]
    if whole_project:
        counted = f"{len(blocks)} task folder" + ("" if len(blocks) == 1 else "s")
        blocks.append(f"Validated {counted}: {len(failed)} failed")
    all_errors = [*errors, *(str(e) for e in result.errors)]
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


def _moved_payload(task: str, source: str | None, target: str, step: str) -> dict[str, Any]:
    return {
        "task": task,
        "from": source,
        "to": target,
        "recovered": False,
        "next_step": None if step == DASH else step,
        "next_states": next_states(target, subtask="/" in task),
    }


def created_view(project: Project, change: Created) -> Outcome:
    """Confirmation of --create-task, with the command that begins the work."""
    step = next_step(change.state, subtask="/" in change.task)
    text = f"Created task '{change.task}' in state 'new'. Use --transition research to begin."
    return Outcome(0, text, _moved_payload(change.task, None, change.state, step))


def moved_view(project: Project, change: Moved) -> Outcome:
    """Confirmation of a transition or an approval, with the next command to run."""
    step = next_step(change.target, subtask="/" in change.task)
    if change.approver is not None:
        text = (
            f"Approved {machine.base_phase(change.target)} for task '{change.task}' by "
            f"{change.approver} (via {change.via}): '{change.source}' -> '{change.target}'. "
            f"Next: {step}"
        )
    else:
        text = (
            f"Transitioned task '{change.task}' from '{change.source}' to '{change.target}'. "
            f"Next: {step}"
        )
    payload = _moved_payload(change.task, change.source, change.target, step)
    payload["recovered"] = change.recovered
    if change.approver is not None:
        payload["approver"] = change.approver
        payload["via"] = change.via
    return Outcome(0, text, payload)


def follow_up_view(project: Project, change: FollowedUp) -> Outcome:
    """Confirmation of --follow-up: what was created, from what, starting where."""
    said = f"{change.verdict} with tie-breaks" if change.kind == "tiebreak" else change.verdict
    text = (
        f"Created task '{change.task}' in state '{change.state}' from task "
        f"'{change.origin}' (VERDICT.md says {said}). "
        f"Next: {next_step(change.state)}"
    )
    payload = {
        "task": change.task,
        "state": change.state,
        "origin": change.origin,
        "verdict": change.verdict,
        "kind": change.kind,
        "next_step": next_step(change.state),
    }
    return Outcome(0, text, payload)


def claim_view(project: Project, change: ClaimChanged, action: str, claims: Any) -> Outcome:
    """Confirmation of --claim and --release."""
    agent = change.agent
    if action == "claim":
        before = change.previous_holder
        taken = f" (taken over from '{before}')" if before not in (None, agent) else ""
        text = (
            f"Claimed task '{change.task}' for agent '{agent}' for "
            f"{claims.timeout_minutes:g} minutes{taken}."
        )
    else:
        text = f"Released task '{change.task}' (claimed by '{agent}')."
    payload = {"task": change.task, "agent": agent, "state": change.state, "action": action}
    return Outcome(0, text, payload)


def upgrade_view(project: Project, changes: Sequence[Adopted], errors: Sequence[str]) -> Outcome:
    """One line per adopted or repaired task, so the user sees what was decided and why."""
    lines = []
    for change in changes:
        if change.source == store.HISTORY:
            edited = change.previous is not None and machine.is_state(change.previous)
            said = f" (it said '{change.previous}', written outside status.py)" if edited else ""
            lines.append(
                f"Upgraded task '{change.task}': .state restored to '{change.state}' "
                f"from .state.history{said}"
            )
        else:
            source = f"inferred from {change.source}" if change.source else "no artifacts"
            lines.append(
                f"Upgraded task '{change.task}': .state set to '{change.state}' ({source})"
            )
    if not lines:
        lines.append(f"No untracked tasks in {project.tasks_label}")
    payload = {
        "upgraded": [
            {"task": c.task, "state": c.state, "inferred_from": c.source, "previous": c.previous}
            for c in changes
        ],
        "errors": list(errors),
    }
    return Outcome(2 if errors else 0, "\n".join(lines), payload, errors=list(errors))
