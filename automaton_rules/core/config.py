"""`automaton.toml` or `[tool.automaton]` in `pyproject.toml`, read strictly.

An unknown key or a wrong type is an error, so a typo never switches a guard off.
"""

from __future__ import annotations

import re
import stat
import sys
from pathlib import Path

from automaton_rules.core.severity import SEVERITIES
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.support.patterns import Lazy
from automaton_rules.support.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any

CONFIG_FILE = "automaton.toml"
PYPROJECT = "pyproject.toml"
PLUGIN_TIMEOUT_SECONDS = 60.0
# How an approval may be given: by anyone who runs --approve, typed by the user in the
# agent's chat (or confirmed in a terminal), or signed with a key the signers file names.
APPROVAL_MODES = ("open", "prompt", "signed")
DEFAULT_SIGNERS = ".automaton/allowed_signers"
# Where no OS sandbox can hold the agent's shell: refuse its commands, fall back to reading
# them (and say so), or read them only.
SANDBOX_MODES = ("required", "auto", "off")
# Whether a sandboxed command may reach the network: in the edit phases only, always, never;
# and the TCP ports it may connect to when it may (the board's is never one).
NETWORK_MODES = ("phase", "on", "off")
SANDBOX_PORTS = (22, 80, 443, 9418)
# How long the Stop hook keeps an agent whose task awaits approval, waiting for the
# person's decision, before it lets the agent stop (guards/hooks/stop.py).
STOP_WAIT_SECONDS = 600.0
MAX_STOP_WAIT_SECONDS = 3000
# How long a task may stay in implement without IMPLEMENTATION.md before the audit warns
# that its state may be wrong (AR212, the specification's category-2 example).
IMPLEMENTATION_DUE_HOURS = 24.0


class Config(Record):
    """Settings with their documented defaults; `path` is None when no file was found."""

    path: Path | None = None
    plugins: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    fail_on: str = "error"
    source: tuple[str, ...] = ("*",)
    source_exclude: tuple[str, ...] = (".automaton/*", "*.md")
    source_untracked: bool = False
    mode: str = "single"
    claim_timeout_minutes: float = 30
    untracked: str = "refuse"
    same_session_minutes: float = 30
    plugin_timeout_seconds: float = PLUGIN_TIMEOUT_SECONDS
    jobs: int | None = None
    approval: str = "open"
    allowed_signers: str = DEFAULT_SIGNERS
    sandbox: str = "auto"
    sandbox_writable: tuple[str, ...] = ()
    sandbox_network: str = "phase"
    sandbox_ports: tuple[int, ...] = SANDBOX_PORTS
    sandbox_hidden: tuple[str, ...] = ()
    stop_wait_seconds: float = STOP_WAIT_SECONDS
    implementation_due_hours: float = IMPLEMENTATION_DUE_HOURS
    # plugins' own tables, checked by the engine
    tables: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    given: frozenset[str] = frozenset()  # the settings the file itself sets, named with `_`

    def is_source(self, path: str) -> bool:
        """Source files count; task folders, Markdown and excluded patterns do not."""
        from fnmatch import fnmatchcase

        included = any(fnmatchcase(path, p) for p in self.source)
        return included and not any(fnmatchcase(path, p) for p in self.source_exclude)

    @property
    def base(self) -> Path | None:
        """Relative paths in the file resolve against its folder."""
        return None if self.path is None else self.path.parent

    def signers(self, project_root: Path) -> Path:
        """The allowed-signers file, relative to the configuration file (or, with none,
        to the project), as git reads `gpg.ssh.allowedSignersFile`."""
        path = Path(self.allowed_signers).expanduser()
        return (path if path.is_absolute() else (self.base or project_root) / path).resolve()

    def writable(self, project_root: Path) -> tuple[Path, ...]:
        """`sandbox-writable`: more folders the agent's shell may write, relative to the
        configuration file (or, with none, to the project)."""
        return self._paths(self.sandbox_writable, project_root)

    def hidden(self, project_root: Path) -> tuple[Path, ...]:
        """`sandbox-hidden`: more paths the agent's shell may not read, relative likewise."""
        return self._paths(self.sandbox_hidden, project_root)

    def _paths(self, entries: tuple[str, ...], project_root: Path) -> tuple[Path, ...]:
        base = self.base or project_root
        paths = (Path(entry).expanduser() for entry in entries)
        return tuple((p if p.is_absolute() else base / p).resolve() for p in paths)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _severity_table(value: Any) -> bool:
    return isinstance(value, dict) and all(v in SEVERITIES for v in value.values())


# key -> (check, description used in errors)
_KEYS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "plugins": (_strings, "a list of module names or .py paths"),
    "select": (_strings, "a list of rule codes or code prefixes"),
    "ignore": (_strings, "a list of rule codes or code prefixes"),
    "severity": (_severity_table, 'a table of rule code = "error" | "warning" | "note"'),
    "fail-on": (lambda v: v in SEVERITIES, 'one of "error", "warning", "note"'),
    "source": (_strings, "a list of glob patterns"),
    "source-exclude": (_strings, "a list of glob patterns"),
    "source-untracked": (lambda v: isinstance(v, bool), "true or false"),
    "mode": (lambda v: v in ("single", "multi-agent"), '"single" or "multi-agent"'),
    "claim-timeout-minutes": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
        "a positive number of minutes",
    ),
    "untracked": (lambda v: v in ("refuse", "infer"), '"refuse" or "infer"'),
    "same-session-minutes": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
        "a positive number of minutes",
    ),
    "plugin-timeout-seconds": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 86400,
        "a number of seconds above 0 and at most 86400 (a day)",
    ),
    "approval": (lambda v: v in APPROVAL_MODES, '"open", "prompt" or "signed"'),
    "allowed-signers": (
        lambda v: isinstance(v, str) and v.strip() != "",
        "the path of an OpenSSH allowed-signers file",
    ),
    "stop-wait-seconds": (
        lambda v: (
            isinstance(v, (int, float))
            and not isinstance(v, bool)
            and 0 <= v <= MAX_STOP_WAIT_SECONDS
        ),
        f"a number of seconds from 0 (do not wait) to {MAX_STOP_WAIT_SECONDS}",
    ),
    "implementation-due-hours": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
        "a positive number of hours",
    ),
    "jobs": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 64,
        "a whole number of processes from 1 to 64",
    ),
    "sandbox": (lambda v: v in SANDBOX_MODES, '"required", "auto" or "off"'),
    "sandbox-writable": (_strings, "a list of folders the agent's shell may write"),
    "sandbox-network": (lambda v: v in NETWORK_MODES, '"phase", "on" or "off"'),
    "sandbox-ports": (
        lambda v: (
            isinstance(v, list)
            and all(isinstance(p, int) and not isinstance(p, bool) and 0 < p < 65536 for p in v)
        ),
        "a list of TCP port numbers from 1 to 65535",
    ),
    "sandbox-hidden": (_strings, "a list of files and folders the agent's shell may not read"),
}


def toml_module() -> Any:
    """tomllib, or tomli before Python 3.11: loaded only when a TOML file is read."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib
    return tomllib


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return toml_module().load(handle)
    except OSError as exc:
        raise AutomatonError("config-unreadable", f"Cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise AutomatonError("config-invalid", f"{path} is not valid TOML: {exc}") from None


def _settings_in(path: Path) -> Mapping[str, Any] | None:
    """The settings table of a candidate file, or None when it has none for us."""
    data = _read_toml(path)
    if path.name != PYPROJECT:
        return data
    tool = data.get("tool")
    section = tool.get("automaton") if isinstance(tool, dict) else None
    if section is None:
        return None
    if not isinstance(section, dict):
        raise AutomatonError("config-invalid", f"[tool.automaton] in {path} must be a table")
    return section


def find_config(start: Path) -> Path | None:
    """The nearest `automaton.toml`, or `pyproject.toml` with `[tool.automaton]`, walking up.

    The walk ends at the repository's top (the folder holding `.git`): a configuration
    above it is not the project's. Above the project, a shared temporary folder (anyone
    may write to it, like `/tmp`) is passed over: `plugins` there would run a stranger's
    code in every command.
    """
    folder = start.resolve()
    for candidate in (folder, *folder.parents):
        mine = candidate == folder or not _shared(candidate)
        own = candidate / CONFIG_FILE
        if own.is_file() and mine:
            return own
        pyproject = candidate / PYPROJECT
        if pyproject.is_file() and mine and _settings_in(pyproject) is not None:
            return pyproject
        if (candidate / ".git").exists():
            break
    return None


def _shared(folder: Path) -> bool:
    """World-writable with the sticky bit: a folder for everyone's temporary files."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return True
    return bool(mode & stat.S_IWOTH and mode & stat.S_ISVTX)


def parse(settings: Mapping[str, Any], path: Path) -> Config:
    """Check every key and type; the error names the key and the file. A table no key
    names is kept for the plugin that declares it (`tables`): the engine, which knows
    the plugins' settings, checks it, and refuses one that no plugin declares."""
    values: dict[str, Any] = {}
    tables: dict[str, Mapping[str, Any]] = {}
    for key, value in settings.items():
        if key not in _KEYS and isinstance(value, dict) and not _near_key(key):
            tables[key] = value
            continue
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise AutomatonError(
                "config-unknown-key",
                f"Unknown key '{printable(key)}' in {path} (known keys: {known})",
            )
        check, description = _KEYS[key]
        if not check(value):
            raise AutomatonError(
                "config-wrong-type", f"Key '{key}' in {path} must be {description}"
            )
        values[key.replace("-", "_")] = tuple(value) if isinstance(value, list) else value
    return Config(path=path, tables=tables, given=frozenset(values), **values)


def _near_key(key: str) -> bool:
    """A table named almost like a setting (`[severty]`): a typo refused at once, never
    left for a plugin to claim."""
    import difflib

    return bool(difflib.get_close_matches(key, list(_KEYS), n=1, cutoff=0.8))


def known_keys() -> tuple[str, ...]:
    """The settings the configuration takes besides the plugins' tables, sorted."""
    return tuple(sorted(_KEYS))


def table_label(path: Path | None, table: str) -> str:
    """A plugin's table as its file writes it: `[acme]`, or `[tool.automaton.acme]`."""
    if path is not None and path.name == PYPROJECT:
        return f"[tool.automaton.{table}]"
    return f"[{table}]"


AGENT_FILES = (".agent.md", ".automaton/.agent.md")
# `.agent.md` keys that set how long a claim lasts (v2.0: "Default timeout: 30 minutes
# (configurable in .agent.md)"), written as a person would: `Claim timeout: 45 minutes`.
CLAIM_TIMEOUT_KEYS = frozenset({"claim timeout", "claim timeout minutes", "lock timeout"})
_DURATION = Lazy(
    r"(\d+(?:\.\d+)?)\s*(m|mins?|minutes?|h|hrs?|hours?)?\.?", re.IGNORECASE | re.ASCII
)


def agent_lines(project_root: Path) -> Iterator[tuple[str, str, Path]]:
    """The `Key: value` lines of the project's `.agent.md` files, as (key in lower case with
    single spaces, value, file): Markdown list marks, emphasis and headings ignored."""
    for name in AGENT_FILES:
        path = project_root / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, colon, value = line.strip().lstrip("-*# ").partition(":")
            if colon:
                words = key.replace("*", "").replace("_", " ").replace("-", " ").lower().split()
                yield " ".join(words), value.strip().strip("*_` "), path


def multi_agent(project_root: Path, config: Config) -> bool:
    """Multi-agent mode: `mode = "multi-agent"`, or `Mode: multi-agent` in .agent.md."""
    if config.mode == "multi-agent":
        return True
    return any(
        key == "mode" and value.lower() == "multi-agent"
        for key, value, _ in agent_lines(project_root)
    )


def claim_timeout(project_root: Path, config: Config) -> float:
    """How many minutes a claim lasts: `claim-timeout-minutes` when the configuration sets
    it (it takes precedence), else a `Claim timeout: 45 minutes` line of `.agent.md`, else
    the default 30. A line that names no duration is an error naming the file: a typo
    must not quietly leave the default in force."""
    if "claim_timeout_minutes" in config.given:
        return config.claim_timeout_minutes
    for key, value, path in agent_lines(project_root):
        if key not in CLAIM_TIMEOUT_KEYS:
            continue
        found = _DURATION.fullmatch(value)
        minutes = float(found.group(1)) if found else 0.0
        if found and (found.group(2) or "m").lower().startswith("h"):
            minutes *= 60
        if minutes <= 0:
            raise AutomatonError(
                "config-wrong-type",
                f"'{printable(key)}' in {path} must be a positive number of minutes "
                f"(e.g. 'Claim timeout: 45 minutes'), not '{printable(value)}'",
            )
        return minutes
    return config.claim_timeout_minutes


def load_config(project_root: Path, explicit: Path | None = None) -> Config:
    """`--config FILE` wins; else the nearest configuration above the project; else defaults."""
    if explicit is not None:
        path = explicit.expanduser()
        if not path.is_file():
            raise AutomatonError("config-not-found", f"Configuration file '{explicit}' not found")
        settings = _settings_in(path)
        return parse(settings or {}, path.resolve())
    found = find_config(project_root)
    if found is None:
        return Config()
    return parse(_settings_in(found) or {}, found)


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "APPROVAL_MODES",
    "CONFIG_FILE",
    "PLUGIN_TIMEOUT_SECONDS",
    "PYPROJECT",
    "Config",
    "claim_timeout",
    "find_config",
    "known_keys",
    "load_config",
    "multi_agent",
    "table_label",
    "toml_module",
]
