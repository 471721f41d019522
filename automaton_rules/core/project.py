"""Finding the project, naming its tasks, and reading a task folder safely."""

from __future__ import annotations

import os
import re
import sys
from functools import cached_property
from pathlib import Path

from automaton_rules.core import integrity, machine, store
from automaton_rules.support import clock
from automaton_rules.support.context import DEFAULT, Context
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from datetime import datetime, timedelta
    from typing import Any, Protocol

    from automaton_rules.core.history import Claim, HistoryEntry
    from automaton_rules.core.phases import Phase, Verdict

    class _Commit(Protocol):
        @property
        def files(self) -> tuple[str, ...]: ...
        @property
        def at(self) -> datetime: ...

    class _History(Protocol):
        """What `changed_at` reads of `automaton_rules.GitHistory` (the rule argument)."""

        @property
        def is_repo(self) -> bool: ...
        @property
        def commits(self) -> Sequence[_Commit]: ...
        @property
        def uncommitted(self) -> Sequence[str]: ...


NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME_LENGTH = 64
BOM = "\ufeff"
SMALL_FILE = 1 << 20  # artifacts up to this size are read once per task and kept until released
FRAMEWORK_HOME = ".automaton"
# The specification's own spelling, in the one sentence it gives word for word.
SPEC_SCRIPT = "python ~/.automaton/scripts/status.py"


def split_name(name: str) -> tuple[str, str | None]:
    """Check a task name and split `parent/sub`; anything else is refused, never resolved."""
    parts = name.split("/")
    if len(parts) > 2 or not all(_valid_segment(part) for part in parts):
        raise AutomatonError(
            "invalid-task-name",
            f"Invalid task name '{printable(name)}'. Task names are kebab-case "
            f"(lowercase letters, digits and single hyphens, at most {MAX_NAME_LENGTH} "
            "characters, e.g. add-user-auth); a sub-task is named parent/sub.",
        )
    return parts[0], (parts[1] if len(parts) == 2 else None)


def task_file(parts: Sequence[str]) -> tuple[str, str] | None:
    """(task name, file name) for a path inside the tasks folder, split into its parts,
    when it names a file directly in a task's or a sub-task's folder; else None."""
    if len(parts) == 2:
        return parts[0], parts[1]
    if len(parts) == 4 and parts[1] == machine.SUBTASKS_DIR:
        return f"{parts[0]}/{parts[2]}", parts[3]
    return None


def _valid_segment(segment: str) -> bool:
    return len(segment) <= MAX_NAME_LENGTH and NAME_PATTERN.fullmatch(segment) is not None


class TaskFiles:
    """A task folder's files, read for rules: each small file once, however many ask.

    Its fields are fixed and compared by value; what it reads from the folder is kept
    beside them, outside the fields, the first time anything asks (`cached_property`):
    a snapshot read lazily, not a frozen value. Two equal tasks may have read different
    amounts of their folder, never different contents of it.
    """

    path: Path
    files: frozenset[str]

    def read(self, filename: str) -> str | None:
        """A file's text, or None when it is absent or unreadable."""
        if filename not in self.files:
            return None
        try:
            data = self._small(filename)
            if data is None:
                with store.open_regular(self.path / filename) as handle:
                    data = handle.read()
        except OSError:
            return None
        return data.decode("utf-8", errors="replace")

    def has_content(self, filename: str) -> bool:
        """True when the file is a regular file holding more than white space (any that
        Unicode knows) and byte order marks: an artifact of `\\u00a0\\u2003` says nothing."""
        if filename not in self.files:
            return False
        try:
            small = self._small(filename)
            if small is not None:
                return not blank(small)
            return _has_text(self.path / filename)
        except OSError:
            return False

    def digest(self, filename: str) -> str | None:
        """SHA-256 of a file's bytes, or None when it does not exist (as `store.file_digest`)."""
        try:
            small = self._small(filename) if filename in self.files else None
        except OSError:
            small = None
        return (
            store.bytes_digest(small)
            if small is not None
            else store.file_digest(self.path / filename)
        )

    @cached_property
    def _small_files(self) -> dict[str, bytes | None]:
        """The small files read so far, by name."""
        return {}

    def _small(self, filename: str) -> bytes | None:
        """A small file's bytes, read once for every rule that looks at it; None if large."""
        cache = self._small_files
        if filename not in cache:
            data = store.read_bytes(os.path.join(self.path, filename), SMALL_FILE + 1)
            cache[filename] = data if len(data) <= SMALL_FILE else None
        return cache[filename]


def _known(name: str, *, phases: bool) -> None:
    """Refuse a state (or phase) the workflow has not: a typo must never read as never."""
    if machine.is_state(name) or (phases and name in machine.PHASES):
        return
    hint = machine.closest_state(name)
    raise ValueError(f"unknown state {name!r}" + (f"; did you mean {hint!r}?" if hint else ""))


class TaskTimes:
    """What rules ask of a task's history in time, answered once here rather than rebuilt
    by every rule: when it entered a state, when it last asked for approval, how long it
    spent in a phase, when one of its files last changed. Every time is one the task
    files record (UTC, whole seconds): under the test fixture's clock, the clock's."""

    if TYPE_CHECKING:
        files: frozenset[str]
        path: Path

        @property
        def entries(self) -> tuple[HistoryEntry, ...]: ...

        def relpath(self, filename: str) -> str: ...

    def entered_at(self, state: str, *, first: bool = False) -> datetime | None:
        """When the task last moved into `state` (the first time, with `first=True`), as
        its history dates it: `task.entered_at("bug_find")`; None if it never did."""
        _known(state, phases=False)
        times = [entry.time for entry in self.entries if entry.target == state]
        if not times:
            return None
        return times[0] if first else times[-1]

    def approval_requested(self, phase: str | None = None) -> datetime | None:
        """When the task last asked for approval: moved into `PHASE:awaiting_approval`,
        of `phase` or of any phase; None if it never did."""
        if phase is not None and phase not in machine.APPROVAL_PHASES:
            gated = ", ".join(machine.APPROVAL_PHASES)
            raise ValueError(f"{phase!r} has no approval gate (the phases with one: {gated})")
        times = [
            entry.time
            for entry in self.entries
            if machine.is_awaiting(entry.target)
            and (phase is None or machine.base_phase(entry.target) == phase)
        ]
        return times[-1] if times else None

    def time_in(self, phase: str, now: datetime) -> timedelta:
        """How long the task has been in `phase` (every state of it: `research` counts its
        gate too) or in one state (`design:awaiting_approval`), over all its stays; the
        stay under way counts up to `now` (the rule argument)."""
        from datetime import timedelta

        _known(phase, phases=True)
        whole = phase in machine.PHASES
        spent = timedelta(0)
        entries = self.entries
        for index, entry in enumerate(entries):
            target = entry.target
            if (machine.base_phase(target) if whole else target) != phase:
                continue
            end = entries[index + 1].time if index + 1 < len(entries) else now
            spent += max(end - entry.time, timedelta(0))
        return spent

    def changed_at(self, filename: str, git: _History | None = None) -> datetime | None:
        """When one of the task's files last changed, to the second: with `git`, the time of
        the last commit that touched it while the work tree holds what was committed; else
        the file's modification time (the fixture writes files at its clock's time). None
        for a file the folder does not hold."""
        if filename not in self.files:
            return None
        if git is not None and git.is_repo:
            path = self.relpath(filename)
            if path not in git.uncommitted:
                for commit in reversed(git.commits):
                    if path in commit.files:
                        return commit.at
        try:
            modified = os.stat(self.path / filename, follow_symlinks=False).st_mtime
        except OSError:
            return None
        from datetime import datetime, timezone

        return datetime.fromtimestamp(int(modified), timezone.utc)


class Task(TaskFiles, TaskTimes, Record):
    """A read-only view of one task folder, handed to rules as the `task` argument.

    `state` is what `.state` holds (`design:approved`), `phase` the workflow step it
    belongs to (`design`); core/phases.py defines both and their order.
    """

    name: str
    path: Path
    state: str | None
    files: frozenset[str]
    rel: str = ""

    @property
    def parent(self) -> str | None:
        """The parent's name for a sub-task, else None."""
        return self.name.split("/")[0] if "/" in self.name else None

    @property
    def tracked(self) -> bool:
        """False for a folder made by hand: it has no `.state`."""
        return self.state is not None

    @property
    def phase(self) -> str | None:
        """The base phase of a known state, else None."""
        if self.state is None or not machine.is_state(self.state):
            return None
        return machine.base_phase(self.state)

    @cached_property
    def artifacts(self) -> tuple[str, ...]:
        """The artifacts present, in workflow order; other files are never artifacts."""
        return tuple(name for name in machine.ARTIFACTS.values() if name in self.files)

    @cached_property
    def history_lines(self) -> tuple[str, ...]:
        """The raw `.state.history` lines, read once however many rules ask."""
        return tuple(store.history_lines(self.path))

    @cached_property
    def history(self) -> tuple[dict[str, Any], ...]:
        """The `.state.history` entries; a line that is not a JSON object reads as {}."""
        return tuple(store.parse_history(self.history_lines))

    @cached_property
    def approvals(self) -> tuple[store.Approval | None, ...]:
        """The `.state.approvals` lines; None stands for a line that does not parse."""
        return tuple(store.read_approvals(self.path))

    @cached_property
    def entries(self) -> tuple[HistoryEntry, ...]:
        """The history as typed entries, oldest first (`HistoryEntry`); a line with no
        readable time or target state is left out, as `history` still shows it."""
        from automaton_rules.core import history

        return history.entries(self.history)

    @cached_property
    def claim(self) -> Claim | None:
        """The multi-agent claim in `.state.lock`, or None when no agent holds the task."""
        fields = store.read_claim(self.path) if store.CLAIM in self.files else None
        if fields is None:
            return None
        from automaton_rules.core.history import Claim

        return Claim.parse(fields)

    @property
    def verdict(self) -> Verdict | None:
        """The referee's verdict in VERDICT.md, read the way the workflow's gate reads it."""
        from automaton_rules.core.phases import verdict_of

        text = self.read(machine.ARTIFACTS["referee"])
        return None if text is None else verdict_of(text)

    def reached(self, phase: str | Phase) -> bool:
        """Whether the task is in `phase` or past it in the workflow's order (`reached`)."""
        from automaton_rules.core.phases import reached

        return reached(self.state, phase)

    @cached_property
    def entered(self) -> tuple[tuple[float, str], ...]:
        """When the task entered each known state, as the history dates it, oldest first.

        The history is read for it without being kept, unless a rule read it already: the
        project-wide rules ask this of every task, and must not keep every history.
        """
        cached = self.__dict__.get("history")
        entries = cached if cached is not None else store.read_history(self.path)
        moments = []
        for entry in entries:
            moment, target = clock.timestamp(entry.get("time")), entry.get("to")
            state = machine.STATE_NAMES.get(target) if isinstance(target, str) else None
            if moment is not None and state is not None:
                moments.append((moment, state))
        return tuple(sorted(moments, key=lambda item: item[0]))

    def state_at(self, moment: datetime | float) -> str | None:
        """The state the task was in at `moment` (a timezone-aware datetime, or POSIX
        seconds), as its history dates it: in a second in which it changed state, the last
        state of that second. None before its first history line, or without a history."""
        held = self.states_during(moment, moment)
        return held[-1] if held else None

    def states_during(self, start: datetime | float, end: datetime | float) -> tuple[str, ...]:
        """Every state the task held from `start` to `end`, oldest first. Times are whole
        seconds, so a second in which the task changed state counts whole: both the state
        it left and the one it entered then were held in it (what AR301 judges a change
        made in that second against)."""
        import bisect

        first, last = _second(start), _second(end)
        if last < first:
            raise ValueError("states_during: end comes before start")
        timeline = self.entered
        starts = [moment for moment, _ in timeline]
        before = bisect.bisect_left(starts, first) - 1  # the state held as `start` began
        until = bisect.bisect_right(starts, last)
        return tuple(state for _, state in timeline[max(before, 0) : until])

    def release(self) -> None:
        """Forget the records read so far, keeping only `entered`: an audit of thousands
        of tasks holds every task, and their parsed histories would not fit its budget."""
        if "history" in self.__dict__:
            self.entered  # noqa: B018 - kept, small, for the project-wide rules
        for name in ("history_lines", "history", "entries", "approvals", "claim", "_small_files"):
            self.__dict__.pop(name, None)

    def known_timeline(self) -> tuple[tuple[float, str], ...] | None:
        """`entered` if it was worked out already, else None: asking never reads the history."""
        return self.__dict__.get("entered")

    def adopt_timeline(self, entered: tuple[tuple[float, str], ...]) -> None:
        """Take `entered` as worked out in another process, so this one need not read it."""
        self.__dict__["entered"] = entered

    def relpath(self, filename: str) -> str:
        """A file of the task as a path relative to the project root, as findings report it."""
        return f"{self.rel}/{filename}" if self.rel else filename


def _second(moment: datetime | float) -> float:
    """A moment as the whole POSIX second the task files would date it; a naive datetime
    is refused, as Python refuses to compare one with the history's UTC times."""
    if isinstance(moment, (int, float)):
        return float(moment // 1)
    if moment.tzinfo is None:
        raise ValueError(
            "a naive datetime has no time zone: use an aware one, such as "
            "automaton_rules.now() or datetime(..., tzinfo=timezone.utc)"
        )
    return float(moment.timestamp() // 1)


def presumed_artifacts(task: Task) -> tuple[str, ...]:
    """The artifacts a task's state presumes, for the audit and the reports alike; a
    decomposed parent completes through its sub-tasks, without code of its own."""
    state = task.state or ""
    decomposed = machine.ARTIFACTS["decomposition"] in task.files and (
        (task.path / machine.SUBTASKS_DIR).is_dir()
    )
    if machine.base_phase(state) == "complete" and decomposed:
        return machine.DECOMPOSED_ARTIFACTS
    return machine.expected_artifacts(state)


_ASCII_WHITE = b" \t\n\r\x0b\x0c"


def blank(data: bytes) -> bool:
    """Whether a file's bytes, read as UTF-8, hold only white space and byte order marks:
    every artifact check decides "empty" this way."""
    first = data.lstrip(_ASCII_WHITE)[:1]
    if first and 0x21 <= first[0] <= 0x7E:  # a printable ASCII character: most artifacts
        return False
    return not data.decode("utf-8", errors="replace").replace(BOM, "").strip()


def _has_text(path: Path) -> bool:
    """`not blank` for a large file, read a block at a time."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    with store.open_regular(path) as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            if decoder.decode(block).replace(BOM, "").strip():
                return True
    return bool(decoder.decode(b"", final=True).replace(BOM, "").strip())


class Project(Record):
    """A project root, the folder its tasks live in, and the run that opened it."""

    _unshown = ("context",)
    root: Path
    tasks_dir: Path
    context: Context

    def __init__(
        self, root: Path | str, tasks_dir: Path | None = None, context: Context = DEFAULT
    ) -> None:
        """`Project(root)` is the project whose tasks live in `root/.automaton/tasks`, as a
        rule's unit test builds it; `tasks_dir` names another folder (`~/.automaton` uses
        its `tasks/`); `context` is the run's clock, plugin selection and invocation."""
        root = root if isinstance(root, Path) else Path(root)
        tasks_dir = root / FRAMEWORK_HOME / "tasks" if tasks_dir is None else tasks_dir
        self._init(root, tasks_dir, context)

    def opened_by(self, context: Context) -> Project:
        """The same project, as the run that `context` describes sees it."""
        return Project(self.root, self.tasks_dir, context)

    @property
    def tasks_label(self) -> str:
        """How messages name the tasks folder: `{project}/.automaton/tasks/`, escaped so a
        folder name with a line break cannot forge a line of output."""
        return printable(f"{self.tasks_dir}/", None)

    def task_dir(self, name: str) -> Path:
        """The folder of a task, refusing any name or link that leads outside the tasks folder."""
        parent, sub = split_name(name)
        path = self.tasks_dir / parent
        if sub is not None:
            path = path / machine.SUBTASKS_DIR / sub
        steps = (path,) if sub is None else (path.parent.parent, path.parent, path)
        if any(os.path.islink(step) for step in steps):
            try:
                resolved = path.resolve()
            except (OSError, RuntimeError) as exc:  # a loop of links
                raise AutomatonError(
                    "unreadable",
                    f"Task folder of '{printable(name)}' cannot be followed: "
                    f"{printable(str(exc), None)}",
                ) from None
            if not inside(resolved, self.real_tasks_dir):
                raise AutomatonError(
                    "outside-tasks-folder",
                    f"Task folder of '{printable(name)}' points outside {self.tasks_label} "
                    f"({printable(str(resolved), None)}).",
                )
        return path

    @cached_property
    def real_tasks_dir(self) -> Path:
        """The tasks folder with links resolved, once: task folders that are links must
        lead back inside it. The name was checked, so only a link can lead out."""
        return self.tasks_dir.resolve()

    def load(self, name: str, *, strict: bool = True) -> Task:
        """Read a task folder; strict loading refuses a `.state` with an unknown phase."""
        path = self.task_dir(name)
        if not path.is_dir():
            guesses = [
                f"{parent}/{name}"
                for parent in _child_dirs(self.tasks_dir)
                if (self.tasks_dir / parent / machine.SUBTASKS_DIR / name).is_dir()
            ]
            hint = f" Did you mean '{guesses[0]}'?" if "/" not in name and guesses else ""
            raise AutomatonError(
                "task-not-found", f"Task '{name}' not found in {self.tasks_label}{hint}"
            )
        return self._read(name, path, _file_names(path), strict)

    def _read(self, name: str, path: Path, files: frozenset[str], strict: bool) -> Task:
        state = store.read_state(path)
        if strict and state is not None and not machine.is_state(state):
            raise unknown_phase_error(self, state, store.HISTORY in files)
        where, root = str(path), str(self.root)
        rel = where[len(root) + 1 :] if where.startswith(root + os.sep) else ""
        return Task(name=name, path=path, state=state, files=files, rel=rel)

    def load_all(self) -> list[tuple[str, Task | AutomatonError]]:
        """Every task in `names()` order, each folder listed once; a task that cannot be
        read comes as its error, so one bad folder does not hide the rest.

        Folders reached through a link take the careful road of `load`, which refuses
        any that lead outside the tasks folder.
        """
        return _load_all(self)

    def names(self) -> list[str]:
        """Every task name, each parent followed by its sub-tasks, sorted."""
        names = []
        for parent in _child_dirs(self.tasks_dir):
            names.append(parent)
            below = self.tasks_dir / parent / machine.SUBTASKS_DIR
            names.extend(f"{parent}/{sub}" for sub in _child_dirs(below))
        return names

    def iter_names(self) -> Iterator[str]:
        """Every task name, each parent followed by its sub-tasks, in the order the file
        system lists them: for a caller that may stop at the first task it needs, where
        sorting would mean listing every folder first."""
        for parent in _scan_dirs(self.tasks_dir):
            yield parent
            for sub in _scan_dirs(self.tasks_dir / parent / machine.SUBTASKS_DIR):
                yield f"{parent}/{sub}"

    def stray_folders(self) -> list[str]:
        """Folders where tasks live whose names no task can have: made by hand, never seen."""
        listed = _folders(self.tasks_dir)
        stray = [name for name in listed if not _valid_segment(name)]
        for parent in listed:
            below = f"{self.tasks_dir}/{parent}/{machine.SUBTASKS_DIR}"
            if _valid_segment(parent) and os.path.isdir(below):  # a stat, not a failed listing
                stray += [
                    f"{parent}/{machine.SUBTASKS_DIR}/{name}"
                    for name in _folders(below)
                    if not _valid_segment(name)
                ]
        return stray

    def subtask_names(self, parent: str) -> list[str]:
        """The sub-tasks of one parent, sorted."""
        folder = self.task_dir(parent) / machine.SUBTASKS_DIR
        return [f"{parent}/{sub}" for sub in _child_dirs(folder)]


def _load_all(project: Project) -> list[tuple[str, Task | AutomatonError]]:
    """`Project.load_all`: each folder listed once, its listing reused for its files."""
    loaded: list[tuple[str, Task | AutomatonError]] = []

    def read(
        name: str, base: Path, entry: os.DirEntry[str], careful: bool
    ) -> list[os.DirEntry[str]] | None:
        folder = base / entry.name
        listing = None if careful or entry.is_symlink() else _listing(folder)
        try:
            if listing is None:
                loaded.append((name, project.load(name)))
            else:
                loaded.append((name, project._read(name, folder, _regular_names(listing), True)))
        except AutomatonError as exc:
            loaded.append((name, exc))
        return listing

    for parent in _task_entries(project.tasks_dir):
        listing = read(parent.name, project.tasks_dir, parent, False)
        found = [e for e in listing or () if e.name == machine.SUBTASKS_DIR and _is_dir(e)]
        careful = listing is None or any(e.is_symlink() for e in found)
        if listing is None or found:
            below = project.tasks_dir / parent.name / machine.SUBTASKS_DIR
            for sub in _task_entries(below):
                read(f"{parent.name}/{sub.name}", below, sub, careful)
    return loaded


def inside(path: Path, folder: Path) -> bool:
    """`path` is `folder` or below it, as written: both resolved by the caller. Compared
    part by part, which the shell hook does some two hundred times a call."""
    parts, top = path.parts, folder.parts
    return len(parts) >= len(top) and parts[: len(top)] == top


def _folders(folder: str | Path) -> list[str]:
    """Sub-folders by name, sorted; hidden ones (staging folders of --create-task) skipped."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(e.name for e in entries if _is_dir(e) and not e.name.startswith("."))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A folder, or a link that cannot be followed (a loop): that one is looked at
    closely, and reported, rather than hiding every other task behind an error."""
    try:
        return entry.is_dir()
    except OSError:
        return entry.is_symlink()


def _listing(folder: Path) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return None


def _task_entries(folder: Path) -> list[os.DirEntry[str]]:
    """The folders below `folder` that have a task's name, sorted."""
    found = [e for e in _listing(folder) or () if _valid_segment(e.name) and _is_dir(e)]
    return sorted(found, key=lambda e: e.name)


def _scan_dirs(folder: Path) -> Iterator[str]:
    """Task folders below `folder`, unsorted, listed only as far as the caller reads."""
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            if _valid_segment(entry.name) and _is_dir(entry):
                yield entry.name


def _child_dirs(folder: Path) -> Iterator[str]:
    """Task folders below `folder`: those with a valid task name."""
    return (name for name in _folders(folder) if _valid_segment(name))


def _file_names(folder: Path) -> frozenset[str]:
    """The regular files of a folder."""
    try:
        with os.scandir(folder) as entries:
            return _regular_names(entries)
    except OSError as exc:
        raise AutomatonError("unreadable", f"Cannot read {folder}: {exc.strerror}") from None


def _regular_names(entries: Iterable[os.DirEntry[str]]) -> frozenset[str]:
    """Regular files only: a link or a device is never taken for an artifact. Names are
    interned: thousands of tasks share a handful of them."""
    return frozenset(sys.intern(e.name) for e in entries if e.is_file(follow_symlinks=False))


def unknown_phase_error(project: Project, state: str, history: bool) -> AutomatonError:
    """A `.state` no phase has, in the specification's words, then the way out: --upgrade
    restores it from the history; without one, the user writes the right phase."""
    said = f"Unknown phase '{printable(state)}' in .state file"
    command = project.context.command("--upgrade", "--project", project.root)
    guess = machine.closest_state(state)
    if history:
        step = f". Run '{command}' to restore it from .state.history."
    else:
        meant = f" (did you mean '{guess}'?)" if guess else ""
        step = (
            f"; with no .state.history to restore it from, write the right phase into it"
            f"{meant}, or remove .state and run '{command}' to infer the phase from the "
            "artifacts."
        )
    return AutomatonError(
        "unknown-phase",
        said + step,
        next_steps={"state": state, "command": command, "restores": history, "did_you_mean": guess},
    )


def untracked_error(project: Project, task: Task) -> AutomatonError:
    """A folder with no `.state` is not guessed at: the user adopts it with --upgrade. With
    no artifact either, its phase is "unknown", as the specification reports it."""
    command = project.context.command("--upgrade", "--project", project.root)
    if not task.artifacts:
        return AutomatonError(
            "untracked-task",
            f"Task '{task.name}' is untracked (no .state file) and has no artifacts: its "
            f"phase is unknown. Run '{command}' to adopt it in phase 'new'.",
            next_steps={"phase": "unknown", "inferred_phase": None, "command": command},
        )
    phase = machine.infer_phase(task.artifacts)
    return AutomatonError(
        "untracked-task",
        f"Task '{task.name}' is untracked (no .state file). Its artifacts suggest phase "
        f"'{phase}'. Run '{command}' to bootstrap it.",
        next_steps={"inferred_phase": phase, "command": command},
    )


HAND_EDITED = "state-edited-by-hand"


def load_tracked(project: Project, name: str) -> Task:
    """A task that has a `.state` its history vouches for; an untracked folder is refused,
    never guessed at, and so is a `.state` edited by hand."""
    task = project.load(name)
    if task.state is None:
        raise untracked_error(project, task)
    refuse_hand_edit(project, task)
    return task


def refuse_hand_edit(project: Project, task: Task) -> None:
    """Refuse a task whose `.state` says what its history's last line does not: every
    command that decides on a task asks this first, reading only that line and the one
    before it."""
    if task.state is None:
        return
    moves = integrity.recorded_moves(task.path)
    if integrity.hand_edited(task.state, moves):
        raise hand_edit_error(project, task, integrity.last_recorded(moves))


def hand_edit_error(project: Project, task: Task, recorded: str | None) -> AutomatonError:
    """What `.state` says, what the history says, and how the user puts it back."""
    shown = printable(task.state or "", None)
    if recorded is None or not machine.is_state(recorded):
        return AutomatonError(
            HAND_EDITED,
            f"Task '{task.name}': .state says '{shown}' but the last line of .state.history "
            "names no state status.py writes, so nothing vouches for .state. "
            f"'{project.context.command('--audit', '--project', project.root)}' shows what was "
            "changed; the history line must be put back (from version control) by the user.",
            next_steps={"state": task.state, "recorded": None},
        )
    command = project.context.command("--upgrade", "--project", project.root)
    return AutomatonError(
        HAND_EDITED,
        f"Task '{task.name}': .state says '{shown}' but .state.history says '{recorded}': "
        f".state was changed outside status.py. Run '{command}' to restore .state to "
        f"'{recorded}' (the history records the restoration); the task then moves only "
        "with --transition and --approve.",
        next_steps={"state": task.state, "recorded": recorded, "command": command},
    )


def framework_home(home: Path | None = None) -> Path:
    """`~/.automaton`, the framework's own folder, which is not a project."""
    return (home or Path.home()) / FRAMEWORK_HOME


def project_at(root: Path, home: Path | None = None) -> Project:
    """The project rooted at a folder; `~/.automaton` keeps its tasks in `tasks/`."""
    root = root.resolve()
    fw = framework_home(home).resolve()
    if root == fw:
        return Project(root, root / "tasks")
    if (root / FRAMEWORK_HOME).resolve() == fw:
        raise AutomatonError(
            "home-not-a-project",
            f"{root} is the home folder: its .automaton/ is the framework's own folder, "
            f"not a project's. Pass --project with a project folder, or --project {fw} "
            "for the framework's own tasks.",
        )
    return Project(root, root / FRAMEWORK_HOME / "tasks")


def _no_project(where: str, explicit: bool = False) -> AutomatonError:
    """No project here: where to look (a walk up), or how to make one (a named folder)."""
    if explicit:
        return AutomatonError(
            "no-project",
            f"No .automaton/tasks/ folder found in {where}: it is not a project yet. Run "
            f"automaton-install --project {where} there, or create a task with --create-task.",
        )
    return AutomatonError(
        "no-project",
        f"No .automaton/tasks/ folder found in {where}. "
        "Pass --project or create a task with --create-task.",
    )


def find_project(
    explicit: Path | None,
    cwd: Path | None = None,
    home: Path | None = None,
    *,
    create: bool = False,
) -> Project:
    """`--project` wins; else walk up to the nearest `.automaton/tasks/`, never `~/.automaton`."""
    if explicit is not None:
        root = explicit.expanduser()
        if not root.is_dir():
            problem = "is not a folder" if root.exists() else "does not exist"
            raise AutomatonError("project-not-found", f"Project folder '{explicit}' {problem}.")
        project = project_at(root, home)
        # A project adopted before its first task: its `.automaton/` is there (the
        # installer's .gitignore, committed), its empty tasks folder may not be (git keeps
        # no empty folder), and it has no task to report.
        adopted = project.tasks_dir.parent.is_dir()
        if not create and not project.tasks_dir.is_dir() and not adopted:
            raise _no_project(str(project.root), explicit=True)
        return project
    here = (cwd or Path.cwd()).resolve()
    fw = framework_home(home).resolve()
    if here == fw or fw in here.parents:
        return Project(fw, fw / "tasks")
    for folder in (here, *here.parents):
        candidate = folder / FRAMEWORK_HOME
        if (candidate / "tasks").is_dir() and candidate.resolve() != fw:
            return Project(folder, candidate / "tasks")
    if create:
        return project_at(here, home)
    raise _no_project(f"{here} or its parents")


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "FRAMEWORK_HOME",
    "HAND_EDITED",
    "SPEC_SCRIPT",
    "Project",
    "Task",
    "find_project",
    "framework_home",
    "inside",
    "load_tracked",
    "presumed_artifacts",
    "refuse_hand_edit",
    "split_name",
    "task_file",
]
