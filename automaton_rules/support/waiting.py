"""Which agents wait on a person's decision now: the Stop hook says so while it waits, and
the board shows it.

The hook (`guards/hooks/stop.py`) writes one small file per wait under
`~/.automaton/run/waiting/` (hidden from the sandbox, as the rest of `~/.automaton/run`),
naming the project, the tasks at their gates, its process and when its wait ends, and
removes it when the wait does. The board reads the files of its projects; a file whose
process is gone or whose time is up counts for nothing, and is removed when read, so a
killed hook leaves no agent "waiting" behind.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

FOLDER = (".automaton", "run", "waiting")


def folder(home: Path | None = None) -> Path:
    """Where the waits are written."""
    return (home or Path.home()).joinpath(*FOLDER)


def begin(root: Path, tasks: list[str], until: float, home: Path | None = None) -> Path | None:
    """Say that this process waits until `until` (seconds since the epoch) on `tasks` of the
    project at `root`; the file, or None where it cannot be written (nothing is shown)."""
    marker = folder(home) / f"{os.getpid()}.json"
    body = {"root": str(root), "tasks": tasks, "pid": os.getpid(), "until": until}
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps(body), encoding="utf-8")
    except OSError:
        return None
    return marker


def end(marker: Path | None) -> None:
    """The wait is over."""
    if marker is not None:
        with contextlib.suppress(OSError):
            marker.unlink()


def waiting(root: Path, now: float, home: Path | None = None) -> set[str]:
    """The tasks of the project at `root` an agent waits on at `now`."""
    found: set[str] = set()
    try:
        entries = list(folder(home).iterdir())
    except OSError:
        return found
    for entry in entries:
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        until, pid, tasks = data.get("until"), data.get("pid"), data.get("tasks")
        if not isinstance(until, (int, float)) or until < now or not _alive(pid):
            end(entry)  # a wait a killed hook left behind: gone for every project
            continue
        if data.get("root") != str(root):
            continue
        if isinstance(tasks, list):
            found.update(task for task in tasks if isinstance(task, str))
    return found


def _alive(pid: object) -> bool:
    """Whether a process of that number runs (one of another user's counts too)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
