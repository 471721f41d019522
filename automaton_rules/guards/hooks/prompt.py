"""Approvals typed by the user in the agent's chat, taken by the harness's user-prompt hook.

The user types `approve TASK` as the whole message (a leading `/` and any letter case
accepted), or `APPROVED` alone when exactly one task awaits approval. The hook runs
before the model sees the message, so the approval is the user's own: it is recorded
`via: prompt` with the harness and its session, and the answer tells the agent what was
approved. Any other message passes through untouched.
"""

from __future__ import annotations

import re
from pathlib import Path

from automaton_rules.core.config import claim_timeout, load_config, multi_agent
from automaton_rules.core.project import Project
from automaton_rules.guards.edits.checks import find_event_project
from automaton_rules.support.context import DEFAULT, Context
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_APPROVE = Lazy(r"\s*/?approve\s+[`'\"]?([^\s`'\"]+)[`'\"]?\s*[.!]?\s*", re.IGNORECASE)
_APPROVED = Lazy(r"\s*/?approved\s*[.!]?\s*", re.IGNORECASE)
# Gemini CLI in `-p` mode puts the context its hooks gave before the user's words.
_HOOK_CONTEXT = Lazy(r"\A\s*<hook_context>.*?</hook_context>\s*", re.DOTALL)
# Where each harness names its conversation, recorded with the approval.
SESSION_KEYS = ("session_id", "sessionId", "conversation_id", "sessionID")


def asked(prompt: str) -> tuple[bool, str | None]:
    """(an approval was asked for, the task it names or None for a bare `APPROVED`)."""
    prompt = _HOOK_CONTEXT.sub("", prompt).strip()
    if len(prompt) > 1 and prompt[0] == prompt[-1] and prompt[0] in "\"'":
        prompt = prompt[1:-1]  # `opencode run "approve t1"` hands its plugin the quotes too
    found = _APPROVE.fullmatch(prompt)
    if found:
        return True, found.group(1)
    return (_APPROVED.fullmatch(prompt) is not None), None


def typed(payload: dict[str, Any], harness: str) -> object:
    """What the user typed, under the key the harness's record names (Qwen Code sends its
    prompt event before the model reads a tool's result too, the user's words only in
    `submitted_prompt`)."""
    from automaton_rules.guards.hooks import harnesses

    return payload.get(harnesses.get(harness).prompt_key)


def _awaiting(project: Project) -> list[str]:
    from automaton_rules.core import machine

    waiting = []
    for name, task in project.load_all():
        state = getattr(task, "state", None)
        if isinstance(state, str) and machine.is_awaiting(state):
            waiting.append(name)
    return waiting


def _task_named(project: Project, named: str | None) -> str:
    """The task the user means: as typed, else the one name it matches ignoring case,
    else (for `APPROVED`) the only task awaiting approval."""
    if named is not None:
        names = project.names()
        if named in names:
            return named
        alike = [name for name in names if name.lower() == named.lower()]
        if len(alike) == 1:
            return alike[0]
        raise AutomatonError("unknown-task", f"there is no task '{printable(named)}'")
    waiting = _awaiting(project)
    if len(waiting) == 1:
        return waiting[0]
    if not waiting:
        raise AutomatonError("nothing-awaiting", "no task is awaiting approval")
    raise AutomatonError(
        "several-awaiting",
        f"several tasks await approval ({', '.join(waiting)}); the user types `approve TASK` "
        "to say which",
    )


def approve(
    payload: dict[str, Any],
    harness: str,
    explicit: str | None,
    where: Path | None,
    context: Context = DEFAULT,
) -> str | None:
    """Approve what the prompt asks for; the agent's context, or None when the prompt asks
    for no approval (or is typed outside any project) and passes through untouched."""
    prompt = typed(payload, harness)
    wanted, named = asked(prompt) if isinstance(prompt, str) else (False, None)
    if not wanted:
        return None
    project = find_event_project(explicit, where, context)
    if project is None:
        return None
    try:
        return _record_typed_approval(project, named, harness, payload)
    except AutomatonError as exc:
        return (
            f"automaton-rules did not record the user's approval: "
            f"{printable(exc.message, None).rstrip('.')}. Nothing was approved: tell the user."
        )


def _record_typed_approval(
    project: Project, named: str | None, harness: str, payload: dict[str, Any]
) -> str:
    from automaton_rules import workflow
    from automaton_rules.engine.runner import Engine

    settings = load_config(project.root)
    name = _task_named(project, named)
    session = next((str(payload[k]) for k in SESSION_KEYS if payload.get(k)), None)
    details = {"harness": harness, **({"session": session} if session else {})}
    timeout = settings.plugin_timeout_seconds
    engine = Engine.create(
        settings.plugins,
        base=settings.base,
        timeout=timeout,
        packages=project.context.plugins,
    )
    change = workflow.approve(
        project,
        name,
        engine=engine,
        claims=workflow.Claims(
            enabled=multi_agent(project.root, settings),
            timeout_minutes=claim_timeout(project.root, settings),
        ),
        policy=workflow.Policy.of(settings, project.root),
        given=workflow.Given("prompt", details),
    )
    # An approval typed in the chat is an event too, told once it is recorded.
    failed = workflow.announce(engine.pm, project.root, [change], timeout)
    warnings = "".join(
        f" WARNING: {printable(str(failure), None)} (the approval stands)." for failure in failed
    )
    return (
        f"The user approved task '{change.task}' in this chat: '{change.source}' -> "
        f"'{change.target}' (recorded by automaton-rules, via prompt). Run "
        + project.context.command("--task", change.task, project=project.root)
        + f" to see the next step.{warnings}"
    )
