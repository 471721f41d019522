"""pluggy's plugin manager for this project: the built-in rules, entry points and configured
plugins `engine/plugins.py` loads, registered, each failure named by plugin.

Loaded only when a command needs pluggy: plugins besides the built-in ones, or listeners
to tell of a change (`engine/runner.py` collects the built-in rules without it).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import FunctionType, ModuleType

import pluggy

from automaton_rules.engine import hookspecs
from automaton_rules.engine import plugins as loading
from automaton_rules.engine.plugins import PLUGIN_FAILURES, PluginError


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
    elif name not in loading.BUILTIN_PLUGINS and isinstance(pm, PluginManager):
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
    timeout: float | None = loading.DEFAULT_TIMEOUT,
    packages: frozenset[str] | None = None,
) -> tuple[pluggy.PluginManager, list[PluginError]]:
    """The manager with every plugin that loaded, and an error for each that did not;
    `packages` narrows the installed ones that load (`plugins.entry_points`)."""
    pm = PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    errors: list[PluginError] = []
    for name in loading.BUILTIN_PLUGINS if builtins else ():
        _register(pm, name, importlib.import_module(name), errors)
    if entry_points:
        for ep in loading.entry_points(packages):
            try:
                with loading.time_limit(timeout):
                    module = ep.load()
            except PLUGIN_FAILURES as exc:
                errors.append(loading.failed_import(ep.name, exc))
                continue
            _register(pm, ep.name, module, errors)
    for spec in plugins:
        try:
            with loading.time_limit(timeout):
                name, module = loading.load_plugin(spec, base)
        except PLUGIN_FAILURES as exc:
            named = str(loading.plugin_path(spec, base) or spec)
            errors.append(loading.failed_import(named, exc, base))
            continue
        _register(pm, name, module, errors)
    errors += unknown_hooks(pm)  # a misspelt hook would otherwise be ignored silently
    return pm, errors
