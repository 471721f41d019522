"""Example project rule: a multi-agent claim in `.state.lock` that has expired.

An agent claims a task before working on it (`agent:`, `phase:`, `claimed:`,
`expires:` lines). A claim past its expiry means an agent died or forgot to
release it, and the task sits blocked until someone takes it over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from automaton_rules import Finding, Rule, Task, hookimpl, rule

CLAIM_FILE = ".state.lock"


@rule(
    "EX301",
    summary="No task is held by a claim that has expired",
    category="Multi-agent Claims",
    severity="warning",
)
def expired_claim(task: Task) -> Iterator[Finding]:
    """Report the holder and the expiry, so a person can release or take over the task."""
    claim = task.claim
    if claim is None:
        return
    if claim.expires is None:
        yield Finding(
            f"{CLAIM_FILE} has no readable 'expires:' time", path=task.relpath(CLAIM_FILE)
        )
    elif claim.expired():
        yield Finding(
            f"claim by agent '{claim.agent or '?'}' expired at {claim.expires:%Y-%m-%dT%H:%M:%SZ}",
            path=task.relpath(CLAIM_FILE),
            correction="release the claim or take the task over",
        )


@hookimpl
def register_rules(register: Callable[[Rule], None]) -> None:
    """This module's rules."""
    register(expired_claim)
