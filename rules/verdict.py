"""Example project rules: a referee's VERDICT.md must decide, and only PASS completes.

Registered by this repository's automaton.toml. The first rule reports in the
audit and in --validate-folder; the second also runs before every transition, so
`--transition complete` is refused while the verdict is FAIL or NEEDS_REVIEW.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from automaton_rules import Finding, Rule, Task, Transition, hookimpl, rule
from automaton_rules.workflow import verdict_of

VERDICTS = ("PASS", "FAIL", "NEEDS_REVIEW")


@rule(
    "EX201",
    summary="VERDICT.md says PASS, FAIL or NEEDS_REVIEW",
    category="Artifact Quality",
    when=("audit", "validate"),
)
def verdict_is_decided(task: Task) -> Iterator[Finding]:
    """A verdict that decides nothing leaves the orchestrator nothing to act on."""
    text = task.read("VERDICT.md")
    if text is not None and text.strip() and verdict_of(text) is None:
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
    """FAIL and NEEDS_REVIEW go to human_intervention, as the workflow's autopilot rules say."""
    leaving_referee = transition is not None and (transition.source, transition.target) == (
        "referee",
        "complete",
    )
    finished = transition is None and task.state == "complete"
    if not (leaving_referee or finished):
        return
    verdict = verdict_of(task.read("VERDICT.md") or "")
    if verdict in ("FAIL", "NEEDS_REVIEW"):
        yield Finding(
            f"VERDICT.md says {verdict}: the task goes to human_intervention, not complete",
            path=task.relpath("VERDICT.md"),
            correction="human_intervention",
        )


@hookimpl
def register_rules(register: Callable[[Rule], None]) -> None:
    """This module's rules."""
    register(verdict_is_decided)
    register(complete_only_on_pass)
