"""The harness lab's drivers: a fresh project adopted with `automaton-install`, a task put
in a phase with status.py, and a real harness binary run headless against the scripted
model (model_server.py), so a test can check what the binary did — the hook ran, the
action was blocked or rewritten, the file changed or not — and what the model got back.

Each run has its own home folder (the per-user files `automaton-install` writes, the
harness's own configuration and state), so nothing of the machine's user is read or
changed. PATH holds only the system's folders: the hooks find `automaton-hook` through
the launcher the installer wrote, as on a machine where the tool is not on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from automaton_rules.testing import AutomatonProject
from harnesses.cache import Pin
from harnesses.model_server import ModelServer, Reply, Request, Tool

BIN = Path(sys.executable).parent
INSTALL = BIN / "automaton-install"
RUN_TIMEOUT = 150  # seconds a harness run may take, start-up included, before it is killed
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# A launcher that crashes on a tool event (its input names a tool) and hands every other
# event to the real one.
CRASHING_LAUNCHER = """#!/bin/sh
input=$(cat)
case "$input" in
    *'"tool_name"'* | *'"toolName"'*) echo 'RuntimeError: lab crash' >&2; exit 1 ;;
esac
printf '%s' "$input" | exec "$(dirname "$0")/automaton-hook.real" "$@"
"""


@dataclass(frozen=True)
class Run:
    """One harness run: its exit status, output and the requests the model received."""

    rc: int
    stdout: str
    stderr: str
    requests: list[Request]

    @property
    def tool_results(self) -> list[str]:
        """What the model got back for its tool calls, in order, as the last request that
        carried each one shows it (Chat Completions `tool` messages, Messages API
        `tool_result` blocks)."""
        agent = [r for r in self.requests if r.offers_tools and isinstance(r.body, dict)]
        return _results(agent[-1].body) if agent else []

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """The tool calls as the harness sent them back to the model in its history."""
        agent = [r for r in self.requests if r.offers_tools and isinstance(r.body, dict)]
        return _calls(agent[-1].body) if agent else []

    @property
    def model_saw(self) -> str:
        """The whole last request of the agent's turn, as text: what the model was shown
        (context a hook added goes into a message of its own in some harnesses)."""
        agent = [r for r in self.requests if r.offers_tools and isinstance(r.body, dict)]
        return json.dumps(agent[-1].body) if agent else ""

    def explain(self) -> str:
        """Everything a failing assertion should show."""
        return (
            f"rc={self.rc}\ntool results: {self.tool_results}\nstdout (tail): "
            f"{self.stdout[-3000:]}\nstderr (tail): {self.stderr[-3000:]}"
        )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(part.get("text", part.get("content", ""))) for part in content)
    return "" if content is None else json.dumps(content)


def _results(body: dict[str, Any]) -> list[str]:
    found = [
        _text(part["functionResponse"].get("response", {}).get("output", part["functionResponse"]))
        for content in body.get("contents") or []
        for part in content.get("parts") or []
        if "functionResponse" in part
    ]
    found += [
        _text(item.get("output"))
        for item in body.get("input") or []
        if isinstance(item, dict) and item.get("type", "").endswith("call_output")
    ]
    for message in body.get("messages") or []:
        if message.get("role") == "tool":
            found.append(_text(message.get("content")))
        elif message.get("role") == "user" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(_text(block.get("content")))
    return found


def _calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = [
        part["functionCall"].get("args") or {}
        for content in body.get("contents") or []
        for part in content.get("parts") or []
        if "functionCall" in part
    ]
    found += [
        json.loads(item.get("arguments") or "{}")
        for item in body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call"
    ]
    for message in body.get("messages") or []:
        for call in message.get("tool_calls") or []:
            found.append(json.loads(call["function"]["arguments"] or "{}"))
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            found += [b["input"] for b in content if b.get("type") == "tool_use"]
    return found


class Lab:
    """A throwaway home and project adopted for one harness, with one task `t1`."""

    def __init__(self, root: Path, harness: str) -> None:
        self.home = root / "home"
        self.project = root / "project"
        self.harness = harness
        self.home.mkdir()
        self.project.mkdir()
        (self.project / "src").mkdir()
        (self.project / "src" / "app.py").write_text("print(1)\n")
        subprocess.run(["git", "init", "-q"], cwd=self.project, check=True, env=self.env())
        installed = subprocess.run(
            [str(INSTALL), "--project", str(self.project), "--harness", harness],
            env=self.env(), capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        # The user's setting: an agent that stops while a task awaits approval stops at
        # once, instead of its Stop hook waiting for the decision (600 s by default).
        with (self.project / "automaton.toml").open("a") as config:
            config.write("stop-wait-seconds = 0\n")

    def stop_wait(self, seconds: int) -> None:
        """The user's `stop-wait-seconds`: how long a Stop hook waits for a decision."""
        config = self.project / "automaton.toml"
        text = config.read_text().replace("stop-wait-seconds = 0\n", "")
        config.write_text(f"{text}stop-wait-seconds = {seconds}\n")

    def waiting(self) -> bool:
        """Whether a Stop hook waits for the person's decision now: the marker it writes
        for the board (support/waiting.py) is there."""
        from automaton_rules.support import waiting

        folder = waiting.folder(self.home)
        return folder.is_dir() and any(folder.iterdir())

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of every process the lab starts: this lab's home, the system's
        PATH, the temporary folder the tests were given."""
        env = {"HOME": str(self.home), "PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "TERM": "dumb"}
        env["TMPDIR"] = os.environ.get("TMPDIR", "/tmp")
        env |= {"GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1", "CI": "1"}
        return env | extra

    def phase(self, state: str) -> None:
        """Put task `t1` in `state`, with real transitions and the user's approvals."""
        AutomatonProject(self.project).task("t1", state)

    def status(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run the status.py the installer put in this lab's home, as an agent would."""
        script = self.home / ".automaton" / "scripts" / "status.py"
        return subprocess.run(
            [sys.executable, str(script), *args], cwd=self.project, env=self.env(),
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip

    def file(self, relative: str) -> str | None:
        """A project file's text, or None when it does not exist."""
        path = self.project / relative
        return path.read_text() if path.exists() else None

    def request_changes(self, comment: str) -> None:
        """The user asks for changes to `t1` at its gate, as the dashboard records it."""
        from automaton_rules.core.project import find_project
        from automaton_rules.workflow import reviews

        reviews.request_changes(find_project(self.project), "t1", comment, by="user@example.com")

    def state(self) -> str:
        """Task `t1`'s state, as its `.state` file says."""
        return (self.project / ".automaton" / "tasks" / "t1" / ".state").read_text().strip()

    def crash_tool_hooks(self) -> None:
        """Make the adapter crash (exit 1, a Python error on stderr) on every tool event,
        as a broken installation would; the session's other hooks still answer."""
        launcher = self.home / ".automaton" / "bin" / "automaton-hook"
        launcher.rename(launcher.with_name("automaton-hook.real"))
        launcher.write_text(CRASHING_LAUNCHER)
        launcher.chmod(0o755)

    def marks(self) -> list[str]:
        """The adapter's marks of rewritten shell lines (`~/.automaton/run/`): a `.ran`
        file is a rewrite the harness ran."""
        run = self.home / ".automaton" / "run"
        return sorted(p.name for p in run.rglob("*") if p.is_file()) if run.exists() else []


class Driver:
    """How one harness is run headless against the scripted model."""

    name = ""
    shell_tool = ""

    def __init__(self, pin: Pin, binary: Path) -> None:
        self.pin = pin
        self.binary = binary

    def shell(self, command: str) -> Tool:
        """The model's call of this harness's shell tool."""
        return Tool(self.shell_tool, {"command": command, "description": "lab step"})

    def write_tool(self, path: Path, text: str) -> Tool | None:
        """The model's call of this harness's file-writing tool, where it offers one."""
        return None

    def writes(self, path: Path, text: str) -> list[Reply] | None:
        """The model's calls that write a file with the edit tool (reading it first where
        the harness wants that), or None where there is no such tool."""
        tool = self.write_tool(path, text)
        return None if tool is None else [tool]

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        """The command line of a headless run."""
        raise NotImplementedError

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        """What the harness needs to find the scripted model and run unattended."""
        raise NotImplementedError

    def run(
        self,
        lab: Lab,
        replies: list[Reply],
        prompt: str = "do the lab step",
        meanwhile: Callable[[subprocess.Popen[str]], None] | None = None,
    ) -> Run:
        """Run one headless session with the model's scripted replies; `meanwhile` acts
        while the harness runs (as the person at the board would), given its process."""
        with ModelServer(replies) as server:
            process = subprocess.Popen(
                self.command(lab, server, prompt), cwd=lab.project,
                env=self.environment(lab, server), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
            )  # fmt: skip
            out, err = self.attend(process, meanwhile, process)
            return Run(process.returncode, out, err, server.requests)

    def attend(
        self,
        process: subprocess.Popen[str],
        meanwhile: Callable[[subprocess.Popen[str]], None] | None,
        watched: subprocess.Popen[str],
        then: Callable[[], None] = lambda: None,
    ) -> tuple[str, str]:
        """The output of the harness's `process`, once it ended; `meanwhile` acts on the
        `watched` process in a thread of its own while this one reads the output, so a
        harness that writes more than a pipe holds is never stuck. `then` runs before the
        thread is waited for: it ends `watched`, where that outlives `process`."""
        failed: list[BaseException] = []
        helper = threading.Thread(target=_acting, args=(meanwhile, watched, failed))
        with process:
            helper.start()
            try:
                out, err = process.communicate(timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                out, _ = process.communicate()
                late = f"{self.name} ran over {RUN_TIMEOUT}s: {out[-2000:]}"
                raise AssertionError(late) from None
            finally:
                try:
                    then()
                finally:
                    helper.join()
        if failed:
            raise failed[0]
        return out, err


def _acting(
    meanwhile: Callable[[subprocess.Popen[str]], None] | None,
    process: subprocess.Popen[str],
    failed: list[BaseException],
) -> None:
    """Run `meanwhile` on the harness's process, keeping what it raised for the test."""
    if meanwhile is None:
        return
    try:
        meanwhile(process)
    except BaseException as error:  # an assertion of the test's, re-raised after the run
        failed.append(error)


class Copilot(Driver):
    """GitHub Copilot CLI: offline, a custom provider speaking Chat Completions."""

    name = "copilot"
    shell_tool = "bash"
    flags: tuple[str, ...] = ()

    def write_tool(self, path: Path, text: str) -> Tool | None:
        return Tool("create", {"path": str(path), "file_text": text})

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        return [str(self.binary), "-p", prompt, "--output-format", "json", "--no-auto-update",
                *self.flags]  # fmt: skip

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        return lab.env(
            COPILOT_HOME=str(lab.home / ".copilot"), COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=f"{server.url}/v1", COPILOT_MODEL="lab-model",
            COPILOT_ALLOW_ALL="true", COPILOT_AUTO_UPDATE="false",
        )  # fmt: skip


class CopilotAllowAll(Copilot):
    """Copilot CLI with `--allow-all` (tools, paths and URLs) on top of COPILOT_ALLOW_ALL."""

    flags = ("--allow-all",)


class Claude(Driver):
    """Claude Code: `-p` headless, the Messages API at ANTHROPIC_BASE_URL."""

    name = "claude"
    shell_tool = "Bash"

    def write_tool(self, path: Path, text: str) -> Tool | None:
        return Tool("Write", {"file_path": str(path), "content": text})

    def writes(self, path: Path, text: str) -> list[Reply] | None:
        # Its Write refuses a file that exists and was not read first, before any hook.
        read = [Tool("Read", {"file_path": str(path)})] if path.exists() else []
        return [*read, Tool("Write", {"file_path": str(path), "content": text})]

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        return [str(self.binary), "-p", prompt, "--output-format", "json",
                "--dangerously-skip-permissions", "--model", "claude-sonnet-4-5"]  # fmt: skip

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        env = lab.env(
            ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="lab-key",
            DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )  # fmt: skip
        if os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"  # as root it refuses --dangerously-skip-permissions else
        return env


class Codex(Driver):
    """Codex: `codex exec`, a `model_providers` entry in the lab's CODEX_HOME/config.toml
    pointing at the scripted model, hooks run without persisted trust."""

    name = "codex"
    shell_tool = "exec_command"  # its unified exec; a custom provider gets no apply_patch
    wire_api = "responses"  # 0.171 refuses "chat": no longer supported

    def shell(self, command: str) -> Tool:
        return Tool(self.shell_tool, {"cmd": command})

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        home = lab.home / ".codex"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            'model = "lab-model"\nmodel_provider = "lab"\n\n[model_providers.lab]\n'
            f'name = "lab"\nbase_url = "{server.url}/v1"\nwire_api = "{self.wire_api}"\n'
        )
        return [str(self.binary), "exec", "--json", "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust", "--trust", "--ephemeral",
                "--dangerously-bypass-approvals-and-sandbox", prompt]  # fmt: skip

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        return lab.env(CODEX_HOME=str(lab.home / ".codex"), OPENAI_API_KEY="lab-key")


class Gemini(Driver):
    """Gemini CLI: `-p` headless with `--yolo`, the Gemini API at GOOGLE_GEMINI_BASE_URL
    with an API key, the project trusted."""

    name = "gemini"
    shell_tool = "run_shell_command"

    def write_tool(self, path: Path, text: str) -> Tool | None:
        return Tool("write_file", {"file_path": str(path), "content": text})

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        settings = lab.home / ".gemini" / "settings.json"
        settings.parent.mkdir(exist_ok=True)
        auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        settings.write_text(json.dumps(auth | {"general": {"disableAutoUpdate": True}}))
        return [str(self.binary), "-p", prompt, "--output-format", "json", "--yolo"]

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        return lab.env(
            GOOGLE_GEMINI_BASE_URL=server.url, GEMINI_API_KEY="lab-key",
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )  # fmt: skip


class _Lines:
    """A process's stdout, line by line as it comes, read in a thread, kept whole."""

    def __init__(self, process: subprocess.Popen[str], deadline: float) -> None:
        import queue
        import threading

        self.process = process
        self.deadline = deadline
        self.seen: list[str] = []
        self.queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.process.stdout or ():
            self.queue.put(line)

    def wait_for(self, text: str) -> str:
        """The first line from now on holding `text`; AssertionError past the deadline."""
        import queue
        import time

        while True:
            try:
                line = self.queue.get(timeout=max(0.1, self.deadline - time.monotonic()))
            except queue.Empty:
                self.process.kill()
                raise AssertionError(f"never sent {text}: {self.seen[-5:]}") from None
            self.seen.append(line)
            if text in line:
                return line


class Droid(Driver):
    """Factory Droid: `droid exec` with a custom model (BYOK) in the lab's
    ~/.factory/settings.json speaking Chat Completions; no Factory login, no API key of
    Factory's. `--skip-permissions-unsafe` leaves its own autonomy checks out, not the
    hooks. After its answer Droid spends some 6 s failing to send telemetry to a network
    the lab does not have, so a run ends at the answer (`"type": "result"`, printed after
    the Stop hook ran) with a kill, its status 0 when the answer is no error."""

    name = "droid"
    shell_tool = "Execute"
    answered = '"type":"result"'

    def shell(self, command: str) -> Tool:
        return Tool(self.shell_tool, {"summary": "Run the lab step", "command": command})

    def write_tool(self, path: Path, text: str) -> Tool | None:
        return Tool("Create", {"file_path": str(path), "content": text})

    def writes(self, path: Path, text: str) -> list[Reply] | None:
        # Its Create replaces a file that exists only once it was read.
        read = [Tool("Read", {"file_path": str(path)})] if path.exists() else []
        return [*read, Tool("Create", {"file_path": str(path), "content": text})]

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        settings = lab.home / ".factory" / "settings.json"
        settings.parent.mkdir(exist_ok=True)
        model = {"model": "lab-model", "displayName": "Lab", "baseUrl": f"{server.url}/v1",
                 "apiKey": "lab-key", "provider": "generic-chat-completion-api",
                 "maxOutputTokens": 4096}  # fmt: skip
        settings.write_text(json.dumps({"customModels": [model]}))
        return [str(self.binary), "exec", "--model", "custom:lab-model", "-o", "json",
                "--skip-permissions-unsafe", prompt]  # fmt: skip

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        return lab.env()

    def converse(
        self, lab: Lab, process: subprocess.Popen[str], lines: _Lines, prompt: str
    ) -> None:
        """What the run says to Droid on stdin (a one-shot run: nothing)."""

    def run(
        self,
        lab: Lab,
        replies: list[Reply],
        prompt: str = "do the lab step",
        meanwhile: Callable[[subprocess.Popen[str]], None] | None = None,
    ) -> Run:
        import time

        with ModelServer(replies) as server:
            process = subprocess.Popen(
                self.command(lab, server, prompt), cwd=lab.project,
                env=self.environment(lab, server), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            lines = _Lines(process, time.monotonic() + RUN_TIMEOUT)
            failed: list[BaseException] = []
            helper = threading.Thread(target=_acting, args=(meanwhile, process, failed))
            helper.start()
            try:
                self.converse(lab, process, lines, prompt)
                answer = lines.wait_for(self.answered)
            finally:
                if process.stdin is not None:
                    process.stdin.close()
                process.kill()  # SIGTERM runs the same telemetry flush first
                process.wait()
                helper.join()
            if failed:
                raise failed[0]
            err = process.stderr.read() if process.stderr else ""
            rc = 1 if '"is_error":true' in answer or '"isError":true' in answer else 0
            return Run(rc, "".join(lines.seen), err, server.requests)


class DroidSession(Droid):
    """Factory Droid in a JSON-RPC session (`droid exec --input-format stream-jsonrpc`),
    the path its desktop and IDE clients take: `droid.initialize_session`, then the
    user's message by `droid.add_user_message`, which runs its UserPromptSubmit hooks
    (`droid exec PROMPT` runs none). The run ends at the first completed turn."""

    answered = '"agent_turn_completed"'

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        line = super().command(lab, server, prompt)[:-1]  # no prompt on the command line
        return [*line, "--input-format", "stream-jsonrpc", "--output-format", "stream-jsonrpc"]

    def converse(
        self, lab: Lab, process: subprocess.Popen[str], lines: _Lines, prompt: str
    ) -> None:
        def send(number: int, method: str, params: dict[str, Any]) -> None:
            message = {"jsonrpc": "2.0", "type": "request", "factoryApiVersion": "1.0.0",
                       "id": str(number), "method": method, "params": params}  # fmt: skip
            assert process.stdin is not None
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()

        send(1, "droid.initialize_session", {
            "machineId": "lab", "cwd": str(lab.project), "modelId": "custom:lab-model",
            "skipPermissionsUnsafe": True,
        })  # fmt: skip
        lines.wait_for('"id":"1"')
        send(2, "droid.add_user_message", {"text": prompt})


class Qwen(Driver):
    """Qwen Code: `-p` headless with `--yolo`, OpenAI Chat Completions at OPENAI_BASE_URL
    (OPENAI_API_KEY and OPENAI_MODEL select that auth); folder trust is off unless the
    user turns it on, so the project's hooks load. QWEN_CODE_NO_RELAUNCH: the launcher
    runs the CLI in its own process instead of a second node (a run takes half the time;
    the hooks are the same)."""

    name = "qwen"
    shell_tool = "run_shell_command"

    def write_tool(self, path: Path, text: str) -> Tool | None:
        return Tool("write_file", {"file_path": str(path), "content": text})

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        settings = lab.home / ".qwen" / "settings.json"
        settings.parent.mkdir(exist_ok=True)
        # No background memory extractor: it asks the model with tools after the turn.
        memory = {"enableManagedAutoMemory": False, "enableManagedAutoDream": False}
        settings.write_text(json.dumps({"general": {"enableAutoUpdate": False}, "memory": memory}))
        return [str(self.binary), "-p", prompt, "--output-format", "json", "--yolo"]

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        return lab.env(
            OPENAI_BASE_URL=f"{server.url}/v1", OPENAI_API_KEY="lab-key",
            OPENAI_MODEL="lab-model", QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
            QWEN_CODE_NO_RELAUNCH="true",
        )  # fmt: skip


class Opencode(Driver):
    """opencode: `opencode run`, a provider through its bundled `@ai-sdk/openai-compatible`
    (Chat Completions) in the lab's ~/.config/opencode/opencode.json; the plugin
    automaton-install wrote to .opencode/plugin/ carries the hooks out."""

    name = "opencode"
    shell_tool = "bash"

    def shell(self, command: str) -> Tool:
        return Tool(self.shell_tool, {"command": command})  # 1.18 has no `description`

    def writes(self, path: Path, text: str) -> list[Reply] | None:
        # Read first, as an agent does before overwriting a file (Claude's Write insists).
        read = [Tool("read", {"filePath": str(path)})] if path.exists() else []
        return [*read, Tool("write", {"filePath": str(path), "content": text})]

    def command(self, lab: Lab, server: ModelServer, prompt: str) -> list[str]:
        provider = {
            "npm": "@ai-sdk/openai-compatible", "name": "lab",
            "options": {"baseURL": f"{server.url}/v1", "apiKey": "lab-key"},
            "models": {"lab-model": {"name": "lab-model", "tool_call": True}},
        }  # fmt: skip
        # No snapshots (a git tree of the project after each step): the lab reads the files.
        config = {"provider": {"lab": provider}, "model": "lab/lab-model", "snapshot": False}
        config["autoupdate"] = False
        folder = lab.home / ".config" / "opencode"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "opencode.json").write_text(json.dumps(config))
        # opencode installs @opencode-ai/plugin with npm into each of its configuration
        # folders whose package-lock.json does not name it (5 to 15 s a run, and from the
        # registry); our plugin imports nothing, so a lock naming it is all it needs.
        lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": self.pin.version}}}}
        for where in (folder, lab.project / ".opencode"):
            (where / "node_modules").mkdir(parents=True, exist_ok=True)
            (where / "package-lock.json").write_text(json.dumps(lock))
        # A title of its own: no request to the model for one (and no hook run for it).
        return [str(self.binary), "run", "--title", "lab", prompt]

    def environment(self, lab: Lab, server: ModelServer) -> dict[str, str]:
        # Nothing fetched (models.dev, updates, LSP servers), none of opencode's own plugins,
        # no file watcher, and none of Claude Code's files read (a project of both).
        return lab.env(
            OPENCODE_DISABLE_AUTOUPDATE="1", OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1", OPENCODE_DISABLE_SHARE="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1", OPENCODE_DISABLE_CLAUDE_CODE="1",
            OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER="1",
        )  # fmt: skip


class OpencodeServe(Opencode):
    """opencode as its TUI runs it, outliving the turn: `opencode serve` on 127.0.0.1, the
    prompt sent through `opencode run --attach`; the run ends at the first idle, the server
    goes on (the plugin's Stop hook, the prompt it sends)."""

    def run(
        self,
        lab: Lab,
        replies: list[Reply],
        prompt: str = "do the lab step",
        meanwhile: Callable[[subprocess.Popen[str]], None] | None = None,
    ) -> Run:
        """The prompt through the server; `meanwhile` watches the server, and the run
        lasts until the model has given every scripted reply (or RUN_TIMEOUT)."""
        with ModelServer(replies) as server:
            self.command(lab, server, prompt)  # the configuration
            env = self.environment(lab, server)
            port = _free_port()
            serve = subprocess.Popen(
                [str(self.binary), "serve", "--hostname", "127.0.0.1", "--port", str(port)],
                cwd=lab.project, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
            )  # fmt: skip

            def finish() -> None:
                """The server goes on after the run: until the model gave every reply."""
                try:
                    server.wait_for_turns(len(replies), RUN_TIMEOUT)
                finally:
                    serve.terminate()
                    serve.wait(timeout=30)

            try:
                _listening(port, serve)
            except BaseException:
                serve.kill()
                serve.wait(timeout=30)
                raise
            attach = [str(self.binary), "run", "--attach", f"http://127.0.0.1:{port}",
                      "--dir", str(lab.project), "--title", "lab", prompt]  # fmt: skip
            process = subprocess.Popen(
                attach, cwd=lab.project, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
            )  # fmt: skip
            out, err = self.attend(process, meanwhile, serve, then=finish)
            return Run(process.returncode, out, err, server.requests)


def _free_port() -> int:
    """A port of 127.0.0.1 no one listens on now."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int, serve: subprocess.Popen[str]) -> None:
    """Wait until the server takes connections on `port` (or has exited)."""
    import socket
    import time

    for _ in range(RUN_TIMEOUT * 10):  # a bound, should it neither listen nor exit
        if serve.poll() is not None:
            raise AssertionError(f"opencode serve exited with status {serve.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"opencode serve never listened on {port}")


DRIVERS: dict[str, type[Driver]] = {
    "copilot": Copilot, "claude": Claude, "codex": Codex, "gemini": Gemini,
    "opencode": Opencode, "droid": Droid, "qwen": Qwen,
}  # fmt: skip


def missing(pin: Pin, mode: str) -> str | None:
    """Why this harness cannot run here, or None when it can."""
    if shutil.which("node", path=SYSTEM_PATH) is None:
        return f"{pin.name}: no node on {SYSTEM_PATH} (the harness needs Node.js)"
    binary = pin.binary(mode)
    if not os.access(binary, os.X_OK):
        setup = "bash scripts/setup.sh harnesses" + (" latest" if mode == "latest" else "")
        which = pin.version if mode == "pinned" else "latest"
        return f"{pin.name} {which} is not installed ({binary} missing): run {setup}"
    return None
