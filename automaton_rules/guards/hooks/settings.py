"""How a harness's hooks go into its settings file and come out again, for the installer.

Four ways, each a class a harness record names (`Harness.settings`): `JsonHooks` merges
our entries into the `hooks` map of a JSON file the user may share with us (Claude Code,
Codex, Gemini CLI, Cursor, GitHub Copilot CLI, Qwen Code); `EventMap` into a file that is
that map itself (Factory Droid's hooks.json); `HookList` does the same for a `hooks`
list of named entries (Kiro CLI); `PluginFile` writes the opencode plugin, whose first
line records its digest so a copy the user changed is theirs. Every one is idempotent and
reversible: installing twice changes nothing, and removing takes out exactly what was
added, the user's own entries and settings kept. Loaded only by `automaton-install`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Harness(Protocol):
        """What a way of writing settings asks of a harness record (guards/hooks/harnesses.py),
        which names its way: a protocol, so the two modules do not need each other."""

        @property
        def settings_file(self) -> str: ...

        def hooks(self) -> dict[str, Any]: ...

        def notes(self, path: Path, merged: dict[str, Any]) -> list[str]: ...


# Our hook command: the portable one, or an absolute path an older release wrote (quoted
# for the shell when it had to be: '/my venv/...').
OUR_HOOK = Lazy(r"automaton-hook'?\s+--harness")
# Where a hook entry keeps its command: `command` (most), `bash` (GitHub Copilot CLI).
COMMAND_KEYS = ("command", "bash")
# Matchers earlier releases wrote, which today's replace on upgrade (a matcher the user
# wrote stays): session events used to name their sources, tool hooks fewer tools.
RETIRED_MATCHERS: dict[str, frozenset[str]] = {
    "SessionStart": frozenset({"startup|resume|clear|compact"}),
    "PreToolUse": frozenset({"Write|Edit|MultiEdit|NotebookEdit|Bash"}),
    "BeforeTool": frozenset({"write_file|replace|run_shell_command"}),
}
OPENCODE_MARKER = "// installed by automaton-install"
KEPT_PLUGIN = "(changed since automaton-install wrote it, or not written by it)"
_OPENCODE_FIRST_LINE = Lazy(re.escape(OPENCODE_MARKER) + r" \(sha256 ([0-9a-f]{64})\)")


# ------------------------------------------------------------------ files


def read_json(path: Path) -> dict[str, Any]:
    """A settings file's object; {} when there is no file; install-failed when it holds
    no JSON object, so nothing is written over it."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise AutomatonError("install-failed", f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise AutomatonError("install-failed", f"{path} does not hold a JSON object")
    return data


def write_changed(path: Path, text: str, mode: int = 0o644) -> bool:
    """Write when the content differs; True when something changed."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


def done(path: Path, existed: bool) -> str:
    """One line of the installer's report: a file it made, or one it changed."""
    return f"{'updated' if existed else 'created'} {path}"


def remove_empty_folders(folder: Path, stop: Path) -> None:
    """Remove folders install created that are now empty, up to the project."""
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


# ------------------------------------------------------------------ hook entries


def ours(entry: Any) -> bool:
    """Whether a hook entry (or any value holding entries) runs our adapter."""
    return OUR_HOOK.search(json.dumps(entry)) is not None


def commands(entry: Any) -> list[str]:
    """The commands in a hook entry, at any depth (Cursor's are on the entry itself)."""
    if isinstance(entry, dict):
        own = [entry[key] for key in COMMAND_KEYS if isinstance(entry.get(key), str)]
        return own + [c for value in entry.values() for c in commands(value)]
    if isinstance(entry, list):
        return [c for item in entry for c in commands(item)]
    return []


def with_defaults(current: Any, ours: Any) -> Any:
    """`current` with what `ours` adds and it lacks, key by key; a value the user set wins."""
    if not isinstance(current, dict) or not isinstance(ours, dict):
        return current
    merged = dict(current)
    for key, value in ours.items():
        merged[key] = with_defaults(merged[key], value) if key in merged else value
    return merged


def upgraded(entry: Any, command: str) -> Any:
    """`entry` with each command of ours (an older release's absolute path too) replaced by
    today's portable `command`; what the user tuned around it stays."""
    if isinstance(entry, list):
        return [upgraded(item, command) for item in entry]
    if not isinstance(entry, dict):
        return entry
    return {
        key: command
        if key in COMMAND_KEYS and isinstance(value, str) and OUR_HOOK.search(value)
        else upgraded(value, command)
        for key, value in entry.items()
    }


def _unretired(entry: Any, ours: dict[str, Any], event: str) -> Any:
    """`entry` with a matcher an earlier release wrote replaced by today's (or dropped)."""
    if not isinstance(entry, dict) or entry.get("matcher") not in RETIRED_MATCHERS.get(event, ()):
        return entry
    kept = {key: value for key, value in entry.items() if key != "matcher"}
    return {**kept, "matcher": ours["matcher"]} if "matcher" in ours else kept


def merge_hooks(current: dict[str, Any], mine: dict[str, Any]) -> dict[str, Any]:
    """Add our hook entries to a harness's settings, keeping everything already there.

    An entry of ours already there keeps what the user tuned and gains the keys a later
    release added to it (Cursor's `failClosed`, say); its command becomes today's, so a
    file an older release wrote with an absolute path is upgraded, not given a second entry.
    """
    merged = dict(current)
    hooks = dict(merged.get("hooks") or {})
    for event, entries in mine["hooks"].items():
        existing = list(hooks.get(event) or [])
        found = [index for index, entry in enumerate(existing) if ours(entry)]
        if not found:
            existing += entries
        for index in found[:1]:
            entry = _unretired(existing[index], entries[0], event)
            existing[index] = upgraded(with_defaults(entry, entries[0]), commands(entries[0])[0])
        hooks[event] = existing
    merged["hooks"] = hooks
    return with_defaults(merged, {key: value for key, value in mine.items() if key != "hooks"})


def remove_hooks(current: dict[str, Any], mine: dict[str, Any] | None = None) -> dict[str, Any]:
    """Take our hook entries out again; events left empty go, and so do keys we added."""
    merged = dict(current)
    hooks = {
        event: [e for e in entries if not ours(e)]
        for event, entries in (merged.get("hooks") or {}).items()
    }
    merged["hooks"] = {event: entries for event, entries in hooks.items() if entries}
    return _without_ours(merged, mine)


def _without_ours(merged: dict[str, Any], mine: dict[str, Any] | None) -> dict[str, Any]:
    """With no hook left, the settings install added for them go too."""
    if not merged["hooks"]:
        del merged["hooks"]
        for key, value in (mine or {}).items():
            if key != "hooks" and merged.get(key) == value:
                del merged[key]
    return merged


# ------------------------------------------------------------------ the three ways


class Settings:
    """How one harness's hooks live in its settings file (relative to the project)."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.relpath = harness.settings_file

    def check(self, project: Path) -> None:
        """Refuse, before anything is written, a file the installer cannot read."""

    def install(self, project: Path) -> list[str]:
        """Put the hooks in; one report line per file changed, then what the user must do."""
        raise NotImplementedError

    def uninstall(self, project: Path) -> list[str]:
        """Take out exactly what `install` put in."""
        raise NotImplementedError

    def installed(self, project: Path) -> bool:
        """Whether the project runs our hooks for this harness."""
        raise NotImplementedError


class JsonHooks(Settings):
    """Our entries merged into the `hooks` map (event to entries) of a JSON file."""

    shape: type = dict
    shape_name = "object"

    def check(self, project: Path) -> None:
        path = project / self.relpath
        hooks = read_json(path).get("hooks")
        if hooks is not None and not isinstance(hooks, self.shape):
            why = f'its "hooks" is not a JSON {self.shape_name}'
            raise AutomatonError("install-failed", f"{path}: {why}, so no hook can go in")

    def merged(self, current: dict[str, Any]) -> dict[str, Any]:
        return merge_hooks(current, self.harness.hooks())

    def removed(self, current: dict[str, Any]) -> dict[str, Any]:
        return remove_hooks(current, self.harness.hooks())

    def install(self, project: Path) -> list[str]:
        path = project / self.relpath
        existed = path.exists()
        merged = self.merged(read_json(path))
        if not write_changed(path, json.dumps(merged, indent=2) + "\n"):
            return []
        return [done(path, existed), *self.harness.notes(path, merged)]

    def uninstall(self, project: Path) -> list[str]:
        path = project / self.relpath
        if not path.exists():
            return []
        cleaned = self.removed(read_json(path))
        if cleaned:
            changed = write_changed(path, json.dumps(cleaned, indent=2) + "\n")
            return [f"updated {path}"] if changed else []
        path.unlink()
        remove_empty_folders(path.parent, project)
        return [f"removed {path}"]

    def installed(self, project: Path) -> bool:
        try:
            hooks = read_json(project / self.relpath).get("hooks")
        except AutomatonError:
            return True  # unreadable: keep what it may need
        return isinstance(hooks, (dict, list)) and ours(hooks)


class HookList(JsonHooks):
    """Our entries in a `hooks` list of named entries, one per trigger (Kiro CLI)."""

    shape = list
    shape_name = "list"

    def merged(self, current: dict[str, Any]) -> dict[str, Any]:
        mine = self.harness.hooks()
        merged = dict(current)
        entries = list(merged.get("hooks") or [])
        for entry in mine["hooks"]:
            found = [
                index
                for index, item in enumerate(entries)
                if ours(item) and isinstance(item, dict) and item.get("trigger") == entry["trigger"]
            ]
            if not found:
                entries.append(entry)
            for index in found[:1]:
                entries[index] = upgraded(with_defaults(entries[index], entry), commands(entry)[0])
        merged["hooks"] = entries
        return with_defaults(merged, {key: value for key, value in mine.items() if key != "hooks"})

    def removed(self, current: dict[str, Any]) -> dict[str, Any]:
        merged = dict(current)
        merged["hooks"] = [entry for entry in merged.get("hooks") or [] if not ours(entry)]
        return _without_ours(merged, self.harness.hooks())


class EventMap(JsonHooks):
    """Our entries merged into a JSON file whose top level is the map of events to
    entries (Factory Droid's `.factory/hooks.json`)."""

    def check(self, project: Path) -> None:
        path = project / self.relpath
        current = read_json(path)
        for event in self.harness.hooks():
            if current.get(event) is not None and not isinstance(current[event], list):
                why = f'its "{event}" is not a JSON list'
                raise AutomatonError("install-failed", f"{path}: {why}, so no hook can go in")

    def merged(self, current: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = merge_hooks({"hooks": current}, {"hooks": self.harness.hooks()})
        return dict(merged["hooks"])

    def removed(self, current: dict[str, Any]) -> dict[str, Any]:
        events = {key: value for key, value in current.items() if isinstance(value, list)}
        kept = remove_hooks({"hooks": events}).get("hooks") or {}
        others = {key: value for key, value in current.items() if key not in events}
        return {**others, **kept}

    def installed(self, project: Path) -> bool:
        try:
            return ours(read_json(project / self.relpath))
        except AutomatonError:
            return True  # unreadable: keep what it may need


def opencode_plugin() -> str:
    """The packaged plugin under a first line recording its digest, so a copy the user
    changed afterwards is recognised as theirs and never overwritten or removed."""
    packaged = resources.files("automaton_rules.guards.hooks").joinpath("opencode_plugin.js")
    body = packaged.read_text("utf-8")
    digest = hashlib.sha256(body.encode()).hexdigest()
    return f"{OPENCODE_MARKER} (sha256 {digest}); a changed copy is kept\n{body}"


class PluginFile(Settings):
    """A plugin file of ours (opencode), kept as it is once the user changed it."""

    def unchanged(self, path: Path) -> bool:
        """Whether the file is a plugin automaton-install wrote, as it wrote it."""
        first, _, body = path.read_text(encoding="utf-8", errors="replace").partition("\n")
        found = _OPENCODE_FIRST_LINE.match(first)
        return found is not None and hashlib.sha256(body.encode()).hexdigest() == found.group(1)

    def install(self, project: Path) -> list[str]:
        plugin = project / self.relpath
        existed = plugin.exists()
        if existed and not self.unchanged(plugin):
            return [f"kept {plugin} {KEPT_PLUGIN}"]
        return [done(plugin, existed)] if write_changed(plugin, opencode_plugin()) else []

    def uninstall(self, project: Path) -> list[str]:
        plugin = project / self.relpath
        if not plugin.exists():
            return []
        if not self.unchanged(plugin):
            return [f"kept {plugin} {KEPT_PLUGIN}"]
        plugin.unlink()
        remove_empty_folders(plugin.parent, project)
        return [f"removed {plugin}"]

    def installed(self, project: Path) -> bool:
        plugin = project / self.relpath
        return plugin.exists() and self.unchanged(plugin)
