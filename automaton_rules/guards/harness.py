"""One adapter for every agent harness: read its hook JSON, decide, answer in its format.

`automaton-hook --harness claude|codex|gemini|cursor|opencode` reads the event a
harness sends on stdin and dispatches on its name. Before a tool runs it decides with
the same core as `status.py --can-edit` and prints the harness's own deny answer: edits
in a non-edit phase, the guard's own files in any phase, the agent running the approval
command, and shell commands that write where an edit could not. An internal error
denies too. At session start (and after compaction) it answers with the workflow's
state as context instead, so one command serves every hook.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from automaton_rules.core.config import load_config
from automaton_rules.core.console import Script
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.output import printable
from automaton_rules.core.project import STATUS_SCRIPT, Project, find_project
from automaton_rules.core.record import Record
from automaton_rules.guards import checks as guard

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

HARNESSES: tuple[str, ...] = ("claude", "codex", "gemini", "cursor", "opencode")

# Tool names that edit files, per harness vocabulary (compared case-insensitively).
EDIT_TOOLS = frozenset(
    {
        "write",
        "edit",
        "multiedit",
        "notebookedit",
        "write_file",
        "replace",
        "edit_file",
        "strreplace",
        "delete",
        "deletefile",
        "patch",
        "apply_patch",
    }
)
SHELL_TOOLS = frozenset({"bash", "shell", "run_shell_command", "local_shell", "exec_command"})
DELETE_TOOLS = frozenset({"delete", "deletefile"})
PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "absolute_path")
# Where a patch travels: Codex's apply_patch (`command`, `input`), opencode's (`patchText`).
PATCH_KEYS = ("patch", "patchText", "input", "command", "cmd")
# A shell tool's own working folder: opencode's bash `workdir`, Gemini's `dir_path`
# (`directory` in older releases), Codex's shell `workdir`.
WORKDIR_KEYS = ("workdir", "dir_path", "directory")
# Events that start (or restart, after compaction) an agent's context.
SESSION_EVENTS = frozenset({"SessionStart", "SubagentStart", "sessionStart"})
# Events of a prompt the user submits, before the model sees it: Claude Code and Codex
# `UserPromptSubmit` (opencode's plugin sends its `chat.message` under this name too),
# Gemini CLI `BeforeAgent`, Cursor `beforeSubmitPrompt`.
PROMPT_EVENTS = frozenset({"UserPromptSubmit", "BeforeAgent", "beforeSubmitPrompt"})
# Events of an agent that ends its turn: Claude Code and Codex `Stop` (opencode's plugin
# sends its `session.idle` under this name too), Gemini CLI `AfterAgent`, Cursor `stop`.
STOP_EVENTS = frozenset({"Stop", "AfterAgent", "stop"})


class Action(Record):
    """What the agent is about to do, in harness-neutral terms."""

    _fields = ("kind", "paths", "command", "cwd", "details")
    kind: str  # "edit", "shell" or "other"
    paths: tuple[str, ...]
    command: str
    cwd: Path | None
    details: dict[str, Any]

    def __init__(
        self,
        kind: str,
        paths: tuple[str, ...] = (),
        command: str = "",
        cwd: Path | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        self._init(kind, paths, command, cwd, {} if details is None else details)


class Verdict(Record):
    """Allow, or deny with the reason the agent will read."""

    _fields = ("allowed", "reason")
    allowed: bool
    reason: str

    def __init__(self, allowed: bool, reason: str = "") -> None:
        self._init(allowed, reason)


def _paths(tool_input: Any) -> list[str]:
    if not isinstance(tool_input, dict):
        return []
    found = [str(tool_input[key]) for key in PATH_KEYS if isinstance(tool_input.get(key), str)]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        found += [str(e["file_path"]) for e in edits if isinstance(e, dict) and e.get("file_path")]
    for key in PATCH_KEYS:
        value = tool_input.get(key)
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            if isinstance(text, str) and "*** Begin Patch" in text:
                from automaton_rules.guards.shell import patch_files

                found += patch_files(text)
    return found


def _where(payload: dict[str, Any]) -> Path | None:
    """The folder the harness works in: `cwd`, or Cursor's first workspace root."""
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") or payload.get("directory")
    if not cwd and isinstance(roots, list) and roots:
        cwd = roots[0]  # Cursor names its workspace instead of a working directory
    return Path(cwd) if isinstance(cwd, str) and cwd else None


def _shell_folder(tool_input: Any, where: Path | None) -> Path | None:
    """Where a shell tool runs its command: its own working folder, resolved against the
    harness's, else the harness's."""
    if not isinstance(tool_input, dict):
        return where
    for key in WORKDIR_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return guard.resolve(value, where)
    return where


def _command(tool_input: Any) -> str:
    command: Any = ""
    if isinstance(tool_input, dict):
        command = tool_input.get("command") or tool_input.get("cmd") or ""
    if isinstance(command, list):
        import shlex

        command = shlex.join(str(part) for part in command)
    return str(command)


def read_action(payload: Any, harness: str) -> Action:
    """Normalise one harness's pre-tool event."""
    if not isinstance(payload, dict):
        raise ValueError("hook input is not a JSON object")
    where = _where(payload)
    if harness == "cursor" and isinstance(payload.get("command"), str):
        return Action("shell", command=payload["command"], cwd=where)
    tool = str(payload.get("tool_name") or payload.get("tool") or payload.get("toolName") or "")
    tool_input = payload.get("tool_input") or payload.get("args") or payload.get("toolArgs") or {}
    paths = _paths(tool_input)
    name = tool.lower()
    if name in SHELL_TOOLS:
        folder = _shell_folder(tool_input, where)
        if paths:  # Codex sends apply_patch through its shell tool
            return Action("edit", tuple(paths), cwd=folder, details={"tool": tool})
        return Action("shell", command=_command(tool_input), cwd=folder, details={"tool": tool})
    if name in EDIT_TOOLS or (paths and name.startswith(("write", "edit"))):
        details = {"tool": tool, "input": tool_input}
        return Action("edit", tuple(paths), cwd=where, details=details)
    return Action("other", cwd=where, details={"tool": tool})


def new_text(tool_input: dict[str, Any], before: str | None) -> str | None:
    """A file's text after a Write, Edit or MultiEdit (each harness's spelling), from its
    text before (None: no such file); None when the tool's input does not tell."""
    for key in ("content", "contents"):  # Write (Claude, Gemini, opencode), Cursor's Write
        if isinstance(tool_input.get(key), str):
            return str(tool_input[key])
    edits = tool_input.get("edits")
    text = before
    for edit in edits if isinstance(edits, list) else [tool_input]:
        text = _replaced(text, edit)
        if text is None:
            return None
    return text


def _replaced(text: str | None, edit: Any) -> str | None:
    """One replacement: Claude's `old_string`, opencode's `oldString`, Gemini's `replace`."""
    if not isinstance(edit, dict):
        return None
    old = edit.get("old_string", edit.get("oldString"))
    new = edit.get("new_string", edit.get("newString"))
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if text is None or old == "":
        return new if text is None and old == "" else None
    if old not in text:
        return None
    count = edit.get("expected_replacements")
    every = edit.get("replace_all") or edit.get("replaceAll") or edit.get("allow_multiple")
    if every or (isinstance(count, int) and count > 1):
        return text.replace(old, new)
    return text.replace(old, new, 1)


def _proposed(action: Action) -> Callable[[str | None], str | None] | None:
    """How the one file an edit tool names reads afterwards, for pyproject.toml's
    `[tool.automaton]` table; None for patches and tools that name several files."""
    tool_input = action.details.get("input")
    if len(action.paths) != 1 or not isinstance(tool_input, dict):
        return None
    if str(action.details.get("tool", "")).lower() in DELETE_TOOLS:
        return lambda before: ""
    return lambda before: new_text(tool_input, before)


def _project(action: Action, explicit: str | None) -> Project | None:
    try:
        return find_project(Path(explicit) if explicit else None, cwd=action.cwd)
    except AutomatonError as exc:
        if explicit is None and exc.code == "no-project":
            return None  # not an automaton project: nothing to guard
        raise


def decide(action: Action, *, project: str | None = None, task: str | None = None) -> Verdict:
    """The same answers as `status.py --can-edit`, applied to what the tool is about to do."""
    if action.kind == "other":
        return Verdict(True)
    if action.kind == "edit":
        return _decide_edits(action, project, task)
    return _decide_shell(action, project, task)


def _decide_shell(action: Action, project: str | None, task: str | None) -> Verdict:
    """A shell line, read as the shell reads it (guards/shell_verdict.py); plain reads
    are recognised without loading the parser."""
    from automaton_rules.guards import shell

    if shell.plain_read(action.command):
        return Verdict(True)
    from automaton_rules.guards import shell_verdict

    refusal = shell_verdict.judge(
        action.command, action.cwd, lambda: _project(action, project), task, project is not None
    )
    return Verdict(refusal is None, refusal or "")


def _decide_edits(action: Action, project: str | None, task: str | None) -> Verdict:
    """Each edited file is judged by the project it lies in, wherever the harness runs."""
    if not action.paths:
        proj = _project(action, project)
        if proj is None:
            return Verdict(True)
        settings = load_config(proj.root)
        decision = guard.can_edit(proj, task, cwd=action.cwd, first=True)
        decision = guard.edit_rules(decision, proj, settings, cwd=action.cwd)
        return Verdict(decision.allowed, "" if decision.allowed else decision.text)
    for path in action.paths:
        target = guard.resolve(path, action.cwd)
        where = Action("edit", cwd=target.parent)
        proj = _project(where, project) or _project(action, None)
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


def render(harness: str, verdict: Verdict) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) in the harness's own protocol."""
    if verdict.allowed:
        if harness == "cursor":  # fail-closed hooks must answer; silence would refuse
            return json.dumps({"permission": "allow"}), "", 0
        return ("{}" if harness == "gemini" else ""), "", 0
    reason = verdict.reason
    if harness == "claude":
        body = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
        return json.dumps(body), "", 0
    if harness == "gemini":
        return json.dumps({"decision": "deny", "reason": reason}), "", 0
    if harness == "cursor":  # documented: the answer's JSON on exit 0, messages included
        denial = {"permission": "deny", "user_message": reason, "agent_message": reason}
        return json.dumps(denial), "", 0
    if harness == "opencode":
        return json.dumps({"allowed": False, "reason": reason}), reason, 2
    return "", reason, 2  # codex: exit 2 blocks and stderr is the reason


def render_context(harness: str, event: str, text: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) of a session-start answer, in the harness's context format."""
    if not text:
        return ("{}" if harness in ("gemini", "cursor") else ""), "", 0
    if harness == "cursor":
        body: dict[str, Any] = {"continue": True, "additional_context": text}
    elif harness == "opencode":
        body = {"additionalContext": text}
    else:  # Claude Code, Codex and Gemini share the shape
        body = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(body), "", 0


def session_context(payload: dict[str, Any], project: str | None = None) -> str:
    """The workflow's state for a starting session; empty outside any project."""
    from automaton_rules.guards import session

    try:
        found = find_project(Path(project) if project else None, cwd=_where(payload))
    except AutomatonError as exc:
        if project is None and exc.code == "no-project":
            return ""
        raise
    settings = load_config(found.root)  # a broken configuration denies every edit: say so
    return session.context(found, settings.approval)


def _message(exc: Exception) -> str:
    text = exc.message if isinstance(exc, AutomatonError) else f"{type(exc).__name__}: {exc}"
    return printable(text, None)


def render_prompt(harness: str, event: str, text: str | None) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) of a user-prompt answer: untouched when `text` is None;
    else the user sees `text` and the agent gets it as context, where the harness allows."""
    if text is None:
        passed = {"gemini": "{}", "cursor": json.dumps({"continue": True})}
        return passed.get(harness, ""), "", 0
    if harness == "cursor":  # no context channel here: stop the message, tell the user
        return json.dumps({"continue": False, "user_message": text}), "", 0
    if harness == "opencode":
        return json.dumps({"additionalContext": text}), "", 0
    body = {
        "systemMessage": text,
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text},
    }
    return json.dumps(body), "", 0


def prompt_answer(
    payload: dict[str, Any], harness: str, event: str, options: dict[str, str]
) -> tuple[str, str, int]:
    """A prompt is the user's: an approval it asks for is recorded, anything else passes.
    It fails open (nothing is approved, the message goes on), never blocking the chat."""
    from automaton_rules.guards import prompt

    if payload.get("agent_id"):  # Codex: a subagent's prompt, written by its parent agent
        return render_prompt(harness, event, None)
    try:
        text = prompt.approve(payload, harness, options.get("project"), _where(payload))
    except Exception as exc:
        text = (
            f"automaton-rules could not check this message for an approval ({_message(exc)}); "
            "nothing was approved."
            if prompt.asked(str(payload.get("prompt") or ""))[0]
            else None
        )
    if text is None and harness != "cursor":  # Cursor's prompt hook has no context channel
        requested = requests_context(payload, options.get("project"))
        if requested:
            return render_context(harness, event, requested)
    return render_prompt(harness, event, text)


def requests_context(payload: dict[str, Any], project: str | None) -> str:
    """The changes the user asked for on tasks at their gates, for the agent's context;
    empty when there are none, outside a project, or when they cannot be read."""
    from automaton_rules.guards import session

    try:
        found = find_project(Path(project) if project else None, cwd=_where(payload))
        return session.requests_text(guard.task_states(found))
    except Exception:  # context is advice: the prompt goes on untouched
        return ""


def render_stop(harness: str, text: str | None) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) when the agent ends its turn: let it stop (None), or
    make it carry on with `text` as its next instruction, in the harness's own words."""
    if text is None:
        return ("" if harness in ("claude", "codex") else "{}"), "", 0
    if harness == "gemini":  # AfterAgent: deny the response, `reason` is the next prompt
        return json.dumps({"decision": "deny", "reason": text}), "", 0
    if harness == "cursor":  # stop: submitted as the next user message
        return json.dumps({"followup_message": text}), "", 0
    return json.dumps({"decision": "block", "reason": text}), "", 0


def stop_answer(
    payload: dict[str, Any], harness: str, options: dict[str, str]
) -> tuple[str, str, int]:
    """The agent ends its turn: wait for a decision on a task at its gate (guards/stop.py).
    It fails open: whatever goes wrong, the agent stops as it would have."""
    from automaton_rules.guards import stop

    try:
        text = stop.answer(payload, options.get("project"), _where(payload))
    except Exception:
        text = None
    return render_stop(harness, text)


def answer(payload: Any, harness: str, options: dict[str, str]) -> tuple[str, str, int]:
    """Dispatch on the event: session start gets context, a user's prompt may approve, an
    agent ending its turn may wait for a decision, anything else (a tool about to run) a
    verdict."""
    event = str(payload.get("hook_event_name") or "") if isinstance(payload, dict) else ""
    if event in PROMPT_EVENTS and isinstance(payload, dict):
        return prompt_answer(payload, harness, event, options)
    if event in STOP_EVENTS and isinstance(payload, dict):
        return stop_answer(payload, harness, options)
    if event in SESSION_EVENTS:
        try:
            text = session_context(payload, options.get("project"))
        except Exception as exc:  # context is advice: say what failed, never block a start
            text = (
                f"automaton-rules could not read this project's workflow ({_message(exc)}). "
                f"Before editing, run {STATUS_SCRIPT} --task NAME to see your task's phase."
            )
        return render_context(harness, event, text)
    action = read_action(payload, harness)
    verdict = decide(action, project=options.get("project"), task=options.get("task"))
    return render(harness, verdict)


USAGE = """\
usage: automaton-hook [--harness claude|codex|gemini|cursor|opencode] [--project DIR] [--task NAME]

Reads one hook event of a harness as JSON on stdin and answers in that harness's format.
Before a tool runs: allowed prints nothing (claude, codex, opencode), {} (gemini) or
{"permission": "allow"} (cursor); denied prints the harness's deny answer. At session
start (SessionStart, sessionStart, SubagentStart) it prints the workflow's state as the
harness's additional context. When the user submits a prompt (UserPromptSubmit,
BeforeAgent, beforeSubmitPrompt), `approve TASK` approves the task; any other prompt
passes through untouched. Bad usage exits 2, which every harness takes as a refusal.

Example (what Claude Code runs before each tool call):
  echo '{"hook_event_name": "PreToolUse", "tool_name": "Write",
         "tool_input": {"file_path": "src/app.py"}, "cwd": "."}' | automaton-hook --harness claude

See docs/harness-integration.md and docs/approvals.md.
"""
SCRIPT = Script("automaton-hook", USAGE, valued=("--harness", "--project", "--task"), positionals=0)


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-hook`; any failure denies (fail closed)."""
    return SCRIPT.run(argv, _hook)


def _hook(options: dict[str, Any], _words: list[str]) -> int:
    harness = str(options.get("harness", "claude"))
    if harness not in HARNESSES:
        sys.stderr.write(
            f"ERROR: automaton-hook: --harness must be one of {', '.join(HARNESSES)}\n"
            f"{USAGE.splitlines()[0]}\n"
        )
        return 2
    try:
        payload = json.loads(sys.stdin.read() or "{}")
        out, err, code = answer(payload, harness, options)
    except Exception as exc:  # fail closed: a broken guard must not wave edits through
        reason = f"DENIED: automaton-rules could not check this action ({_message(exc)})."
        out, err, code = render(harness, Verdict(False, reason))
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
