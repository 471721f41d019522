"""Example project rules: a referee's VERDICT.md must decide, and only PASS completes.

Registered by this repository's automaton.toml. The workflow itself refuses
`referee → complete` while VERDICT.md says FAIL or NEEDS_REVIEW; a team that wants
more writes it as rules like these. The first reports a verdict that decides nothing
in the audit and in --validate-folder; the second also runs before every transition,
so a task completes from `referee` only on a verdict that says PASS, not on one that
names no verdict at all, and the audit reports a completed task whose verdict failed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from automaton_rules import Finding, Rule, Task, Transition, hookimpl, rule


@rule(
    "EX201",
    summary="VERDICT.md says PASS, FAIL or NEEDS_REVIEW",
    category="Artifact Quality",
    when=("audit", "validate"),
)
def verdict_is_decided(task: Task) -> Iterator[Finding]:
    """A verdict that decides nothing leaves the orchestrator nothing to act on."""
    if task.has_content("VERDICT.md") and task.verdict is None:
        yield Finding(
            "VERDICT.md names no verdict (PASS, FAIL or NEEDS_REVIEW)",
            path=task.relpath("VERDICT.md"),
        )


@rule(
    "EX202",
    summary="Only a PASS verdict completes a refereed task",
    category="Artifact Quality",
    when=("audit", "transition"),
)
def complete_only_on_pass(task: Task, transition: Transition | None) -> Iterator[Finding]:
    """The built-in gate lets only PASS complete a task from referee; this team also wants
    the audit to find tasks completed without one (by the user from human_intervention,
    or by hand)."""
    leaving_referee = transition is not None and (transition.source, transition.target) == (
        "referee",
        "complete",
    )
    finished = transition is None and task.state == "complete"
    if not (leaving_referee or finished):
        return
    verdict = task.verdict
    if verdict == "PASS" or (finished and verdict is None):
        return  # in the audit, EX201 reports a verdict that decides nothing
    said = f"says {verdict}" if verdict else "names no verdict"
    yield Finding(
        f"VERDICT.md {said}: only a PASS verdict completes the task",
        path=task.relpath("VERDICT.md"),
        correction="human_intervention",
    )


@hookimpl
def register_rules(register: Callable[[Rule], None]) -> None:
    """This module's rules."""
    register(verdict_is_decided)
    register(complete_only_on_pass)
