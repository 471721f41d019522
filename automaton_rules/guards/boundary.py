"""The write boundary of the agent's shell: what it may write now, derived from the phase.

Reads are not limited. Writes are an allow-list: a temporary folder, the caches package
managers and test runners keep, the folders the project's `sandbox-writable` names, and in
an edit phase (as `--can-edit` decides it) the project. Inside those, the guard's own
files stay read-only in every phase: the configuration, the task records, the harness
settings, git's hooks and configuration, the signers file, the rule plugins, the pre-commit
configuration, the installation that runs the hooks and every folder on `PATH` (a program
planted there would run as the user, outside any sandbox). Everything else on the machine,
the home folder's start-up and tool settings included, is read-only because it is not on
the list. Only existing paths are listed: the mechanisms bind or open what is there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT, Config
from automaton_rules.core.guard_files import HARNESS_FILES, HARNESS_FOLDERS, PRE_COMMIT_CONFIG
from automaton_rules.core.project import FRAMEWORK_HOME, Project, inside
from automaton_rules.guards import checks, protected
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# Folders of the home folder that package managers and test runners write as caches.
CACHES = (
    ".cache",
    ".npm",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".yarn/berry/cache",
    ".local/share/pnpm/store",
    ".bun/install/cache",
    ".deno",
)
# Inside a cache, what runs as the user later: pre-commit's hook environments.
CACHED_CODE = (".cache/pre-commit",)
# A project's own files that are harness settings, beside the folders guard_files names.
HARNESS_ROOT_FILES = ("opencode.json", "opencode.jsonc")
TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
# In each git folder: the configuration (which can name programs git runs) and the hooks.
GIT_SETTINGS = ("config", "hooks")


class Boundary(Record):
    """Where the agent's shell may write: `writable` trees, less `readonly` paths in them."""

    _fields = ("project", "editing", "writable", "readonly", "temp")
    project: Path  # the project's root, resolved
    editing: bool  # the phase lets code be edited: the project is writable
    writable: tuple[Path, ...]  # existing folders whose trees may be written, outermost first
    readonly: tuple[Path, ...]  # existing paths inside those that stay read-only, the same
    temp: Path  # the temporary folder commands are given (TMPDIR)

    def __init__(
        self,
        project: Path,
        editing: bool,
        writable: tuple[Path, ...],
        readonly: tuple[Path, ...],
        temp: Path,
    ) -> None:
        self._init(project, editing, writable, readonly, temp)

    def allows(self, path: Path) -> bool:
        """Whether a write to `path` (resolved) is inside the boundary: the deepest of the
        writable and read-only paths holding it decides."""
        holding = [(len(p.parts), True) for p in self.writable if inside(path, p)]
        holding += [(len(p.parts), False) for p in self.readonly if inside(path, p)]
        return bool(holding) and max(holding)[1]


def compute(
    project: Project,
    settings: Config,
    task: str | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Boundary:
    """The boundary of the project's current state, its phase decided as `--can-edit`."""
    environ = os.environ if environ is None else environ
    home = (home or Path.home()).resolve()
    root = project.root.resolve()
    editing = checks.can_edit(project, task, None, cwd=cwd, first=True).allowed
    temp = _temporary(environ)
    writable = [*temp, Path("/dev"), *_existing(home / cache for cache in CACHES)]
    writable += _existing(settings.writable(root))
    if editing:  # the project, and its git folder wherever it is (a worktree's is outside)
        writable += [root, *protected.git_folders(root)]
    # The home folder itself: where it lies inside a temporary folder (a test, a container),
    # its start-up files stay read-only all the same, its caches writable.
    kept = [home, *_existing(home / code for code in CACHED_CODE), *_installation(root, environ)]
    kept += _guard_paths(project, settings) if editing else [root]
    roots = _existing(writable)
    readonly = [path for path in _existing(kept) if any(inside(path, r) for r in roots)]
    return Boundary(
        root, editing, _by_depth(roots), _by_depth(readonly), temp[0] if temp else Path("/tmp")
    )


def _temporary(environ: Mapping[str, str]) -> list[Path]:
    """The temporary folders: TMPDIR first (what commands are told to use), then the
    system's, and the user's runtime folder (sockets, locks)."""
    named = [environ.get("TMPDIR", ""), *TEMPORARY, environ.get("XDG_RUNTIME_DIR", "")]
    return _existing(Path(path) for path in named if path)


def _guard_paths(project: Project, settings: Config) -> list[Path]:
    """The guard's own files and folders in and around the project, where they may be."""
    root = project.root.resolve()
    found = [root / FRAMEWORK_HOME, root / CONFIG_FILE, root / PRE_COMMIT_CONFIG]
    found += [root / folder for folder in HARNESS_FOLDERS]
    found += [root / name for name in HARNESS_FILES]
    found += [root / ".claude", root / ".codex", root / ".gemini", root / ".cursor"]
    found += [root / name for name in HARNESS_ROOT_FILES]
    found += protected.hooks_paths(root)
    found += [folder / name for folder in protected.git_folders(root) for name in GIT_SETTINGS]
    found.append(protected.signers_file(project, settings))
    found += protected.plugin_files(settings)
    if settings.path is not None:
        found.append(settings.path.resolve())
    if settings.path is None or settings.path.name == PYPROJECT:
        found.append(root / PYPROJECT)  # it holds the configuration, or could
    return found


def _installation(root: Path, environ: Mapping[str, str]) -> list[Path]:
    """What runs the guard and the user's programs: this Python's environment, the
    interpreter it runs, the package (unless it is a source checkout being worked on, which
    is the project's code), and every folder on PATH."""
    found = [Path(sys.prefix), Path(sys.executable).resolve().parent]
    package = Path(__file__).resolve().parent.parent
    if not inside(package, root):
        found.append(package)
    found += [Path(entry) for entry in environ.get("PATH", "").split(os.pathsep) if entry]
    return found


def _existing(paths: Iterable[Path]) -> list[Path]:
    """The paths that exist, resolved, once each, in order. Most candidates (the guard
    files a project may have) do not exist: one `lstat` skips them before resolving,
    which walks every part of the path."""
    seen: dict[Path, None] = {}
    for path in paths:
        if ".." not in path.parts and not os.path.lexists(path):
            continue
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):
            continue
        if os.path.lexists(resolved):
            seen.setdefault(resolved, None)
    return list(seen)


def _by_depth(paths: list[Path]) -> tuple[Path, ...]:
    """The paths, outermost first: a mechanism that applies them in order (bubblewrap's
    mounts) lets a deeper path override the one around it."""
    return tuple(sorted(set(paths), key=lambda path: (len(path.parts), str(path))))
