"""The operations that change a task: create, transition, approve, follow up, upgrade.

Each takes the task's lock, finishes any change a killed process left half done (the
journal), checks the move (the gates), then writes through the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automaton_rules.core import integrity, machine, store
from automaton_rules.core.phases import follow_up_cause
from automaton_rules.core.policy import OPEN, Policy, gate_problem
from automaton_rules.core.project import Project, Task, load_tracked, split_name
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable
from automaton_rules.workflow.approvals import (
    BY_COMMAND_LINE,
    Given,
    refuse_unproven,
    refuse_way,
    sign_record,
)
from automaton_rules.workflow.changes import Adopted, Created, FollowedUp, Moved
from automaton_rules.workflow.claims import (
    APPROVER_PATTERN,
    SINGLE_AGENT,
    Claims,
    follow_claim,
    refuse_self_approval,
    require_holder,
)
from automaton_rules.workflow.gates import (
    consult_rules,
    refuse_changed_approval,
    refuse_failed_verdict,
    refuse_illegal,
    refuse_unless_awaiting,
    verdict_of,
)
from automaton_rules.workflow.journal import (
    default_actor,
    entry,
    finished_by_recovery,
    pending_approval,
    roll_forward,
)

if TYPE_CHECKING:
    from automaton_rules.engine.runner import Engine


def create_task(project: Project, name: str, *, actor: str | None = None) -> Created:
    """Make a task folder with `.state` = new; sub-tasks only under a decomposed parent."""
    parent, sub = split_name(name)
    final = project.task_dir(name)
    line = entry(
        project.context.utc_now(),
        None,
        "new",
        actor or default_actor(project.root),
        "--create-task",
    )
    made = Created(name, "new", line["actor"], line["time"])
    if sub is None:
        store.create_task_dir(final, name, "new", line, project.tasks_label)
        return made
    parent_task = load_tracked(project, parent)
    with store.locked(parent_task.path):
        parent_task = load_tracked(project, parent)
        if parent_task.state != machine.SUBTASK_PARENT_STATE:
            raise Refusal(
                "parent-not-decomposed",
                f"Cannot create sub-task '{name}': parent task '{parent}' is in "
                f"'{parent_task.state}'. Sub-tasks can be created only while the parent is in "
                f"'{machine.SUBTASK_PARENT_STATE}'.",
                next_steps={"parent_state": parent_task.state},
            )
        store.create_task_dir(final, name, "new", line, project.tasks_label)
    return made


def follow_up(project: Project, name: str, new_name: str | None = None) -> FollowedUp:
    """After FAIL, NEEDS_REVIEW or tie-breaks, the follow-up task: a fix, review or
    tiebreak task, with the earlier artifacts (and the bug report) copied, in the right
    phase."""
    origin = load_tracked(project, name)
    if machine.base_phase(origin.state or "") not in machine.VERDICT_PHASES:
        raise Refusal(
            "no-verdict-yet",
            f"Task '{name}' is in '{origin.state}': a follow-up task comes after the referee's "
            "verdict (referee, complete or human_intervention).",
        )
    text = origin.read(machine.ARTIFACTS["referee"]) or ""
    verdict, cause = verdict_of(text), follow_up_cause(text)
    if cause is None:
        raise Refusal(
            "no-failed-verdict",
            f"VERDICT.md of task '{name}' says {verdict or 'no verdict'}; a follow-up task "
            "follows FAIL (a fix task), NEEDS_REVIEW (a review task) or tie-breaks the "
            "referee names (a tiebreak task).",
        )
    kind, start = machine.FOLLOW_UPS[cause]
    target = new_name or f"{name.replace('/', '-')}-{kind}"
    split_name(target)
    files = {
        artifact: (origin.path / artifact).read_bytes()
        for artifact in machine.carried_artifacts(start)
        if origin.has_content(artifact)
    }
    verdict_file = machine.ARTIFACTS["referee"]
    files[f"ORIGIN_{verdict_file}"] = (origin.path / verdict_file).read_bytes()
    line = entry(
        project.context.utc_now(),
        None,
        start,
        default_actor(project.root),
        "--follow-up",
        origin=name,
        verdict=verdict,
        kind=kind,
    )
    if "/" in target:
        raise AutomatonError("invalid-task-name", "A follow-up task is a top-level task.")
    store.create_task_dir(
        project.task_dir(target), target, start, line, project.tasks_label, files=files
    )
    return FollowedUp(target, start, name, verdict or "", line["actor"], line["time"], kind)


def transition(
    project: Project,
    name: str,
    target: str,
    *,
    engine: Engine,
    actor: str | None = None,
    claims: Claims = SINGLE_AGENT,
    policy: Policy = OPEN,
) -> Moved:
    """Move a task along a legal edge, once its artifact is there, its approval stands
    and no rule objects."""
    if not machine.is_state(target):
        guess = machine.closest_state(target)
        hint = f" Did you mean '{guess}'?" if guess else ""
        raise AutomatonError(
            "unknown-phase",
            f"Unknown phase '{printable(target)}'.{hint} Known phases: {', '.join(machine.STATES)}",
            next_steps={"did_you_mean": guess},
        )
    command = f"--transition {target}"
    task_dir = load_tracked(project, name).path
    with store.locked(task_dir):
        recovered = roll_forward(project, name)
        task = load_tracked(project, name)
        if recovered is not None and finished_by_recovery(recovered, target, command):
            return Moved(
                name,
                recovered.get("from"),
                target,
                recovered=True,
                actor=recovered.get("actor"),
                time=recovered.get("time"),
            )
        current = task.state or ""
        require_holder(project, task, claims)
        unstood = gate_problem(project, task, policy)
        refuse_illegal(project, task, target, reopen=unstood is not None)
        refuse_unproven(project, task, target, policy, unstood)
        refuse_changed_approval(project, task, target)
        refuse_failed_verdict(project, task, target)
        consult_rules(engine, project, task, target)
        who = actor or claims.agent or default_actor(project.root)
        line = entry(project.context.utc_now(), current, target, who, command)
        store.commit(task_dir, line, target)
        follow_claim(task_dir, target)
    return Moved(name, current, target, actor=line["actor"], time=line["time"])


def _valid_approver(approver: str) -> str:
    if not APPROVER_PATTERN.fullmatch(approver):
        raise AutomatonError(
            "invalid-approver",
            f"Invalid approver '{printable(approver)}'. Use 'user', a person's e-mail or an "
            "agent id (letters, digits, '.', '_', '@', '+', '-').",
        )
    return approver


def _approved_artifact(task: Task) -> str:
    """The artifact the gate approves, which must be there to be read."""
    current = task.state or ""
    artifact = machine.required_artifact(current) or ""
    if not task.has_content(artifact):
        raise Refusal(
            "missing-artifact",
            f"Cannot approve '{current}': required artifact '{artifact}' is missing or empty "
            "in task folder.",
        )
    return artifact


def _recovered_approval(recovered: dict[str, Any] | None, name: str, current: str) -> Moved | None:
    """The approval a killed --approve journaled, when it is the one being asked for again."""
    if recovered is None or recovered.get("command") != "--approve":
        return None
    if recovered.get("to") != current:
        return None
    return Moved(
        name,
        recovered.get("from"),
        current,
        recovered=True,
        approver=recovered.get("approver"),
        via=recovered.get("via") or "cli",
        actor=recovered.get("actor"),
        time=recovered.get("time"),
    )


def approve(
    project: Project,
    name: str,
    *,
    approver: str | None = None,
    engine: Engine | None = None,
    claims: Claims = SINGLE_AGENT,
    policy: Policy = OPEN,
    given: Given = BY_COMMAND_LINE,
) -> Moved:
    """Open an approval gate: record who approved what, how, with the artifact's digest;
    the approver named by none is the person git names (support/person.py)."""
    if approver is None:
        approver = default_actor(project.root)
    if claims.enabled and claims.agent is not None and given.via == "cli":
        approver = claims.agent  # the approving agent is recorded by its id
    _valid_approver(approver)
    task_dir = load_tracked(project, name).path
    with store.locked(task_dir):
        recovered = roll_forward(project, name)
        task = load_tracked(project, name)
        current = task.state or ""
        done = _recovered_approval(recovered, name, current)
        if done is not None:
            return done
        refuse_unless_awaiting(project, task)
        refuse_way(project, task, policy, given)
        refuse_self_approval(project, task, approver, claims)
        artifact = _approved_artifact(task)
        target = machine.approval_target(current) or ""
        if engine is not None:
            consult_rules(engine, project, task, target, required=False)
        now = project.context.utc_now()
        approved = store.read_bytes(task.path / artifact)
        fields = {
            "approver": approver,
            "artifact": artifact,
            "artifact_sha256": store.bytes_digest(approved),
            "via": given.via,
            **given.details,
        }
        record = entry(now, current, target, approver, "--approve", **fields)
        record.update(sign_record(project, task, policy, given, record))
        line = None
        if not pending_approval(task_dir, target):
            line = store.Approval(target, now, approver, given.via)
        store.commit(task_dir, record, target, approval=line)
        store.write_approved_copy(task_dir, artifact, approved)  # for a diff, once changed
    return Moved(name, current, target, approver=approver, via=given.via, actor=approver, time=now)


def _adopt(project: Project, task: Task, actor: str) -> Adopted | None:
    """Give one folder a `.state`: restored from its history, or inferred from its artifacts."""
    if _vouched_for(task):
        return None
    history = store.read_history(task.path)
    recorded = integrity.last_recorded(history)
    store.ensure_approvals(task.path)
    if recorded is not None and machine.is_state(recorded):
        # The history is the record: a lost, garbled or hand-edited .state goes back to it,
        # and every hand edit undone is recorded (a second line for a restoration a kill
        # left half done is harmless: it restores the same state).
        edited = task.state is not None and machine.is_state(task.state)
        when = None
        if history[-1].get("command") == "--upgrade" and not edited:
            store.write_state(task.path, recorded)
        else:
            line = entry(
                project.context.utc_now(), task.state, recorded, actor, "--upgrade", restored=True
            )
            store.commit(task.path, line, recorded)
            when = line["time"]
        return Adopted(task.name, recorded, store.HISTORY, task.state, actor, when)
    if task.state is not None and machine.is_state(task.state):
        raise AutomatonError(
            "unreadable-history",
            f"The last line of .state.history of task '{task.name}' names no state, so "
            f".state ('{task.state}') cannot be checked or restored from it. --audit shows "
            "what changed; the line must be put back (from version control) by the user.",
        )
    if task.state is not None:
        raise AutomatonError(
            "unknown-phase",
            f"Unknown phase '{printable(task.state)}' in .state file of task '{task.name}', "
            "and no .state.history to restore it from. Write the right phase into .state.",
        )
    phase = machine.infer_phase(task.artifacts)
    source = machine.ARTIFACTS.get(phase)
    line = entry(
        project.context.utc_now(),
        None,
        phase,
        actor,
        "--upgrade",
        inferred_from=source,
        adopted_approvals=len(store.read_approvals(task.path)),
    )
    store.commit(task.path, line, phase)
    return Adopted(task.name, phase, source, actor=actor, time=line["time"])


def _vouched_for(task: Task) -> bool:
    """A known phase its history agrees with (or that has no history): nothing to repair."""
    if task.state is None or not machine.is_state(task.state):
        return False
    return not integrity.hand_edited(task.state, integrity.recorded_moves(task.path))


def infer_untracked(project: Project, name: str, mode: str) -> Adopted | None:
    """With `untracked = "infer"` (the specification's fallback), write the inferred `.state`.

    With the default `"refuse"` nothing happens here and the command refuses the task; so
    it does a folder with no artifact to infer from, whose phase is "unknown".
    """
    task_dir = project.task_dir(name)
    if mode != "infer" or not task_dir.is_dir() or store.read_state(task_dir) is not None:
        return None
    if not project.load(name, strict=False).artifacts:
        return None  # nothing to infer from: the phase is unknown, and the command says so
    with store.locked(task_dir):
        return _adopt(project, project.load(name, strict=False), default_actor(project.root))


def upgrade(project: Project, *, actor: str | None = None) -> tuple[list[Adopted], list[str]]:
    """Adopt hand-made folders, and put back from the history a `.state` that was lost,
    garbled or edited by hand; idempotent, task by task."""
    changes: list[Adopted] = []
    errors: list[str] = []
    actor = actor or default_actor(project.root)
    for name in project.names():
        try:
            task = project.load(name, strict=False)
            if _vouched_for(task):
                continue
            with store.locked(task.path):
                change = _adopt(project, project.load(name, strict=False), actor)
        except AutomatonError as exc:
            errors.append(f"task {name}: {exc.message}")
            continue
        if change is not None:
            changes.append(change)
    return changes, errors
