"""Category 4: a task folder without `.state` was made by hand, not with --create-task."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .. import machine
from ..findings import MANUAL_FOLDERS, Finding
from ..hookspecs import hookimpl
from ..project import Task
from ..rule import Rule, rule


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


@hookimpl
def register_rules(register: Callable[[Rule], None]) -> None:
    """The manual-folder check."""
    register(manually_created_folder)
