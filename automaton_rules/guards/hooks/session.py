"""What an agent is told when its session starts, resumes or is compacted.

An agent whose context was compacted forgets which phase its task is in; harnesses run
`automaton-hook` at those moments and hand this text to the model. It names every
active task with its phase, what is allowed and forbidden now, and the next step, read
from `.state` files and the workflow's own guidance (`machine.guidance`).
"""

from __future__ import annotations

from functools import partial

from automaton_rules.core import machine
from automaton_rules.core.policy import Policy
from automaton_rules.core.project import Project, Task
from automaton_rules.guards.edits.checks import EDIT_PHASES_TEXT, task_states
from automaton_rules.support.context import DEFAULT, STATUS_SCRIPT
from automaton_rules.support.output import printable

MAX_TASKS = 12  # more would crowd the model's context; the rest are counted

INTRO = (
    "automaton-rules guards this project: each task moves through research, design, "
    "implement, bug finding, review and verdict, one phase at a time. Code edits are "
    f"allowed only while a task is in {EDIT_PHASES_TEXT}; hooks deny the rest. Only "
    "status.py moves a task on, only the user approves, and the workflow's own files "
    "(automaton.toml, harness settings, git hooks, .automaton/) are the user's."
)


def context(project: Project, approval: str = "open", shell: str = "") -> str:
    """The text a new, resumed or compacted session starts with; `approval` is the
    project's mode, which says how the user approves; `shell` says what holds the shell."""
    active = [task for task in task_states(project) if task.state != "complete"]
    lines = [INTRO, f"Project: {printable(str(project.root), None)}"]
    if shell:
        lines.append(shell)
    command = partial(DEFAULT.command, project=project.root)
    if not active:
        lines.append(
            "No task is active. Before changing code, create one: "
            f"{command('--create-task', 'NAME')}"
        )
        return "\n".join(lines)
    lines.append("Active tasks:")
    for task in active[:MAX_TASKS]:
        lines += task_lines(task, approval, project)
    if len(active) > MAX_TASKS:
        lines.append(f"... and {len(active) - MAX_TASKS} more ({command('--list')}).")
    lines.append(f"Full status of a task: {command('--task', 'NAME')}")
    requested = requests_text(active)
    if requested:
        lines.append(requested)
    return "\n".join(lines)


def requests_text(tasks: list[Task]) -> str:
    """What the user asked to revise on the tasks at their gates (workflow/reviews.py)."""
    waiting = [task for task in tasks if machine.is_awaiting(task.state or "")]
    if not waiting:
        return ""
    return requested_changes(waiting)


def requested_changes(tasks: list[Task]) -> str:
    """The open requests for changes of tasks at their gates, as the agent reads them."""
    from automaton_rules.workflow import reviews

    texts = []
    for task in tasks:
        found = reviews.open_requests(task)
        if found:
            texts.append(reviews.as_context(task, found))
    return "\n\n".join(texts)


def task_lines(task: Task, approval: str = "open", project: Project | None = None) -> list[str]:
    """One task: its phase, what it allows and forbids now, and how it moves on."""
    state = task.state or ""
    info = machine.guidance(state, subtask=task.parent is not None)
    name = printable(task.name, None)
    return [
        f"- {name}: {machine.base_phase(state)} phase (state {state})",
        f"  Allowed now: {'; '.join(info.allowed) or 'nothing'}",
        f"  Forbidden now: {'; '.join(info.forbidden) or 'nothing'}",
        f"  Next step: {next_step(name, info, approval, project)}",
    ]


def next_step(
    name: str, info: machine.Guidance, approval: str = "open", project: Project | None = None
) -> str:
    """The deliverable to write, then the move that follows it, as commands to paste."""

    def command(*args: str) -> str:
        if project is None:
            return f"{STATUS_SCRIPT} {' '.join(args)}"
        return DEFAULT.command(*args, project=project.root)

    parts = [f"write {info.next_artifact}"] if info.next_artifact else []
    if info.via_approve and Policy(approval).needs_signature:
        signs = command("--task", name, "--approve", "--approver", "ID")
        parts.append(f"ask the user to approve it (the user signs in a terminal: {signs})")
    elif info.via_approve:
        runs = command("--task", name, "--approve")
        parts.append(
            f"ask the user to approve it (the user types `approve {name}` in this chat, or "
            f"runs {runs} in a terminal)"
        )
    elif info.next_states:
        first, *others = info.next_states
        move = f"move on with {command('--task', name, '--transition', first)}"
        parts.append(move + (f" (or {', '.join(others)})" if others else ""))
    return ", then ".join(parts) or "none (wait for the user)"
