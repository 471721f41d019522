"""The agent ends its turn while a task awaits approval: wait a while for the decision.

Harnesses run a hook when the agent stops (Claude Code and Codex `Stop`, Gemini CLI
`AfterAgent`, Cursor `stop`, opencode's `session.idle` through the plugin). Without a
task at a gate the agent stops at once, as before. With one, the hook watches the gates
for up to `stop-wait-seconds`: an approval (from the dashboard, the chat or a terminal)
tells the agent to continue with its next step; a request for changes tells it what to
revise; no decision in time lets it stop, as it would have. Loaded only for this event,
never on the edit-time path.
"""

from __future__ import annotations

from pathlib import Path

from automaton_rules.core import machine, store
from automaton_rules.core.project import Project, Task
from automaton_rules.guards.edits.checks import find_event_project, task_states
from automaton_rules.guards.hooks.session import next_step, requested_changes
from automaton_rules.support import waiting
from automaton_rules.support.context import DEFAULT, Context
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

POLL_SECONDS = 0.25


class Gate:
    """One task at its gate when the wait began: its state and how many requests it had."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.state = task.state or ""
        self.requests = len(store.read_reviews(task.path))


def waiting_tasks(project: Project) -> list[Task]:
    """The tasks awaiting approval, read cheaply."""
    return [task for task in task_states(project) if machine.is_awaiting(task.state or "")]


def decide(
    project: Project,
    wait_seconds: float,
    *,
    first: bool = True,
    approval: str = "open",
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> str | None:
    """What the agent is told to do instead of stopping, or None to let it stop.

    `first` is False when the agent already carries on because of this hook: requests it
    was told of then are not told again, only new decisions are waited for.
    """
    import time

    sleep = sleep or time.sleep
    clock = clock or time.monotonic
    gates = [Gate(project.load(task.name)) for task in waiting_tasks(project)]
    if not gates:
        return None
    if first:
        told = _open_requests(gates)
        if told:
            return told
    deadline = clock() + wait_seconds
    names = [gate.task.name for gate in gates]
    marker = waiting.begin(project.root.resolve(), names, time.time() + wait_seconds)
    try:
        while clock() < deadline:
            sleep(min(POLL_SECONDS, max(0.0, deadline - clock())))
            decided = _decision(project, gates, approval)
            if decided is not None:
                return decided
    finally:
        waiting.end(marker)  # the board shows "agent waiting" only while the wait lasts
    return None


def _open_requests(gates: list[Gate]) -> str | None:
    """Requests for changes made before the agent stopped, which it has not answered."""
    return requested_changes([gate.task for gate in gates]) or None


def _decision(project: Project, gates: list[Gate], approval: str) -> str | None:
    """An approval, or new requests for changes, on any of the gates; else None."""
    from automaton_rules.workflow import reviews

    for gate in gates:
        state = store.read_state(gate.task.path)
        if state is not None and state == machine.approval_target(gate.state):
            return _approved(project, gate.task.name, state, approval)
        entries = store.read_reviews(gate.task.path)
        if len(entries) > gate.requests and state == gate.state:
            parsed = (reviews.Review.parse(entry) for entry in entries[gate.requests :])
            new = [r for r in parsed if r is not None and r.state == gate.state]
            if new:
                return reviews.as_context(project.load(gate.task.name), new)
    return None


def _approved(project: Project, name: str, state: str, approval: str) -> str:
    """The agent carries on: who approved, and the next step."""
    history = store.read_history(project.task_dir(name))
    last = history[-1] if history else {}
    who = printable(str(last.get("approver") or "the user"), None)
    via = printable(str(last.get("via") or "cli"), None)
    task = project.load(name)
    info = machine.guidance(state, subtask=task.parent is not None)
    return (
        f"{who} approved task '{name}' while you waited ({state}, via {via}). Continue: "
        f"{next_step(name, info, approval)}."
    )


def answer(
    payload: dict[str, Any],
    explicit: str | None,
    where: Path | None,
    context: Context = DEFAULT,
) -> str | None:
    """The hook's decision for one stop event: the text to continue with, or None."""
    from automaton_rules.core.config import load_config

    if payload.get("status") in ("aborted", "error"):  # Cursor: the user stopped it
        return None
    project = find_event_project(explicit, where, context)
    if project is None:
        return None
    settings = load_config(project.root)
    again = bool(payload.get("stop_hook_active")) or bool(payload.get("loop_count"))
    return decide(project, settings.stop_wait_seconds, first=not again, approval=settings.approval)
