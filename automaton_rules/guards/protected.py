"""The guard's own files: what no agent may change, in any phase, by any tool.

The configuration, the harness settings that run the hooks, the git hooks and what
decides which run, the task records under `.automaton/` and the installed `status.py`.
An agent that could rewrite one of these could switch the guard off, so every edit tool
and every shell write is held to this list before the phase is even asked. A person
changes them freely (the git pre-commit hook does not count them as source code), and
the audit reports every commit that does.

This is on the edit-time path: it reads at most `.git/config`, with no git process.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT
from automaton_rules.core.project import FRAMEWORK_HOME, Project, framework_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.core.config import Config

# Settings that decide whether an agent harness runs the hooks, relative to the project
# and to the home folder alike: the installer writes the first of each, and the others
# can switch hooks off (Claude Code's `disableAllHooks`, a local override, a plugin folder).
HARNESS_FILES: tuple[str, ...] = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".cursor/cli.json",
    "opencode.json",
    "opencode.jsonc",
    ".config/opencode/opencode.json",
)
HARNESS_FOLDERS: tuple[str, ...] = (".opencode/plugin", ".opencode/plugins", ".config/opencode")
INSTALLED_SCRIPT = ("scripts", "status.py")
DEFAULT_SIGNERS = f"{FRAMEWORK_HOME}/allowed_signers"

CONFIGURATION = "the workflow's configuration"
TOOL_TABLE = "the workflow's configuration ([tool.automaton] of pyproject.toml)"
HARNESS = "a harness setting that runs the workflow's hooks"
GIT_HOOKS = "where git's hooks live or which run"
RECORDS = "the workflow's own records under .automaton/"
SIGNERS = "the approval signers file"
SCRIPT = "the installed status.py"

_HOOKS_PATH = re.compile(r"^\s*hookspath\s*=\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _repository(start: Path) -> tuple[Path, Path] | None:
    """(work tree top, git folder) of the repository holding `start`, read from disk."""
    for folder in (start, *start.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return folder, marker
        if marker.is_file():  # a worktree or submodule: `gitdir: PATH`
            try:
                text = marker.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                gitdir = Path(text[len("gitdir:") :].strip())
                return folder, (gitdir if gitdir.is_absolute() else folder / gitdir).resolve()
            return None
    return None


def hooks_paths(root: Path) -> list[Path]:
    """Every folder git may take hooks from: `.git/hooks` and what `core.hooksPath` names."""
    found = _repository(root)
    if found is None:
        return []
    top, gitdir = found
    folders = [gitdir / "hooks"]
    for config in {gitdir / "config", gitdir.parent / "config"}:  # a worktree's common dir
        try:
            text = config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for value in _HOOKS_PATH.findall(text):
            named = Path(os.path.expanduser(value.strip().strip('"')))
            folders.append((named if named.is_absolute() else top / named).resolve())
    return folders


def _in_git_folder(root: Path, target: Path) -> bool:
    found = _repository(root)
    return found is not None and _inside(target, found[1].resolve())


def _harness_file(target: Path, bases: tuple[Path, ...]) -> bool:
    for base in bases:
        if any(target == base / name for name in HARNESS_FILES):
            return True
        if any(_inside(target, base / name) for name in HARNESS_FOLDERS):
            return True
    return False


def reason(
    project: Project, target: Path, settings: Config | None = None, home: Path | None = None
) -> str | None:
    """What guard file `target` (resolved) is, or None when it is not one.

    Files under `.automaton/` count, task artifacts included: whether a task's own
    artifact may be written in its phase is the caller's next question.
    """
    root = project.root.resolve()
    home = (home or Path.home()).resolve()
    fw = framework_home(home).resolve()
    if target == fw.joinpath(*INSTALLED_SCRIPT):
        return SCRIPT
    if settings is not None and settings.path is not None and target == settings.path.resolve():
        return CONFIGURATION
    if target == root / CONFIG_FILE:
        return CONFIGURATION
    if settings is not None and target == signers_file(project, settings):
        return SIGNERS
    if _harness_file(target, (root, home)):
        return HARNESS
    if _in_git_folder(root, target) or any(_inside(target, f) for f in hooks_paths(root)):
        return GIT_HOOKS
    if _inside(target, (root / FRAMEWORK_HOME).resolve()) and not _inside(root, fw):
        return RECORDS
    return None


def signers_file(project: Project, settings: Config) -> Path:
    """The allowed-signers file: the configured one, else `.automaton/allowed_signers`."""
    configured = getattr(settings, "allowed_signers", None)
    if configured:
        path = Path(configured).expanduser()
        base = settings.path.parent if settings.path is not None else project.root
        return (path if path.is_absolute() else base / path).resolve()
    return (project.root / DEFAULT_SIGNERS).resolve()


def is_pyproject(project: Project, target: Path) -> bool:
    """The project's pyproject.toml: its `[tool.automaton]` table is the guard's."""
    return target == project.root.resolve() / PYPROJECT


def tool_table(text: str) -> object:
    """The `[tool.automaton]` table of a pyproject.toml's text; unreadable text is itself
    a value, so a change that breaks the file counts as a change to the table."""
    from automaton_rules.core.config import toml_module

    try:
        data = toml_module().loads(text)
    except Exception:
        return ("unreadable", text)
    tool = data.get("tool")
    return tool.get("automaton") if isinstance(tool, dict) else None


def denial(shown: str, what: str) -> str:
    """The refusal an agent reads: which file, whose it is, who changes it."""
    return f"DENIED: {shown} is {what}; only the user changes it."
