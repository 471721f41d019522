"""Edit-time decisions: may this edit happen, is this file in scope, same session?

Harness hooks ask these before every edit an agent makes, so this module imports
only the core (machine, project, store) — never typer or pluggy.
"""

from __future__ import annotations

import os
from pathlib import Path

from automaton_rules.core import machine, store
from automaton_rules.core.project import (
    HAND_EDITED,
    Project,
    Task,
    find_project,
    framework_home,
    inside,
    load_tracked,
    refuse_hand_edit,
    task_file,
)
from automaton_rules.guards.edits import protected
from automaton_rules.support import clock
from automaton_rules.support.context import DEFAULT, Context
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.support.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from automaton_rules.core.config import Config

    # The file's text after the edit, from its text before (None: no file); None back
    # when the edit cannot be worked out from the tool's input.
    Proposed = Callable[[str | None], str | None]

EDIT_PHASES_TEXT = "implement or doc_review"
DEFAULT_SESSION_MINUTES = 30


class Decision(Record):
    """One answer of an edit-time hook: the exact line to print and its exit code."""

    allowed: bool
    text: str
    code: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 allowed, 1 refused: the specification's hook contract."""
        return 0 if self.allowed else 1


def _allowed(code: str = "allowed", **details: Any) -> Decision:
    return Decision(True, "ALLOWED", code, details)


def _deny_phase(task: Task) -> Decision:
    phase = machine.base_phase(task.state or "")
    return Decision(
        False,
        f"DENIED: Task '{task.name}' is in {phase} phase. "
        f"Code edits require {EDIT_PHASES_TEXT} phase.",
        "wrong-phase",
        {"task": task.name, "state": task.state},
    )


def _with_state(project: Project, name: str) -> Task | None:
    """The task with its state, read cheaply (no artifact listing); None if untracked."""
    path = project.task_dir(name)
    state = store.read_state(path)
    if state is None or not machine.is_state(state):
        return None
    return Task(name, path, state, frozenset())


def task_states(project: Project) -> list[Task]:
    """Every tracked task with its state, read cheaply (no artifact listing)."""
    found = (_with_state(project, name) for name in project.names())
    return [task for task in found if task is not None]


def _first_editing(project: Project) -> tuple[Task | None, list[Task]]:
    """The first task found in an edit phase, reading `.state` files only until there is
    one; without one, every tracked task in `names()` order, for the refusal to list."""
    tracked = []
    for name in project.iter_names():
        task = _with_state(project, name)
        if task is None:
            continue
        if machine.is_edit_phase(task.state or ""):
            refuse_hand_edit(project, task)  # a .state edited by hand opens no edits
            return task, []
        tracked.append(task)
    return None, sorted(tracked, key=lambda task: task.name.split("/"))


def find_event_project(
    explicit: str | None, cwd: Path | None, context: Context = DEFAULT
) -> Project | None:
    """The project a hook event runs in; None outside any, where the event passes through
    untouched, unless the hook was given one (`--project`), which must then exist. It is
    opened by the run that `context` describes (the adapter's `main` hands its own down)."""
    try:
        found = find_project(Path(explicit) if explicit else None, cwd=cwd)
        return found.opened_by(context)
    except AutomatonError as exc:
        if explicit is None and exc.code == "no-project":
            return None
        raise


def resolve(file: str | Path, cwd: Path | None = None) -> Path:
    """A path as the edit would reach it: `~`, `..` and symbolic links resolved."""
    path = Path(os.path.expanduser(str(file)))
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    return path.resolve()


def scope_check(project: Project, file: str | Path, cwd: Path | None = None) -> Decision:
    """In scope: inside the project. The framework's own files are not, while on a project."""
    target = resolve(file, cwd)
    root = project.root.resolve()
    fw = framework_home().resolve()
    working_on_framework = inside(root, fw)
    if inside(target, root) and (working_on_framework or not inside(target, fw)):
        return Decision(True, "IN_SCOPE", "in-scope", {"file": str(target)})
    return Decision(
        False,
        f"OUT_OF_SCOPE: File '{printable(str(file), None)}' is outside project "
        f"'{printable(str(project.root), None)}'.",
        "out-of-scope",
        {"file": str(target), "project": str(project.root)},
    )


def _file_decision(
    project: Project,
    file: str | Path,
    cwd: Path | None,
    settings: Config | None,
    proposed: Proposed | None,
) -> Decision | None:
    """What the file alone decides, before any phase: state files and the guard's own
    files never, files outside the project never, artifacts in their phase."""
    target = resolve(file, cwd)
    shown = printable(str(file), None)
    if target.name.lower().startswith(store.STATE):  # .STATE is .state on macOS
        return Decision(
            False,
            f"DENIED: File '{shown}' is workflow state: only status.py writes .state files.",
            "state-file",
            {"file": str(target)},
        )
    if settings is None:
        from automaton_rules.core.config import load_config

        settings = load_config(project.root)
    what = protected.reason(project, target, settings)
    owner = _task_of(project, target)
    if what == protected.RECORDS and owner is not None:
        return _artifact_edit(project, owner[0], owner[1], str(file))
    if what is not None:
        return _protected(shown, target, what)
    if protected.is_pyproject(project, target, settings) and _changes_table(target, proposed):
        return _protected(shown, target, protected.TOOL_TABLE)
    scope = scope_check(project, file, cwd)
    if not scope.allowed:
        return scope
    if owner is not None:
        return _artifact_edit(project, owner[0], owner[1], str(file))
    return None


def _protected(shown: str, target: Path, what: str) -> Decision:
    return Decision(
        False, protected.denial(shown, what), "protected-file", {"file": str(target), "what": what}
    )


def _changes_table(target: Path, proposed: Proposed | None) -> bool:
    """Whether an edit of pyproject.toml may change its `[tool.automaton]` table: it does
    when the text after the edit has another table, or when that text cannot be told
    and the file has one."""
    try:
        before_text: str | None = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        before_text = None
    except (OSError, UnicodeDecodeError):
        return True
    before = None if before_text is None else protected.tool_table(before_text)
    after_text = None if proposed is None else proposed(before_text)
    if after_text is None:
        return before is not None
    return protected.tool_table(after_text) != before


def _task_of(project: Project, path: Path) -> tuple[str, str] | None:
    """(task name, file name) when `path` is a file directly inside a task folder."""
    tasks = project.tasks_dir.resolve()
    if not inside(path, tasks) or path == tasks:
        return None
    return task_file(path.relative_to(tasks).parts)


def can_edit(
    project: Project,
    task: str | None = None,
    file: str | Path | None = None,
    cwd: Path | None = None,
    *,
    first: bool = False,
    settings: Config | None = None,
    proposed: Proposed | None = None,
) -> Decision:
    """The pre-edit hook: the guard's own files, the file's scope and kind, then the
    task's phase (or any task's).

    Without a task, `first` allows on the first task found in an edit phase instead
    of naming them all: the adapter's answer, which prints no list of tasks.
    `proposed` tells a pyproject.toml edit that leaves `[tool.automaton]` alone.
    """
    if file is not None:
        decided = _file_decision(project, file, cwd, settings, proposed)
        if decided is not None:
            return decided
    if task is not None:
        current = load_tracked(project, task)
        if machine.is_edit_phase(current.state or ""):
            return _allowed(task=current.name, state=current.state)
        return _deny_phase(current)
    if first:
        found, tasks = _first_editing(project)
        if found is not None:
            return _allowed(tasks=[found.name])
    else:
        tasks = task_states(project)
    editing = [t for t in tasks if machine.is_edit_phase(t.state or "")]
    for candidate in editing:  # a .state edited by hand opens no edits
        refuse_hand_edit(project, candidate)
    if editing:
        return _allowed(tasks=[t.name for t in editing])
    active = [t for t in tasks if t.state != "complete"]
    listed = ", ".join(f"{t.name}: {machine.base_phase(t.state or '')}" for t in active[:5])
    more = f" and {len(active) - 5} more" if len(active) > 5 else ""
    where = f" ({listed}{more})" if active else ""
    return Decision(
        False,
        f"DENIED: No task in project '{printable(str(project.root), None)}' is in "
        f"{EDIT_PHASES_TEXT} phase{where}. "
        f"Code edits require {EDIT_PHASES_TEXT} phase.",
        "no-edit-phase",
        {"project": str(project.root), "tasks": {t.name: t.state for t in active}},
    )


def edit_rules(
    decision: Decision,
    project: Project,
    settings: Config,
    file: str | Path | None = None,
    cwd: Path | None = None,
) -> Decision:
    """Let the project's own `when="edit"` rules deny an edit the workflow allows.

    They are looked for only when the configuration lists plugins, so a project without
    plugins never loads the plugin manager here; only those plugins load, neither entry
    points nor the built-in rules (none has a say on edits). A rule's error finding
    denies; a plugin that fails to load or a rule that fails raises `plugin-error`,
    which denies too.
    """
    if not decision.allowed or not settings.plugins:
        return decision
    from automaton_rules.engine.rule import Edit
    from automaton_rules.engine.runner import Engine

    engine = Engine.create(settings.plugins, base=settings.base, entry_points=False, builtins=False)
    named = decision.details.get("task")
    name = named if isinstance(named, str) else None
    tasks = [project.load(name)] if name is not None else []
    target = resolve(file, cwd) if file is not None else None
    root = project.root.resolve()
    path = target.relative_to(root).as_posix() if target and inside(target, root) else None
    edit = Edit(target, path, name)
    result = engine.run("edit", project, tasks, edit=edit, config=settings, whole_project=True)
    if result.errors:
        from automaton_rules.workflow.gates import plugin_failure

        raise plugin_failure(result.errors)
    if not result.violations:
        return decision
    first = result.violations[0]
    return Decision(
        False,
        f"DENIED: {printable(first.message, None)} ({first.code})",
        "edit-rule",
        {"rule": first.code, "task": name, "file": None if target is None else str(target)},
    )


def _artifact_edit(project: Project, name: str, filename: str, shown: str) -> Decision:
    """A task's own artifact is written in its phase; nothing else in a task folder is the
    agent's to write (the folder is the workflow's record)."""
    try:
        owner = load_tracked(project, name)
    except AutomatonError as exc:
        if exc.code == HAND_EDITED:
            raise
        return Decision(
            False,
            f"DENIED: File '{printable(shown, None)}' is in task folder '{printable(name, None)}', "
            "which is not "
            "a task made with --create-task.",
            "untracked-task",
        )
    phase = machine.ARTIFACT_PHASE.get(filename)
    if phase is None:
        return _protected(printable(shown, None), owner.path / filename, protected.RECORDS)
    if machine.base_phase(owner.state or "") == phase:
        return _allowed(task=owner.name, state=owner.state, artifact=filename)
    return Decision(
        False,
        f"DENIED: {filename} belongs to the {phase} phase; task '{owner.name}' is in "
        f"{machine.base_phase(owner.state or '')} phase.",
        "artifact-phase",
        {"task": owner.name, "state": owner.state, "artifact": filename},
    )


def can_create_task() -> Decision:
    """Reserved by the specification for tool integrations; always allowed."""
    return _allowed()


def same_session(
    project: Project, task: str, minutes: float = DEFAULT_SESSION_MINUTES, now: float | None = None
) -> Decision:
    """Best effort: a task created within the window was probably made in this session."""
    current = project.load(task)
    history = store.read_history(current.path)
    created = clock.parse_time(str(history[0].get("time"))) if history else None
    moment = created.timestamp() if created else store.state_mtime(current.path)
    if moment is None:
        raise AutomatonError("untracked-task", f"Task '{task}' has no .state to date it by.")
    age = (project.context.now() if now is None else now) - moment
    details = {"task": task, "age_minutes": round(age / 60, 1), "window_minutes": minutes}
    if age <= minutes * 60:
        return Decision(False, "SAME_SESSION", "same-session", details)
    return Decision(True, "DIFFERENT_SESSION", "different-session", details)
