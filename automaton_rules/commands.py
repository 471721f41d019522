"""One function per status.py action: find the project, call the core, pick the view."""

from __future__ import annotations

from pathlib import Path

from . import views, workflow
from .config import load_config
from .errors import AutomatonError
from .project import Project, Task, find_project
from .runner import Engine
from .views import Outcome


def _engine(proj: Project, config: Path | None) -> Engine:
    settings = load_config(proj.root, config)
    return Engine.create(settings.plugins, base=settings.base)


def _project(project: Path | None, *, create: bool = False) -> Project:
    return find_project(project, create=create)


def task(*, task: str, project: Path | None, **_: object) -> Outcome:
    """`--task NAME`: the full view of one task."""
    proj = _project(project)
    current = proj.load(task)
    if current.state is None:
        raise workflow.untracked_error(proj, current)
    parent = proj.load(current.parent, strict=False) if current.parent else None
    subtasks = (
        [] if current.parent else [proj.load(n, strict=False) for n in proj.subtask_names(task)]
    )
    return views.task_view(proj, current, parent, subtasks)


def transition(
    *, task: str, project: Path | None, transition: str, config: Path | None, **_: object
) -> Outcome:
    """`--task NAME --transition PHASE`."""
    proj = _project(project)
    change = workflow.transition(proj, task, transition, engine=_engine(proj, config))
    return views.change_view(proj, change, "transition")


def approve(*, task: str, project: Path | None, approver: str, **_: object) -> Outcome:
    """`--task NAME --approve [--approver ID]`."""
    proj = _project(project)
    change = workflow.approve(proj, task, approver=approver)
    return views.change_view(proj, change, "approve")


def create_task(*, create_task: str, project: Path | None, **_: object) -> Outcome:
    """`--create-task NAME`."""
    proj = _project(project, create=True)
    change = workflow.create_task(proj, create_task)
    return views.change_view(proj, change, "create-task")


def list(*, project: Path | None, **_: object) -> Outcome:
    """`--list`: every task, each sub-task under its parent."""
    proj = _project(project)
    rows = []
    for name in proj.names():
        try:
            loaded = proj.load(name)
        except AutomatonError as exc:
            rows.append(views.ListRow(name, None, problem=f"{name}: {exc.message}"))
            continue
        rows.append(views.ListRow(name, loaded.state))
    return views.list_view(proj, rows)


def validate_folder(
    *, task: str | None, project: Path | None, config: Path | None, **_: object
) -> Outcome:
    """`--validate-folder [--task NAME]`: out-of-order artifacts and hand-made folders."""
    proj = _project(project)
    names = [task] if task is not None else proj.names()
    tasks: list[Task] = []
    errors: list[str] = []
    for name in names:
        try:
            tasks.append(proj.load(name))
        except AutomatonError as exc:
            if task is not None:
                raise
            errors.append(f"{name}: {exc.message}")
    result = _engine(proj, config).run("validate", proj, tasks)
    return views.validate_view(tasks, result, errors)


def upgrade(*, project: Path | None, **_: object) -> Outcome:
    """`--upgrade`: adopt hand-made task folders."""
    proj = _project(project)
    return views.upgrade_view(proj, workflow.upgrade(proj))
