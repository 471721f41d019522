"""One adapter for every agent harness: read its hook JSON, decide, answer in its format.

`automaton-hook --harness claude|codex|gemini|cursor|opencode` reads the pre-tool
event a harness sends on stdin, decides with the same core as `status.py --can-edit`,
and prints the harness's own deny answer. It denies edits in a non-edit phase, any
write to `.state*`, the agent running the approval command, and (best effort) shell
commands that write files in a non-edit phase. An internal error denies too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from automaton_rules.core.config import load_config
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.project import Project, find_project
from automaton_rules.core.record import Record
from automaton_rules.guards import checks as guard

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
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
PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "absolute_path")


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
    for key in ("patch", "input", "command", "cmd"):
        value = tool_input.get(key)
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            if isinstance(text, str) and "*** Begin Patch" in text:
                from automaton_rules.guards.shell import patch_files

                found += patch_files(text)
    return found


def read_action(payload: Any, harness: str) -> Action:
    """Normalise one harness's pre-tool event."""
    if not isinstance(payload, dict):
        raise ValueError("hook input is not a JSON object")
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") or payload.get("directory")
    if not cwd and isinstance(roots, list) and roots:
        cwd = roots[0]  # Cursor names its workspace instead of a working directory
    where = Path(cwd) if isinstance(cwd, str) and cwd else None
    if harness == "cursor" and isinstance(payload.get("command"), str):
        return Action("shell", command=payload["command"], cwd=where)
    tool = str(payload.get("tool_name") or payload.get("tool") or payload.get("toolName") or "")
    tool_input = payload.get("tool_input") or payload.get("args") or payload.get("toolArgs") or {}
    paths = _paths(tool_input)
    name = tool.lower()
    if name in SHELL_TOOLS:
        command: Any = ""
        if isinstance(tool_input, dict):
            command = tool_input.get("command") or tool_input.get("cmd") or ""
        if isinstance(command, list):
            import shlex

            command = shlex.join(str(part) for part in command)
        if paths:  # Codex sends apply_patch through its shell tool
            return Action("edit", tuple(paths), cwd=where, details={"tool": tool})
        return Action("shell", command=str(command), cwd=where, details={"tool": tool})
    if name in EDIT_TOOLS or (paths and name.startswith(("write", "edit"))):
        return Action("edit", tuple(paths), cwd=where, details={"tool": tool})
    return Action("other", cwd=where, details={"tool": tool})


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
    """A shell line: never approval or --no-verify; writes only where an edit could."""
    from automaton_rules.guards import shell

    command = action.command
    plain = shell.unquoted(command)
    if shell.approves(plain):
        return Verdict(
            False,
            "DENIED: Approval is the user's decision. Ask the user to approve; "
            "agents never run status.py --approve.",
        )
    if shell.skips_hooks(plain):
        return Verdict(False, "DENIED: Commits skip the workflow's git hooks with --no-verify.")
    proj = _project(action, project)
    if proj is None:
        return Verdict(True)
    settings = load_config(proj.root)

    def inside(target: str) -> bool:
        return guard.scope_check(proj, target, action.cwd).allowed

    if not shell.shell_writes(command, inside):
        return Verdict(True)
    if shell.names_state_file(plain):
        return Verdict(
            False,
            "DENIED: This command would write workflow state (.state files); only "
            "status.py writes them. Use status.py --transition.",
        )
    decision = guard.can_edit(proj, task, cwd=action.cwd, first=True)
    decision = guard.edit_rules(decision, proj, settings, cwd=action.cwd)
    if decision.allowed:
        return Verdict(True)
    return Verdict(False, f"{decision.text} This shell command writes files.")


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
        decision = guard.can_edit(proj, task, path, cwd=action.cwd, first=True)
        decision = guard.edit_rules(decision, proj, settings, path, action.cwd)
        if not decision.allowed:
            return Verdict(False, decision.text)
    return Verdict(True)


def render(harness: str, verdict: Verdict) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) in the harness's own protocol."""
    if verdict.allowed:
        quiet = "{}" if harness in ("gemini", "cursor") else ""
        return quiet, "", 0
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
    if harness == "cursor":
        denial = {"permission": "deny", "user_message": reason, "agent_message": reason}
        return json.dumps(denial), reason, 2
    if harness == "opencode":
        return json.dumps({"allowed": False, "reason": reason}), reason, 2
    return "", reason, 2  # codex: exit 2 blocks and stderr is the reason


def _arguments(argv: Sequence[str]) -> dict[str, str]:
    options = {"harness": "claude"}
    items = list(argv)
    while items:
        flag = items.pop(0)
        if flag in ("-h", "--help"):
            options["help"] = "1"
        elif flag in ("--harness", "--project", "--task") and items:
            options[flag[2:]] = items.pop(0)
        else:
            raise ValueError(f"unknown argument {flag!r}")
    if options["harness"] not in HARNESSES:
        raise ValueError(f"--harness must be one of {', '.join(HARNESSES)}")
    return options


USAGE = """\
usage: automaton-hook [--harness claude|codex|gemini|cursor|opencode] [--project DIR] [--task NAME]

Reads a harness's pre-tool hook JSON on stdin and answers in that harness's format:
allowed prints nothing (claude, codex) or {} (gemini, cursor); denied prints the
harness's deny answer. See docs/harness-integration.md.
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-hook`; any failure denies (fail closed)."""
    harness = "claude"
    try:
        options = _arguments(sys.argv[1:] if argv is None else argv)
        harness = options["harness"]
        if "help" in options:
            sys.stdout.write(USAGE)
            return 0
        payload = json.loads(sys.stdin.read() or "{}")
        action = read_action(payload, harness)
        verdict = decide(action, project=options.get("project"), task=options.get("task"))
    except Exception as exc:  # fail closed: a broken guard must not wave edits through
        message = exc.message if isinstance(exc, AutomatonError) else f"{type(exc).__name__}: {exc}"
        verdict = Verdict(
            False, f"DENIED: automaton-rules could not check this action ({message})."
        )
    out, err, code = render(harness, verdict)
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
