"""`automaton-install`: put status.py where agents call it, and the hooks where they fire.

Idempotent (running it twice changes nothing the second time) and reversible
(`--uninstall` removes exactly what it added, leaving the user's own settings).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from automaton_rules.core import git
from automaton_rules.core.console import Script
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.project import framework_home

MARKER = "# installed by automaton-install"
HOOK = "automaton-hook --harness"
# Our hook command, also when its path had to be quoted for the shell ('/my venv/...').
_OUR_HOOK = re.compile(r"automaton-hook'?\s+--harness")

# Claude Code and Codex name why a session starts; every start gets the workflow's state,
# `compact` above all: the model has just lost it.
SESSION_SOURCES = "startup|resume|clear|compact"


def _hook(harness: str, timeout: int, **extra: str) -> dict[str, Any]:
    return {**extra, "type": "command", "command": f"{HOOK} {harness}", "timeout": timeout}


# The configuration each harness reads, as integrations/ ships it.
HARNESS_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "claude": (
        ".claude/settings.json",
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Write|Edit|MultiEdit|NotebookEdit|Bash",
                        "hooks": [_hook("claude", 10)],
                    }
                ],
                "SessionStart": [{"matcher": SESSION_SOURCES, "hooks": [_hook("claude", 10)]}],
                # No matcher: this event takes none. `approve TASK` typed by the user.
                "UserPromptSubmit": [{"hooks": [_hook("claude", 30)]}],
            }
        },
    ),
    "codex": (
        ".codex/hooks.json",
        {
            "hooks": {
                "PreToolUse": [{"matcher": "*", "hooks": [_hook("codex", 10)]}],
                "SessionStart": [{"matcher": SESSION_SOURCES, "hooks": [_hook("codex", 10)]}],
                "UserPromptSubmit": [{"hooks": [_hook("codex", 30)]}],
            }
        },
    ),
    "gemini": (
        ".gemini/settings.json",
        {
            # Gemini CLI 0.26 reads hooks only with this; later releases default to it.
            "hooksConfig": {"enabled": True},
            "hooks": {
                "BeforeTool": [
                    {
                        "matcher": "write_file|replace|run_shell_command",
                        "hooks": [_hook("gemini", 10000, name="automaton-guard")],
                    }
                ],
                # Gemini matches lifecycle events by exact name: no matcher, every start.
                "SessionStart": [{"hooks": [_hook("gemini", 10000, name="automaton-context")]}],
                "BeforeAgent": [{"hooks": [_hook("gemini", 30000, name="automaton-approval")]}],
            },
        },
    ),
    "cursor": (
        ".cursor/hooks.json",
        {
            "version": 1,
            "hooks": {
                # failClosed: a hook that crashes or times out blocks instead of allowing.
                "beforeShellExecution": [{"command": f"{HOOK} cursor", "failClosed": True}],
                "preToolUse": [
                    {
                        "command": f"{HOOK} cursor",
                        "matcher": "Write|Edit|StrReplace|Delete",
                        "failClosed": True,
                    }
                ],
                "sessionStart": [{"command": f"{HOOK} cursor"}],
                # Not failClosed: a prompt hook that fails lets the message through.
                "beforeSubmitPrompt": [{"command": f"{HOOK} cursor"}],
            },
        },
    ),
}
CODEX_TRUST = (
    "note: Codex runs a project's hooks only when the project is trusted, and a new or "
    "changed hook only after you trust it: open /hooks in Codex and trust the "
    "automaton-hook entries, or they never run"
)
GEMINI_OFF = "note: {path} keeps Gemini's hooks off (hooksConfig.enabled is false)"
OPENCODE_PLUGIN = ".opencode/plugin/automaton-guard.js"
OPENCODE_MARKER = "// installed by automaton-install"
KEPT_PLUGIN = "(changed since automaton-install wrote it, or not written by it)"
_OPENCODE_FIRST_LINE = re.compile(re.escape(OPENCODE_MARKER) + r" \(sha256 ([0-9a-f]{64})\)")
HARNESSES = (*HARNESS_CONFIGS, "opencode")
GIT_HOOKS = {
    "pre-commit": "automaton-git-hook pre-commit",
    "pre-merge-commit": "automaton-git-hook pre-merge-commit",
    "commit-msg": 'automaton-git-hook commit-msg "$1"',
}


def status_script() -> str:
    """`~/.automaton/scripts/status.py`: whichever `python` runs it, this installation answers."""
    return f"""#!{sys.executable}
{MARKER}: runs the automaton-rules installed for the interpreter below,
# whichever python the agent calls this file with.
import os
import sys

INTERPRETER = {sys.executable!r}

try:
    from automaton_rules.cli.entry import main
except ImportError:
    if os.environ.get("AUTOMATON_REEXEC") != INTERPRETER:
        os.environ["AUTOMATON_REEXEC"] = INTERPRETER  # once: never loop
        try:
            os.execv(INTERPRETER, [INTERPRETER, __file__, *sys.argv[1:]])
        except OSError:
            pass  # the interpreter it was installed with is gone: say so below
    sys.stderr.write("ERROR: automaton-rules is not installed for " + INTERPRETER + "\\n")
    sys.exit(2)

sys.exit(main())
"""


_PLUGIN_HOOK = 'const HOOK = "automaton-hook";'


def bound_plugin(body: str) -> str:
    """The plugin calling `automaton-hook` by absolute path, as the JSON configurations do
    (`_bound`), so opencode's PATH cannot decide whether the guard runs."""
    path = Path(sys.executable).parent / "automaton-hook"
    if not path.exists():
        return body
    return body.replace(_PLUGIN_HOOK, f"const HOOK = {json.dumps(str(path))};", 1)


def opencode_plugin() -> str:
    """The packaged plugin under a first line recording its digest, so a copy the user
    changed afterwards is recognised as theirs and never overwritten or removed."""
    packaged = resources.files("automaton_rules.guards").joinpath("opencode_plugin.js")
    body = bound_plugin(packaged.read_text("utf-8"))
    digest = hashlib.sha256(body.encode()).hexdigest()
    return f"{OPENCODE_MARKER} (sha256 {digest}); a changed copy is kept\n{body}"


def _unchanged_opencode_plugin(path: Path) -> bool:
    """Whether the file is a plugin automaton-install wrote, as it wrote it."""
    first, _, body = path.read_text(encoding="utf-8", errors="replace").partition("\n")
    found = _OPENCODE_FIRST_LINE.match(first)
    return found is not None and hashlib.sha256(body.encode()).hexdigest() == found.group(1)


def _ours(entry: Any) -> bool:
    return _OUR_HOOK.search(json.dumps(entry)) is not None


def _with_defaults(current: Any, ours: Any) -> Any:
    """`current` with what `ours` adds and it lacks, key by key; a value the user set wins."""
    if not isinstance(current, dict) or not isinstance(ours, dict):
        return current
    merged = dict(current)
    for key, value in ours.items():
        merged[key] = _with_defaults(merged[key], value) if key in merged else value
    return merged


def merge_hooks(current: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """Add our hook entries to a harness's settings, keeping everything already there.

    An entry of ours already there keeps what the user tuned and gains the keys a later
    release added to it (Cursor's `failClosed`, say).
    """
    merged = dict(current)
    hooks = dict(merged.get("hooks") or {})
    for event, entries in ours["hooks"].items():
        existing = list(hooks.get(event) or [])
        mine = [index for index, entry in enumerate(existing) if _ours(entry)]
        if not mine:
            existing += entries
        for index in mine[:1]:
            existing[index] = _with_defaults(existing[index], entries[0])
        hooks[event] = existing
    merged["hooks"] = hooks
    rest = {key: value for key, value in ours.items() if key != "hooks"}
    return _with_defaults(merged, rest)


def remove_hooks(current: dict[str, Any], ours: dict[str, Any] | None = None) -> dict[str, Any]:
    """Take our hook entries out again; events left empty go, and so do keys we added."""
    merged = dict(current)
    hooks = {
        event: [e for e in entries if not _ours(e)]
        for event, entries in (merged.get("hooks") or {}).items()
    }
    merged["hooks"] = {event: entries for event, entries in hooks.items() if entries}
    if not merged["hooks"]:  # no hook left: the settings install added for them go too
        del merged["hooks"]
        for key, value in (ours or {}).items():
            if key != "hooks" and merged.get(key) == value:
                del merged[key]
    return merged


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise AutomatonError("install-failed", f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise AutomatonError("install-failed", f"{path} does not hold a JSON object")
    return data


def _write(path: Path, text: str, mode: int = 0o644) -> bool:
    """Write when the content differs; True when something changed."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


def _bound(config: dict[str, Any]) -> dict[str, Any]:
    """Commands naming our console scripts by absolute path, so a harness whose PATH lacks
    them cannot silently skip the hook (a missing command does not block in most)."""
    text = json.dumps(config)
    for script in ("automaton-hook",):
        path = Path(sys.executable).parent / script
        if path.exists():
            # Harnesses run the command through a shell: the path is quoted for it.
            quoted = json.dumps(shlex.quote(str(path)))[1:-1]
            text = text.replace(f'"{script} ', f'"{quoted} ')
    return json.loads(text)


def _install_opencode(project: Path) -> list[str]:
    plugin = project / OPENCODE_PLUGIN
    if plugin.exists() and not _unchanged_opencode_plugin(plugin):
        return [f"kept {plugin} {KEPT_PLUGIN}"]
    return [f"wrote {plugin}"] if _write(plugin, opencode_plugin()) else []


def _install_harness(project: Path, harness: str) -> list[str]:
    """One harness's hooks merged into its settings, and what the user must still do."""
    if harness == "opencode":
        return _install_opencode(project)
    relative, ours = HARNESS_CONFIGS[harness]
    path = project / relative
    merged = merge_hooks(_read_json(path), _bound(ours))
    if not _write(path, json.dumps(merged, indent=2) + "\n"):
        return []
    done = [f"updated {path}"]
    if harness == "codex":
        done.append(CODEX_TRUST)
    if harness == "gemini" and (merged.get("hooksConfig") or {}).get("enabled") is False:
        done.append(GEMINI_OFF.format(path=path))
    return done


def _install_git_hooks(project: Path) -> list[str]:
    done = []
    folder = _git_hooks_dir(project)
    for name, command in GIT_HOOKS.items():
        hook = folder / name
        if hook.exists() and MARKER not in hook.read_text(errors="replace"):
            done.append(f"kept {hook} (a hook that is not ours; add '{command}' to it)")
            continue
        script = Path(sys.executable).parent / "automaton-git-hook"
        bound = (
            command.replace("automaton-git-hook", shlex.quote(str(script)))
            if script.exists()
            else command
        )
        if _write(hook, f"#!/bin/sh\n{MARKER}\nexec {bound}\n", 0o755):
            done.append(f"wrote {hook}")
    return done


def install(
    project: Path | None, harnesses: Sequence[str], git_hooks: bool, home: Path | None = None
) -> list[str]:
    """Install, reporting one line per file changed (and what the user must still do)."""
    done = []
    script = framework_home(home) / "scripts" / "status.py"
    if script.exists() and MARKER not in script.read_text(encoding="utf-8", errors="replace"):
        done.append(f"kept {script} (not written by automaton-install)")
    elif _write(script, status_script(), 0o755):
        done.append(f"wrote {script}")
    for harness in harnesses:
        if project is None:
            raise AutomatonError("usage", "--harness needs --project DIR.")
        done += _install_harness(project, harness)
    if git_hooks:
        if project is None:
            raise AutomatonError("usage", "--git-hooks needs --project DIR.")
        done += _install_git_hooks(project)
    return done


def uninstall(
    project: Path | None, harnesses: Sequence[str], git_hooks: bool, home: Path | None = None
) -> list[str]:
    """Remove what install added, and nothing else."""
    done = []
    script = framework_home(home) / "scripts" / "status.py"
    shared = script.exists() and MARKER in script.read_text(encoding="utf-8", errors="replace")
    if shared and project is None:  # every project uses it: only a global uninstall removes it
        script.unlink()
        done.append(f"removed {script}")
    for harness in harnesses:
        if project is None:
            raise AutomatonError("usage", "--harness needs --project DIR.")
        if harness == "opencode":
            plugin = project / OPENCODE_PLUGIN
            if plugin.exists() and not _unchanged_opencode_plugin(plugin):
                done.append(f"kept {plugin} {KEPT_PLUGIN}")
            elif plugin.exists():
                plugin.unlink()
                _prune(plugin.parent, project)
                done.append(f"removed {plugin}")
            continue
        path = project / HARNESS_CONFIGS[harness][0]
        if path.exists():
            cleaned = remove_hooks(_read_json(path), HARNESS_CONFIGS[harness][1])
            if cleaned:
                if _write(path, json.dumps(cleaned, indent=2) + "\n"):
                    done.append(f"updated {path}")
            else:
                path.unlink()
                _prune(path.parent, project)
                done.append(f"removed {path}")
    if git_hooks and project is not None:
        folder = _git_hooks_dir(project)
        for name in GIT_HOOKS:
            hook = folder / name
            if hook.exists() and MARKER in hook.read_text(errors="replace"):
                hook.unlink()
                done.append(f"removed {hook}")
    return done


def _prune(folder: Path, stop: Path) -> None:
    """Remove folders install created that are now empty, up to the project."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _git_hooks_dir(project: Path) -> Path:
    """Where git looks for this repository's hooks (a worktree's are shared)."""
    proc = git.run(project, ["rev-parse", "--git-path", "hooks"])
    if proc.returncode != 0:
        raise AutomatonError("install-failed", f"{project} is not a git repository")
    path = Path(proc.stdout.decode("utf-8", errors="surrogateescape").strip())
    return path if path.is_absolute() else project / path


USAGE = """\
usage: automaton-install [--project DIR] [--harness NAME[,NAME...]] [--git-hooks] [--uninstall]

Puts ~/.automaton/scripts/status.py in place (the path agents call status.py by), and
with --project, the hooks of the named harnesses (claude, codex, gemini, cursor,
opencode, or all) and the git hooks into that project: a guard before every edit and
shell command, the workflow's state at every session start (and after compaction), and
the user's `approve TASK` in the chat. Idempotent; --uninstall reverses exactly.
Codex runs the hooks only once you trust them (/hooks).

Examples:
  automaton-install --project . --harness claude --git-hooks
  automaton-install --project . --harness all
  automaton-install --project . --harness all --git-hooks --uninstall
"""


SCRIPT = Script(
    "automaton-install",
    USAGE,
    valued=("--project", "--harness"),
    switches=("--git-hooks", "--uninstall"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-install`."""
    return SCRIPT.run(argv, _run)


def _chosen(value: str) -> list[str]:
    """`--harness a,b` or `all`, each name checked."""
    names = value.split(",")
    harnesses = list(HARNESSES) if names == ["all"] else names
    unknown = [h for h in harnesses if h not in HARNESSES]
    if unknown:
        raise AutomatonError(
            "usage", f"unknown harness {', '.join(unknown)}; choose {', '.join(HARNESSES)} or all"
        )
    return list(dict.fromkeys(harnesses))


def _run(options: dict[str, Any], _words: list[str]) -> int:
    try:
        harnesses = _chosen(str(options["harness"])) if "harness" in options else []
        project = None
        if "project" in options:
            project = Path(str(options["project"])).expanduser().resolve()
            if not project.is_dir():
                raise AutomatonError("usage", f"project folder {project} does not exist")
        action = uninstall if options.get("uninstall") else install
        done = action(project, harnesses, bool(options.get("git-hooks")))
    except AutomatonError as exc:
        sys.stderr.write(exc.text + "\n")
        return 2
    except OSError as exc:
        sys.stderr.write(f"ERROR: {exc.filename or ''}: {exc.strerror or exc}\n")
        return 2
    sys.stdout.write("\n".join(done or ["nothing to change"]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
