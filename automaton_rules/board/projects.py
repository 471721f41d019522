"""The projects a board serves, each fixed at start, and what it knows of their tasks.

Each project's root is resolved once, when the server starts ("Dashboard handlers use
stored project_root instead of re-detecting from CWD", v2.0): no request ever looks at
the current folder. For each project the board keeps a card per task (its state, since
when it waits at a gate, its last activity), read in full once and then only for the
tasks the file watcher reports changed, so a change to one task of 10,000 costs the
reading of one task. A generation number counts the changes, and the audit run on
request is kept until the next one.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from automaton_rules.core import machine, store
from automaton_rules.core.config import Config, find_config, load_config
from automaton_rules.core.project import Project, Task, split_name
from automaton_rules.support import clock
from automaton_rules.support.errors import AutomatonError

HAND_EDITED_COLUMN = "hand-edited .state"
UNREADABLE_COLUMN = "unreadable .state"
UNTRACKED_COLUMN = "untracked (no .state)"
REVISING = "agent revising"
REVISED = "revised: review again"
AGENT_WAITING = "agent waiting for your decision"  # its Stop hook waits (support/waiting.py)


@dataclass(frozen=True)
class Card:
    """One task on the board: its state, since when it waits at its gate (None away from
    a gate), when anything of it last changed, what is wrong with it, if anything, and
    for a `.state` edited by hand, the state its history last recorded."""

    name: str
    state: str | None
    waiting_since: float | None = None
    activity: float = 0.0
    problem: str | None = None
    recorded: str | None = None
    review: str | None = None  # at a gate: REVISING or REVISED, once changes were asked

    @property
    def truth(self) -> str | None:
        """Why the task has no phase the board can show: a `.state` that is unreadable,
        missing, or says what its history does not; None when its state is real."""
        return truth_of(self.state, self.problem, self.recorded)

    @property
    def phase(self) -> str:
        """Its column: the base phase of a real state, else why it has none."""
        return self.truth or machine.base_phase(self.state or "")

    @property
    def awaiting(self) -> bool:
        """Waiting at an approval gate (a hand-edited gate is no gate)."""
        return self.truth is None and machine.is_awaiting(self.state or "")


def truth_of(state: str | None, problem: str | None, recorded: str | None) -> str | None:
    """The column a `.state` the board cannot vouch for goes to; None for a state
    status.py wrote."""
    if problem is not None or (state is not None and not machine.is_state(state)):
        return UNREADABLE_COLUMN
    if state is None:
        return UNTRACKED_COLUMN
    return HAND_EDITED_COLUMN if recorded is not None else None


def hand_edit(task: Task) -> str | None:
    """The state the history last recorded, when `.state` says another (a hand edit)."""
    from automaton_rules.core import integrity

    if task.state is None or not machine.is_state(task.state):
        return None
    try:
        tail = integrity.recorded_moves(task.path)
    except (OSError, AutomatonError):
        return None
    if not integrity.hand_edited(task.state, tail):
        return None
    return integrity.last_recorded(tail) or "(no state)"


def card_of(task: Task) -> Card:
    """A task's card, from its folder: the history's last line and the files' times."""
    recorded = hand_edit(task)
    waiting = None
    review = None
    if recorded is None and machine.is_awaiting(task.state or ""):
        tail = store.parse_history(store.history_tail(task.path, 1))
        waiting = clock.timestamp(tail[-1].get("time")) if tail else None
        review = review_of(task)
    active = (task.state or "") not in ("complete", "")
    activity = _activity(task) if active else 0.0
    return Card(task.name, task.state, waiting, activity, recorded=recorded, review=review)


def review_of(task: Task) -> str | None:
    """Where the review of a task at its gate stands: the agent is REVISING (a request is
    open), or has REVISED since the last request (the person's turn); None before any."""
    from automaton_rules.workflow import reviews

    asked = reviews.this_visit(task)
    if not asked:
        return None
    return REVISING if reviews.open_requests(task) else REVISED


def _activity(task: Task) -> float:
    """When the task last changed: its history or any of its artifacts."""
    latest = 0.0
    for name in (store.HISTORY, *task.artifacts):
        try:
            latest = max(latest, os.stat(task.path / name).st_mtime)
        except OSError:
            continue
    return latest


class Watched:
    """One project the board serves: its root, fixed at start, and its cards."""

    def __init__(self, pid: str, project: Project) -> None:
        self.pid = pid
        self.project = project
        self.generation = 0
        self.cards: dict[str, Card] = {}
        self._stale: set[str] | None = None  # None: read every task again
        self._lock = threading.Lock()
        self.audit: tuple[int, Any, str] | None = None  # (generation, AuditReport, when)
        self.cache: dict[Any, tuple[int, Any]] = {}
        self.config_path = find_config(project.root)

    @property
    def root(self) -> Path:
        """The project's folder, as resolved when the server started."""
        return self.project.root

    def missing(self) -> bool:
        """The project's tasks folder is gone (deleted or moved since the board started)."""
        return not self.project.tasks_dir.is_dir()

    def settings(self) -> Config:
        """The project's configuration, read again for each decision (it may change)."""
        return load_config(self.project.root)

    def watched_paths(self) -> list[Path]:
        """What the file watcher follows: the tasks folder, and the configuration file."""
        paths = [self.project.tasks_dir]
        if self.config_path is not None:
            paths.append(self.config_path)
        return paths

    def changed(self, paths: list[str]) -> set[str]:
        """Take note of changed paths; the names of the tasks they touch (all: '*')."""
        names: set[str] = set()
        base = str(self.project.tasks_dir)
        with self._lock:
            self.generation += 1
            for path in paths:
                name = _task_of(base, path)
                if name is None:
                    self._stale = None
                    names.add("*")
                elif self._stale is not None:
                    self._stale.add(name)
                    names.add(name)
                else:
                    names.add(name)
        return names

    def current(self) -> list[Card]:
        """Every task's card, up to date, in the order `--list` shows them."""
        with self._lock:
            stale, self._stale = self._stale, set()
            if stale is None:
                self.cards = {
                    name: _card(self.project, name, found)
                    for name, found in self.project.load_all()
                }
            else:
                for name in stale:
                    self._reload(name)
            cards = [self.cards[name] for name in sorted(self.cards, key=lambda n: n.split("/"))]
        return _with_waits(cards, self.project.root)

    def _reload(self, name: str) -> None:
        try:
            folder = self.project.task_dir(name)
        except AutomatonError:
            return
        if not folder.is_dir():
            self.cards.pop(name, None)
            return
        try:
            self.cards[name] = card_of(self.project.load(name))
        except AutomatonError as exc:
            self.cards[name] = Card(name, _raw_state(folder), problem=exc.message)

    def cached(self, key: Any, make: Any) -> Any:
        """A value computed once per generation of the files (a page's parts, a diagram)."""
        found = self.cache.get(key)
        if found is not None and found[0] == self.generation:
            return found[1]
        value = make()
        self.cache[key] = (self.generation, value)
        return value


def _with_waits(cards: list[Card], root: Path) -> list[Card]:
    """The cards, those an agent waits on at their gate said so (read at each request:
    a wait begins and ends without a file of the task changing)."""
    import time

    from automaton_rules.support import waiting

    waited = waiting.waiting(root.resolve(), time.time())
    if not waited:
        return cards
    return [
        replace(card, review=AGENT_WAITING)
        if card.name in waited and card.awaiting and card.review != REVISING
        else card
        for card in cards
    ]


def _card(project: Project, name: str, loaded: Task | AutomatonError) -> Card:
    if isinstance(loaded, AutomatonError):
        try:
            raw = _raw_state(project.task_dir(name))
        except AutomatonError:
            raw = None
        return Card(name, raw, problem=loaded.message)
    return card_of(loaded)


def _raw_state(folder: Path) -> str | None:
    """What `.state` holds, however garbled, to show it (escaped); None when unreadable."""
    try:
        return store.read_state(folder)
    except (OSError, AutomatonError):
        return None


def _valid_segment(segment: str) -> bool:
    try:
        split_name(segment)
    except AutomatonError:
        return False
    return "/" not in segment


def _task_of(base: str, path: str) -> str | None:
    """The task a changed path belongs to; None when it changes the list of tasks (a task
    folder appeared or went) or lies outside any task."""
    if not path.startswith(base + os.sep):
        return None  # the configuration file: every card may read otherwise
    parts = path[len(base) + 1 :].split(os.sep)
    if len(parts) < 2 or not _valid_segment(parts[0]):
        return None
    if parts[1] != machine.SUBTASKS_DIR:
        return parts[0]
    if len(parts) < 4 or not _valid_segment(parts[2]):
        return None
    return f"{parts[0]}/{parts[2]}"


def open_projects(roots: list[Path | None]) -> list[Watched]:
    """Each project named, found once, now; none named is the one above the current
    folder at start, and never again."""
    from automaton_rules.core.project import find_project

    found = [find_project(root) for root in (roots or [None])]
    seen: dict[Path, Project] = {}
    for project in found:
        seen.setdefault(project.root.resolve(), project)
    return [Watched(str(index), project) for index, project in enumerate(seen.values())]
