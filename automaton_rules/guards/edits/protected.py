"""The guard's own files: what no agent may change, in any phase, by any tool.

The configuration, the harness settings that run the hooks, the git hooks and what
decides which run, the task records under `.automaton/`, the installed `status.py`, and
the guard's own program (its package, its console scripts, Python's start-up hooks).
An agent that could rewrite one of these could switch the guard off, so every edit tool
and every shell write is held to this list before the phase is even asked. A person
changes them freely (the git pre-commit hook does not count them as source code), and
the audit reports every commit that does.

This is on the edit-time path: it reads at most `.git/config`, with no git process.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT

# The names live in the core, where the audit reads them too; these are named through here.
from automaton_rules.core.guard_files import CONFIGURATION as CONFIGURATION
from automaton_rules.core.guard_files import GIT_HOOKS as GIT_HOOKS
from automaton_rules.core.guard_files import HARNESS as HARNESS
from automaton_rules.core.guard_files import HARNESS_FILES as HARNESS_FILES
from automaton_rules.core.guard_files import HARNESS_FOLDERS as HARNESS_FOLDERS
from automaton_rules.core.guard_files import PLUGIN as PLUGIN
from automaton_rules.core.guard_files import (
    PRE_COMMIT_CONFIG,
    PROGRAMS,
    STARTUP_FILES,
    named_relpaths,
)
from automaton_rules.core.guard_files import PROGRAM as PROGRAM
from automaton_rules.core.guard_files import RECORDS as RECORDS
from automaton_rules.core.guard_files import SCRIPT as SCRIPT
from automaton_rules.core.guard_files import SIGNERS as SIGNERS
from automaton_rules.core.guard_files import TOOL_TABLE as TOOL_TABLE
from automaton_rules.core.guard_files import signers_file as signers_file
from automaton_rules.core.guard_files import tool_table as tool_table
from automaton_rules.core.project import FRAMEWORK_HOME, Project, framework_home, inside
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from automaton_rules.core.config import Config

INSTALLED_SCRIPT = ("scripts", "status.py")

_HOOKS_PATH = Lazy(r"^\s*hookspath\s*=\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


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


def git_folders(root: Path) -> list[Path]:
    """The git folder of the repository holding `root`, and for a worktree its common
    folder too (where the hooks and the shared configuration are); none outside one."""
    found = _repository(root)
    if found is None:
        return []
    gitdir = found[1].resolve()
    folders = [gitdir]
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        common = ""
    if common:
        folders.append((gitdir / common).resolve())
    return folders


def hooks_paths(root: Path) -> list[Path]:
    """Every folder git may take hooks from: `.git/hooks` and what `core.hooksPath` names."""
    found = _repository(root)
    if found is None:
        return []
    top, gitdir = found
    folders = [gitdir / "hooks"]
    configs = {gitdir / "config", gitdir.parent / "config"}  # a worktree's common dir too
    for named in setting_paths(configs, _HOOKS_PATH):
        folders.append((named if named.is_absolute() else top / named).resolve())
    return folders


def setting_paths(configs: Iterable[Path], pattern: Lazy) -> Iterator[Path]:
    """Each path a git setting names in these files (`pattern` finds its values), `~`
    expanded; a file that cannot be read names none."""
    for config in configs:
        try:
            text = config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for value in pattern.findall(text):
            yield Path(os.path.expanduser(value.strip().strip('"')))


def _in_git_folder(root: Path, target: Path) -> bool:
    found = _repository(root)
    return found is not None and inside(target, found[1].resolve())


def _harness_file(target: Path, bases: tuple[Path, ...]) -> bool:
    for base in bases:
        if any(target == base / name for name in HARNESS_FILES):
            return True
        if any(inside(target, base / name) for name in HARNESS_FOLDERS):
            return True
    return _copilot_file(target)


def copilot_home(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where COPILOT_HOME moves GitHub Copilot CLI's `~/.copilot`, resolved; None unmoved."""
    moved = (os.environ if environ is None else environ).get("COPILOT_HOME")
    return Path(os.path.expanduser(moved)).resolve() if moved else None


def copilot_paths() -> list[Path]:
    """GitHub Copilot CLI's hooks and settings where COPILOT_HOME moves `~/.copilot`: its
    hooks reference loads the user's hooks from `$COPILOT_HOME/hooks/` when it is set."""
    folder = copilot_home()
    if folder is None:
        return []
    inner = ".copilot/"
    named = (*HARNESS_FILES, *HARNESS_FOLDERS)
    return [folder / name[len(inner) :] for name in named if name.startswith(inner)]


def _copilot_file(target: Path) -> bool:
    return any(inside(target, path) for path in copilot_paths())


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
    if _configuration_file(target, settings) or _searched_configuration(root, target):
        return CONFIGURATION
    if settings is not None and target in plugin_files(settings):
        return PLUGIN
    if settings is not None and target == signers_file(project, settings):
        return SIGNERS
    if _harness_file(target, (root, home)):
        return HARNESS
    if _in_git_folder(root, target) or any(inside(target, f) for f in hooks_paths(root)):
        return GIT_HOOKS
    if target == root / PRE_COMMIT_CONFIG:
        return GIT_HOOKS
    if inside(target, (root / FRAMEWORK_HOME).resolve()) and not inside(root, fw):
        return RECORDS
    if _guard_program(root, target):
        return PROGRAM
    return None


def _guard_program(root: Path, target: Path) -> bool:
    """The guard's installed code, the console scripts that run it, and Python's start-up
    hooks: rewritten, they switch the adapter off for every later command. The package's
    own source, when it is the project being worked on, is the project's code."""
    if target.name in PROGRAMS and not inside(target, root):
        return True
    if target.suffix == ".pth" or target.name in STARTUP_FILES:
        return True
    if target in interpreters():
        return True
    package = Path(__file__).resolve().parent.parent
    return inside(target, package) and not inside(package, root)


@functools.lru_cache(maxsize=1)
def interpreters() -> frozenset[Path]:
    """Every file the hooks' interpreter is reached through: each `python*` of this
    environment, every link on the way from it (or from `sys.executable`) to the program,
    the program, and `pyvenv.cfg`. A link replaced (`ln -sf /bin/true VENV/bin/python3`)
    makes every later hook exit 0 having said nothing."""
    prefix = Path(sys.prefix)
    found = {prefix / "pyvenv.cfg"}
    starts = [Path(sys.executable), *(prefix / "bin").glob("python*")]
    for start in starts:
        hop, seen = start.absolute(), 0
        while seen < 40:  # as many links as the kernel follows
            found.add(hop.parent.resolve() / hop.name)
            if not hop.is_symlink():
                break
            hop, seen = hop.parent / os.readlink(hop), seen + 1
        found.add(start.resolve())
    return frozenset(found)


def _searched_configuration(root: Path, target: Path) -> bool:
    """An `automaton.toml` where the configuration search looks: the project's folder and
    those above it up to the repository's top, so none can be made to take over."""
    if target.name != CONFIG_FILE:
        return False
    for folder in (root, *root.parents):
        if target.parent == folder:
            return True
        if (folder / ".git").exists():
            return False
    return False


def plugin_files(settings: Config) -> list[Path]:
    """The `.py` files the configuration loads as plugins: their code runs in every
    command, the user's `--approve` included."""
    base = settings.path.parent if settings.path is not None else None
    files = []
    for spec in settings.plugins:
        if spec.endswith(".py") or "/" in spec or "\\" in spec:
            path = Path(spec).expanduser()
            if not path.is_absolute() and base is not None:
                path = base / path
            files.append(path.resolve())
    return files


def _configuration_file(target: Path, settings: Config | None) -> bool:
    """The file the configuration was read from, unless it is a pyproject.toml: only that
    file's `[tool.automaton]` table is the guard's (see `is_pyproject`)."""
    if settings is None or settings.path is None or settings.path.name == PYPROJECT:
        return False
    return target == settings.path.resolve()


def is_pyproject(project: Project, target: Path, settings: Config | None = None) -> bool:
    """The project's pyproject.toml, or the one the configuration came from: its
    `[tool.automaton]` table is the guard's, the rest of it is source."""
    if target == project.root.resolve() / PYPROJECT:
        return True
    path = None if settings is None else settings.path
    return path is not None and path.name == PYPROJECT and target == path.resolve()


def denial(shown: str, what: str) -> str:
    """The refusal an agent reads: which file, whose it is, who changes it."""
    return f"DENIED: File '{shown}' is {what}; only the user changes it."


def guard_relpaths(project: Project, settings: Config | None = None) -> dict[str, str]:
    """The guard's files the settings and `.git/config`'s hooks paths name, relative to the
    project, for `kind_of_relpath`: git's paths (staged, committed) name no file on disk."""
    return named_relpaths(project, settings, hooks_paths(project.root.resolve()))
