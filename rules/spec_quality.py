"""Example project rule: a SPEC.md must say how the work will be judged.

Registered by this repository's automaton.toml (`plugins = ["rules/spec_quality.py"]`).
It is the worked example for teams: a rule function, a stable code, and a
`register_rules` hook, written against the same API as the built-in rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from automaton_rules import Finding, Rule, Task, hookimpl, rule

HEADING = re.compile(r"^\s*#{1,6}\s*acceptance criteria\b", re.IGNORECASE | re.MULTILINE)


@rule(
    "EX101",
    summary="SPEC.md has an 'Acceptance criteria' section",
    category="Artifact Quality",
    severity="warning",
    when=("audit", "validate"),
)
def spec_has_acceptance_criteria(task: Task) -> Iterator[Finding]:
    """A spec without acceptance criteria cannot be refereed, so say so early."""
    text = task.read("SPEC.md")
    if text is not None and task.has_content("SPEC.md") and not HEADING.search(text):
        yield Finding(
            "SPEC.md has no 'Acceptance criteria' heading",
            path=task.relpath("SPEC.md"),
            correction="add a '## Acceptance criteria' section",
        )


@hookimpl
def register_rules(register: Callable[[Rule], None]) -> None:
    """This module's rules."""
    register(spec_has_acceptance_criteria)
