"""Acme's workflow rules: the four rules of docs/writing-rules.md's tutorial, one package.

The entry point `acme = "acme_rules"` (pyproject.toml) names this module, so installing
the package registers every rule `register_rules` registers here, in every project.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta

from automaton_rules import (
    Edit,
    Finding,
    GitHistory,
    Rule,
    Skip,
    Task,
    hookimpl,
    reached,
    rule,
)

MINIMUM_RESEARCH = timedelta(minutes=1)


@rule(
    "ACME102",
    summary="DESIGN.md has a rollback plan from implement on",
    category="Design Quality",
    when=("audit", "validate"),
)
def rollback_plan(task: Task) -> Iterator[Finding]:
    """Once code is being written, the design says how to undo it."""
    if not reached(task.state, "implement"):
        return
    text = task.read("DESIGN.md")  # None when missing: the workflow's own rules say so
    if text is not None and "## Rollback plan" not in text:
        yield Finding(
            "DESIGN.md has no '## Rollback plan' section",
            path=task.relpath("DESIGN.md"),
            correction="add a '## Rollback plan' section: how to undo the change",
        )


@rule(
    "ACME103",
    summary="a minute or more between research and its approval request",
    category="Research Pace",
    severity="warning",
)
def research_not_rushed(task: Task) -> Iterator[Finding]:
    """An approval asked for seconds after research began had no research behind it."""
    began = task.entered_at("research")  # the last time: a task sent back begins again
    asked = task.approval_requested("research")  # UTC datetimes, or None
    if began is None or asked is None or asked < began:
        return
    took = asked - began
    if took < MINIMUM_RESEARCH:
        yield Finding(
            f"approval requested {took.total_seconds():.0f}s after research began",
            path=task.relpath("SPEC.md"),
            data={"seconds": took.total_seconds()},
        )


@rule("ACME104", summary="a task in review has a commit naming it", category="Traceability")
def work_committed(task: Task, git: GitHistory) -> Iterator[Finding]:
    """Review reads the implementation in git: some commit says `Task: <name>`."""
    if not git.is_repo:
        raise Skip("not a git repository")
    if not reached(task.state, "bug_find"):
        return
    if not any(task.name in commit.tasks for commit in git.commits):
        yield Finding(
            f"no commit names task {task.name}",
            correction=f"commit the work with a 'Task: {task.name}' trailer",
        )


@rule(
    "ACME105",
    summary="generated code is not edited by hand",
    category="Generated Code",
    when="edit",
)
def generated_not_edited(edit: Edit | None) -> Iterator[Finding]:
    """A hand edit of a generated file is lost the next time it is generated."""
    if edit is not None and edit.path is not None and edit.path.startswith("generated/"):
        yield Finding(f"{edit.path} is generated: edit its template instead", path=edit.path)


@hookimpl
def register_rules(register: Callable[[Rule], None]) -> None:
    """Every rule of the package, registered once the entry point loads this module."""
    for each in (rollback_plan, research_not_rushed, work_committed, generated_not_edited):
        register(each)
