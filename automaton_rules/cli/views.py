"""Text and JSON for each command's result, in the specification's formats.

Each view takes what its action's handler returns (`cli/commands.py`) and gives the
`Outcome` the printing step shows; the table in `cli/actions.py` pairs them. `--task`'s
view, the one agents call most, is in `cli/task_view.py`, light.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from automaton_rules.cli.run import Outcome, painted
from automaton_rules.cli.task_view import (
    DASH,
    disagreements,
    failing_rules,
    how_to_approve,
    join_choices,
)
from automaton_rules.core import machine, store
from automaton_rules.core.project import SPEC_SCRIPT, Project, Task
from automaton_rules.engine.findings import OUT_OF_ORDER, Finding
from automaton_rules.engine.result import RunResult
from automaton_rules.support import clock
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.report.graph import Graph
    from automaton_rules.report.stats import ProjectStats
    from automaton_rules.workflow import Adopted, ClaimChanged, Created, FollowedUp, Moved

_LABELS = {"error": "FAIL", "warning": "WARN", "note": "NOTE"}


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


@dataclass(frozen=True)
class ListRow:
    """One line of --list. `state` is the workflow's: for a `.state` changed by hand, the
    history's last state (None when its line names none), and `edited` what `.state` says."""

    name: str
    state: str | None
    problem: str | None = None
    holder: str | None = None
    edited: str | None = None


def holder_text(claim: dict[str, str] | None, now: float) -> str | None:
    """`agent-1 until 2026-…Z`, `(expired)` when it has run out by `now` (the run's
    clock, as the workflow judges a claim), None when unclaimed."""
    if not claim:
        return None
    expires = clock.parse_time(claim.get("expires", ""))
    expired = expires is None or expires.timestamp() <= now
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


@dataclass(frozen=True)
class Listing:
    """What --list shows: a row per task; `holders` in multi-agent mode; `approval` the
    project's mode, which says how the user approves."""

    project: Project
    rows: Sequence[ListRow]
    holders: bool = False
    approval: str = "open"


def list_view(listing: Listing) -> Outcome:
    """Task / Phase / Next Step, sub-tasks indented under their parent; Agent when claimed.
    After the table, a blank line, the count of tasks per phase and one line per task
    awaiting approval saying how the user approves it."""
    project, rows, holders, approval = (
        listing.project,
        listing.rows,
        listing.holders,
        listing.approval,
    )
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
        "edited_state": row.edited,
        "tracked": row.state is not None or row.edited is not None,
        "awaiting_approval": bool(row.state and machine.is_awaiting(row.state)),
        "next_step": None if step == DASH else step,
        "next_states": (
            next_states(row.state, subtask="/" in row.name)
            if row.state and machine.is_state(row.state) and row.edited is None
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
            "To adopt the folder as it is: "
            + project.context.command("--upgrade", project=project.root),
        ]
        return lines
    lines.append(f"Phase: {task.state} (from .state)")
    skipped = [f for f in findings if f.category == OUT_OF_ORDER and f.artifact]
    listed = skipped or disagreements(findings)
    failing = failing_rules(findings)
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


@dataclass(frozen=True)
class Validation:
    """What --validate-folder shows: the tasks, what the rules found, the tasks that could
    not be read; `whole_project` without --task."""

    project: Project
    tasks: Sequence[Task]
    result: RunResult
    errors: Sequence[str]
    whole_project: bool = False


def validate_view(validation: Validation) -> Outcome:
    """--validate-folder for one task or, with a summary line, for the whole project."""
    project, tasks, result = validation.project, validation.tasks, validation.result
    errors, whole_project = validation.errors, validation.whole_project
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


def created_view(change: Created) -> Outcome:
    """Confirmation of --create-task, with the command that begins the work."""
    step = next_step(change.state, subtask="/" in change.task)
    text = f"Created task '{change.task}' in state 'new'. Use --transition research to begin."
    return Outcome(0, text, _moved_payload(change.task, None, change.state, step))


def moved_view(change: Moved) -> Outcome:
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


def follow_up_view(change: FollowedUp) -> Outcome:
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


@dataclass(frozen=True)
class Claimed:
    """A claim taken or given back (`action`), with how long a claim lasts."""

    change: ClaimChanged
    action: str
    timeout_minutes: float


def claim_view(claimed: Claimed) -> Outcome:
    """Confirmation of --claim and --release."""
    change, action = claimed.change, claimed.action
    agent = change.agent
    if action == "claim":
        before = change.previous_holder
        taken = f" (taken over from '{before}')" if before not in (None, agent) else ""
        text = (
            f"Claimed task '{change.task}' for agent '{agent}' for "
            f"{claimed.timeout_minutes:g} minutes{taken}."
        )
    else:
        text = f"Released task '{change.task}' (claimed by '{agent}')."
    payload = {"task": change.task, "agent": agent, "state": change.state, "action": action}
    return Outcome(0, text, payload)


@dataclass(frozen=True)
class Upgraded:
    """The tasks --upgrade adopted or repaired, and those it could not."""

    project: Project
    changes: Sequence[Adopted]
    errors: Sequence[str]


def upgrade_view(upgraded: Upgraded) -> Outcome:
    """One line per adopted or repaired task, so the user sees what was decided and why."""
    project, changes, errors = upgraded.project, upgraded.changes, upgraded.errors
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


@dataclass(frozen=True)
class RuleListing:
    """Every registered rule as --list-rules shows it, and the plugins that failed."""

    rows: Sequence[dict[str, Any]]
    errors: list[str]
    settings: Sequence[dict[str, Any]] = ()


def rules_view(listing: RuleListing) -> Outcome:
    """--list-rules: a rule per two lines, its code, severity, category and summary, then
    when it runs and its plugin; then the plugins' settings; exit 2 when a plugin failed."""
    lines = [
        f"{row['code']:<8}{row['severity']:<9}{row['category']}: {row['summary']}\n"
        f"{'':<17}runs at {', '.join(row['when'])}; plugin {row['plugin']}"
        for row in listing.rows
    ]
    import json

    tables: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for setting in listing.settings:
        tables.setdefault((setting["plugin"], setting["table"]), []).append(setting)
    for (plugin, table), declared in tables.items():
        lines += ["", f"[{table}]  settings of plugin {plugin}"]
        for setting in declared:
            value, default = json.dumps(setting["value"]), json.dumps(setting["default"])
            said = f" (default {default})" if value != default else ""
            lines.append(
                f"  {setting['name']} = {value}{said}  {setting['type']}: {setting['help']}"
            )
    errors = listing.errors
    payload = {"rules": list(listing.rows), "settings": list(listing.settings)}
    return Outcome(2 if errors else 0, "\n".join(lines), payload, errors=errors)


@dataclass(frozen=True)
class Drawn:
    """The workflow drawn for --graph (with a task: its state and path), in `fmt`."""

    graph: Graph
    fmt: str


def graph_view(drawn: Drawn) -> Outcome:
    """--graph: the diagram as text, and in JSON beside the graph as data."""
    from automaton_rules.report import graph as graphs

    text = graphs.render(drawn.graph, drawn.fmt)
    return Outcome(
        0, text, {"format": drawn.fmt, drawn.fmt: text, "graph": graphs.as_dict(drawn.graph)}
    )


@dataclass(frozen=True)
class Counted:
    """--stats' figures, for the project or one task, and the tasks that could not be read."""

    stats: ProjectStats
    whole_project: bool
    errors: list[str]


def stats_view(counted: Counted) -> Outcome:
    """--stats: time per phase, visits, waiting for approval and approvals."""
    from automaton_rules.report import stats as figures

    text = figures.render(counted.stats, project=counted.whole_project)
    errors = counted.errors
    return Outcome(2 if errors else 0, text, figures.as_dict(counted.stats), errors=errors)
