"""Find and load plugins: built-in rules by module name, then entry points, then what the
configuration lists; and report each failure by plugin name instead of stopping, so one
broken plugin never hides the findings of the others.

Nothing here imports pluggy: `engine/manager.py` registers what this loads in pluggy's
manager, which only a command with plugins besides the built-in ones (or listeners to
tell) needs. Whether any installed package declares an entry point in the group is read
cheaply first (`group_declared`), so a machine without one never pays for
`importlib.metadata`'s scan.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType

from automaton_rules.core.config import PLUGIN_TIMEOUT_SECONDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pluggy

BUILTIN_PLUGINS: tuple[str, ...] = (
    "automaton_rules.builtin.out_of_order",
    "automaton_rules.builtin.inconsistency",
    "automaton_rules.builtin.approvals",
    "automaton_rules.builtin.unauthorized",
    "automaton_rules.builtin.work_done",
    "automaton_rules.builtin.manual_folders",
    "automaton_rules.builtin.guard_changes",
)
ENTRY_POINT_GROUP = "automaton_rules"
DEFAULT_TIMEOUT = PLUGIN_TIMEOUT_SECONDS


class PluginTimeout(BaseException):
    """A plugin ran past its time; a BaseException, so the plugin's `except Exception`
    cannot swallow it."""


# What a plugin may raise that must be reported, not obeyed: sys.exit() included.
PLUGIN_FAILURES = (Exception, SystemExit, PluginTimeout)


def seconds_text(seconds: float) -> str:
    """`1 second`, `2 seconds`, `0.5 seconds`."""
    return f"{seconds:g} second" + ("" if seconds == 1 else "s")


@contextmanager
def time_limit(seconds: float | None, said: str | None = None) -> Iterator[None]:
    """Stop the plugin code run inside after `seconds`, so a hung plugin cannot hang the
    command (and hold the task's lock); where no timer signal exists it runs unbounded.
    `said` is what the timeout says (by default: not finished within the time)."""
    if not seconds:
        yield  # no limit asked for: nothing to set, nothing to load
        return
    import signal
    import threading

    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    pending, interval = signal.getitimer(signal.ITIMER_REAL) if usable else (0.0, 0.0)
    if not usable or 0 < pending <= seconds:
        yield  # no timer here, or the caller's own alarm (pytest-timeout's) comes first
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise PluginTimeout(said or f"did not finish within {seconds_text(seconds)}")

    previous = signal.signal(signal.SIGALRM, expire) or signal.SIG_DFL
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if pending:  # the caller's alarm, put back with the time that is left of it
            left = max(pending - (time.monotonic() - started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, interval)


@dataclass(frozen=True)
class PluginError:
    """A plugin that could not be loaded or whose rule failed, named so users can find it.

    A rule that failed on several tasks is one error (`merge_rule_errors`): `tasks` lists
    them in order and `details` what each raised; `where` is the `file:line` the rule (or
    the import) failed at, `trace` the traceback `AUTOMATON_DEBUG=1` prints.
    """

    plugin: str
    message: str
    code: str | None = None  # the rule that failed, when one did
    task: str | None = None  # the first task it failed on, when it ran task by task
    tasks: tuple[str, ...] = ()
    details: tuple[str, ...] = ()
    where: str | None = None
    trace: str | None = None

    def __str__(self) -> str:
        """The one wording every report and message gives a plugin's failure."""
        return f"plugin {self.plugin}: {self.message}"

    @classmethod
    def of_rule(
        cls,
        plugin: str,
        code: str,
        tasks: Sequence[str],
        details: Sequence[str],
        where: str | None = None,
        trace: str | None = None,
    ) -> PluginError:
        """A rule's failure on `tasks` (none: on the project), worded once for all of them:
        the rule, how many tasks, where it failed and what the first failure said."""
        at = f" at {where}" if where else ""
        if not tasks:
            said = f"rule {code} failed{at}: {details[0]}"
        elif len(tasks) == 1:
            said = f"rule {code} failed on task '{tasks[0]}'{at}: {details[0]}"
        else:
            names = ", ".join(tasks[:NAMED_TASKS]) + (", ..." if len(tasks) > NAMED_TASKS else "")
            said = (
                f"rule {code} failed on {len(tasks)} tasks ({names}), first on task "
                f"'{tasks[0]}'{at}: {details[0]}"
            )
        first = tasks[0] if tasks else None
        return cls(plugin, said, code, first, tuple(tasks), tuple(details), where, trace)

    def on_task(self, name: str) -> PluginError:
        """The failure on one of its tasks alone, worded as if it had failed only there."""
        detail = self.details[self.tasks.index(name)] if name in self.tasks else self.message
        return PluginError.of_rule(
            self.plugin, self.code or "", (name,), (detail,), self.where, self.trace
        )


NAMED_TASKS = 5  # a rule failing on thousands of tasks names the first few


def merge_rule_errors(errors: Sequence[PluginError]) -> list[PluginError]:
    """One error per failing rule, where its first failure stood, counting its tasks: a
    plugin that fails on every task says so once, not once per task."""
    merged: list[PluginError] = []
    at: dict[tuple[str, str], int] = {}
    for error in errors:
        if error.code is None or not error.tasks:
            merged.append(error)
            continue
        key = (error.plugin, error.code)
        if key not in at:
            at[key] = len(merged)
            merged.append(error)
            continue
        first = merged[at[key]]
        merged[at[key]] = PluginError.of_rule(
            first.plugin,
            error.code,
            first.tasks + error.tasks,
            first.details + error.details,
            first.where,
            first.trace,
        )
    return merged


def failure_site(
    exc: BaseException, home: str | None = None, base: Path | None = None
) -> tuple[str | None, str]:
    """Where a plugin's code failed, as `file:line`, and the traceback from there: the last
    frame in `home` (the rule's own file) if any, else the last frame; a syntax error's
    own place. The frames of the engine that called the plugin are left out; a file under
    `base` (the project) is named from there."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if not _engine_frame(f.filename)]
    chosen = [f for f in ours if f.filename == home] if home else []
    picked = chosen or ours
    where = f"{_shown_path(picked[-1].filename, base)}:{picked[-1].lineno}" if picked else None
    if isinstance(exc, SyntaxError) and exc.filename:
        where = f"{_shown_path(exc.filename, base)}:{exc.lineno}"
    tb = exc.__traceback__
    while tb is not None and _engine_frame(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next  # from the plugin's own first frame on
    trace = "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))
    return where, trace.rstrip("\n")


def _engine_frame(filename: str) -> bool:
    """The engine's own frames and the import machinery's, which say nothing of the plugin."""
    folder = Path(filename).parent
    return filename.startswith("<frozen") or folder in (_ENGINE, _IMPORTLIB)


_ENGINE = Path(__file__).parent
_IMPORTLIB = Path(importlib.__file__ or "").parent


def _shown_path(filename: str, base: Path | None = None) -> str:
    """A file as an error names it: relative to `base`, else to the current folder, when
    under it; else as it is."""
    path = Path(filename)
    for folder in (base, Path.cwd()):
        if folder is not None and path.is_relative_to(folder):
            return path.relative_to(folder).as_posix()
    return filename


def installed_packages() -> list:
    """Every installed package's entry point in the `automaton_rules` group, by name.

    Reading them scans every installed distribution with `importlib.metadata`, whose import
    alone costs more than the rest of `--task`: it is skipped where no distribution
    declares the group (`group_declared`). A process that builds many engines (the test
    fixture, a long-lived host) reads them once per `sys.path`.
    """
    key = tuple(sys.path)
    if key not in _INSTALLED:
        found = _scan_entry_points() if group_declared(sys.path) else []
        _INSTALLED.clear()
        _INSTALLED[key] = sorted(found, key=lambda ep: ep.name)
    return list(_INSTALLED[key])


def _scan_entry_points() -> list:
    from importlib import metadata

    try:
        return list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    except TypeError:  # Python 3.9: entry_points() takes no selection
        return list(metadata.entry_points().get(ENTRY_POINT_GROUP, []))


def group_declared(path: Sequence[str]) -> bool:
    """Whether some distribution on `path` may declare an entry point in the group: False
    only when sure. It reads the `entry_points.txt` of each `*.dist-info` and `*.egg-info`
    folder (and an egg's `EGG-INFO`) where `importlib.metadata` looks for them; anything
    it does not read so (a zip on the path, a file it cannot read, another finder of
    distributions) counts as yes, and the full scan decides."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return True
    for entry in path:
        root = entry or "."
        if not os.path.isdir(root):
            if os.path.exists(root):
                return True  # a zip file: its distributions are read by the full scan
            continue
        try:
            children = os.listdir(root)
        except OSError:
            return True
        egg = os.path.basename(root).lower().endswith(".egg")
        for child in children:
            low = child.lower()
            metadata = low.endswith((".dist-info", ".egg-info")) or (egg and low == "egg-info")
            if metadata and _declares_group(os.path.join(root, child, "entry_points.txt")):
                return True
    return False


def _declares_group(entry_points_txt: str) -> bool:
    """An `entry_points.txt` with a section for the group; unreadable counts as yes."""
    try:
        with open(entry_points_txt, encoding="utf-8") as handle:
            text = handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, UnicodeDecodeError):
        return True
    return any(
        line.strip().startswith("[")
        and line.strip().endswith("]")
        and line.strip().strip("[] \t") == ENTRY_POINT_GROUP
        for line in text.splitlines()
    )


_INSTALLED: dict[tuple[str, ...], list] = {}


def canonical_name(name: str) -> str:
    """A package name as pip compares them: `Acme_Rules` and `acme-rules` are one."""
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def package_names(ep: object) -> frozenset[str]:
    """What an installed package answers to, canonical: its entry point's name, the module
    it loads (and that module's top package) and its distribution's name."""
    module = str(getattr(ep, "value", "")).partition(":")[0].strip()
    dist = getattr(getattr(ep, "dist", None), "name", None)
    names = (getattr(ep, "name", ""), module, module.partition(".")[0], dist or "")
    return frozenset(canonical_name(name) for name in names if name)


def entry_points(packages: frozenset[str] | None = None) -> list:
    """The installed packages' entry points that load: all of them, or those a run's
    context names (`Context.plugins`, canonical; the test fixture names what it opts in to)."""
    found = installed_packages()
    if packages is None:
        return found
    return [ep for ep in found if package_names(ep) & packages]


def _load_path(path: Path) -> ModuleType:
    """Import a `.py` file named in the configuration under a private module name."""
    module_name = f"automaton_rules_plugin_{abs(hash(str(path))):x}_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def plugin_path(spec: str, base: Path | None = None) -> Path | None:
    """The file a configured plugin names, or None when it names a module."""
    if not (spec.endswith(".py") or "/" in spec or "\\" in spec):
        return None
    path = Path(spec).expanduser()
    return base / path if not path.is_absolute() and base is not None else path


def load_plugin(spec: str, base: Path | None = None) -> tuple[str, ModuleType]:
    """A module name, or a `.py` path relative to the configuration file's folder."""
    path = plugin_path(spec, base)
    if path is None:
        return spec, importlib.import_module(spec)
    if not path.is_file():
        raise ImportError(f"no such file: {path}")
    return str(path), _load_path(path)


def failed_import(name: str, exc: BaseException, base: Path | None = None) -> PluginError:
    """A plugin that could not be imported, with where its code failed."""
    where, trace = failure_site(exc, base=base)
    at = f" at {where}" if where else ""
    return PluginError(name, f"failed to import{at}: {describe(exc)}", where=where, trace=trace)


def describe(exc: BaseException) -> str:
    """An exception as a plugin error states it: its type, since the text alone may be empty."""
    return f"{type(exc).__name__}: {exc}"


def plugin_names(pm: pluggy.PluginManager) -> Iterable[str]:
    """Registered plugins in registration order."""
    return [name for name, _ in pm.list_name_plugin()]
