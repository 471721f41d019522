"""The operations that change a task: create, transition, approve, upgrade.

Each takes the task's lock, finishes any change a killed process left half done,
validates against the machine and the rules, then writes through the store. The
history line is written before `.state`, so it doubles as a journal: a kill
between the two is rolled forward by the next command.
"""

from __future__ import annotations

import getpass
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from automaton_rules.core import machine, store
from automaton_rules.core.errors import AutomatonError, Refusal, printable
from automaton_rules.core.project import Project, Task, split_name, status_command, untracked_error
from automaton_rules.engine.findings import OUT_OF_ORDER, Finding
from automaton_rules.engine.rule import Transition

if TYPE_CHECKING:
    from automaton_rules.engine.runner import Engine

APPROVER_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
ROLL_FORWARD_SLACK = 1.0


@dataclass(frozen=True)
class Claims:
    """Multi-agent mode for one command: whether it is on, who asks, how long a claim lasts."""

    enabled: bool = False
    agent: str | None = None
    timeout_minutes: float = 30


SINGLE_AGENT = Claims()


@dataclass(frozen=True)
class Change:
    """What a command did to one task."""

    task: str
    before: str | None
    after: str
    recovered: bool = False
    approver: str | None = None
    inferred_from: str | None = None


def default_actor() -> str:
    """Who ran the command, for the history: the login name when there is one."""
    try:
        return getpass.getuser()
    except Exception:
        return "unknown"


def _entry(
    before: str | None, after: str, actor: str, command: str, **extra: Any
) -> dict[str, Any]:
    return {
        "time": store.utc_now(),
        "from": before,
        "to": after,
        "actor": actor,
        "command": command,
        **extra,
    }


def _load_tracked(project: Project, name: str) -> Task:
    task = project.load(name)
    if task.state is None:
        raise untracked_error(project, task)
    return task


def _roll_forward(project: Project, name: str) -> dict[str, Any] | None:
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
    written = store.parse_time(str(last.get("time")))
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
        _refuse_illegal(project, task, target)
    except Refusal:
        return False
    return True


def _finished_by_recovery(recovered: dict[str, Any] | None, target: str, command: str) -> bool:
    return (
        recovered is not None
        and recovered.get("to") == target
        and recovered.get("command") == command
    )


def create_task(project: Project, name: str, *, actor: str | None = None) -> Change:
    """Make a task folder with `.state` = new; sub-tasks only under a decomposed parent."""
    parent, sub = split_name(name)
    final = project.task_dir(name)
    entry = _entry(None, "new", actor or default_actor(), "--create-task")
    if sub is None:
        store.create_task_dir(final, name, "new", entry, project.tasks_label)
        return Change(name, None, "new")
    parent_task = _load_tracked(project, parent)
    with store.locked(parent_task.path):
        parent_task = _load_tracked(project, parent)
        if parent_task.state != machine.SUBTASK_PARENT_STATE:
            raise Refusal(
                "parent-not-decomposed",
                f"Cannot create sub-task '{name}': parent task '{parent}' is in "
                f"'{parent_task.state}'. Sub-tasks can be created only while the parent is in "
                f"'{machine.SUBTASK_PARENT_STATE}'.",
                next_steps={"parent_state": parent_task.state},
            )
        store.create_task_dir(final, name, "new", entry, project.tasks_label)
    return Change(name, None, "new")


_VERDICT_LINE = re.compile(r"^\W*verdict\W*[:\-]\s*\W*(PASS|FAIL|NEEDS_REVIEW)\b", re.I | re.M)
_VERDICT_WORD = re.compile(r"\b(PASS|FAIL|NEEDS_REVIEW)\b")


def verdict_of(text: str) -> str | None:
    """The verdict a `Verdict:` line names, else the first verdict word, else None."""
    found = _VERDICT_LINE.search(text) or _VERDICT_WORD.search(text)
    return found.group(1).upper() if found else None


def follow_up(project: Project, name: str, new_name: str | None = None) -> Change:
    """After FAIL or NEEDS_REVIEW, the follow-up task: earlier artifacts copied, right phase."""
    origin = _load_tracked(project, name)
    if machine.base_phase(origin.state or "") not in machine.VERDICT_PHASES:
        raise Refusal(
            "no-verdict-yet",
            f"Task '{name}' is in '{origin.state}': a follow-up task comes after the referee's "
            "verdict (referee, complete or human_intervention).",
        )
    verdict = verdict_of(origin.read(machine.ARTIFACTS["referee"]) or "")
    if verdict not in machine.FOLLOW_UPS:
        raise Refusal(
            "no-failed-verdict",
            f"VERDICT.md of task '{name}' says {verdict or 'no verdict'}; a follow-up task "
            "follows FAIL (a fix task) or NEEDS_REVIEW (a review task).",
        )
    kind, start = machine.FOLLOW_UPS[verdict]
    target = new_name or f"{name.replace('/', '-')}-{kind}"
    split_name(target)
    files = {
        artifact: (origin.path / artifact).read_bytes()
        for artifact in machine.carried_artifacts(start)
        if origin.has_content(artifact)
    }
    files[f"ORIGIN_{machine.ARTIFACTS['referee']}"] = (origin.path / "VERDICT.md").read_bytes()
    entry = _entry(
        None, start, default_actor(), "--follow-up", origin=name, verdict=verdict, kind=kind
    )
    if "/" in target:
        raise AutomatonError("invalid-task-name", "A follow-up task is a top-level task.")
    store.create_task_dir(
        project.task_dir(target), target, start, entry, project.tasks_label, files=files
    )
    return Change(target, None, start, inferred_from=name, approver=verdict)


def _refuse_illegal(project: Project, task: Task, target: str) -> None:
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


def transition_problems(
    task: Task, target: str, findings: list[Finding], *, required: bool = True
) -> list[str]:
    """Every reason the move is refused, one message each, in the specification's words."""
    current = task.state or ""
    prefix = f"Cannot transition from '{current}' to '{target}'."
    problems = []
    needed = machine.required_artifact(current) if required else None
    if needed and not task.has_content(needed):
        problems.append(
            f"{prefix} Required artifact '{needed}' is missing or empty in task folder."
        )
    for finding in findings:
        artifact = finding.artifact
        resuming = artifact in machine.forbidden_artifacts(target) and (
            artifact not in machine.forbidden_artifacts(current)
        )
        if finding.category != OUT_OF_ORDER or not artifact:
            problems.append(f"{prefix} {printable(f'{finding.message} ({finding.code})', None)}")
        elif not resuming:
            problems.append(
                f"{prefix} Found forbidden artifact '{artifact}' in task folder. "
                "This indicates phase-skipping. Remove the artifact or revert to the correct phase."
            )
        else:
            stem = artifact.rsplit(".", 1)[0]
            problems.append(
                f"{prefix} Found artifact '{artifact}' of a later phase in task folder. "
                f"To resume at '{target}', archive it first (rename it, e.g. to {stem}.v1.md)."
            )
    return problems


def _consult_rules(
    engine: Engine, project: Project, task: Task, target: str, *, required: bool = True
) -> None:
    """Ask every transition rule about the move; a broken rule refuses it (fail closed)."""
    current = task.state or ""
    result = engine.run("transition", project, [task], Transition(current, target))
    if result.errors:
        raise AutomatonError(
            "plugin-error",
            printable("; ".join(f"plugin {e.plugin}: {e.message}" for e in result.errors), None),
        )
    problems = transition_problems(task, target, result.violations, required=required)
    if problems:
        raise Refusal(
            "transition-refused",
            problems[0],
            text="\n".join(f"ERROR: {p}" for p in problems),
            next_steps={
                "problems": problems,
                "missing_artifact": _missing(task) if required else None,
                "forbidden_artifacts": [f.artifact for f in result.violations if f.artifact],
                "command": status_command(
                    "--validate-folder", "--task", task.name, "--project", project.root
                ),
            },
        )


def _valid_agent(agent: str) -> str:
    if not APPROVER_PATTERN.fullmatch(agent):
        raise AutomatonError(
            "invalid-agent",
            f"Invalid agent id '{printable(agent)}' (letters, digits, '.', '_', '@', '-').",
        )
    return agent


def _expired(claim: dict[str, str], now: float | None = None) -> bool:
    """A claim past its expiry (or with none readable) may be taken over."""
    expires = store.parse_time(claim.get("expires", ""))
    moment = time.time() if now is None else now
    return expires is None or expires.timestamp() <= moment


def _held_by_other(name: str, claim: dict[str, str] | None, agent: str | None) -> None:
    if claim is not None and not _expired(claim) and claim.get("agent") != agent:
        raise Refusal(
            "claimed",
            f"Task '{name}' is claimed by agent '{printable(str(claim.get('agent')))}' until "
            f"{printable(str(claim.get('expires')))}.",
            next_steps={"holder": claim.get("agent"), "expires": claim.get("expires")},
        )


def _require_holder(project: Project, task: Task, claims: Claims) -> None:
    """In multi-agent mode only the agent holding a live claim changes the task."""
    if not claims.enabled:
        return
    claim = store.read_claim(task.path)
    if claims.agent is None:
        raise Refusal(
            "agent-required",
            f"Multi-agent mode: pass --agent ID; only the agent holding task '{task.name}' "
            "may change it.",
        )
    _held_by_other(task.name, claim, claims.agent)
    if claim is None or _expired(claim):
        command = status_command(
            "--task", task.name, "--claim", "--agent", claims.agent, "--project", project.root
        )
        raise Refusal(
            "not-claimed",
            f"Multi-agent mode: claim task '{task.name}' before changing it: {command}",
            next_steps={"command": command},
        )


def claim(project: Project, name: str, claims: Claims) -> Change:
    """Take (or renew, or take over an expired) claim on a task for one agent."""
    agent = _valid_agent(claims.agent or "")
    task_dir = _load_tracked(project, name).path
    with store.locked(task_dir):
        task = _load_tracked(project, name)
        previous = store.read_claim(task_dir)
        _held_by_other(name, previous, agent)
        now = time.time()
        store.write_claim(
            task_dir,
            {
                "agent": agent,
                "phase": task.state or "",
                "claimed": _stamp(now),
                "expires": _stamp(now + claims.timeout_minutes * 60),
            },
        )
    holder = previous.get("agent") if previous else None
    return Change(name, holder, task.state or "", approver=agent)


def release(project: Project, name: str, claims: Claims) -> Change:
    """Give a claim back; only its holder may, unless it has expired."""
    agent = _valid_agent(claims.agent or "")
    task_dir = _load_tracked(project, name).path
    with store.locked(task_dir):
        task = _load_tracked(project, name)
        current = store.read_claim(task_dir)
        if current is None:
            raise Refusal("not-claimed", f"Task '{name}' is not claimed.")
        _held_by_other(name, current, agent)
        store.remove_claim(task_dir)
    return Change(name, agent, task.state or "", approver=agent)


def _stamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).strftime(store.TIME_FORMAT)


def _follow_claim(task_dir: Any, state: str) -> None:
    """Keep the claim's `phase:` line in step with the task."""
    claim = store.read_claim(task_dir)
    if claim is not None and set(store.CLAIM_KEYS) <= set(claim):
        store.write_claim(task_dir, {**claim, "phase": state})


def transition(
    project: Project,
    name: str,
    target: str,
    *,
    engine: Engine,
    actor: str | None = None,
    claims: Claims = SINGLE_AGENT,
) -> Change:
    """Move a task along a legal edge, once its artifact is there and no rule objects."""
    if not machine.is_state(target):
        raise AutomatonError(
            "unknown-phase",
            f"Unknown phase '{printable(target)}'. Known phases: {', '.join(machine.STATES)}",
        )
    command = f"--transition {target}"
    task_dir = _load_tracked(project, name).path
    with store.locked(task_dir):
        recovered = _roll_forward(project, name)
        task = _load_tracked(project, name)
        if _finished_by_recovery(recovered, target, command):
            return Change(name, recovered and recovered.get("from"), target, recovered=True)
        current = task.state or ""
        _require_holder(project, task, claims)
        _refuse_illegal(project, task, target)
        _consult_rules(engine, project, task, target)
        who = actor or claims.agent or default_actor()
        store.commit(task_dir, _entry(current, target, who, command), target)
        _follow_claim(task_dir, target)
    return Change(name, current, target)


def _missing(task: Task) -> str | None:
    required = machine.required_artifact(task.state or "")
    return required if required and not task.has_content(required) else None


def _pending_approval(task_dir: Any, target: str) -> bool:
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
    logged_at = store.parse_time(last.time)
    entered_at = store.parse_time(str(entered.get("time")))
    if logged_at is None or entered_at is None:
        return False
    return logged > recorded and logged_at >= entered_at


def approve(
    project: Project,
    name: str,
    *,
    approver: str = "user",
    engine: Engine | None = None,
    claims: Claims = SINGLE_AGENT,
) -> Change:
    """Open an approval gate: record who approved what, with the artifact's digest."""
    if claims.enabled and claims.agent is not None:
        approver = claims.agent  # the approving agent is recorded by its id
    if not APPROVER_PATTERN.fullmatch(approver):
        raise AutomatonError(
            "invalid-approver",
            f"Invalid approver '{printable(approver)}'. Use 'user' or an agent id "
            "(letters, digits, '.', '_', '@', '-').",
        )
    task_dir = _load_tracked(project, name).path
    with store.locked(task_dir):
        recovered = _roll_forward(project, name)
        task = _load_tracked(project, name)
        current = task.state or ""
        if (
            recovered is not None
            and recovered.get("command") == "--approve"
            and recovered.get("to") == current
        ):
            return Change(
                name,
                recovered.get("from"),
                current,
                recovered=True,
                approver=recovered.get("approver"),
            )
        if not machine.needs_approval(current):
            message = "This phase does not require approval."
            raise Refusal(
                "approval-not-required", message, text=message, next_steps={"state": current}
            )
        if not machine.is_awaiting(current):
            phase = machine.base_phase(current)
            raise Refusal(
                "not-awaiting-approval",
                f"Current phase is '{current}' (not awaiting approval). Current sub-state must be "
                f"'{phase}{machine.AWAITING}' before approval can be granted.",
                next_steps={"state": current},
            )
        if claims.enabled:
            holder = store.read_claim(task_dir)
            if holder is not None and not _expired(holder) and holder.get("agent") == approver:
                raise Refusal(
                    "self-approval",
                    f"Agent '{approver}' holds the claim on task '{name}' and cannot approve its "
                    "own work. Approval comes from the user or another agent.",
                )
        target = machine.approval_target(current) or ""
        artifact = machine.required_artifact(current) or ""
        if not task.has_content(artifact):
            raise Refusal(
                "missing-artifact",
                f"Cannot approve '{current}': required artifact '{artifact}' is missing or empty "
                "in task folder.",
            )
        if engine is not None:
            _consult_rules(engine, project, task, target, required=False)
        digest = store.file_digest(task.path / artifact)
        line = None
        if not _pending_approval(task_dir, target):
            line = store.Approval(target, store.utc_now(), approver)
        entry = _entry(
            current,
            target,
            approver,
            "--approve",
            approver=approver,
            artifact=artifact,
            artifact_sha256=digest,
        )
        store.commit(task_dir, entry, target, approval=line)
    return Change(name, current, target, approver=approver)


def _recorded_state(history: list[dict[str, Any]]) -> str | None:
    """The last state the history recorded, if it is a known one."""
    target = history[-1].get("to") if history else None
    return target if isinstance(target, str) and machine.is_state(target) else None


def _adopt(task: Task, actor: str) -> Change | None:
    """Give one folder a `.state`: restored from its history, or inferred from its artifacts."""
    if task.state is not None and machine.is_state(task.state):
        return None
    history = store.read_history(task.path)
    recorded = _recorded_state(history)
    store.ensure_approvals(task.path)
    if recorded is not None:
        # The history is the record: a lost or garbled .state goes back to what it says.
        if history[-1].get("command") != "--upgrade":
            entry = _entry(task.state, recorded, actor, "--upgrade", restored=True)
            store.commit(task.path, entry, recorded)
        else:
            store.write_state(task.path, recorded)
        return Change(task.name, task.state, recorded, inferred_from=".state.history")
    if task.state is not None:
        raise AutomatonError(
            "unknown-phase",
            f"Unknown phase '{printable(task.state)}' in .state file of task '{task.name}', "
            "and no .state.history to restore it from. Write the right phase into .state.",
        )
    phase = machine.infer_phase(task.artifacts)
    source = machine.ARTIFACTS.get(phase)
    entry = _entry(
        None,
        phase,
        actor,
        "--upgrade",
        inferred_from=source,
        adopted_approvals=len(store.read_approvals(task.path)),
    )
    store.commit(task.path, entry, phase)
    return Change(task.name, None, phase, inferred_from=source)


def infer_untracked(project: Project, name: str, mode: str) -> Change | None:
    """With `untracked = "infer"` (the specification's fallback), write the inferred `.state`.

    With the default `"refuse"` nothing happens here and the command refuses the task.
    """
    task_dir = project.task_dir(name)
    if mode != "infer" or not task_dir.is_dir() or store.read_state(task_dir) is not None:
        return None
    with store.locked(task_dir):
        return _adopt(project.load(name, strict=False), default_actor())


def upgrade(project: Project, *, actor: str | None = None) -> tuple[list[Change], list[str]]:
    """Adopt hand-made folders and repair lost `.state` files; idempotent, task by task."""
    changes: list[Change] = []
    errors: list[str] = []
    for name in project.names():
        try:
            task = project.load(name, strict=False)
            if task.state is not None and machine.is_state(task.state):
                continue
            with store.locked(task.path):
                change = _adopt(project.load(name, strict=False), actor or default_actor())
        except AutomatonError as exc:
            errors.append(f"task {name}: {exc.message}")
            continue
        if change is not None:
            changes.append(change)
    return changes, errors
