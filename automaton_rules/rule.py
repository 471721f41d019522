"""A rule: a function with a stable code that yields findings, like a lint check."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .findings import SEVERITIES, Finding, Severity

# Moments a rule can be consulted: the full audit, --validate-folder, and the
# decision point before a transition (where an error finding refuses the move).
WHEN: tuple[str, ...] = ("audit", "validate", "transition")
CODE_PATTERN = re.compile(r"[A-Z][A-Z0-9]*[0-9]+")

RuleFunction = Callable[..., "Iterable[Finding] | None"]


class Skip(Exception):
    """Raised by a rule that cannot run here, like `pytest.skip`; the report says why."""


@dataclass(frozen=True)
class Transition:
    """The move being decided; rules see it as the `transition` argument."""

    source: str
    target: str


@dataclass(frozen=True)
class Rule:
    """A check with a stable code; it receives only the arguments it names."""

    code: str
    func: RuleFunction = field(repr=False)
    summary: str
    category: str
    severity: Severity = "error"
    when: frozenset[str] = frozenset({"audit"})
    name: str = ""
    argnames: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not CODE_PATTERN.fullmatch(self.code):
            raise ValueError(f"rule code {self.code!r} must look like ABC123")
        if self.severity not in SEVERITIES:
            raise ValueError(f"rule {self.code}: severity must be one of {', '.join(SEVERITIES)}")
        unknown = set(self.when) - set(WHEN)
        if not self.when or unknown:
            raise ValueError(f"rule {self.code}: 'when' takes {', '.join(WHEN)}")
        if not self.name:
            object.__setattr__(self, "name", getattr(self.func, "__name__", self.code))
        if not self.argnames:
            params = inspect.signature(self.func).parameters
            object.__setattr__(self, "argnames", tuple(params))

    def __call__(self, *args: object, **kwargs: object) -> Iterable[Finding] | None:
        """Call the wrapped function, so a rule stays testable as a plain function."""
        return self.func(*args, **kwargs)


def rule(
    code: str,
    *,
    summary: str,
    category: str,
    severity: Severity = "error",
    when: Iterable[str] = ("audit",),
) -> Callable[[RuleFunction], Rule]:
    """Turn a function into a Rule; register it from a `register_rules` hook."""

    def decorate(func: RuleFunction) -> Rule:
        return Rule(
            code=code,
            func=func,
            summary=summary,
            category=category,
            severity=severity,
            when=frozenset(when),
        )

    return decorate
