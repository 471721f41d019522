"""`automaton-install`: put status.py where agents call it, and the hooks where they fire.

Idempotent (running it twice changes nothing the second time) and reversible
(`--uninstall` removes exactly what it added, leaving the user's own settings). What it
writes into a project names no path of this machine, so a team commits it; the per-user
files (`~/.automaton/scripts/status.py`, the launchers in `~/.automaton/bin`) bind this
machine's installation.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from automaton_rules.cli import install_files
from automaton_rules.cli.install_files import MARKER as MARKER
from automaton_rules.cli.install_files import hook_command
from automaton_rules.core import git
from automaton_rules.core.console import Script
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.project import framework_home

HOOK = "automaton-hook"
# Our hook command: the portable one, or an absolute path an older release wrote (quoted
# for the shell when it had to be: '/my venv/...').
_OUR_HOOK = re.compile(r"automaton-hook'?\s+--harness")

# Claude Code: every tool that can change a file, PowerShell (the main shell on Windows)
# and every MCP tool (the adapter reads which of them write, by name and arguments).
CLAUDE_TOOLS = "Write|Edit|MultiEdit|NotebookEdit|Bash|PowerShell|mcp__.*"
HOOK_TIMEOUT = 10  # seconds: above the adapter's own deadline (guards/harness.py, DEADLINE)
PROMPT_TIMEOUT = 30


def _hook(harness: str, timeout: int, **extra: Any) -> dict[str, Any]:
    command = hook_command(HOOK, "--harness", harness)
    return {**extra, "type": "command", "command": command, "timeout": timeout}


def _claude(timeout: int = HOOK_TIMEOUT) -> dict[str, Any]:
    """A Claude Code hook that blocks when it cannot run, fails or times out (`onFailure`,
    Claude Code 2.1.295; earlier releases ignore the key, and the lookup fails closed)."""
    return _hook("claude", timeout, onFailure="block")


def _cursor(**extra: Any) -> dict[str, Any]:
    return {"command": hook_command(HOOK, "--harness", "cursor"), **extra}


# The agent ends its turn: the hook may wait for the person's decision on a task at its
# gate (guards/stop.py), up to `stop-wait-seconds` (3000 at most), within this limit.
STOP_TIMEOUT = 3600
# A Stop hook that cannot run must let the agent stop: on this event an exit 2 (the
# portable command's answer when automaton-hook is not installed) would make it go on.
_LETS_STOP = " || true"


def _stop(harness: str, timeout: int, **extra: str) -> dict[str, Any]:
    """A Stop hook: no `onFailure` (one that cannot run lets the agent stop), and a
    command that ends in exit 0 whatever it met."""
    hook = _hook(harness, timeout, **extra)
    return {**hook, "command": hook["command"] + _LETS_STOP}


# The configuration each harness reads, as integrations/ ships it. Session events have no
# matcher: every start (a fork, a compaction, whatever comes next) gets the workflow.
HARNESS_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "claude": (
        ".claude/settings.json",
        {
            "hooks": {
                "PreToolUse": [{"matcher": CLAUDE_TOOLS, "hooks": [_claude()]}],
                "SessionStart": [{"hooks": [_claude()]}],
                "SubagentStart": [{"hooks": [_claude()]}],
                # A settings file changed mid-session: refused if it would stop the hooks.
                "ConfigChange": [{"hooks": [_claude()]}],
                # No matcher: this event takes none. `approve TASK` typed by the user.
                "UserPromptSubmit": [{"hooks": [_claude(PROMPT_TIMEOUT)]}],
                "Stop": [{"hooks": [_stop("claude", STOP_TIMEOUT)]}],
            }
        },
    ),
    "codex": (
        ".codex/hooks.json",
        {
            "hooks": {
                "PreToolUse": [{"matcher": "*", "hooks": [_hook("codex", HOOK_TIMEOUT)]}],
                "SessionStart": [{"hooks": [_hook("codex", HOOK_TIMEOUT)]}],
                "SubagentStart": [{"hooks": [_hook("codex", HOOK_TIMEOUT)]}],
                "UserPromptSubmit": [{"hooks": [_hook("codex", PROMPT_TIMEOUT)]}],
                "Stop": [{"hooks": [_stop("codex", STOP_TIMEOUT)]}],
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
                        "matcher": "write_file|replace|run_shell_command|mcp_.*",
                        "hooks": [_hook("gemini", HOOK_TIMEOUT * 1000, name="automaton-guard")],
                    }
                ],
                # Gemini matches lifecycle events by exact name: no matcher, every start.
                "SessionStart": [
                    {"hooks": [_hook("gemini", HOOK_TIMEOUT * 1000, name="automaton-context")]}
                ],
                "BeforeAgent": [
                    {"hooks": [_hook("gemini", PROMPT_TIMEOUT * 1000, name="automaton-approval")]}
                ],
                "AfterAgent": [
                    {"hooks": [_stop("gemini", STOP_TIMEOUT * 1000, name="automaton-decision")]}
                ],
            },
        },
    ),
    "cursor": (
        ".cursor/hooks.json",
        {
            "version": 1,
            "hooks": {
                # failClosed: a hook that crashes or times out blocks instead of allowing.
                "beforeShellExecution": [_cursor(failClosed=True)],
                "beforeMCPExecution": [_cursor(failClosed=True)],
                "preToolUse": [_cursor(matcher="Write|Edit|StrReplace|Delete", failClosed=True)],
                "sessionStart": [_cursor()],
                # As Cursor's own cookbook has it: a prompt hook that fails holds the message.
                "beforeSubmitPrompt": [_cursor(failClosed=True)],
                # Not failClosed: a stop hook that fails lets the agent stop.
                "stop": [{**_cursor(), "command": _cursor()["command"] + _LETS_STOP}],
            },
        },
    ),
}
# Matchers earlier releases wrote, which today's replace on upgrade (a matcher the user
# wrote stays): session events used to name their sources, tool hooks fewer tools.
RETIRED_MATCHERS: dict[str, frozenset[str]] = {
    "SessionStart": frozenset({"startup|resume|clear|compact"}),
    "PreToolUse": frozenset({"Write|Edit|MultiEdit|NotebookEdit|Bash"}),
    "BeforeTool": frozenset({"write_file|replace|run_shell_command"}),
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


def opencode_plugin() -> str:
    """The packaged plugin under a first line recording its digest, so a copy the user
    changed afterwards is recognised as theirs and never overwritten or removed."""
    packaged = resources.files("automaton_rules.guards").joinpath("opencode_plugin.js")
    body = packaged.read_text("utf-8")
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


def _commands(entry: Any) -> list[str]:
    """The commands in a hook entry, at any depth (Cursor's are on the entry itself)."""
    if isinstance(entry, dict):
        own = [entry["command"]] if isinstance(entry.get("command"), str) else []
        return own + [c for value in entry.values() for c in _commands(value)]
    if isinstance(entry, list):
        return [c for item in entry for c in _commands(item)]
    return []


def _upgraded(entry: Any, command: str) -> Any:
    """`entry` with each command of ours (an older release's absolute path too) replaced by
    today's portable `command`; what the user tuned around it stays."""
    if isinstance(entry, list):
        return [_upgraded(item, command) for item in entry]
    if not isinstance(entry, dict):
        return entry
    found = entry.get("command")
    return {
        key: command
        if key == "command" and isinstance(found, str) and _OUR_HOOK.search(found)
        else _upgraded(value, command)
        for key, value in entry.items()
    }


def _unretired(entry: Any, ours: dict[str, Any], event: str) -> Any:
    """`entry` with a matcher an earlier release wrote replaced by today's (or dropped)."""
    if not isinstance(entry, dict) or entry.get("matcher") not in RETIRED_MATCHERS.get(event, ()):
        return entry
    kept = {key: value for key, value in entry.items() if key != "matcher"}
    return {**kept, "matcher": ours["matcher"]} if "matcher" in ours else kept


def merge_hooks(current: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """Add our hook entries to a harness's settings, keeping everything already there.

    An entry of ours already there keeps what the user tuned and gains the keys a later
    release added to it (Cursor's `failClosed`, say); its command becomes today's, so a
    file an older release wrote with an absolute path is upgraded, not given a second entry.
    """
    merged = dict(current)
    hooks = dict(merged.get("hooks") or {})
    for event, entries in ours["hooks"].items():
        existing = list(hooks.get(event) or [])
        mine = [index for index, entry in enumerate(existing) if _ours(entry)]
        if not mine:
            existing += entries
        for index in mine[:1]:
            command = _commands(entries[0])[0]
            entry = _unretired(existing[index], entries[0], event)
            existing[index] = _upgraded(_with_defaults(entry, entries[0]), command)
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


def _done(path: Path, existed: bool) -> str:
    """One line of the installer's report: a file it made, or one it changed."""
    return f"{'updated' if existed else 'created'} {path}"


def _install_opencode(project: Path) -> list[str]:
    plugin = project / OPENCODE_PLUGIN
    existed = plugin.exists()
    if existed and not _unchanged_opencode_plugin(plugin):
        return [f"kept {plugin} {KEPT_PLUGIN}"]
    return [_done(plugin, existed)] if _write(plugin, opencode_plugin()) else []


def _install_harness(project: Path, harness: str) -> list[str]:
    """One harness's hooks merged into its settings, and what the user must still do."""
    if harness == "opencode":
        return _install_opencode(project)
    relative, ours = HARNESS_CONFIGS[harness]
    path = project / relative
    existed = path.exists()
    merged = merge_hooks(_read_json(path), ours)
    if not _write(path, json.dumps(merged, indent=2) + "\n"):
        return []
    done = [_done(path, existed)]
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
        existed = hook.exists()
        if existed and MARKER not in hook.read_text(errors="replace"):
            done.append(f"kept {hook} (a hook that is not ours; add '{command}' to it)")
            continue
        if _write(hook, install_files.git_hook_script(command), 0o755):
            done.append(_done(hook, existed))
    return done


def _ours_in_file(path: Path) -> bool:
    """A per-user file automaton-install wrote (it is removed only then)."""
    return path.exists() and MARKER in path.read_text(encoding="utf-8", errors="replace")


def _per_user_files(home: Path | None) -> list[tuple[Path, str | None]]:
    """`~/.automaton/scripts/status.py` and the launchers, with what each should hold."""
    files: list[tuple[Path, str | None]] = [
        (framework_home(home) / "scripts" / "status.py", status_script())
    ]
    for tool in install_files.LAUNCHED:
        files.append((install_files.launcher_path(home, tool), install_files.launcher(tool)))
    return files


def _install_per_user(home: Path | None) -> list[str]:
    done = []
    for path, text in _per_user_files(home):
        if text is None:
            continue
        existed = path.exists()
        if existed and not _ours_in_file(path):
            done.append(f"kept {path} (not written by automaton-install)")
        elif _write(path, text, 0o755):
            done.append(_done(path, existed))
    return done


def _install_sections(project: Path, harnesses: Sequence[str]) -> list[str]:
    """The agent instructions of each harness, and `.automaton/.gitignore`."""
    sections = {
        install_files.INSTRUCTION_FILE[h]: install_files.instructions_section() for h in harnesses
    }
    sections[install_files.GITIGNORE] = install_files.gitignore_section()
    done = []
    for relative, text in sections.items():
        path = project / relative
        existed = path.exists()
        if install_files.add_section(path, text):
            done.append(_done(path, existed))
    return done


def install(
    project: Path | None, harnesses: Sequence[str], git_hooks: bool, home: Path | None = None
) -> list[str]:
    """Install, reporting one line per file changed (and what the user must still do)."""
    if project is None and (harnesses or git_hooks):
        what = "--harness" if harnesses else "--git-hooks"
        raise AutomatonError("usage", f"{what} needs --project DIR.")
    if project is not None:
        _preflight(project, harnesses, git_hooks)
    done = _install_per_user(home)
    if project is None:
        return done
    tasks = project / ".automaton" / "tasks"
    if not tasks.is_dir():  # the project is one from now on: it audits clean, with no task
        tasks.mkdir(parents=True)
        done.append(f"created {tasks}{os.sep}")
    for harness in harnesses:
        done += _install_harness(project, harness)
    done += _install_sections(project, harnesses)
    if git_hooks:
        done += _install_git_hooks(project)
    done += _install_configuration(project)
    return done + _linked_guard_files(project, home)


CONFIGURATION = """\
# automaton-rules: the workflow's configuration (docs: README, "Configuration").
# Every key has a default; this file exists so that no agent can create one that takes
# over, and so that the sandbox keeps it read-only (docs/sandbox.md).
"""


def _install_configuration(project: Path) -> list[str]:
    """`automaton.toml` where the project has no configuration at all: one that did not
    exist is one that code in an edit phase could create (docs/sandbox.md)."""
    from automaton_rules.core.config import CONFIG_FILE, find_config

    if find_config(project) is not None:
        return []
    _write(project / CONFIG_FILE, CONFIGURATION)
    return [f"wrote {project / CONFIG_FILE}"]


def _linked_guard_files(project: Path, home: Path | None) -> list[str]:
    """A warning for each guard file with a second hard link: a link made before the guard
    was installed reaches the file from anywhere, the sandbox's read-only mounts and
    Landlock's rules notwithstanding (the audit reports it too, AR504)."""
    from automaton_rules.core import guard_files

    found = [project / relpath for relpath in guard_files.project_guard_paths()]
    found += [project / guard_files.DEFAULT_SIGNERS, framework_home(home) / "scripts/status.py"]
    warnings = []
    for path in found:
        try:
            links = path.lstat().st_nlink if path.is_file() and not path.is_symlink() else 1
        except OSError:
            continue
        if links > 1:
            warnings.append(
                f"warning: {path} has {links} hard links; remove the others (find / -xdev "
                f"-samefile {path}): through them it can be changed from anywhere"
            )
    return warnings


def _preflight(project: Path, harnesses: Sequence[str], git_hooks: bool) -> None:
    """Every reason to stop, found before anything is written: an unreadable settings
    file, a section the installer cannot find the end of, no git repository."""
    for harness in harnesses:
        if harness != "opencode":
            _read_json(project / HARNESS_CONFIGS[harness][0])
    files = {install_files.INSTRUCTION_FILE[h] for h in harnesses} | {install_files.GITIGNORE}
    for relative in sorted(files):
        install_files.check_section(project / relative)
    if git_hooks:
        _git_hooks_dir(project)


def _installed(project: Path, harness: str) -> bool:
    """Whether the project runs our hooks for `harness`."""
    if harness == "opencode":
        plugin = project / OPENCODE_PLUGIN
        return plugin.exists() and _unchanged_opencode_plugin(plugin)
    path = project / HARNESS_CONFIGS[harness][0]
    try:
        hooks = _read_json(path).get("hooks")
    except AutomatonError:
        return True  # unreadable: keep what it may need
    return isinstance(hooks, dict) and any(_ours(entries) for entries in hooks.values())


def _uninstall_harness(project: Path, harness: str) -> list[str]:
    if harness == "opencode":
        plugin = project / OPENCODE_PLUGIN
        if plugin.exists() and not _unchanged_opencode_plugin(plugin):
            return [f"kept {plugin} {KEPT_PLUGIN}"]
        if not plugin.exists():
            return []
        plugin.unlink()
        _prune(plugin.parent, project)
        return [f"removed {plugin}"]
    path = project / HARNESS_CONFIGS[harness][0]
    if not path.exists():
        return []
    cleaned = remove_hooks(_read_json(path), HARNESS_CONFIGS[harness][1])
    if cleaned:
        return [f"updated {path}"] if _write(path, json.dumps(cleaned, indent=2) + "\n") else []
    path.unlink()
    _prune(path.parent, project)
    return [f"removed {path}"]


def _our_git_hooks(project: Path) -> list[Path]:
    proc = git.run(project, ["rev-parse", "--git-dir"])
    if proc.returncode != 0:
        return []
    folder = _git_hooks_dir(project)
    return [folder / name for name in GIT_HOOKS if _ours_in_file(folder / name)]


def _uninstall_sections(project: Path) -> list[str]:
    """The sections no harness still installed reads, and `.automaton/.gitignore`'s once
    nothing of ours is left in the project."""
    remaining = [h for h in HARNESSES if _installed(project, h)]
    needed = {install_files.INSTRUCTION_FILE[h] for h in remaining}
    if remaining or _our_git_hooks(project):
        needed.add(install_files.GITIGNORE)
    done = []
    files = [*dict.fromkeys(install_files.INSTRUCTION_FILE.values()), install_files.GITIGNORE]
    for relative in files:
        if relative in needed:
            continue
        path = project / relative
        what = install_files.remove_section(path)
        if what is not None:
            done.append(f"{what} {path}")
            _prune(path.parent, project)
    return done


def uninstall(
    project: Path | None, harnesses: Sequence[str], git_hooks: bool, home: Path | None = None
) -> list[str]:
    """Remove what install added, and nothing else."""
    if project is None and harnesses:
        raise AutomatonError("usage", "--harness needs --project DIR.")
    done = []
    if project is None:  # every project uses them: only a global uninstall removes them
        for path, _ in _per_user_files(home):
            if _ours_in_file(path):
                path.unlink()
                done.append(f"removed {path}")
        return done
    for harness in harnesses:
        done += _uninstall_harness(project, harness)
    config = project / "automaton.toml"
    if config.is_file() and config.read_text(encoding="utf-8", errors="replace") == CONFIGURATION:
        config.unlink()  # as install wrote it: the user never made it theirs
        done.append(f"removed {config}")
    if git_hooks:
        for hook in _our_git_hooks(project):
            hook.unlink()
            done.append(f"removed {hook}")
    return done + _uninstall_sections(project)


def _prune(folder: Path, stop: Path) -> None:
    """Remove folders install created that are now empty, up to the project."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _git_hooks_dir(project: Path) -> Path:
    """Where git looks for this repository's hooks: `core.hooksPath` when it is set, else
    `.git/hooks` (a worktree's are shared)."""
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
the user's `approve TASK` in the chat. The project's files name no path of this machine,
so a team commits them; a per-user launcher in ~/.automaton/bin finds this installation.
It also adds a workflow section to CLAUDE.md, AGENTS.md or GEMINI.md, and
.automaton/.gitignore for temporary files. Idempotent; --uninstall reverses exactly.
Codex runs the hooks only once you trust them (/hooks). See docs/adopting.md.

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
