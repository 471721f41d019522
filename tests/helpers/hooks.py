"""The harnesses' side: automaton-hook fed recorded events, and their answers read in each
harness's own protocol (tests/fixtures/hooks/NAME/protocol.json), never the code's."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from automaton_rules.testing import AutomatonProject
from helpers.checkout import BIN, HOOK, ROOT


def run_hook(
    harness: str, payload: object, *args: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """automaton-hook fed one input (a text, or an object sent as JSON), as a harness runs
    it; with `home`, HOME is that folder."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [str(HOOK), "--harness", harness, *args],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)} if home is not None else None,
        timeout=60,
        check=False,
    )


def claude_prompt(root: Path, prompt: str) -> dict[str, object]:
    """A Claude Code UserPromptSubmit input, as its hooks documentation shows it."""
    return {
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def replay(
    harness_name: str, fixture: str, root: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """The adapter's answer to a recorded event of the harness, for the project at `root`,
    as its installed command runs it."""
    payload, given = recorded(harness_name, fixture, root)
    return run_hook(harness_name, payload, *given, *args)


def shell_event(project: AutomatonProject, line: str, **extra: object) -> str:
    """Claude Code's input for a Bash call running `line` in the project."""
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "cwd": str(project.root),
            "tool_name": "Bash",
            "tool_input": {"command": line, "description": "d", "timeout": 5000, **extra},
        }
    )


def edit_event(project: AutomatonProject, relative: str) -> str:
    """Claude Code's input for an Edit of the file at `relative` in the project."""
    return json.dumps(
        {
            "cwd": str(project.root),
            "tool_name": "Edit",
            "tool_input": {"file_path": str(project.root / relative)},
        }
    )


@functools.cache
def launcher_folder() -> Path:
    """A folder holding the launcher automaton-install writes (`.automaton/hook.sh`), which
    a hook command run from it finds, as it finds a project's own."""
    from automaton_rules.cli import install_files

    folder = Path(tempfile.mkdtemp(prefix="automaton-launcher-"))
    atexit.register(shutil.rmtree, folder, True)
    launcher = folder / install_files.LAUNCHER
    launcher.parent.mkdir()
    launcher.write_text(install_files.hook_launcher())
    return folder


def hook_command(
    harness: str,
    payload: str,
    *args: str,
    cwd: Path | None = None,
    home: Path | None = None,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the hook command automaton-install commits for `harness`, with `sh -c`, as the
    harness runs it: from a folder with the project's launcher (`cwd`, else one of ours)."""
    from automaton_rules.guards.hooks import harnesses

    command = harnesses.get(harness).command(*args)
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home or ""), **(extra_env or {})}
    pinned = os.environ.get("AUTOMATON_SANDBOX_MECHANISM")  # the suite run under one
    if pinned is not None:
        env.setdefault("AUTOMATON_SANDBOX_MECHANISM", pinned)
    return subprocess.run(
        ["sh", "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or launcher_folder(),
        timeout=60,
    )


def rewritten(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str | None:
    """The command an allowed shell call runs instead (inside the sandbox), in the harness's
    own protocol; None when it runs as it is, or is denied."""
    if proc.returncode != 0 or not proc.stdout.strip().startswith("{"):
        return None
    body = json.loads(proc.stdout)
    specific = body.get("hookSpecificOutput") or {}
    found = (
        (specific.get("updatedInput") or {}).get("command")
        or (specific.get("tool_input") or {}).get("command")
        or (body.get("rewrite") or {}).get("command")
        or (body.get("modifiedArgs") or {}).get("command")
    )
    if specific.get("permissionDecision") == "deny":
        return None
    return str(found) if found is not None else None


# What the tests know of each harness's protocol, from its own documentation, is a fixture
# beside its recorded events (tests/fixtures/hooks/NAME/protocol.json), never the code's.
HOOK_FIXTURES = ROOT / "tests" / "fixtures" / "hooks"


def protocol(harness_name: str) -> dict[str, Any]:
    """How the harness's answers look: `allow`, `deny`, `context`, `no-context`."""
    return json.loads((HOOK_FIXTURES / harness_name / "protocol.json").read_text())


def recorded(harness_name: str, fixture: str, root: Path) -> tuple[str, list[str]]:
    """A recorded event, for the project at `root`, and the arguments the installed
    command adds for it (`--event`, for a harness whose input names no event)."""
    text = (HOOK_FIXTURES / harness_name / fixture).read_text().replace("__PROJECT__", str(root))
    event = protocol(harness_name).get("events", {}).get(fixture)
    return text, (["--event", event] if event else [])


def _matches(template: Any, value: Any, found: dict[str, str]) -> bool:
    """`value` is `template`, each `$NAME` of it a text captured (the same text each time)."""
    if isinstance(template, str) and template.startswith("$"):
        return isinstance(value, str) and found.setdefault(template, value) == value
    if isinstance(template, dict):
        return (
            isinstance(value, dict)
            and set(template) == set(value)
            and all(_matches(template[key], value[key], found) for key in template)
        )
    return bool(template == value)


def answered(
    harness_name: str, kind: str, proc: subprocess.CompletedProcess[str]
) -> dict[str, str] | None:
    """The texts an answer of `kind` in the harness's protocol captures; None when the
    process did not answer that way."""
    shape, found = protocol(harness_name)[kind], {}
    if proc.returncode != shape["exit"]:
        return None
    stdout = shape["stdout"]
    if isinstance(stdout, dict):
        try:
            body = json.loads(proc.stdout)
        except ValueError:
            return None
        if not _matches(stdout, body, found):
            return None
    elif not _matches(stdout, proc.stdout.strip(), found):
        return None
    if "stderr" in shape and not _matches(shape["stderr"], proc.stderr.strip(), found):
        return None
    return {name[1:]: text for name, text in found.items()}


def denied(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str | None:
    """The deny reason in the harness's own protocol, or None when the call is allowed (as
    it is, or rewritten to run inside the sandbox); anything else fails the test."""
    if rewritten(harness_name, proc) is not None:
        return None
    refused = answered(harness_name, "deny", proc)
    if refused is not None:
        return refused["REASON"]
    assert answered(harness_name, "allow", proc) is not None, (harness_name, proc)
    return None


def context_of(harness_name: str, proc: subprocess.CompletedProcess[str]) -> str:
    """The context a session start got, in the harness's own format ('' for none)."""
    if answered(harness_name, "no-context", proc) is not None:
        return ""
    given = answered(harness_name, "context", proc)
    assert given is not None, (harness_name, proc)
    return given["TEXT"]


def reader_only(root: Path) -> None:
    """Judge the project's shell lines by the reader alone (`sandbox = "off"`), as on a
    machine where no sandbox works: what the reader cannot judge is refused."""
    config = root / "automaton.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(text + 'sandbox = "off"\n', encoding="utf-8")
