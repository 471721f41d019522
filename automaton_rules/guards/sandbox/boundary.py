"""The boundary of the agent's shell: what it may write, read and reach now, from the phase.

Writes are an allow-list: the sandbox's private temporary folder and the system's, a few
device files, the caches package managers and test runners keep, the folders the
project's `sandbox-writable` names, and in an edit phase (as `--can-edit` decides it) the
project. Inside those, the guard's own files stay read-only in every phase: the
configuration, the task records, the harness settings, git's hooks and configuration, the
signers file, the rule plugins, the pre-commit configuration, the installation that runs
the hooks and every folder on `PATH` (a program planted there would run as the user,
outside any sandbox). Everything else on the machine, the home folder's start-up and tool
settings included, is read-only because it is not on the list.

Reads are allowed but for the secrets (`hidden`): private SSH keys, the approval signing
key, browser profiles (their cookies and history hold the board's session), cloud and
forge credentials, keyrings, and what `sandbox-hidden` adds. The network is on in the edit
phases and off elsewhere (`sandbox-network`); when on, TCP goes only to `sandbox-ports`
(the board's port never). Only existing paths are listed: the mechanisms bind or open what
is there, so the read-only caches that do not exist yet are made first (`prepare`).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT, Config
from automaton_rules.core.guard_files import HARNESS_FILES, HARNESS_FOLDERS, PRE_COMMIT_CONFIG
from automaton_rules.core.project import FRAMEWORK_HOME, Project, inside
from automaton_rules.guards.edits import checks, protected
from automaton_rules.support.patterns import Lazy
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
# Inside a cache, what runs as the user later: pre-commit's hook environments. Made when
# missing, so that it can be kept read-only.
CACHED_CODE = (".cache/pre-commit",)
# A project's own files that are harness settings, beside the folders guard_files names.
HARNESS_ROOT_FILES = ("opencode.json", "opencode.jsonc")
TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
PRIVATE_TEMP = "automaton-sandbox-{uid}"
# The device files a command writes (bubblewrap makes a /dev of just these; Landlock
# grants them one by one, so that no disk or memory device is writable, root's included).
DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
)
# In each git folder: the configuration (which can name programs git runs) and the hooks.
GIT_SETTINGS = ("config", "hooks")
# Secrets in the home folder, hidden from every sandboxed command.
SECRETS = (
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".docker/config.json",
    ".kube/config",
    ".pypirc",
    ".password-store",
    ".local/share/keyrings",
    ".terraform.d/credentials.tfrc.json",
    # Browser profiles: cookies, history (the board's login and session).
    ".mozilla",
    ".librewolf",
    ".config/chromium",
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/google-chrome-unstable",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    "snap/chromium",
    "snap/firefox",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    "Library/Safari",
    "Library/Cookies",
    "Library/Keychains",
    # The adapter's own state of each session (guards/hooks' session records).
    ".automaton/run",
)
# What may stay readable in ~/.ssh: everything else there is taken for a private key.
SSH_PUBLIC = Lazy(r"(?:.*\.pub|known_hosts.*|config|authorized_keys.*|environment)")
_SIGNING_KEY = Lazy(r"^\s*signingkey\s*=\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
BOARD_PORT = 8765  # the board's default port: never open to a sandboxed command
# The environment that leads to the user's agents, terminals and session bus.
UNSET = (
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "DBUS_SESSION_BUS_ADDRESS",
)


class Boundary(Record):
    """What the agent's shell may do now: write the `writable` trees less `readonly` paths
    in them, read everything but `hidden`, and reach the network when `internet`, on
    `ports` only."""

    project: Path  # the project's root, resolved
    editing: bool  # the phase lets code be edited: the project is writable
    writable: tuple[Path, ...]  # existing folders whose trees may be written, outermost first
    readonly: tuple[Path, ...]  # existing paths inside those that stay read-only, the same
    temp: Path  # the private temporary folder commands are given (TMPDIR)
    hidden: tuple[Path, ...] = ()  # existing paths no command may read
    internet: bool = False  # the network may be reached
    ports: tuple[int, ...] = ()  # the TCP ports it may be reached on

    def allows(self, path: Path) -> bool:
        """Whether a write to `path` (resolved) is inside the boundary: the deepest of the
        writable and read-only paths holding it decides."""
        holding = [(len(p.parts), True) for p in self.writable if inside(path, p)]
        holding += [(len(p.parts), False) for p in self.readonly if inside(path, p)]
        return bool(holding) and max(holding)[1]

    @property
    def devices(self) -> tuple[Path, ...]:
        """The device files among the writable paths."""
        return tuple(p for p in self.writable if str(p) in DEVICES)


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
    private = prepare(home, environ)
    writable = [private, *_temporary(environ), *(Path(device) for device in DEVICES)]
    writable += _existing(home / cache for cache in CACHES)
    writable += _existing(settings.writable(root))
    if editing:  # the project, and its git folder wherever it is (a worktree's is outside)
        writable += [root, *protected.git_folders(root)]
    # The home folder itself: where it lies inside a temporary folder (a test, a container),
    # its start-up files stay read-only all the same, its caches writable.
    kept = [home, *_existing(home / code for code in CACHED_CODE), *_installation(root, environ)]
    # GitHub Copilot CLI's home where COPILOT_HOME moves it out of the home folder: its
    # hooks and settings read-only, as they are in `~/.copilot`.
    kept += [folder for folder in [protected.copilot_home(environ)] if folder is not None]
    kept += _guard_paths(project, settings) if editing else [root]
    roots = _existing(writable)
    readonly = [path for path in _existing(kept) if any(inside(path, r) for r in roots)]
    network = settings.sandbox_network
    internet = editing if network == "phase" else network == "on"
    ports = tuple(sorted({port for port in settings.sandbox_ports if port != BOARD_PORT}))
    hidden = _existing([*secrets(home, root), *settings.hidden(root)])
    return Boundary(
        root,
        editing,
        _by_depth(roots),
        _by_depth(readonly),
        private,
        _by_depth(hidden),
        internet,
        ports,
    )


def prepare(home: Path, environ: Mapping[str, str]) -> Path:
    """Make what the boundary must find: the read-only caches not made yet, and the
    sandbox's private temporary folder (whatever lies in the system's, a command can make
    files in it); the folder's path."""
    for code in CACHED_CODE:
        folder = home / code
        if folder.parent.is_dir() and not os.path.lexists(folder):
            with contextlib.suppress(OSError):
                folder.mkdir(mode=0o700)
    base = Path(environ.get("TMPDIR") or "/tmp")
    private = base / PRIVATE_TEMP.format(uid=os.getuid())
    try:
        private.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return base
    try:
        found = os.lstat(private)
    except OSError:
        return base
    import stat

    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
        import tempfile  # another user's, or a link: one of our own instead

        return Path(tempfile.mkdtemp(prefix="automaton-sandbox-", dir=base)).resolve()
    return private.resolve()


def secrets(home: Path, root: Path) -> list[Path]:
    """The secrets a command may not read: the home folder's credentials and browser
    profiles, every private SSH key, and the keys git signs with (`user.signingkey`)."""
    found = [home / name for name in SECRETS]
    try:
        keys = (home / ".ssh").iterdir()
        found += [entry for entry in keys if not SSH_PUBLIC.fullmatch(entry.name)]
    except OSError:
        pass
    configs = (home / ".gitconfig", home / ".config/git/config", root / ".git/config")
    found += [key for key in protected.setting_paths(configs, _SIGNING_KEY) if key.is_absolute()]
    return found


def _temporary(environ: Mapping[str, str]) -> list[Path]:
    """The system's temporary folders, TMPDIR first."""
    named = [environ.get("TMPDIR", ""), *TEMPORARY]
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
    package = Path(__file__).resolve().parents[2]
    if not inside(package, root):
        found.append(package)
    found += [Path(entry) for entry in environ.get("PATH", "").split(os.pathsep) if entry]
    return found


def _existing(paths: Iterable[Path]) -> list[Path]:
    """The paths that exist, resolved, once each, in order. Most candidates (the guard
    files a project may have) do not exist: one `lstat` skips them before resolving,
    which walks every part of the path."""
    seen: dict[str, None] = {}
    for path in paths:
        if ".." not in path.parts and not os.path.lexists(path):
            continue
        try:
            resolved = os.path.realpath(path)  # as Path.resolve, without its objects' cost
        except (OSError, RuntimeError):
            continue
        if os.path.lexists(resolved):
            seen.setdefault(resolved, None)
    return [Path(found) for found in seen]


def _by_depth(paths: list[Path]) -> tuple[Path, ...]:
    """The paths, outermost first: a mechanism that applies them in order (bubblewrap's
    mounts) lets a deeper path override the one around it."""
    return tuple(sorted(set(paths), key=lambda path: (len(path.parts), str(path))))
