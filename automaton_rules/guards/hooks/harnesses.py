"""Every agent harness the adapter answers and the installer configures: one record each,
in one table.

A record holds all that a harness does its own way: its name and title; the hooks and how
they merge into the user's settings file and come out again (`settings`; which file, and
the instructions file it reads, are its entry in core/guard_files.py, which the audit
reads below this layer); how its events read (their names, whether the installed command
must name the event, tool input sent as JSON text); how it answers (a verdict, a shell command
rewritten into the sandbox, context, a prompt's outcome, a stop, a refused settings
change); what it lets the sandbox do and the permission rules it keeps; and what the
user must still do once it is installed.
`guards/hooks/adapter.py` (the adapter) and `cli/install.py` (the installer) read this
table and name no harness. A new harness is a record here, its files in
core/guard_files.py, and its recorded events in `tests/fixtures/hooks/NAME/`;
one whose hooks take Claude Code's shape lists them in `hook_table` (event, matcher,
seconds), and `grouped` builds the blocks.

The adapter loads this module before every tool call, so it stays cheap: classes and
small dicts, no configuration built until the installer asks, json only to answer.
"""

from __future__ import annotations

import json

from automaton_rules.core.guard_files import HARNESSES as FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path
    from typing import Any, ClassVar

    from automaton_rules.guards.hooks.permissions import Rule
    from automaton_rules.guards.hooks.settings import Settings

    Answer = tuple[str, str, int]  # stdout, stderr, exit status
    Hook = tuple[str, str | None, int]  # an event, its matcher, its timeout in seconds

# What an event asks of the adapter, whatever the harness calls it.
TOOL, SESSION, PROMPT, CONFIG, STOP = "tool", "session", "prompt", "config", "stop"
AFTER = "after"  # a tool ran: whether it ran as rewritten (guards/hooks/witness.py)

HOOK = "automaton-hook"
HOOK_TIMEOUT = 10  # seconds: above the adapter's own deadline (guards/hooks/adapter.py, DEADLINE)
PROMPT_TIMEOUT = 30
# The agent ends its turn: the hook may wait for the person's decision on a task at its
# gate (guards/hooks/stop.py), up to `stop-wait-seconds` (3000 at most), within this limit.
STOP_TIMEOUT = 3600
# A Stop hook that cannot run must let the agent stop: on this event an exit 2 (the
# portable command's answer when automaton-hook is not installed) would make it go on.
LETS_STOP = " || true"
SANDBOXED = (
    "automaton-rules runs this command inside the phase's sandbox: the kernel keeps every "
    "write outside what the phase allows from happening."
)
NO_REWRITE = "this harness gives the adapter no way to run its shell inside a sandbox"


class Harness:
    """One harness as the adapter and the installer see it. The defaults are Claude Code's
    shapes, which most harnesses copied; a record overrides what its harness does otherwise.
    Each answer is (stdout, stderr, exit status)."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""  # as a refusal names it
    # Where its hooks go and the instructions it reads: its entry in core/guard_files.py.
    settings_file: ClassVar[str] = ""
    instructions: ClassVar[str] = "AGENTS.md"
    # Reading its events: each event name it sends and what it asks; the command names
    # the event (`--event`) when the input does not; a tool's input may come as JSON text;
    # a shell event may carry the line itself, with no tool (Cursor's beforeShellExecution).
    events: ClassVar[Mapping[str, str]] = {}
    # The environment variables naming the project folder the harness's session works in,
    # which it sets for its hooks; else the event's own folder is the session's.
    project_env: ClassVar[tuple[str, ...]] = ()
    names_event: ClassVar[bool] = False
    json_text_inputs: ClassVar[bool] = False
    bare_shell_event: ClassVar[bool] = False
    # The sandbox: whether a shell command may be rewritten to run inside it, whether its
    # commands already run inside a sandbox of the harness's own, whether it keeps the
    # folder a command ends in, whether the agent can type into a shell it started, and
    # whether it can ask the user about a rewritten command.
    rewrites: ClassVar[bool] = True
    nested: ClassVar[bool] = False
    keeps_cwd: ClassVar[bool] = False
    typed: ClassVar[bool] = False
    asks_rewritten: ClassVar[bool] = True
    # A rewritten line runs `automaton-sandbox` through the project's launcher (shell_plan).
    short_rewrite: ClassVar[bool] = False
    no_rewrite: ClassVar[str] = NO_REWRITE  # why the reader alone guards its shell
    # Answers: what it prints with nothing to say, and whether a prompt it lets through
    # may carry context; the key of a prompt event holding what the user typed.
    quiet: ClassVar[str] = ""
    prompt_context: ClassVar[bool] = True
    prompt_key: ClassVar[str] = "prompt"
    # Its hooks' timeouts: the key and how many of its units make a second.
    timeout_key: ClassVar[str] = "timeout"
    per_second: ClassVar[int] = 1
    # Its hooks, where they take Claude Code's shape (`grouped` below): each event, its matcher
    # (None: the event takes none) and its timeout in seconds; the keys every entry but a
    # stop's carries (Claude's `onFailure`), and each entry's name, by event (Gemini's).
    hook_table: ClassVar[tuple[Hook, ...]] = ()
    entry_keys: ClassVar[Mapping[str, Any]] = {}
    hook_names: ClassVar[Mapping[str, str]] = {}
    # Whether its refusals must be a JSON deny on exit 0 (`guards/hooks/lookup.py`).
    json_refusals: ClassVar[bool] = False

    def __init_subclass__(cls) -> None:
        files = FILES[cls.name]
        cls.settings_file, cls.instructions = files.settings, files.instructions

    def hooks(self) -> dict[str, Any]:
        """The configuration merged into `settings_file`, as integrations/ ships it."""
        return {"hooks": grouped(self)} if self.hook_table else {}

    def settings(self) -> Settings:
        """How its hooks go into `settings_file` and come out again: the JSON `hooks`
        merge, which keeps the user's own entries."""
        from automaton_rules.guards.hooks.settings import JsonHooks

        return JsonHooks(self)

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        """What the user must still do once `path` holds `merged`."""
        return []

    def command(self, *args: str) -> str:
        """The portable command its hooks run: the project's launcher, found from the
        project folder it names for its hooks, else from the hook's own (guards/hooks/lookup.py)."""
        from automaton_rules.guards.hooks.lookup import hook_command, prologue

        start = self.project_env[0] if self.project_env else ""
        script = prologue(start, self.json_refusals)
        return hook_command(HOOK, "--harness", self.name, *args, script=script)

    def entry(self, timeout: int, **extra: Any) -> dict[str, Any]:
        """One command hook in the shape Claude Code, Codex and Gemini CLI share."""
        return {**extra, "type": "command", "command": self.command(), "timeout": timeout}

    def stop_entry(self, timeout: int, **extra: Any) -> dict[str, Any]:
        """A Stop hook: no `onFailure` (one that cannot run lets the agent stop), and a
        command that ends in exit 0 whatever it met."""
        hook = self.entry(timeout, **extra)
        return {**hook, "command": hook["command"] + LETS_STOP}

    def runs_nested(self, root: Path) -> bool:
        """Whether its shell commands run inside a sandbox of its own in this project,
        where bubblewrap cannot make its namespaces but Landlock stacks."""
        return self.nested

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        """The user's own permission rules on shell commands, read as it reads them
        (guards/hooks/permissions.py); none by default."""
        return iter(())

    def allow(self) -> Answer:
        """A tool call that may run as it is: what leaves the harness's own checks in charge."""
        return self.quiet, "", 0

    def deny(self, reason: str) -> Answer:
        """A tool call refused, with the reason the agent reads."""
        specific = {"hookEventName": "PreToolUse", "permissionDecision": "deny"}
        return _json({"hookSpecificOutput": {**specific, "permissionDecisionReason": reason}})

    def rewrite(self, updated: dict[str, Any], permission: str | None, why: str = "") -> Answer:
        """Run `updated` (the tool's whole input) instead, keeping what the user's own
        rules said of the original (`permission`); `why` the harness may show."""
        specific: dict[str, Any] = {"hookEventName": "PreToolUse", "updatedInput": updated}
        if permission in ("allow", "ask"):
            specific["permissionDecision"] = permission
            specific["permissionDecisionReason"] = why or SANDBOXED
        return _json({"hookSpecificOutput": specific})

    def context(self, event: str, text: str) -> Answer:
        """The workflow's state for a starting session (empty: nothing to add)."""
        if not text:
            return self.quiet, "", 0
        return _json({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})

    def prompt(self, event: str, text: str | None) -> Answer:
        """A user's prompt: untouched (None), else `text` for the user and the agent."""
        if text is None:
            return self.quiet, "", 0
        specific = {"hookEventName": event, "additionalContext": text}
        return _json({"systemMessage": text, "hookSpecificOutput": specific})

    def stop(self, text: str | None) -> Answer:
        """The agent ends its turn: let it (None), or make it carry on with `text`."""
        if text is None:
            return self.quiet, "", 0
        return _json({"decision": "block", "reason": text})

    def after(self, event: str, text: str | None, alarm: bool = False) -> Answer:
        """A tool ran (`event`: it succeeded, or failed): nothing to say (None), or `text`
        for the agent; `alarm` when the agent must read it before anything else (a dropped
        rewrite)."""
        if not text:
            return self.quiet, "", 0
        if alarm and event == "PostToolUse":
            return _json({"decision": "block", "reason": text})
        return _json({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})

    def block(self, reason: str | None) -> Answer:
        """A settings change during a session: taken up (None), or refused."""
        if reason is None:
            return self.quiet, "", 0
        return _json({"decision": "block", "reason": reason})


def grouped(record: Harness) -> dict[str, list[dict[str, Any]]]:
    """The record's `hook_table` in the shape Claude Code made and Codex, Gemini CLI and
    others copied: each event one matcher group holding one command hook; a stop's lets
    the agent stop."""
    blocks = {}
    for event, matcher, seconds in record.hook_table:
        named = {"name": record.hook_names[event]} if event in record.hook_names else {}
        if record.events.get(event) == STOP:
            hook = record.stop_entry(seconds * record.per_second, **named)
        else:
            hook = record.entry(seconds * record.per_second, **named, **record.entry_keys)
        group = {} if matcher is None else {"matcher": matcher}
        blocks[event] = [{**group, "hooks": [hook]}]
    return blocks


def _json(body: dict[str, Any], code: int = 0, err: str = "") -> Answer:
    return json.dumps(body), err, code


# Claude Code: every tool that can change a file, PowerShell (the main shell on Windows)
# and every MCP tool (the adapter reads which of them write, by name and arguments).
CLAUDE_TOOLS = "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|mcp__.*"


class ClaudeCode(Harness):
    """Claude Code: hooks in `.claude/settings.json` (Hooks reference,
    https://code.claude.com/docs/en/hooks); a shell command is rewritten through
    `updatedInput`, and its permission rules are matched against the rewritten command."""

    name, title = "claude", "Claude Code"
    project_env = ("CLAUDE_PROJECT_DIR",)
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "PostToolUse": AFTER,
        "PostToolUseFailure": AFTER,  # a line that exited non-zero (seen on 2.1.332)
        "SessionStart": SESSION,
        "SubagentStart": SESSION,
        "UserPromptSubmit": PROMPT,
        "ConfigChange": CONFIG,
        "Stop": STOP,
    }
    keeps_cwd = True  # a `cd` is kept between Bash calls

    # Every hook blocks when it cannot run, fails or times out (`onFailure`, Claude Code
    # 2.1.295; earlier releases ignore the key, and the launcher fails closed), but the
    # Stop hook, which lets the agent stop. Session events have no matcher: every start
    # (a fork, a compaction) gets the state.
    entry_keys: ClassVar[Mapping[str, Any]] = {"onFailure": "block"}
    hook_table = (
        ("PreToolUse", CLAUDE_TOOLS, HOOK_TIMEOUT),
        # Whether Bash ran the rewritten line, and why one met the sandbox.
        ("PostToolUse", "Bash", HOOK_TIMEOUT),
        ("PostToolUseFailure", "Bash", HOOK_TIMEOUT),
        ("SessionStart", None, HOOK_TIMEOUT),
        ("SubagentStart", None, HOOK_TIMEOUT),
        # A settings file changed mid-session: refused if it would stop the hooks.
        ("ConfigChange", None, HOOK_TIMEOUT),
        # `approve TASK` typed by the user.
        ("UserPromptSubmit", None, PROMPT_TIMEOUT),
        ("Stop", None, STOP_TIMEOUT),
    )

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        cursor = path.parent.parent / Cursor.settings_file
        return [CURSOR_TWICE] if _has_hooks(cursor, Cursor.name) else []

    def runs_nested(self, root: Path) -> bool:
        """`sandbox.enabled` in any of its settings files: its own sandbox holds Bash."""
        from pathlib import Path

        for path in (
            Path.home() / ".claude/settings.json",
            root / ".claude/settings.json",
            root / ".claude/settings.local.json",
        ):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            found = data.get("sandbox") if isinstance(data, dict) else None
            if isinstance(found, dict) and found.get("enabled") is True:
                return True
        return False

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards.hooks import permissions

        return permissions.claude_rules(project, home)


CODEX_TRUST = (
    "note: Codex runs a project's hooks only when the project is trusted, and a new or "
    "changed hook only after you trust it: open /hooks in Codex and trust the "
    "automaton-hook entries, or they never run"
)


class Codex(Harness):
    """Codex CLI: hooks in `.codex/hooks.json`; a rewrite replaces `command` with
    `permissionDecision: "allow"`, and its commands run inside its own sandbox
    (openai/codex `codex-rs/hooks/src/engine/output_parser.rs`). Its agent types into the
    shells it starts with `write_stdin`, which runs no hook."""

    name, title = "codex", "Codex"
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "PostToolUse": AFTER,
        "SessionStart": SESSION,
        "SubagentStart": SESSION,
        "UserPromptSubmit": PROMPT,
        "Stop": STOP,
    }
    nested = typed = True
    asks_rewritten = False  # an ask leaves the line unwritten: Codex asks about it

    hook_table = (
        ("PreToolUse", "*", HOOK_TIMEOUT),
        ("PostToolUse", "Bash", HOOK_TIMEOUT),
        ("SessionStart", None, HOOK_TIMEOUT),
        ("SubagentStart", None, HOOK_TIMEOUT),
        ("UserPromptSubmit", None, PROMPT_TIMEOUT),
        ("Stop", None, STOP_TIMEOUT),
    )

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        return [CODEX_TRUST]

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards.hooks import permissions

        return permissions.codex_rules(project, home)

    def deny(self, reason: str) -> Answer:
        return "", reason, 2  # exit 2 blocks, and stderr is the reason

    def rewrite(self, updated: dict[str, Any], permission: str | None, why: str = "") -> Answer:
        output = {"permissionDecision": "allow", "updatedInput": {"command": updated["command"]}}
        return _json({"hookSpecificOutput": {"hookEventName": "PreToolUse", **output}})


GEMINI_OFF = "note: {path} keeps Gemini's hooks off (hooksConfig.enabled is false)"


class GeminiCli(Harness):
    """Gemini CLI: hooks in `.gemini/settings.json`, timeouts in milliseconds; a rewrite
    is `hookSpecificOutput.tool_input`, the whole input (google-gemini/gemini-cli
    `packages/core/src/scheduler/hook-utils.ts`); stdout must be JSON."""

    name, title = "gemini", "Gemini CLI"
    project_env = ("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
    events: ClassVar[Mapping[str, str]] = {
        "BeforeTool": TOOL,
        "AfterTool": AFTER,
        "SessionStart": SESSION,
        "BeforeAgent": PROMPT,
        "AfterAgent": STOP,
    }
    quiet = "{}"
    per_second = 1000

    # Gemini matches lifecycle events by exact name: no matcher, every start.
    hook_table = (
        ("BeforeTool", "write_file|replace|run_shell_command|mcp_.*", HOOK_TIMEOUT),
        ("AfterTool", "run_shell_command", HOOK_TIMEOUT),
        ("SessionStart", None, HOOK_TIMEOUT),
        ("BeforeAgent", None, PROMPT_TIMEOUT),
        ("AfterAgent", None, STOP_TIMEOUT),
    )
    hook_names: ClassVar[Mapping[str, str]] = {
        "BeforeTool": "automaton-guard",
        "AfterTool": "automaton-witness",
        "SessionStart": "automaton-context",
        "BeforeAgent": "automaton-approval",
        "AfterAgent": "automaton-decision",
    }

    def hooks(self) -> dict[str, Any]:
        # Gemini CLI 0.26 reads hooks only with this; later releases default to it.
        return {"hooksConfig": {"enabled": True}, "hooks": grouped(self)}

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        switched = (merged.get("hooksConfig") or {}).get("enabled") is False
        return [GEMINI_OFF.format(path=path)] if switched else []

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards.hooks import permissions

        return permissions.gemini_rules(project, home)

    def deny(self, reason: str) -> Answer:
        return _json({"decision": "deny", "reason": reason})

    def rewrite(self, updated: dict[str, Any], permission: str | None, why: str = "") -> Answer:
        body: dict[str, Any] = {
            "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": updated}
        }
        if permission == "ask":
            body["decision"] = "ask"
        return _json(body)

    def after(self, event: str, text: str | None, alarm: bool = False) -> Answer:
        if not text:
            return self.quiet, "", 0
        return _json({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})

    def stop(self, text: str | None) -> Answer:
        if text is None:  # AfterAgent: deny the response, `reason` is the next prompt
            return self.quiet, "", 0
        return _json({"decision": "deny", "reason": text})


CURSOR_TWICE = (
    "note: this project has Cursor's hooks and Claude Code's; Cursor with its third-party "
    "configs setting on runs .claude/settings.json's hooks too, so each of its actions is "
    "judged twice (Cursor's own hook prevails where the answers differ), and both stop "
    "hooks can wait for your decision at a gate (docs/harness-integration.md)"
)


def _has_hooks(path: Path, harness: str) -> bool:
    """Whether the settings file at `path` holds our hook commands for `harness`."""
    try:
        return f"{HOOK} --harness {harness}" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


class Cursor(Harness):
    """Cursor: hooks in `.cursor/hooks.json`, answered in JSON on exit 0; a hook that fails
    lets the action through unless its entry sets `failClosed` (cursor.com/docs/hooks).
    A shell command cannot be rewritten, and the prompt hook has no context channel."""

    name, title = "cursor", "Cursor"
    events: ClassVar[Mapping[str, str]] = {
        "preToolUse": TOOL,
        "beforeShellExecution": TOOL,
        "beforeMCPExecution": TOOL,
        "sessionStart": SESSION,
        "subagentStart": SESSION,
        "beforeSubmitPrompt": PROMPT,
        "stop": STOP,
    }
    json_text_inputs = bare_shell_event = True  # beforeMCPExecution; beforeShellExecution
    rewrites = prompt_context = False
    quiet = "{}"

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        claude = path.parent.parent / ClaudeCode.settings_file
        return [CURSOR_TWICE] if _has_hooks(claude, ClaudeCode.name) else []

    def cursor_entry(self, **extra: Any) -> dict[str, Any]:
        """A hook entry as Cursor takes it: the command on the entry itself."""
        return {"command": self.command(), **extra}

    def hooks(self) -> dict[str, Any]:
        return {
            "version": 1,
            "hooks": {
                # failClosed: a hook that crashes or times out blocks instead of allowing.
                "beforeShellExecution": [self.cursor_entry(failClosed=True)],
                "beforeMCPExecution": [self.cursor_entry(failClosed=True)],
                "preToolUse": [
                    self.cursor_entry(matcher="Write|Edit|StrReplace|Delete", failClosed=True)
                ],
                "sessionStart": [self.cursor_entry()],
                # As Cursor's own cookbook has it: a prompt hook that fails holds the message.
                "beforeSubmitPrompt": [self.cursor_entry(failClosed=True)],
                # Not failClosed: a stop hook that fails lets the agent stop.
                "stop": [{"command": self.command() + LETS_STOP}],
            },
        }

    def allow(self) -> Answer:
        return _json({"permission": "allow"})  # fail-closed hooks must answer

    def deny(self, reason: str) -> Answer:
        return _json({"permission": "deny", "user_message": reason, "agent_message": reason})

    def context(self, event: str, text: str) -> Answer:
        if not text:
            return self.quiet, "", 0
        return _json({"continue": True, "additional_context": text})

    def prompt(self, event: str, text: str | None) -> Answer:
        if text is None:
            return _json({"continue": True})
        return _json({"continue": False, "user_message": text})  # stop it, tell the user

    def stop(self, text: str | None) -> Answer:
        if text is None:
            return self.quiet, "", 0
        return _json({"followup_message": text})  # submitted as the next user message


class Opencode(Harness):
    """opencode: a plugin (`guards/hooks/opencode_plugin.js`) runs the adapter and carries its
    answers out: it throws a denial, changes the command in place, adds context."""

    name, title = "opencode", "opencode"
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "SessionStart": SESSION,
        "UserPromptSubmit": PROMPT,
        "Stop": STOP,
    }
    asks_rewritten = False

    def settings(self) -> Settings:
        """The plugin file, kept when the user changed it."""
        from automaton_rules.guards.hooks.settings import PluginFile

        return PluginFile(self)

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards.hooks import permissions

        return permissions.opencode_rules(project, home)

    def deny(self, reason: str) -> Answer:
        return _json({"allowed": False, "reason": reason}, 2, reason)

    def rewrite(self, updated: dict[str, Any], permission: str | None, why: str = "") -> Answer:
        return _json({"rewrite": {"command": updated["command"]}})

    def context(self, event: str, text: str) -> Answer:
        return _json({"additionalContext": text}) if text else (self.quiet, "", 0)

    def prompt(self, event: str, text: str | None) -> Answer:
        return _json({"additionalContext": text}) if text is not None else (self.quiet, "", 0)

    def stop(self, text: str | None) -> Answer:
        return super().stop(text) if text is not None else ("{}", "", 0)


class CopilotCli(Harness):
    """GitHub Copilot CLI: hooks in `.github/hooks/*.json` (docs.github.com/en/copilot/
    reference/hooks-reference). Its camelCase input names no event, so each hook's command
    names it; `toolArgs` is JSON text in its documentation and an object from 1.0.x, so
    both are read. A shell command is rewritten with `modifiedArgs`, the tool's whole
    arguments, which its `preToolUse` hooks respect since 1.0.24 (its changelog:
    "preToolUse hooks now respect modifiedArgs/updatedInput"). Before 1.0.62 its agent
    typed into the shells it started (`write_bash`, still read as typed input)."""

    name, title = "copilot", "GitHub Copilot CLI"
    project_env = ("COPILOT_PROJECT_DIR",)  # set for its hooks, seen on 1.0.102 (the lab)
    events: ClassVar[Mapping[str, str]] = {
        "preToolUse": TOOL,
        "postToolUse": AFTER,
        "postToolUseFailure": AFTER,
        "sessionStart": SESSION,
        "subagentStart": SESSION,
        "userPromptSubmitted": PROMPT,
        "agentStop": STOP,
    }
    names_event = json_text_inputs = typed = True
    prompt_context = False
    asks_rewritten = False  # whether its prompt shows the rewritten line is not documented
    timeout_key = "timeoutSec"
    # Its refusals a JSON deny on exit 0, whose reason it shows the model (on any other
    # status it says only "hook exited with code 2"). Its own permission check refuses a
    # command naming paths outside the workspace (`/usr/bin/bwrap`, `~/.automaton/run`)
    # when no user can be asked, `COPILOT_ALLOW_ALL` notwithstanding (the lab, 1.0.102).
    json_refusals = short_rewrite = True

    def copilot_entry(self, event: str, timeout: int, tail: str = "") -> dict[str, Any]:
        """A command hook for `event`, which the command names: the input does not."""
        command = self.command("--event", event) + tail
        return {"type": "command", "bash": command, "timeoutSec": timeout}

    def hooks(self) -> dict[str, Any]:
        # No matcher: every tool, MCP tools and the shells it types into included.
        return {
            "version": 1,
            "hooks": {
                "preToolUse": [self.copilot_entry("preToolUse", HOOK_TIMEOUT)],
                "postToolUse": [self.copilot_entry("postToolUse", HOOK_TIMEOUT)],
                "postToolUseFailure": [self.copilot_entry("postToolUseFailure", HOOK_TIMEOUT)],
                "sessionStart": [self.copilot_entry("sessionStart", HOOK_TIMEOUT)],
                "subagentStart": [self.copilot_entry("subagentStart", HOOK_TIMEOUT)],
                "userPromptSubmitted": [self.copilot_entry("userPromptSubmitted", PROMPT_TIMEOUT)],
                "agentStop": [self.copilot_entry("agentStop", STOP_TIMEOUT, LETS_STOP)],
            },
        }

    def deny(self, reason: str) -> Answer:
        return _json({"permissionDecision": "deny", "permissionDecisionReason": reason})

    def rewrite(self, updated: dict[str, Any], permission: str | None, why: str = "") -> Answer:
        output: dict[str, Any] = {"modifiedArgs": updated}
        if permission == "allow":
            output.update(permissionDecision="allow", permissionDecisionReason=why or SANDBOXED)
        return _json(output)

    def context(self, event: str, text: str) -> Answer:
        return _json({"additionalContext": text}) if text else (self.quiet, "", 0)

    def prompt(self, event: str, text: str | None) -> Answer:
        return self.quiet, "", 0  # a command hook's answer to this event is dropped

    def after(self, event: str, text: str | None, alarm: bool = False) -> Answer:
        return _json({"additionalContext": text}) if text else (self.quiet, "", 0)


class KiroCli(Harness):
    """Kiro CLI: hooks in `.kiro/hooks/*.json`, the format of its default V3 harness
    (kiro.dev/docs/cli/v3/hooks). Exit 2 with the reason on stderr blocks a tool; the
    stdout of a session start or a prompt is added to the agent's context as it is.
    No answer can change a tool's input."""

    name, title = "kiro", "Kiro CLI"
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "preToolUse": TOOL,
        "SessionStart": SESSION,
        "agentSpawn": SESSION,
        "UserPromptSubmit": PROMPT,
        "userPromptSubmit": PROMPT,
    }
    json_text_inputs = True  # V3 was seen sending `toolArgs`; accept it as text too
    rewrites = False

    def kiro_entry(self, name: str, trigger: str, timeout: int, **extra: Any) -> dict[str, Any]:
        """One named hook of a V3 hook file; `timeout` in seconds."""
        action = {"type": "command", "command": self.command()}
        entry = {"name": name, "trigger": trigger, **extra, "action": action}
        return {**entry, "timeout": timeout, "enabled": True}

    def hooks(self) -> dict[str, Any]:
        # No Stop hook: Kiro's fires when the session ends and cannot make the agent go on.
        return {
            "version": "v1",
            "hooks": [
                self.kiro_entry("automaton-guard", "PreToolUse", HOOK_TIMEOUT, matcher=".*"),
                self.kiro_entry("automaton-context", "SessionStart", HOOK_TIMEOUT),
                self.kiro_entry("automaton-approval", "UserPromptSubmit", PROMPT_TIMEOUT),
            ],
        }

    def settings(self) -> Settings:
        """Its hooks are a list of named entries, not a map of events."""
        from automaton_rules.guards.hooks.settings import HookList

        return HookList(self)

    def deny(self, reason: str) -> Answer:
        return "", reason, 2  # exit 2 blocks, and stderr goes to the agent

    def context(self, event: str, text: str) -> Answer:
        return text, "", 0  # stdout is added to the agent's context as it is

    def prompt(self, event: str, text: str | None) -> Answer:
        return text or "", "", 0


class FactoryDroid(Harness):
    """Factory Droid: hooks in `.factory/hooks.json`, a map of Claude Code's events at its
    top level (docs.factory.ai/harness/hooks), each sent Claude's snake_case input with
    its own tool names (`Execute`, `Create`, `Edit`, `ApplyPatch`). A `PreToolUse` answer
    is Claude's: `permissionDecision` deny (its reason goes to the model), exit 2 (stderr),
    and `updatedInput`, merged over the tool's input with or without a decision, as the
    0.215.0 binary reads its hooks' output. Any other status and a timeout let the tool
    run. Each `Execute` runs in a new shell."""

    name, title = "droid", "Factory Droid"
    project_env = ("FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR")
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "PostToolUse": AFTER,
        "SessionStart": SESSION,
        "UserPromptSubmit": PROMPT,
        "Stop": STOP,
    }
    # An `ask` that carries `updatedInput` runs the original line: 0.215.0 takes a rewrite
    # from the answer with a decision only when it is `allow`.
    asks_rewritten = False
    # `*`: every tool, MCP tools included.
    hook_table = (
        ("PreToolUse", "*", HOOK_TIMEOUT),
        ("PostToolUse", "Execute", HOOK_TIMEOUT),
        ("SessionStart", None, HOOK_TIMEOUT),
        ("UserPromptSubmit", None, PROMPT_TIMEOUT),
        ("Stop", None, STOP_TIMEOUT),
    )

    def hooks(self) -> dict[str, Any]:
        """The file is the map of events itself, with no `hooks` key around it."""
        return grouped(self)

    def settings(self) -> Settings:
        """Its hooks.json is the map of events, with no `hooks` key around it."""
        from automaton_rules.guards.hooks.settings import EventMap

        return EventMap(self)


QWEN_TRUST = (
    "note: with folder trust on (security.folderTrust.enabled), Qwen Code loads a "
    "project's hooks only in a trusted folder: trust this project, or they never run"
)


class QwenCode(Harness):
    """Qwen Code: hooks in `.qwen/settings.json`, Claude Code's events and answers with
    Gemini CLI's tool names (`run_shell_command`, `write_file`, `edit`), a command hook's
    timeout in seconds below 1000 and in milliseconds from 1000 on (its bundled
    docs/features/hooks.md). Its `PreToolUse` hook cannot change what runs: an
    `updatedInput` reaches only the hooks after it (0.24.4, `applyHookOutputToInput`), so
    the reader alone guards its shell. Its `UserPromptSubmit` also fires before the
    model reads a tool's result; only `submitted_prompt` is what the user typed."""

    name, title = "qwen", "Qwen Code"
    project_env = ("QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR")
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "PostToolUse": AFTER,
        "PostToolUseFailure": AFTER,
        "SessionStart": SESSION,
        "SubagentStart": SESSION,
        "UserPromptSubmit": PROMPT,
        "Stop": STOP,
    }
    rewrites = False
    no_rewrite = (
        "Qwen Code runs a tool's original input: a PreToolUse hook's updatedInput reaches "
        "only the hooks after it"
    )
    prompt_key = "submitted_prompt"
    per_second = 1000  # every timeout here is 1000 or more: read as milliseconds
    hook_table = (
        ("PreToolUse", "*", HOOK_TIMEOUT),
        ("SessionStart", None, HOOK_TIMEOUT),
        ("SubagentStart", None, HOOK_TIMEOUT),
        ("UserPromptSubmit", None, PROMPT_TIMEOUT),
        ("Stop", None, STOP_TIMEOUT),
    )

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        return [QWEN_TRUST]


TABLE = (
    ClaudeCode(),
    Codex(),
    GeminiCli(),
    Cursor(),
    Opencode(),
    CopilotCli(),
    KiroCli(),
    FactoryDroid(),
    QwenCode(),
)
HARNESSES: dict[str, Harness] = {record.name: record for record in TABLE}
NAMES: tuple[str, ...] = tuple(HARNESSES)
# Every event name a harness sends, and what it asks: a name means one thing everywhere.
EVENTS: dict[str, str] = {
    event: kind for record in HARNESSES.values() for event, kind in record.events.items()
}


def get(name: str) -> Harness:
    """The record named `name` (`KeyError` when there is none)."""
    return HARNESSES[name]
