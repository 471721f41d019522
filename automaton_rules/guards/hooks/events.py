"""What a harness's hook event says the agent is about to do, read strictly.

Every harness names the same few things differently: the tool, its input, the files it
edits, the shell line it runs and where. `read_action` turns one pre-tool event into an
`Action` in the adapter's own terms, and refuses an event it cannot read whole (no tool
name, an input that is not an object, a shell line that is not text, an edit that names
no file) with `Malformed`: the adapter denies those, since an event it cannot read is one
it cannot check. MCP tools whose name says they write, edit, create, move or delete are
edits of the paths their arguments carry.
"""

from __future__ import annotations

import re
from pathlib import Path

from automaton_rules.guards.edits import checks
from automaton_rules.guards.hooks import harnesses
from automaton_rules.support.patterns import Lazy
from automaton_rules.support.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Tool names that edit files, per harness vocabulary (compared case-insensitively):
# Claude Code, Codex, Gemini CLI, Cursor, opencode; GitHub Copilot CLI's `create`, `edit`
# and `str_replace_editor`; Kiro CLI's `fs_write` (`write` in its newer spelling),
# `str_replace` and `fs_append`; Factory Droid's `Create` and `ApplyPatch`; Qwen Code's
# `notebook_edit`.
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
        "create",
        "str_replace_editor",
        "fs_write",
        "str_replace",
        "fs_append",
        "applypatch",
        "notebook_edit",
    }
)
# Kiro CLI's `execute_bash` is `shell` in its newer spelling; Factory Droid's `Execute`.
SHELL_TOOLS = frozenset(
    {"bash", "shell", "run_shell_command", "local_shell", "exec_command", "execute_bash", "execute"}
)
# Claude Code's PowerShell tool (the main shell on Windows), and pwsh elsewhere; Kiro
# CLI's `execute_cmd` (cmd.exe on Windows), which the bash reader cannot read either.
POWERSHELL_TOOLS = frozenset({"powershell", "execute_cmd"})
# Text typed into a shell the agent started (GitHub Copilot CLI's `write_bash`, its
# `input`): `{enter}` ends a line; the other keys it takes edit a line that cannot be read.
TYPING_TOOLS = {"write_bash": "input"}
TYPED_KEYS = Lazy(r"\{(?:up|down|left|right|backspace)\}|[\x00-\x08\x0b-\x1f\x7f]")
DELETE_TOOLS = frozenset({"delete", "deletefile"})
PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "absolute_path")
# Where a patch travels: Codex's apply_patch (`command`, `input`), opencode's (`patchText`).
PATCH_KEYS = ("patch", "patchText", "input", "command", "cmd")
# The files an apply_patch body adds, updates, deletes or moves to.
_PATCH_FILE = Lazy(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$", re.MULTILINE)
# A shell tool's own working folder: opencode's bash `workdir`, Gemini's `dir_path`
# (`directory` in older releases), Codex's shell `workdir`, Kiro CLI's shell `cwd`.
WORKDIR_KEYS = ("workdir", "dir_path", "directory", "cwd")
# Where a tool's name and input travel: `tool_name`/`tool_input` (Claude Code, Codex,
# Gemini CLI, Cursor, the opencode plugin, Kiro CLI), `tool`/`args`, and
# `toolName`/`toolArgs` (GitHub Copilot CLI). Whether a harness may send the input as JSON
# text is its record's `json_text_inputs`.
TOOL_NAME_KEYS = ("tool_name", "tool", "toolName")
TOOL_INPUT_KEYS = ("tool_input", "args", "toolArgs")

# Verbs in a tool's name that change files, and the argument keys that carry their paths:
# an MCP tool is `mcp__server__tool` (Claude Code, Codex), `mcp_server_tool` (Gemini CLI),
# `server_tool` (opencode), the bare tool (Cursor's beforeMCPExecution), `@server/tool`
# (Kiro), so any tool the adapter does not know is read by the words of its name.
MCP_WRITE_VERBS = frozenset(
    {
        "write",
        "edit",
        "create",
        "move",
        "delete",
        "remove",
        "rename",
        "append",
        "replace",
        "patch",
        "save",
        "mkdir",
        "rm",
        "copy",
        "put",
        "overwrite",
        "truncate",
    }
)
MCP_PATH_KEYS = frozenset(
    {
        "path",
        "file_path",
        "filepath",
        "file",
        "filename",
        "file_name",
        "source",
        "destination",
        "dest",
        "target",
        "target_path",
        "from",
        "to",
        "old_path",
        "new_path",
        "source_path",
        "destination_path",
        "directory",
        "dir",
        "paths",
        "files",
        "notebook_path",
        "absolute_path",
    }
)


class Malformed(ValueError):
    """A hook event the adapter cannot read whole: it denies, and says what was wrong."""


class Action(Record):
    """What the agent is about to do, in harness-neutral terms."""

    kind: str  # "edit", "shell", "powershell" or "other"
    paths: tuple[str, ...] = ()
    command: str = ""
    cwd: Path | None = None
    details: dict[str, Any] = field(default_factory=dict)


def where(payload: dict[str, Any]) -> Path | None:
    """The folder the harness works in: `cwd`, or Cursor's first workspace root."""
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") or payload.get("directory")
    if not cwd and isinstance(roots, list) and roots:
        cwd = roots[0]  # Cursor names its workspace instead of a working directory
    return Path(cwd) if isinstance(cwd, str) and cwd else None


def session_id(payload: dict[str, Any]) -> str | None:
    """The harness's name for the session, where its events carry one."""
    for key in ("session_id", "sessionId", "conversation_id"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def tool_output(payload: dict[str, Any]) -> str:
    """What a tool that ran printed or answered, as text to search."""
    import json

    for key in ("tool_response", "toolResult", "tool_output", "error"):
        value = payload.get(key)
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value)
    return ""


def session_folder(payload: dict[str, Any], record: harnesses.Harness) -> Path | None:
    """The folder the harness's session works in: the project folder it tells its hooks
    (`CLAUDE_PROJECT_DIR` and the like, Cursor's first workspace root), else the event's
    own folder. Never a shell
    tool's `workdir`: a folder the agent chooses does not choose the project."""
    import os

    for name in record.project_env:
        value = os.environ.get(name)
        if value and os.path.isabs(value):
            return Path(value)
    roots = payload.get("workspace_roots")  # Cursor: the workspace, whatever `cwd` says
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return Path(roots[0])
    return where(payload)


def _paths(tool_input: dict[str, Any]) -> list[str]:
    found = [str(tool_input[key]) for key in PATH_KEYS if isinstance(tool_input.get(key), str)]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        found += [str(e["file_path"]) for e in edits if isinstance(e, dict) and e.get("file_path")]
    for key in PATCH_KEYS:
        value = tool_input.get(key)
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            if isinstance(text, str) and "*** Begin Patch" in text:
                found += [name.strip() for name in _PATCH_FILE.findall(text)]
    return found


def _shell_folder(tool_input: dict[str, Any], cwd: Path | None) -> Path | None:
    """Where a shell tool runs its command: its own working folder, resolved against the
    harness's, else the harness's."""
    for key in WORKDIR_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return checks.resolve(value, cwd)
    return cwd


def _shell_line(tool_input: dict[str, Any]) -> str:
    """The line a shell tool runs: text, and nothing else."""
    for key in ("command", "cmd"):
        if key in tool_input:
            command = tool_input[key]
            if not isinstance(command, str):
                raise Malformed(f"the shell command ({key}) is {_kind(command)}, not text")
            if not command.strip():
                raise Malformed(f"the shell command ({key}) is empty")
            return command
    raise Malformed("the shell tool's input has no command")


def _typed_line(tool_input: dict[str, Any], key: str) -> str:
    """What text typed into a running shell runs, as a shell line: `{enter}` ends a line;
    the keys that move in or edit a line make it one that cannot be read."""
    typed = tool_input.get(key)
    if not isinstance(typed, str):
        raise Malformed(f"the text typed into the shell ({key}) is {_kind(typed)}, not text")
    line = typed.replace("{enter}", "\n").replace("\r", "\n")
    found = TYPED_KEYS.search(line)
    if found:
        shown = found.group() if found.group().startswith("{") else repr(found.group())
        raise Malformed(f"the text typed into the shell edits its line ({shown})")
    return line if line.strip() else "true"  # only Enter: an empty line runs nothing


def _kind(value: object) -> str:
    """A JSON value's kind, as a refusal names it."""
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    names.update({list: "a list", dict: "an object"})
    return names.get(type(value), type(value).__name__)


def _first(payload: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, object]:
    """The first of `keys` the payload has, with its value; ("", None) when none."""
    for key in keys:
        if key in payload:
            return key, payload[key]
    return "", None


def name_words(tool: str) -> set[str]:
    """The words of a tool's name, lower case: `mcp__fs__writeFile` is mcp, fs, write, file."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", tool)
    return {word for word in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if word}


def mcp_paths(arguments: object) -> list[str]:
    """The paths an MCP tool's arguments carry, at any depth, under the usual keys."""
    found: list[str] = []
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            if str(key).lower() in MCP_PATH_KEYS:
                found += _strings(value)
            elif isinstance(value, (dict, list)):
                found += mcp_paths(value)
    elif isinstance(arguments, list):
        for item in arguments:
            found += mcp_paths(item)
    return found


def _strings(value: object) -> list[str]:
    """A path argument's strings: one, a list of them, or objects holding them."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [found for item in value for found in _strings(item)]
    return mcp_paths(value)


def writes_by_name(tool: str) -> bool:
    """A tool whose name says it changes files."""
    return bool(name_words(tool) & MCP_WRITE_VERBS)


def read_action(payload: Any, harness: str) -> Action:
    """One harness's pre-tool event as an `Action`; `Malformed` when it cannot be read whole."""
    if not isinstance(payload, dict):
        raise Malformed("the hook input is not a JSON object")
    record = harnesses.get(harness)
    cwd = where(payload)
    if record.bare_shell_event and "command" in payload and "tool_name" not in payload:
        return Action("shell", command=_shell_line(payload), cwd=cwd)  # the line alone
    key, tool = _first(payload, TOOL_NAME_KEYS)
    if not isinstance(tool, str) or not tool.strip():
        shown = f"{key} is {_kind(tool)}" if key else "no tool_name"
        raise Malformed(f"the hook input names no tool ({shown})")
    key, tool_input = _first(payload, TOOL_INPUT_KEYS)
    if isinstance(tool_input, str) and record.json_text_inputs:
        tool_input = _json_object(tool_input)
    if not isinstance(tool_input, dict):
        shown = f"{key} is {_kind(tool_input)}" if key else "no tool_input"
        raise Malformed(f"the input of tool {tool!r} is not an object ({shown})")
    return _action(tool, tool_input, cwd)


def _json_object(text: str) -> object:
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text


def _action(tool: str, tool_input: dict[str, Any], cwd: Path | None) -> Action:
    """The action a named tool with a readable input takes."""
    name = tool.lower()
    details: dict[str, Any] = {"tool": tool, "input": tool_input}
    if name in SHELL_TOOLS:
        folder = _shell_folder(tool_input, cwd)
        paths = _paths(tool_input)
        if paths:  # Codex sends apply_patch through its shell tool
            return Action("edit", tuple(paths), cwd=folder, details=details)
        return Action("shell", command=_shell_line(tool_input), cwd=folder, details=details)
    if name in POWERSHELL_TOOLS:
        folder = _shell_folder(tool_input, cwd)
        return Action("powershell", command=_shell_line(tool_input), cwd=folder, details=details)
    if name in TYPING_TOOLS:
        line = _typed_line(tool_input, TYPING_TOOLS[name])
        return Action("shell", command=line, cwd=cwd, details=details)
    if name in EDIT_TOOLS and tool_input.get("command") == "view":
        return Action("other", cwd=cwd, details={"tool": tool})  # str_replace_editor reads
    if name in EDIT_TOOLS:
        paths = _paths(tool_input)
        if not paths:
            raise Malformed(f"the edit tool {tool!r} names no file")
        return Action("edit", tuple(paths), cwd=cwd, details=details)
    # Any other tool (an MCP server's, however the harness spells its name) whose name
    # says it changes files is an edit of every path its arguments carry.
    paths = mcp_paths(tool_input) if writes_by_name(tool) else []
    if paths:
        return Action("edit", tuple(paths), cwd=cwd, details=details)
    return Action("other", cwd=cwd, details={"tool": tool})
