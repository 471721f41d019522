"""Multi-agent mode: an agent claims a task before it changes it, and a claim expires."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from automaton_rules.core import store
from automaton_rules.core.project import Project, Task, load_tracked
from automaton_rules.support import clock
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable
from automaton_rules.support.person import PATTERN
from automaton_rules.workflow.changes import ClaimChanged

# Approvers and agents alike: `user`, a person's e-mail, or an id a log line and a claim
# can hold.
APPROVER_PATTERN = PATTERN


@dataclass(frozen=True)
class Claims:
    """Multi-agent mode for one command: whether it is on, who asks, how long a claim lasts."""

    enabled: bool = False
    agent: str | None = None
    timeout_minutes: float = 30


SINGLE_AGENT = Claims()


def _valid_agent(agent: str) -> str:
    if not APPROVER_PATTERN.fullmatch(agent):
        raise AutomatonError(
            "invalid-agent",
            f"Invalid agent id '{printable(agent)}' (letters, digits, '.', '_', '@', '+', '-').",
        )
    return agent


def expired(claim: dict[str, str], now: float) -> bool:
    """A claim past its expiry (or with none readable) may be taken over."""
    expires = clock.parse_time(claim.get("expires", ""))
    return expires is None or expires.timestamp() <= now


def _held_by_other(
    project: Project, name: str, claim: dict[str, str] | None, agent: str | None
) -> None:
    if (
        claim is not None
        and not expired(claim, project.context.now())
        and claim.get("agent") != agent
    ):
        raise Refusal(
            "claimed",
            f"Task '{name}' is claimed by agent '{printable(str(claim.get('agent')))}' until "
            f"{printable(str(claim.get('expires')))}.",
            next_steps={"holder": claim.get("agent"), "expires": claim.get("expires")},
        )


def require_holder(project: Project, task: Task, claims: Claims) -> None:
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
    _held_by_other(project, task.name, claim, claims.agent)
    if claim is None or expired(claim, project.context.now()):
        command = project.context.command(
            "--task", task.name, "--claim", "--agent", claims.agent, "--project", project.root
        )
        raise Refusal(
            "not-claimed",
            f"Multi-agent mode: claim task '{task.name}' before changing it: {command}",
            next_steps={"command": command},
        )


def refuse_self_approval(project: Project, task: Task, approver: str, claims: Claims) -> None:
    """No agent approves the work of a task it holds."""
    if not claims.enabled:
        return
    holder = store.read_claim(task.path)
    live = holder is not None and not expired(holder, project.context.now())
    if live and holder is not None and holder.get("agent") == approver:
        raise Refusal(
            "self-approval",
            f"Agent '{approver}' holds the claim on task '{task.name}' and cannot approve its "
            "own work. Approval comes from the user or another agent.",
        )


def claim(project: Project, name: str, claims: Claims) -> ClaimChanged:
    """Take (or renew, or take over an expired) claim on a task for one agent."""
    agent = _valid_agent(claims.agent or "")
    task_dir = load_tracked(project, name).path
    with store.locked(task_dir):
        task = load_tracked(project, name)
        previous = store.read_claim(task_dir)
        _held_by_other(project, name, previous, agent)
        now = project.context.now()
        store.write_claim(
            task_dir,
            {
                "agent": agent,
                "phase": task.state or "",
                "claimed": clock.stamp(now),
                "expires": clock.stamp(now + claims.timeout_minutes * 60),
            },
        )
    holder = previous.get("agent") if previous else None
    return ClaimChanged(name, task.state or "", agent, holder, time=clock.stamp(now))


def release(project: Project, name: str, claims: Claims) -> ClaimChanged:
    """Give a claim back; only its holder may, unless it has expired."""
    agent = _valid_agent(claims.agent or "")
    task_dir = load_tracked(project, name).path
    with store.locked(task_dir):
        task = load_tracked(project, name)
        current = store.read_claim(task_dir)
        if current is None:
            raise Refusal("not-claimed", f"Task '{name}' is not claimed.")
        _held_by_other(project, name, current, agent)
        store.remove_claim(task_dir)
    return ClaimChanged(name, task.state or "", agent, agent, released=True)


def follow_claim(task_dir: Any, state: str) -> None:
    """Keep the claim's `phase:` line in step with the task."""
    claim = store.read_claim(task_dir)
    if claim is not None and set(store.CLAIM_KEYS) <= set(claim):
        store.write_claim(task_dir, {**claim, "phase": state})
