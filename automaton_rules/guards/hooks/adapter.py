"""One adapter for every agent harness: read its hook JSON, decide, answer in its format.

`automaton-hook --harness NAME` reads the event a harness sends on stdin and dispatches
on what it asks (its name, else `--event`). Before a tool runs it decides with
the same core as `status.py --can-edit` and prints the harness's own deny answer: edits
in a non-edit phase, the guard's own files in any phase, the agent running the approval
command, and shell commands that write where an edit could not. It fails closed: an
event it cannot read whole, an internal error, or no answer within its deadline denies.
At session start (and after compaction) it answers with the workflow's state as context
instead; a settings change during a session that would drop the guard's hooks is
refused; so one command serves every hook. What each harness calls its events and how it
wants its answers is its record in `guards/hooks/harnesses.py`; nothing here names a harness.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

from automaton_rules.core.config import load_config
from automaton_rules.core.project import find_project
from automaton_rules.guards.edits import checks as guard
from automaton_rules.guards.hooks import harnesses
from automaton_rules.guards.hooks.events import (
    DELETE_TOOLS,
    Malformed,
    read_action,
    session_folder,
    session_id,
    tool_output,
    where,
)
from automaton_rules.guards.hooks.events import Action as Action
from automaton_rules.guards.hooks.harnesses import (
    AFTER,
    CONFIG,
    EVENTS,
    PROMPT,
    SESSION,
    STOP,
    TOOL,
)
from automaton_rules.support.console import Script
from automaton_rules.support.context import DEFAULT, STATUS_SCRIPT, Context, running
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from automaton_rules.core.project import Project
    from automaton_rules.guards.hooks.harnesses import Answer, Harness
    from automaton_rules.guards.hooks.moves import Call

HARNESSES: tuple[str, ...] = harnesses.NAMES
# Seconds the adapter may take before it refuses on its own: below the timeout the
# installer gives each harness (10 s), since a harness that kills a slow hook lets the
# action through. `--deadline` sets another.
DEADLINE = 8.0
# Seconds a status.py move the adapter carries out may take, within that deadline.
MOVE_SECONDS = 6.0


class Verdict(Record):
    """Allow, or deny with the reason the agent will read; an allowed shell command may
    run as `updated` (the tool's whole input, its command inside the sandbox), with what
    the user's own permission rules say of the original (`permission`); `moves` are the
    status.py moves to carry out first, in the session's project (`carry_out`)."""

    allowed: bool
    reason: str = ""
    updated: dict[str, Any] | None = None
    permission: str | None = None
    moves: tuple[Path, list[Call]] | None = None


def new_text(tool_input: dict[str, Any], before: str | None) -> str | None:
    """A file's text after a Write, Edit or MultiEdit (each harness's spelling), from its
    text before (None: no such file); None when the tool's input does not tell."""
    for key in ("content", "contents"):  # Write (Claude, Gemini, opencode), Cursor's Write
        if isinstance(tool_input.get(key), str):
            return str(tool_input[key])
    command = tool_input.get("command")  # Copilot's create, Kiro's fs_write: what it does
    if command not in (None, "create", "str_replace"):
        return None  # an insert or an append: not worked out here
    if isinstance(tool_input.get("file_text"), str) and command in (None, "create"):
        return str(tool_input["file_text"])
    edits = tool_input.get("edits")
    text = before
    for edit in edits if isinstance(edits, list) else [tool_input]:
        text = _replaced(text, edit)
        if text is None:
            return None
    return text


def _replaced(text: str | None, edit: Any) -> str | None:
    """One replacement: Claude's `old_string`, opencode's `oldString`, Gemini's `replace`,
    Copilot's, Kiro's and Factory Droid's `old_str` (`oldStr` in Kiro's newer spelling)."""
    if not isinstance(edit, dict):
        return None
    old, new = _first_text(edit, OLD_KEYS), _first_text(edit, NEW_KEYS)
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if text is None or old == "":
        return new if text is None and old == "" else None
    if old not in text:
        return None
    count = edit.get("expected_replacements")
    every = any(edit.get(key) for key in EVERY_KEYS)
    if every or (isinstance(count, int) and count > 1):
        return text.replace(old, new)
    return text.replace(old, new, 1)


# Replace every occurrence: Claude's, opencode's, Kiro's, Factory Droid's `change_all`.
EVERY_KEYS = ("replace_all", "replaceAll", "allow_multiple", "change_all")
OLD_KEYS = ("old_string", "oldString", "old_str", "oldStr")
NEW_KEYS = ("new_string", "newString", "new_str", "newStr")


def _first_text(edit: dict[str, Any], keys: tuple[str, ...]) -> object:
    """The value of the first of `keys` the edit has (None: none)."""
    return next((edit[key] for key in keys if key in edit), None)


def _proposed(action: Action) -> Callable[[str | None], str | None] | None:
    """How the one file an edit tool names reads afterwards, for pyproject.toml's
    `[tool.automaton]` table; None for patches and tools that name several files."""
    tool_input = action.details.get("input")
    if len(action.paths) != 1 or not isinstance(tool_input, dict):
        return None
    if str(action.details.get("tool", "")).lower() in DELETE_TOOLS:
        return lambda before: ""
    return lambda before: new_text(tool_input, before)


def decide(
    action: Action,
    *,
    project: str | None = None,
    task: str | None = None,
    harness: str = "claude",
    context: Context = DEFAULT,
    session: Path | None = None,
    session_id: str | None = None,
) -> Verdict:
    """The same answers as `status.py --can-edit`, applied to what the tool is about to do;
    a shell line is judged by the phase of the session's project (`session`: the folder
    the harness works in), wherever it runs; `session_id` names the harness's session,
    whose rewritten lines are watched (guards/hooks/witness.py)."""
    if action.kind == "other":
        return Verdict(True)
    if action.kind == "edit":
        return _decide_edits(action, project, task, context, session)
    if action.kind == "powershell":
        from automaton_rules.guards.shell import powershell

        refusal = powershell.judge(
            action.command,
            action.cwd,
            lambda: guard.find_event_project(project, session or action.cwd, context),
            task,
            project is not None,
        )
        return Verdict(refusal is None, refusal or "")
    return _decide_shell(action, project, task, harness, context, session, session_id)


def _decide_shell(
    action: Action,
    project: str | None,
    task: str | None,
    harness: str,
    context: Context,
    session: Path | None = None,
    session_id: str | None = None,
) -> Verdict:
    """A shell line: refused when the reader sees it do what no phase allows, its status.py
    moves carried out here, anything else run inside the session project's sandbox where
    one works (guards/hooks/shell_plan.py), else as the reader judges it."""
    from automaton_rules.guards.hooks import moves, shell_plan, witness

    record = harnesses.get(harness)
    mark = None
    if session_id is not None and record.rewrites:
        if witness.unwrapped(harness, session_id):
            return Verdict(False, witness.REFUSED.format(harness=record.title))
        mark = witness.mark(harness, session_id, action.command)
    found: list[Project | None] = []

    def finder() -> Project | None:  # the session's project, asked for once, lazily
        if not found:
            found.append(guard.find_event_project(project, session or action.cwd, context))
        return found[0]

    plan = shell_plan.plan(
        action.command, action.cwd, finder, task, project is not None, harness, mark
    )
    if plan.refusal is not None:
        return Verdict(False, plan.refusal)
    if plan.moves is not None:
        session_project = finder()
        assert session_project is not None
        where = session_project.root.resolve()
        return Verdict(True, moves.CARRIED, None, plan.permission, (where, plan.moves))
    if plan.command is None:
        return Verdict(True)
    if mark is not None and witness.named(mark, plan.command):
        witness.expect(mark)
    return Verdict(True, "", _updated(action, plan.command), plan.permission)


def carry_out(verdict: Verdict, action: Action) -> Verdict:
    """A verdict whose status.py moves are now made, the line rewritten to show their
    output and exit status; any other verdict as it is."""
    if verdict.moves is None:
        return verdict
    from automaton_rules.guards.hooks import moves

    root, calls = verdict.moves
    out, err, code = moves.carry_out(calls, root, MOVE_SECONDS)
    updated = _updated(action, moves.printer(out, err, code))
    return Verdict(True, verdict.reason, updated, verdict.permission)


def _updated(action: Action, command: str) -> dict[str, Any]:
    """The tool's whole input, its command replaced."""
    original = action.details.get("input")
    updated = {**(original if isinstance(original, dict) else {}), "command": command}
    updated.pop("cmd", None)
    return updated


def _decide_edits(
    action: Action, project: str | None, task: str | None, context: Context, session: Path | None
) -> Verdict:
    """Each edited file is judged by the project it lies in, wherever the harness runs."""
    if not action.paths:
        proj = guard.find_event_project(project, session or action.cwd, context)
        if proj is None:
            return Verdict(True)
        settings = load_config(proj.root)
        decision = guard.can_edit(proj, task, cwd=action.cwd, first=True)
        decision = guard.edit_rules(decision, proj, settings, cwd=action.cwd)
        return Verdict(decision.allowed, "" if decision.allowed else decision.text)
    for path in action.paths:
        target = guard.resolve(path, action.cwd)
        found = guard.find_event_project(project, target.parent, context)
        proj = found or guard.find_event_project(None, session or action.cwd, context)
        if proj is None:
            continue
        settings = load_config(proj.root)
        decision = guard.can_edit(
            proj,
            task,
            path,
            cwd=action.cwd,
            first=True,
            settings=settings,
            proposed=_proposed(action),
        )
        decision = guard.edit_rules(decision, proj, settings, path, action.cwd)
        if not decision.allowed:
            return Verdict(False, decision.text)
    return Verdict(True)


def render(harness: str, verdict: Verdict) -> Answer:
    """(stdout, stderr, exit code) of a verdict in the harness's own protocol."""
    record = harnesses.get(harness)
    if verdict.allowed and verdict.updated is not None:
        return record.rewrite(verdict.updated, verdict.permission, verdict.reason)
    return record.allow() if verdict.allowed else record.deny(verdict.reason)


def session_context(
    payload: dict[str, Any],
    project: str | None = None,
    harness: str = "claude",
    context: Context = DEFAULT,
) -> str:
    """The workflow's state for a starting session, and whether a sandbox holds its shell;
    empty outside any project."""
    import time

    from automaton_rules.guards.hooks import session, shell_plan, witness

    witness.prune(time.time())
    found = guard.find_event_project(project, where(payload), context)
    if found is None:
        return ""
    settings = load_config(found.root)  # a broken configuration denies every edit: say so
    return session.context(
        found, settings.approval, shell_plan.describe(settings, harness, found.root)
    )


def _message(exc: Exception) -> str:
    """An error as a refusal names it: ours by their message, others by their type too."""
    if isinstance(exc, AutomatonError):
        text = exc.message
    elif isinstance(exc, Malformed):
        text = str(exc)
    elif isinstance(exc, ValueError) and type(exc).__name__ == "JSONDecodeError":
        text = f"the hook input is not JSON ({exc})"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return printable(text, None)


def prompt_answer(
    payload: dict[str, Any],
    record: Harness,
    event: str,
    options: dict[str, str],
    context: Context = DEFAULT,
) -> Answer:
    """A prompt is the user's: an approval it asks for is recorded, anything else passes.
    It fails open (nothing is approved, the message goes on), never blocking the chat."""
    from automaton_rules.guards.hooks import prompt

    if payload.get("agent_id"):  # Codex: a subagent's prompt, written by its parent agent
        return record.prompt(event, None)
    try:
        text = prompt.approve(payload, record.name, options.get("project"), where(payload), context)
    except Exception as exc:
        text = (
            f"automaton-rules could not check this message for an approval ({_message(exc)}); "
            "nothing was approved."
            if prompt.asked(str(prompt.typed(payload, record.name) or ""))[0]
            else None
        )
    if text is None and record.prompt_context:  # the open requests for changes, if any
        requested = requests_context(payload, options.get("project"), context)
        if requested:
            return record.context(event, requested)
    return record.prompt(event, text)


def requests_context(
    payload: dict[str, Any], project: str | None, context: Context = DEFAULT
) -> str:
    """The changes the user asked for on tasks at their gates, for the agent's context;
    empty when there are none, outside a project, or when they cannot be read."""
    from automaton_rules.guards.hooks import session

    try:
        found = find_project(Path(project) if project else None, cwd=where(payload))
        found = found.opened_by(context)
        return session.requests_text(guard.task_states(found))
    except Exception:  # context is advice: the prompt goes on untouched
        return ""


def after_answer(
    payload: dict[str, Any],
    record: Harness,
    event: str,
    options: dict[str, str],
    context: Context = DEFAULT,
) -> Answer:
    """A tool ran: was a shell line the adapter rewrote run as rewritten, and did a
    sandboxed one meet the boundary (guards/hooks/witness.py). It cannot stop what ran, so it
    fails quiet."""
    from automaton_rules.guards.hooks import witness

    try:
        action = read_action(payload, record.name)
        session = session_id(payload)
        if action.kind != "shell" or session is None or not record.rewrites:
            return record.after(event, None)
        ran = witness.ran(record.name, session, action.command)
        if ran is False:
            return record.after(event, witness.DROPPED.format(harness=record.title), alarm=True)
        if not ran or not witness.met_boundary(tool_output(payload)):
            return record.after(event, None)
        proj = guard.find_event_project(
            options.get("project"), session_folder(payload, record), context
        )
        if proj is None:
            return record.after(event, None)
        editing = guard.can_edit(proj, options.get("task"), None, first=True).allowed
        states = ", ".join(f"{t.name}: {t.state}" for t in guard.task_states(proj)[:4])
        return record.after(event, witness.kept_out(editing, states))
    except Exception:
        return record.after(event, None)


def stop_answer(
    payload: dict[str, Any], record: Harness, options: dict[str, str], context: Context = DEFAULT
) -> Answer:
    """The agent ends its turn: wait for a decision on a task at its gate (guards/hooks/stop.py).
    It fails open: whatever goes wrong, the agent stops as it would have."""
    from automaton_rules.guards.hooks import stop

    _arm(0)  # its wait is bounded by stop-wait-seconds, below the harness's timeout
    try:
        text = stop.answer(payload, options.get("project"), where(payload), context)
    except Exception:
        text = None
    return record.stop(text)


def answer(
    payload: Any, harness: str, options: dict[str, str], context: Context = DEFAULT
) -> Answer:
    """Dispatch on what the event asks: session start gets context, a user's prompt may
    approve, a settings change may be refused, a tool about to run gets a verdict. An event
    the adapter does not answer passes, unless it carries a tool: that is denied."""
    if not isinstance(payload, dict):
        raise Malformed("the hook input is not a JSON object")
    name = payload.get("hook_event_name")
    if name is not None and not isinstance(name, str):
        raise Malformed("hook_event_name is not text")
    event = name or options.get("event") or ""  # an event with no name is a tool's
    kind = EVENTS.get(event) if event else TOOL
    record = harnesses.get(harness)
    if kind == PROMPT:
        return prompt_answer(payload, record, event, options, context)
    if kind == STOP:
        return stop_answer(payload, record, options, context)
    if kind == AFTER:
        return after_answer(payload, record, event, options, context)
    if kind == SESSION:
        try:
            text = session_context(payload, options.get("project"), harness, context)
        except Exception as exc:  # context is advice: say what failed, never block a start
            text = (
                f"automaton-rules could not read this project's workflow ({_message(exc)}). "
                f"Before editing, run {STATUS_SCRIPT} --task NAME to see your task's phase."
            )
        return record.context(event, text)
    if kind == CONFIG:
        from automaton_rules.guards.hooks import settings_change

        return record.block(settings_change.judge(payload))
    if kind != TOOL:
        if any(key in payload for key in ("tool_name", "tool", "toolName", "command")):
            raise Malformed(f"the event {event!r} carries a tool, and is not one it answers")
        return record.allow()
    action = read_action(payload, harness)
    verdict = decide(
        action,
        project=options.get("project"),
        task=options.get("task"),
        harness=harness,
        context=context,
        session=session_folder(payload, record),
        session_id=session_id(payload),
    )
    return render(harness, carry_out(verdict, action))


USAGE = f"""\
usage: automaton-hook [--harness NAME] [--event EVENT] [--project DIR] [--task NAME]
                      [--deadline SECONDS]

Reads one hook event of a harness as JSON on stdin and answers in that harness's format
(NAME: {", ".join(HARNESSES)}). The event is the input's hook_event_name, else
--event (GitHub Copilot CLI names none), else a tool about to run. Before a tool runs:
allowed answers as the harness expects of an allowed call, denied prints its deny
answer. It fails closed: empty or ill-formed input (no tool name, an input that is not
an object, a shell command that is not text), an event it does not know that carries a
tool, an internal error, or no answer within --deadline seconds (default 8) is denied.
At session start (SessionStart, sessionStart, SubagentStart, agentSpawn) it prints the
workflow's state as the harness's additional context. When the user submits a prompt
(UserPromptSubmit, BeforeAgent, beforeSubmitPrompt, userPromptSubmitted), `approve
TASK` approves the task; any other prompt passes through untouched. A settings change
during a session (ConfigChange) that would stop the hooks is refused. Bad usage exits
2, which every harness takes as a refusal.

Example (what Claude Code runs before each tool call):
  echo '{{"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": ".",
         "tool_input": {{"file_path": "src/app.py"}}}}' | automaton-hook --harness claude

See docs/harness-integration.md and docs/approvals.md.
"""
SCRIPT = Script(
    "automaton-hook",
    USAGE,
    valued=("--harness", "--event", "--project", "--task", "--deadline"),
    positionals=0,
)


class Overdue(BaseException):
    """The deadline passed: raised in whatever the adapter was doing, which no `except
    Exception` in a rule or a library swallows."""


def main(argv: Sequence[str] | None = None, context: Context = DEFAULT) -> int:
    """Console script `automaton-hook`; any failure denies (fail closed). `context` is the
    run's clock and plugin selection (the test fixture passes its own), handed down to
    every project the event opens; `running` holds it only for a listener's `now()`."""
    with running(context):
        return SCRIPT.run(argv, partial(_answer_hook, context))


def _deadline(options: dict[str, Any]) -> float | None:
    """--deadline in seconds, or the default; None when the value is not a positive number."""
    text = str(options.get("deadline", DEADLINE))
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if 0 < seconds < 3600 else None


def _overdue(_signum: int, _frame: object) -> None:
    raise Overdue


def _answer_hook(context: Context, options: dict[str, Any], _words: list[str]) -> int:
    harness = str(options.get("harness", "claude"))
    deadline = _deadline(options)
    if harness not in HARNESSES or deadline is None:
        wrong = (
            f"--harness must be one of {', '.join(HARNESSES)}"
            if harness not in HARNESSES
            else "--deadline must be a number of seconds above 0"
        )
        sys.stderr.write(f"ERROR: automaton-hook: {wrong}\n{USAGE.splitlines()[0]}\n")
        return 2
    armed = _arm(deadline)
    try:
        out, err, code = _answer_stdin(harness, options, deadline, context)
    finally:
        if armed:
            _arm(0)
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err + "\n")
    return code


def _answer_stdin(
    harness: str, options: dict[str, Any], deadline: float, context: Context
) -> Answer:
    """The answer to the event on stdin; any failure, or the deadline, denies."""
    try:
        text = sys.stdin.read()
        if not text.strip():
            raise Malformed("the hook received no input")
        return answer(json.loads(text), harness, options, context)
    except Overdue:
        reason = f"it did not answer within {deadline:g} s"
    except Exception as exc:  # fail closed: a broken guard must not wave edits through
        reason = _message(exc)
    denial = f"DENIED: automaton-rules could not check this action ({reason})."
    return render(harness, Verdict(False, denial))


def _arm(seconds: float) -> bool:
    """Raise `Overdue` in the adapter after `seconds` (0 disarms); False where the platform
    has no interval timer. The interpreter has `_signal` loaded already; `signal` would
    cost the hook a millisecond of imports."""
    import _signal  # type: ignore[import-not-found]

    if not hasattr(_signal, "setitimer"):
        return False
    _signal.signal(_signal.SIGALRM, _overdue if seconds else _signal.SIG_DFL)
    _signal.setitimer(_signal.ITIMER_REAL, seconds)
    return True


if __name__ == "__main__":
    sys.exit(main())
