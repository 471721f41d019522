"""Build the plugin manager: built-in rules, then entry points, then configured plugins.

Each step is a small function that reports what failed by plugin name instead of
stopping, so one broken plugin never hides the findings of the others.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, FunctionType, ModuleType

import pluggy

from automaton_rules.core.config import PLUGIN_TIMEOUT_SECONDS
from automaton_rules.engine import hookspecs

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


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Stop the plugin code run inside after `seconds`, so a hung plugin cannot hang the
    command (and hold the task's lock); where no timer signal exists it runs unbounded."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    pending, interval = signal.getitimer(signal.ITIMER_REAL) if usable else (0.0, 0.0)
    if not seconds or not usable or 0 < pending <= seconds:
        yield  # no timer here, or the caller's own alarm (pytest-timeout's) comes first
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise PluginTimeout(f"did not finish within {seconds:g} seconds")

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


# The installed packages that load, by `package_names`; None loads every one. Only the
# test fixture (automaton_rules.testing) narrows it, in-process, for one command at a time.
OPTED_IN: frozenset[str] | None = None


def installed_packages() -> list:
    """Every installed package's entry point in the `automaton_rules` group, by name.

    Reading them scans every installed distribution; a process that builds many plugin
    managers (the test fixture, a long-lived host) reads them once per `sys.path`.
    """
    key = tuple(sys.path)
    if key not in _INSTALLED:
        from importlib import metadata

        try:
            found = metadata.entry_points(group=ENTRY_POINT_GROUP)
        except TypeError:  # Python 3.9: entry_points() takes no selection
            found = metadata.entry_points().get(ENTRY_POINT_GROUP, [])  # type: ignore[arg-type]
        _INSTALLED.clear()
        _INSTALLED[key] = sorted(found, key=lambda ep: ep.name)
    return list(_INSTALLED[key])


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


def _entry_points() -> list:
    found = installed_packages()
    if OPTED_IN is None:
        return found
    return [ep for ep in found if package_names(ep) & OPTED_IN]


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


def hook_names() -> tuple[str, ...]:
    """The hooks a plugin can implement, as `engine/hookspecs.py` declares them."""
    return _HOOKS


_HOOKS: tuple[str, ...] = tuple(
    name
    for name, item in vars(hookspecs).items()
    if hasattr(item, f"{hookspecs.PROJECT_NAME}_spec")
)


class PluginManager(pluggy.PluginManager):
    """pluggy's manager, also taking a plain module-level function named like a hook
    (`def register_rules(register)`) as that hook, as pytest takes plain `pytest_*`.
    `warnings` holds what loading found suspicious but not broken (a misspelt hook)."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self.warnings: list[str] = []

    def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
        """The marker's options, else the defaults for a plain function with a hook's name.
        A module's attribute that is no routine (a class, a rule, a constant: most of them)
        is passed over at once, as pluggy would after a costlier look."""
        if isinstance(plugin, ModuleType) and not inspect.isroutine(vars(plugin).get(name)):
            return None
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is not None or not isinstance(plugin, ModuleType) or name not in hook_names():
            return opts
        if not isinstance(getattr(plugin, name, None), FunctionType):
            return None
        return {
            "wrapper": False,
            "hookwrapper": False,
            "optionalhook": False,
            "tryfirst": False,
            "trylast": False,
            "specname": None,
        }


def _near_hook(names: Iterable[str], cutoff: float = 0.6) -> tuple[str, str] | None:
    """The first of `names` that is no hook but close to one, with that hook: the hint
    "did you mean register_rules?" for a misspelling."""
    import difflib  # only on the way to an error or a warning

    hooks = hook_names()
    for name in sorted(names):
        close = difflib.get_close_matches(name, hooks, n=1, cutoff=cutoff)
        if close and name not in hooks:
            return name, close[0]
    return None


def _register(
    pm: pluggy.PluginManager, name: str, module: object, errors: list[PluginError]
) -> None:
    if pm.is_registered(module):
        return  # the same module reached twice (entry point and configuration): load once
    try:
        pm.register(module, name=name)
    except PLUGIN_FAILURES as exc:
        errors.append(PluginError(name, f"cannot register: {exc}"))
        return
    if not pm.get_hookcallers(module):  # registered, yet it would never be called
        errors.append(PluginError(name, _no_hook(module)))
    elif name not in BUILTIN_PLUGINS and isinstance(pm, PluginManager):
        pm.warnings += [f"plugin {name}: {warning}" for warning in _near_misses(module)]


def _near_misses(module: object) -> list[str]:
    """Functions of a plugin that implements hooks, named almost like another hook: a
    misspelling (`automaton_evnt`) that pluggy would silently never call. Private names
    (`_register`) are the plugin's own and never taken for one."""
    defined = getattr(module, "__dict__", {})
    name_of_module = getattr(module, "__name__", None)
    hooks = hook_names()
    ends = {hook[:3] for hook in hooks} | {hook[-3:] for hook in hooks}
    found = []
    for attr, item in defined.items():
        if (
            attr in hooks
            or attr.startswith("_")
            or not isinstance(item, FunctionType)
            or item.__module__ != name_of_module
            or not ({attr[:3], attr[-3:]} & ends)  # nothing like a hook: no difflib needed
        ):
            continue
        near = _near_hook([attr], cutoff=NEAR_MISS)
        if near is not None:
            found.append(
                f"{attr}() is no hook and will never be called; did you mean {near[1]}? "
                "(see docs/writing-rules.md)"
            )
    return found


NEAR_MISS = 0.8  # how alike a name must be to a hook's to be taken for a misspelling


def _no_hook(module: object) -> str:
    """Why a plugin that implements no hook is an error, and the hook it likely meant."""
    defined = getattr(module, "__dict__", {})
    functions = [attr for attr, item in defined.items() if isinstance(item, FunctionType)]
    near = _near_hook(functions)
    meant = f" (it defines {near[0]}(): did you mean {near[1]}?)" if near else ""
    return (
        f"implements no hook{meant}; a plugin defines {' or '.join(hook_names())} "
        "(see docs/writing-rules.md)"
    )


def unknown_hooks(pm: pluggy.PluginManager) -> list[PluginError]:
    """A `@hookimpl` whose name is no hook (a misspelling), by plugin: pluggy would
    otherwise ignore it, and name the plugin by its private module name."""
    errors = []
    for hook, caller in sorted(vars(pm.hook).items()):
        if not isinstance(caller, pluggy.HookCaller) or caller.has_spec():
            continue
        for impl in caller.get_hookimpls():
            if not impl.optionalhook:
                near = _near_hook([hook])
                meant = f"; did you mean {near[1]}?" if near else ""
                errors.append(PluginError(impl.plugin_name, f"unknown hook '{hook}'{meant}"))
    return errors


def plugin_manager(
    plugins: Sequence[str] = (),
    *,
    base: Path | None = None,
    entry_points: bool = True,
    builtins: bool = True,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> tuple[pluggy.PluginManager, list[PluginError]]:
    """The manager with every plugin that loaded, and an error for each that did not."""
    pm = PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    errors: list[PluginError] = []
    for name in BUILTIN_PLUGINS if builtins else ():
        _register(pm, name, importlib.import_module(name), errors)
    if entry_points:
        for ep in _entry_points():
            try:
                with time_limit(timeout):
                    module = ep.load()
            except PLUGIN_FAILURES as exc:
                errors.append(failed_import(ep.name, exc))
                continue
            _register(pm, ep.name, module, errors)
    for spec in plugins:
        try:
            with time_limit(timeout):
                name, module = load_plugin(spec, base)
        except PLUGIN_FAILURES as exc:
            errors.append(failed_import(str(plugin_path(spec, base) or spec), exc, base))
            continue
        _register(pm, name, module, errors)
    errors += unknown_hooks(pm)  # a misspelt hook would otherwise be ignored silently
    return pm, errors


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
