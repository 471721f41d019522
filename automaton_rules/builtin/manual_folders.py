"""Category 4: a task folder without `.state` was made by hand, not with --create-task."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from automaton_rules.core import machine
from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import MANUAL_FOLDERS, Finding
from automaton_rules.engine.rule import Rule, rule
from automaton_rules.support.output import printable


@rule(
    "AR401",
    summary="Every task folder was made by --create-task (it has a .state)",
    category=MANUAL_FOLDERS,
    when=("audit", "validate"),
)
def manually_created_folder(task: Task) -> Iterator[Finding]:
    """A hand-made folder bypassed the workflow; --upgrade adopts it from its artifacts."""
    if task.state is None:
        yield Finding(
            "task was created manually (no .state file)",
            path=task.relpath(".state"),
            correction=f"run --upgrade (inferred phase: {machine.infer_phase(task.artifacts)})",
            data={"detail": "no .state file"},
        )


@rule(
    "AR402",
    summary="Every folder in the tasks folder has a task's name",
    category=MANUAL_FOLDERS,
    when=("audit", "validate"),
)
def invalid_folder_names(project: Project) -> Iterator[Finding]:
    """Folders no task name can reach were made by hand and would otherwise go unseen."""
    for name in project.stray_folders():
        shown = printable(name)
        yield Finding(
            f"folder '{shown}' is not a task: task names are kebab-case "
            "(rename it, then run --upgrade)",
            path=f"{project.tasks_dir.relative_to(project.root).as_posix()}/{name}",
            task=shown,
            data={"detail": f"folder '{shown}' has no valid task name"},
        )


def register_rules(register: Callable[[Rule], None]) -> None:
    """The manual-folder checks."""
    register(manually_created_folder)
    register(invalid_folder_names)
