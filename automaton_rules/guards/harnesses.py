"""Every agent harness the adapter answers and the installer configures: one record each,
in one table.

A record holds all that a harness does its own way: its name and title; the settings file
its hooks go in, the hooks, and how they merge into the user's file and come out again
(`settings`); how its events read (their names, whether the installed command must name
the event, tool input sent as JSON text); how it answers (a verdict, a shell command
rewritten into the sandbox, context, a prompt's outcome, a stop, a refused settings
change); what it lets the sandbox do and the permission rules it keeps; the agent
instructions file it reads; and what the user must still do once it is installed.
`guards/harness.py` (the adapter) and `cli/install.py` (the installer) read this table and
name no harness. A new harness is a record here and its recorded events in
`tests/fixtures/hooks/NAME/`.

The adapter loads this module before every tool call, so it stays cheap: classes and
small dicts, no configuration built until the installer asks, json only to answer.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path
    from typing import Any, Callable, ClassVar

    from automaton_rules.guards.hook_settings import Settings

    Answer = tuple[str, str, int]  # stdout, stderr, exit status
    Rule = tuple[Callable[[str], bool], str]  # a permission pattern and its verdict

# What an event asks of the adapter, whatever the harness calls it.
TOOL, SESSION, PROMPT, CONFIG, STOP = "tool", "session", "prompt", "config", "stop"
AFTER = "after"  # a tool ran: whether it ran as rewritten (guards/witness.py)

HOOK = "automaton-hook"
HOOK_TIMEOUT = 10  # seconds: above the adapter's own deadline (guards/harness.py, DEADLINE)
PROMPT_TIMEOUT = 30
# The agent ends its turn: the hook may wait for the person's decision on a task at its
# gate (guards/stop.py), up to `stop-wait-seconds` (3000 at most), within this limit.
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
    settings_file: ClassVar[str] = ""  # where its hooks go, relative to the project
    instructions: ClassVar[str] = "AGENTS.md"  # the agent instructions it reads
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
    no_rewrite: ClassVar[str] = NO_REWRITE  # why the reader alone guards its shell
    # Answers: what it prints with nothing to say, and whether a prompt it lets through
    # may carry context.
    quiet: ClassVar[str] = ""
    prompt_context: ClassVar[bool] = True
    # Its hooks' timeouts: the key and how many of its units make a second.
    timeout_key: ClassVar[str] = "timeout"
    per_second: ClassVar[int] = 1

    # ------------------------------------------------------------------ the installer

    def hooks(self) -> dict[str, Any]:
        """The configuration merged into `settings_file`, as integrations/ ships it."""
        return {}

    def settings(self) -> Settings:
        """How its hooks go into `settings_file` and come out again: the JSON `hooks`
        merge, which keeps the user's own entries."""
        from automaton_rules.guards.hook_settings import JsonHooks

        return JsonHooks(self)

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        """What the user must still do once `path` holds `merged`."""
        return []

    def command(self, *args: str) -> str:
        """The portable command its hooks run (guards/lookup.py)."""
        from automaton_rules.guards.lookup import hook_command

        return hook_command(HOOK, "--harness", self.name, *args)

    def entry(self, timeout: int, **extra: Any) -> dict[str, Any]:
        """One command hook in the shape Claude Code, Codex and Gemini CLI share."""
        return {**extra, "type": "command", "command": self.command(), "timeout": timeout}

    def stop_entry(self, timeout: int, **extra: Any) -> dict[str, Any]:
        """A Stop hook: no `onFailure` (one that cannot run lets the agent stop), and a
        command that ends in exit 0 whatever it met."""
        hook = self.entry(timeout, **extra)
        return {**hook, "command": hook["command"] + LETS_STOP}

    # ------------------------------------------------------------------ the sandbox

    def runs_nested(self, root: Path) -> bool:
        """Whether its shell commands run inside a sandbox of its own in this project,
        where bubblewrap cannot make its namespaces but Landlock stacks."""
        return self.nested

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        """The user's own permission rules on shell commands, read as it reads them
        (guards/permissions.py); none by default."""
        return iter(())

    # ------------------------------------------------------------------ answers

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


def _json(body: dict[str, Any], code: int = 0, err: str = "") -> Answer:
    return json.dumps(body), err, code


# Claude Code: every tool that can change a file, PowerShell (the main shell on Windows)
# and every MCP tool (the adapter reads which of them write, by name and arguments).
CLAUDE_TOOLS = "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|mcp__.*"


class ClaudeCode(Harness):
    """Claude Code: hooks in `.claude/settings.json` (Hooks reference,
    https://code.claude.com/docs/en/hooks); a shell command is rewritten through
    `updatedInput`, and its permission rules are matched against the rewritten command."""

    name, title, settings_file = "claude", "Claude Code", ".claude/settings.json"
    instructions = "CLAUDE.md"
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

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        cursor = path.parent.parent / Cursor.settings_file
        return [CURSOR_TWICE] if _has_hooks(cursor, Cursor.name) else []

    def blocking(self, timeout: int = HOOK_TIMEOUT) -> dict[str, Any]:
        """A hook that blocks when it cannot run, fails or times out (`onFailure`, Claude
        Code 2.1.295; earlier releases ignore the key, and the lookup fails closed)."""
        return self.entry(timeout, onFailure="block")

    def hooks(self) -> dict[str, Any]:
        # Session events have no matcher: every start (a fork, a compaction) gets the state.
        return {
            "hooks": {
                "PreToolUse": [{"matcher": CLAUDE_TOOLS, "hooks": [self.blocking()]}],
                # Whether Bash ran the rewritten line, and why one met the sandbox.
                "PostToolUse": [{"matcher": "Bash", "hooks": [self.blocking()]}],
                "PostToolUseFailure": [{"matcher": "Bash", "hooks": [self.blocking()]}],
                "SessionStart": [{"hooks": [self.blocking()]}],
                "SubagentStart": [{"hooks": [self.blocking()]}],
                # A settings file changed mid-session: refused if it would stop the hooks.
                "ConfigChange": [{"hooks": [self.blocking()]}],
                # No matcher: this event takes none. `approve TASK` typed by the user.
                "UserPromptSubmit": [{"hooks": [self.blocking(PROMPT_TIMEOUT)]}],
                "Stop": [{"hooks": [self.stop_entry(STOP_TIMEOUT)]}],
            }
        }

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
        from automaton_rules.guards import permissions

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

    name, title, settings_file = "codex", "Codex", ".codex/hooks.json"
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

    def hooks(self) -> dict[str, Any]:
        return {
            "hooks": {
                "PreToolUse": [{"matcher": "*", "hooks": [self.entry(HOOK_TIMEOUT)]}],
                "PostToolUse": [{"matcher": "Bash", "hooks": [self.entry(HOOK_TIMEOUT)]}],
                "SessionStart": [{"hooks": [self.entry(HOOK_TIMEOUT)]}],
                "SubagentStart": [{"hooks": [self.entry(HOOK_TIMEOUT)]}],
                "UserPromptSubmit": [{"hooks": [self.entry(PROMPT_TIMEOUT)]}],
                "Stop": [{"hooks": [self.stop_entry(STOP_TIMEOUT)]}],
            }
        }

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        return [CODEX_TRUST]

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards import permissions

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

    name, title, settings_file = "gemini", "Gemini CLI", ".gemini/settings.json"
    instructions = "GEMINI.md"
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

    def hooks(self) -> dict[str, Any]:
        seconds = self.per_second
        return {
            # Gemini CLI 0.26 reads hooks only with this; later releases default to it.
            "hooksConfig": {"enabled": True},
            "hooks": {
                "BeforeTool": [
                    {
                        "matcher": "write_file|replace|run_shell_command|mcp_.*",
                        "hooks": [self.entry(HOOK_TIMEOUT * seconds, name="automaton-guard")],
                    }
                ],
                "AfterTool": [
                    {
                        "matcher": "run_shell_command",
                        "hooks": [self.entry(HOOK_TIMEOUT * seconds, name="automaton-witness")],
                    }
                ],
                # Gemini matches lifecycle events by exact name: no matcher, every start.
                "SessionStart": [
                    {"hooks": [self.entry(HOOK_TIMEOUT * seconds, name="automaton-context")]}
                ],
                "BeforeAgent": [
                    {"hooks": [self.entry(PROMPT_TIMEOUT * seconds, name="automaton-approval")]}
                ],
                "AfterAgent": [
                    {"hooks": [self.stop_entry(STOP_TIMEOUT * seconds, name="automaton-decision")]}
                ],
            },
        }

    def notes(self, path: Path, merged: dict[str, Any]) -> list[str]:
        switched = (merged.get("hooksConfig") or {}).get("enabled") is False
        return [GEMINI_OFF.format(path=path)] if switched else []

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards import permissions

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

    name, title, settings_file = "cursor", "Cursor", ".cursor/hooks.json"
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
    """opencode: a plugin (`guards/opencode_plugin.js`) runs the adapter and carries its
    answers out: it throws a denial, changes the command in place, adds context."""

    name, title = "opencode", "opencode"
    settings_file = ".opencode/plugin/automaton-guard.js"
    events: ClassVar[Mapping[str, str]] = {
        "PreToolUse": TOOL,
        "SessionStart": SESSION,
        "UserPromptSubmit": PROMPT,
        "Stop": STOP,
    }
    asks_rewritten = False

    def settings(self) -> Settings:
        """The plugin file, kept when the user changed it."""
        from automaton_rules.guards.hook_settings import PluginFile

        return PluginFile(self)

    def permission_rules(self, project: Path, home: Path) -> Iterator[Rule]:
        from automaton_rules.guards import permissions

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
    settings_file = ".github/hooks/automaton-rules.json"
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

    def command(self, *args: str) -> str:
        """The lookup that refuses with a JSON deny on exit 0, whose reason Copilot shows
        the model (on any other status it says only "hook exited with code 2")."""
        from automaton_rules.guards.lookup import DENY_LOOKUP, hook_command

        return hook_command(HOOK, "--harness", self.name, *args, script=DENY_LOOKUP)

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

    name, title, settings_file = "kiro", "Kiro CLI", ".kiro/hooks/automaton-rules.json"
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
        from automaton_rules.guards.hook_settings import HookList

        return HookList(self)

    def deny(self, reason: str) -> Answer:
        return "", reason, 2  # exit 2 blocks, and stderr goes to the agent

    def context(self, event: str, text: str) -> Answer:
        return text, "", 0  # stdout is added to the agent's context as it is

    def prompt(self, event: str, text: str | None) -> Answer:
        return text or "", "", 0


TABLE = (ClaudeCode(), Codex(), GeminiCli(), Cursor(), Opencode(), CopilotCli(), KiroCli())
HARNESSES: dict[str, Harness] = {record.name: record for record in TABLE}
NAMES: tuple[str, ...] = tuple(HARNESSES)
# Every event name a harness sends, and what it asks: a name means one thing everywhere.
EVENTS: dict[str, str] = {
    event: kind for record in HARNESSES.values() for event, kind in record.events.items()
}


def get(name: str) -> Harness:
    """The record named `name` (`KeyError` when there is none)."""
    return HARNESSES[name]
