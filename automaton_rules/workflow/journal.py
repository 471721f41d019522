"""The history as a journal: its line is written before `.state`, so a change a killed
command left half done is finished by the next command, and only a real move is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from automaton_rules.core import machine, store
from automaton_rules.core.project import Project, Task
from automaton_rules.support import clock
from automaton_rules.support.errors import Refusal
from automaton_rules.workflow.gates import refuse_illegal

ROLL_FORWARD_SLACK = 1.0


def default_actor(root: Path | None = None) -> str:
    """Who ran the command, for the history: the person git names in the project's folder
    (support/person.py), never the OS login, which a team's machines often share."""
    from automaton_rules.support import person

    return person.identity(root)


def entry(
    time: str, before: str | None, after: str, actor: str, command: str, **extra: Any
) -> dict[str, Any]:
    """A history line for a change from `before` to `after` at `time`, as the run's
    clock reads it (`Context.utc_now`)."""
    return {
        "time": time,
        "from": before,
        "to": after,
        "actor": actor,
        "command": command,
        **extra,
    }


def roll_forward(project: Project, name: str) -> dict[str, Any] | None:
    """Finish a change whose history line was written but whose `.state` was not."""
    task_dir = project.task_dir(name)
    history = store.read_history(task_dir)
    if not history:
        return None
    last = history[-1]
    state = store.read_state(task_dir)
    target = last.get("to")
    if state is None or last.get("from") != state or not isinstance(target, str):
        return None
    if not machine.is_state(state) or not machine.is_state(target) or target == state:
        return None
    written = clock.parse_time(str(last.get("time")))
    mtime = store.state_mtime(task_dir)
    if written is None or mtime is None or mtime > written.timestamp() + ROLL_FORWARD_SLACK:
        return None
    if not _journaled_move(project, project.load(name), last):
        return None
    store.write_state(task_dir, target)
    return last


def _journaled_move(project: Project, task: Task, last: dict[str, Any]) -> bool:
    """Whether a journal line is a move a command makes: a line appended by hand to skip a
    gate is never carried out (the audit reports it instead)."""
    state, target, command = task.state or "", str(last.get("to")), last.get("command")
    if command == "--approve":
        approvals = store.read_approvals(task.path)
        logged = approvals[-1] if approvals else None
        # --approve writes its approval line before its history line.
        return target == machine.approval_target(state) and bool(logged and logged.state == target)
    if command != f"--transition {target}":
        return False
    try:
        refuse_illegal(project, task, target)
    except Refusal:
        return False
    return True


def finished_by_recovery(recovered: dict[str, Any] | None, target: str, command: str) -> bool:
    """Whether the change just rolled forward is the one this command asks for."""
    return (
        recovered is not None
        and recovered.get("to") == target
        and recovered.get("command") == command
    )


def pending_approval(task_dir: Any, target: str) -> bool:
    """An approval line written by a command killed before it wrote its history line.

    It is the log's last line, for this phase, not older than the task's entry into the
    gate, and the log holds more lines for the phase than the history holds approvals.
    """
    approvals = store.read_approvals(task_dir)
    history = store.read_history(task_dir)
    if not approvals or not history or approvals[-1] is None:
        return False
    last, entered = approvals[-1], history[-1]
    if last.state != target or entered.get("to") != machine.base_phase(target) + machine.AWAITING:
        return False
    logged = sum(1 for a in approvals if a is not None and a.state == target)
    recorded = sum(1 for e in history if e.get("to") == target and e.get("command") == "--approve")
    logged_at = clock.parse_time(last.time)
    entered_at = clock.parse_time(str(entered.get("time")))
    if logged_at is None or entered_at is None:
        return False
    return logged > recorded and logged_at >= entered_at
