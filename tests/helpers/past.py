"""An audit's past: a task's recorded history and approval log moved, the digest chain
rewritten as status.py writes it, instead of racing the clock (read once per test), and
git repositories whose commits fall where a test needs them."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
HOUR = 3600


def now() -> int:
    return int(time.time())


def stamp(moment: int | datetime) -> str:
    """A moment (seconds, or a datetime in UTC) as the task files write it."""
    if not isinstance(moment, datetime):
        moment = datetime.fromtimestamp(moment, timezone.utc)
    return moment.strftime(TIME_FORMAT)


def seconds(text: str) -> int:
    """A time stamp of the task files as a moment."""
    return int(datetime.strptime(text, TIME_FORMAT).replace(tzinfo=timezone.utc).timestamp())


def history(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / ".state.history").read_text().splitlines()]


def chained_history(task_dir: Path) -> list[dict[str, Any]]:
    """A task's history entries ([] before it has one), after checking the digest chain
    line by line and that each entry leaves the state the one before it entered."""
    path = task_dir / store.HISTORY
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert entries[0]["prev"] is None
    for before, entry in zip(lines, entries[1:]):
        assert entry["prev"] == hashlib.sha256(before.encode()).hexdigest()
    for before, entry in zip(entries, entries[1:]):
        assert entry["from"] == before["to"], "a history line is duplicated or missing"
    return entries


def age_task(project: AutomatonProject, name: str, minutes: float) -> None:
    """Move the time of the task's first history line (its creation) `minutes` into the
    past, the digest chain left as it was (the lines after it are not rewritten)."""
    path = project.task_dir(name) / store.HISTORY
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    then = datetime.now(timezone.utc) - timedelta(minutes=minutes)
    first["time"] = then.strftime(TIME_FORMAT)
    lines[0] = json.dumps(first, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")


def rewrite_history(folder: Path, entries: list[dict[str, Any]]) -> None:
    """Write history entries, each chained to the line before as status.py chains them."""
    out, prev = [], None
    for entry in entries:
        line = json.dumps({**entry, "prev": prev}, separators=(",", ":"))
        out.append(line)
        prev = hashlib.sha256(line.encode()).hexdigest()
    (folder / ".state.history").write_text("".join(f"{line}\n" for line in out))


def _shift(text: str, by: int) -> str:
    moment = datetime.strptime(text, TIME_FORMAT) + timedelta(seconds=by)
    return moment.strftime(TIME_FORMAT)


def shift_times(folder: Path, by: int) -> None:
    """Move a task's whole recorded past (history and approval log) by `by` seconds."""
    rewrite_history(folder, [{**e, "time": _shift(e["time"], by)} for e in history(folder)])
    approvals = folder / ".state.approvals"
    lines = []
    for raw in approvals.read_text().splitlines():
        state, when, *rest = raw.split("|")
        lines.append("|".join([state, _shift(when, by), *rest]) + "\n")
    approvals.write_text("".join(lines))


def backdate(project: AutomatonProject, by: int = HOUR) -> None:
    """Every task with a history happened `by` seconds earlier than it did."""
    for folder in sorted(project.tasks_dir.iterdir()):
        if (folder / ".state.history").exists():
            shift_times(folder, -by)


def git_project(project: AutomatonProject) -> None:
    """A repository whose first commit predates every task by hours."""
    project.commit(
        {"README.txt": "hello\n", "src/app.py": "x = 1\n"}, "init", when=now() - 3 * HOUR
    )


def git_with_hooks(
    root: Path, *args: str, check: bool = True, author: tuple[str, str] = ("T", "t@example.com")
) -> subprocess.CompletedProcess[str]:
    """git with the package's hooks on PATH, as a person's shell has them."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    name, email = author
    return subprocess.run(
        ["git", "-c", f"user.email={email}", "-c", f"user.name={name}", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=check,
        timeout=60,
    )
