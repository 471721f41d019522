"""Plugin settings: what a plugin declares through its `register_settings` hook, read from
a table of its own in `automaton.toml` (or `[tool.automaton]`), checked as strictly as
the configuration's own keys, and handed to its rules as the `settings` argument.

Like pytest's `addini` or flake8's `add_options`: the plugin names its table, each
setting's type, default and help, and the engine refuses an unknown key or a wrong type
naming the plugin (exit 2), so a typo never leaves a default quietly in force.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from automaton_rules.core.config import Config, known_keys, table_label
from automaton_rules.engine.plugins import (
    BUILTIN_PLUGINS,
    PLUGIN_FAILURES,
    PluginError,
    describe,
    failure_site,
    time_limit,
)
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable

# The types a setting may have, as TOML writes them, and how an error describes each.
TYPES: dict[type, str] = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list of strings",
}
NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")


@dataclass(frozen=True)
class Setting:
    """One setting a plugin declared: its table and name, type, default and help."""

    plugin: str
    table: str
    name: str
    type: type
    default: Any
    help: str

    def fits(self, value: Any) -> bool:
        """Whether a value from the file has the setting's type (a whole number is a
        number; true is no number; a list holds strings only)."""
        if self.type is bool:
            return isinstance(value, bool)
        if isinstance(value, bool):
            return False
        if self.type is float:
            return isinstance(value, (int, float))
        if self.type is list:
            return isinstance(value, list) and all(isinstance(v, str) for v in value)
        return isinstance(value, self.type)

    def as_dict(self) -> dict[str, Any]:
        """The setting as `--list-rules --json` shows it."""
        default = list(self.default) if isinstance(self.default, tuple) else self.default
        return {
            "plugin": self.plugin,
            "table": self.table,
            "name": self.name,
            "type": self.type.__name__,
            "default": default,
            "help": self.help,
        }


class PluginSettings(Mapping[str, Any]):
    """A plugin's settings as its rules see them (the `settings` argument): each by its
    name (`settings["wip-limit"]`) or as an attribute with `_` for `-`
    (`settings.wip_limit`), the file's value or else the default; read-only."""

    def __init__(self, table: str | None, values: Mapping[str, Any]) -> None:
        self._table = table
        self._values = dict(values)

    @property
    def table(self) -> str | None:
        """The table the settings are read from (None: the plugin declares none)."""
        return self._table

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, attribute: str) -> Any:
        values = self.__dict__.get("_values", {})
        for name in (attribute, attribute.replace("_", "-")):
            if name in values:
                return values[name]
        raise AttributeError(f"no setting {attribute!r} (settings: {', '.join(values)})")

    def __repr__(self) -> str:
        return f"PluginSettings({self._table!r}, {self._values!r})"


def declare(
    sources: Iterable[tuple[str, Callable[..., Any]]], timeout: float | None
) -> tuple[list[Setting], list[PluginError]]:
    """Every plugin's settings in load order, and an error for each plugin whose
    `register_settings` failed or declared something the configuration cannot hold."""
    declared: list[Setting] = []
    errors: list[PluginError] = []
    owners: dict[str, str] = {}
    for plugin, function in sources:
        mine: list[Setting] = []

        def add(
            table: str,
            name: str,
            type: type = str,
            default: Any = None,
            help: str = "",
            *,
            plugin: str = plugin,
            mine: list[Setting] = mine,
        ) -> None:
            mine.append(_checked(Setting(plugin, table, name, type, default, help), owners, mine))

        try:
            with time_limit(None if plugin in BUILTIN_PLUGINS else timeout):
                function(add=add)
        except PLUGIN_FAILURES as exc:
            home = getattr(getattr(function, "__code__", None), "co_filename", None)
            where, trace = failure_site(exc, home)
            at = f" at {where}" if where else ""
            message = f"register_settings failed{at}: {describe(exc)}"
            errors.append(PluginError(plugin, message, where=where, trace=trace))
            continue
        for setting in mine:
            owners.setdefault(setting.table, plugin)
        declared += mine
    return declared, errors


def _checked(setting: Setting, owners: Mapping[str, str], mine: list[Setting]) -> Setting:
    """A declaration the configuration can hold, its default of its own type; else the
    plugin's error, in the words that fix it."""
    table, name = setting.table, setting.name
    for what, value in (("table", table), ("setting", name)):
        if not isinstance(value, str) or not NAME.fullmatch(value):
            raise ValueError(
                f"{what} name {value!r} must be lower-case words joined by - or _ (wip-limit)"
            )
    if table in known_keys() or table == "tool":
        raise ValueError(f"table [{table}] is one of automaton.toml's own keys: choose another")
    owner = owners.get(table)
    if owner is not None and owner != setting.plugin:
        raise ValueError(f"table [{table}] is already declared by plugin {owner}")
    if mine and mine[0].table != table:
        raise ValueError(
            f"a plugin reads one table: [{mine[0].table}] already, so not [{table}] too"
        )
    if any(other.name == name for other in mine):
        raise ValueError(f"setting {name!r} of [{table}] is declared twice")
    if setting.type not in TYPES:
        names = ", ".join(t.__name__ for t in TYPES)
        raise TypeError(f"setting {name!r}: type must be one of {names}")
    if not setting.fits(setting.default):
        raise TypeError(
            f"setting {name!r}: default {setting.default!r} is not {TYPES[setting.type]}"
        )
    if not isinstance(setting.help, str):
        raise TypeError(f"setting {name!r}: help must be a str")
    if isinstance(setting.default, list):  # a frozen default: no rule changes another's
        return Setting(setting.plugin, table, name, list, tuple(setting.default), setting.help)
    return setting


class Declarations:
    """The settings a run's plugins declare, collected once, and resolved once for each
    configuration; `errors` the plugins whose declarations failed."""

    def __init__(
        self,
        sources: Iterable[tuple[str, Callable[..., Any]]],
        timeout: float | None,
        load_errors: Sequence[PluginError] = (),
    ) -> None:
        self.declared, self.errors = declare(sources, timeout)
        self._unloaded = [str(error) for error in load_errors if error.code is None]
        self._resolved: tuple[Config, dict[str, PluginSettings]] | None = None

    def resolve(self, config: Config) -> dict[str, PluginSettings]:
        """Each plugin's settings as `config` sets them, checked (`resolve`)."""
        if self._resolved is None or self._resolved[0] is not config:
            self._resolved = (config, resolve(self.declared, config, self._unloaded))
        return self._resolved[1]


def resolve(
    declared: Iterable[Setting], config: Config, unloaded: Sequence[str] = ()
) -> dict[str, PluginSettings]:
    """Each plugin's settings, the file's values over the defaults; a table no plugin
    declares, a key its plugin does not declare or a value of the wrong type is an error
    naming the key, the plugin and the file (exit 2). `unloaded` are the plugins that did
    not load, named where a table no plugin declares may be one of theirs."""
    by_table: dict[str, list[Setting]] = {}
    plugins: dict[str, str] = {}
    for setting in declared:
        by_table.setdefault(setting.table, []).append(setting)
        plugins[setting.plugin] = setting.table
    for table, given in config.tables.items():
        if table not in by_table:
            known = ", ".join(known_keys())
            failed = f". A plugin that did not load may declare it: {'; '.join(unloaded)}"
            raise AutomatonError(
                "config-unknown-key",
                f"Unknown key '{printable(table)}' in {config.path}: no loaded plugin declares "
                f"a table {table_label(config.path, printable(table))} (known keys: {known})"
                + (failed if unloaded else ""),
            )
        _check_table(by_table[table], given, config)
    resolved: dict[str, PluginSettings] = {}
    for plugin, table in plugins.items():
        given = config.tables.get(table, {})
        values = {}
        for setting in by_table[table]:
            value = given.get(setting.name, setting.default)
            values[setting.name] = tuple(value) if isinstance(value, list) else value
        resolved[plugin] = PluginSettings(table, values)
    return resolved


def _check_table(settings: list[Setting], given: Mapping[str, Any], config: Config) -> None:
    plugin, table = settings[0].plugin, settings[0].table
    label = table_label(config.path, table)
    names = {setting.name: setting for setting in settings}
    for key, value in given.items():
        setting = names.get(key)
        if setting is None:
            raise AutomatonError(
                "config-unknown-key",
                f"plugin {plugin}: unknown setting '{printable(key)}' in {label} of "
                f"{config.path} (it declares {', '.join(names)})",
            )
        if not setting.fits(value):
            raise AutomatonError(
                "config-wrong-type",
                f"plugin {plugin}: setting '{key}' in {label} of {config.path} must be "
                f"{TYPES[setting.type]}, not {printable(repr(value))}",
            )


NO_SETTINGS = PluginSettings(None, {})
