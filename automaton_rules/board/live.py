"""Changes on disk, pushed to every open page: a file watcher and server-sent events.

watchfiles follows each project's tasks folder (and its configuration file) through the
kernel's notifications (inotify on Linux), so an idle board does no work at all. Each
batch of changes (gathered for 30 ms) bumps the project's generation, marks the tasks it
touched for reading again, and is sent to every open page as one `change` event naming
the project, the tasks, and those that now await approval; the page then fetches its
own new content. A page that falls behind drops old events: the next fetch is current.
The kernel follows a new folder only once told of it, so the files written in a new task
folder at once send no event: a moment after a folder appears, the tasks are read again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

from automaton_rules.board.projects import Watched
from automaton_rules.core import machine, store

KEEPALIVE_SECONDS = 25.0
QUEUE_SIZE = 64
DEBOUNCE_MS = 30
SETTLE_SECONDS = (0.3, 1.5)  # after a task folder appears, read the tasks again


class Hub:
    """The open pages' event queues, and the watcher that feeds them."""

    def __init__(self, projects: list[Watched]) -> None:
        self.projects = projects
        self.queues: set[asyncio.Queue[str | None]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop: asyncio.Event | None = None
        self.closed = False

    def generation(self) -> str:
        """Every project's generation, as a page records the one it shows."""
        return ".".join(str(watched.generation) for watched in self.projects)

    def subscribe(self) -> asyncio.Queue[str | None]:
        """A queue for one open page."""
        queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_SIZE)
        self.queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[str | None]) -> None:
        """The page went away."""
        self.queues.discard(queue)

    def publish(self, payload: str | None) -> None:
        """Send one event to every page; a full queue loses its oldest event."""
        for queue in list(self.queues):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(payload)

    def close(self) -> None:
        """End every stream and the watcher (from any thread, or a signal handler)."""
        self.closed = True
        loop = self.loop
        if loop is None or loop.is_closed():
            return

        def finish() -> None:
            if self.stop is not None:
                self.stop.set()
            self.publish(None)

        loop.call_soon_threadsafe(finish)

    async def watch(self) -> None:
        """Follow the projects' files until closed."""
        from watchfiles import awatch

        self.loop = asyncio.get_running_loop()
        self.stop = asyncio.Event()
        paths = [path for watched in self.projects for path in watched.watched_paths()]
        async for changes in awatch(
            *paths, stop_event=self.stop, debounce=DEBOUNCE_MS, step=10, recursive=True
        ):
            changed = [path for _, path in changes]
            for payload in self.changed(changed):
                self.publish(payload)
            appeared = [w for w in self.projects if _folder_changed(w, changed)]
            for delay in SETTLE_SECONDS if appeared else ():
                self.loop.call_later(delay, self._settle, appeared)

    def _settle(self, projects: list[Watched]) -> None:
        """Read the projects' tasks again a moment after a task folder appeared: what was
        written in it before the watcher followed it into the folder sent no event."""
        if self.closed:
            return
        for payload in self.changed([str(w.project.tasks_dir) for w in projects]):
            self.publish(payload)

    def changed(self, paths: list[str]) -> list[str]:
        """One event per project the changed paths belong to."""
        events = []
        for watched in self.projects:
            mine = [p for p in paths if _belongs(watched, p)]
            if not mine:
                continue
            names = watched.changed(mine)
            awaiting = sorted(n for n in names if n != "*" and _awaiting(watched, n))
            body = {
                "project": watched.pid,
                "generation": watched.generation,
                "tasks": sorted(names),
                "awaiting": awaiting,
            }
            events.append(json.dumps(body))
        return events

    async def stream(self) -> AsyncIterator[str]:
        """One page's events, with a comment now and then to keep the connection."""
        queue = self.subscribe()
        try:
            hello = json.dumps({"generation": self.generation()})
            yield f"retry: 1000\nevent: hello\ndata: {hello}\n\n"
            while not self.closed:
                try:
                    payload = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                except asyncio.TimeoutError:
                    yield ": still here\n\n"
                    continue
                if payload is None:
                    break
                yield f"event: change\ndata: {payload}\n\n"
        finally:
            self.unsubscribe(queue)


def _folder_changed(watched: Watched, paths: list[str]) -> bool:
    """A task folder (or a sub-task's) appeared or went among these paths."""
    import os

    base = str(watched.project.tasks_dir)
    for path in paths:
        if not path.startswith(base + os.sep):
            continue
        parts = path[len(base) + 1 :].split(os.sep)
        if len(parts) == 1 or (len(parts) == 3 and parts[1] == machine.SUBTASKS_DIR):
            return True
    return False


def _belongs(watched: Watched, path: str) -> bool:
    tasks = str(watched.project.tasks_dir)
    return path.startswith(tasks) or path == str(watched.config_path)


def _awaiting(watched: Watched, name: str) -> bool:
    try:
        folder: Path = watched.project.task_dir(name)
        return machine.is_awaiting(store.read_state(folder) or "")
    except Exception:
        return False
