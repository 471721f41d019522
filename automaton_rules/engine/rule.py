"""A rule: a function with a stable code that yields findings, like a lint check."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from automaton_rules.core.severity import SEVERITIES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from automaton_rules.engine.findings import Finding, Severity

# Moments a rule can be consulted: the full audit, --validate-folder, the decision
# point before a transition (where an error finding refuses the move), and the
# edit-time decision of --can-edit and the adapter (where one denies the edit).
WHEN: tuple[str, ...] = ("audit", "validate", "transition", "edit")
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
class Edit:
    """The edit being decided; rules see it as the `edit` argument.

    `file` is the edited file, resolved, and `path` the same relative to the project
    root; both are None when the question names no file (a shell command that writes,
    `--can-edit` without `--file`). `task` is the task the edit is made under, if any.
    """

    file: Path | None
    path: str | None
    task: str | None


@dataclass(frozen=True, init=False)
class Rule:
    """A check with a stable code; it receives only the arguments it names. Its own
    `__init__` reads `when` and the arguments from what the decorator is given."""

    code: str
    func: RuleFunction = field(repr=False)
    summary: str
    category: str
    severity: Severity
    when: frozenset[str]
    name: str
    argnames: tuple[str, ...]
    url: str | None

    def __init__(
        self,
        code: str,
        func: RuleFunction,
        summary: str,
        category: str,
        severity: Severity = "error",
        when: str | Iterable[str] = ("audit",),
        name: str = "",
        argnames: tuple[str, ...] = (),
        url: str | None = None,
    ) -> None:
        if not CODE_PATTERN.fullmatch(code):
            raise ValueError(f"rule code {code!r} must look like ABC123")
        if severity not in SEVERITIES:
            raise ValueError(f"rule {code}: severity must be one of {', '.join(SEVERITIES)}")
        moments = moments_of(code, when)
        if not argnames:
            import inspect

            argnames = tuple(inspect.signature(func).parameters)
        name = name or getattr(func, "__name__", code)
        values = (code, func, summary, category, severity, moments, name, argnames, url)
        for one, value in zip(self.__dataclass_fields__, values):
            object.__setattr__(self, one, value)

    @property
    def description(self) -> str:
        """The rule's docstring, dedented: the long description reports show beside the
        summary (SARIF's `fullDescription`); empty when it has none."""
        import inspect

        return inspect.cleandoc(getattr(self.func, "__doc__", None) or "")

    def __call__(self, *args: object, **kwargs: object) -> Iterable[Finding] | None:
        """Call the wrapped function, so a rule stays testable as a plain function."""
        return self.func(*args, **kwargs)


def moments_of(code: str, when: str | Iterable[str]) -> frozenset[str]:
    """`when` as a set of moments: one name (`"audit"`) or any iterable of them, as pytest
    takes a string or a list; an unknown or missing moment is an error, never ignored."""
    moments = frozenset((when,) if isinstance(when, str) else when)
    unknown = sorted((m for m in moments if m not in WHEN), key=repr)
    if not moments or unknown:
        named = f" (got {', '.join(map(repr, unknown))})" if unknown else " (got none)"
        raise ValueError(f"rule {code}: 'when' takes {', '.join(WHEN)}{named}")
    return moments


def rule(
    code: str,
    *,
    summary: str,
    category: str,
    severity: Severity = "error",
    when: str | Iterable[str] = ("audit",),
    url: str | None = None,
) -> Callable[[RuleFunction], Rule]:
    """Turn a function into a Rule; register it from a `register_rules` hook. `when` is
    one moment (`"audit"`) or several (`("audit", "validate")`), checked here; `url` the
    page that documents the rule (SARIF's `helpUri`)."""
    moments = moments_of(code, when)

    def decorate(func: RuleFunction) -> Rule:
        return Rule(
            code=code,
            func=func,
            summary=summary,
            category=category,
            severity=severity,
            when=moments,
            url=url,
        )

    return decorate


def not_a_rule(item: object) -> str:
    """What `register()` says of something that is no Rule: a plain function is one that
    was not decorated, so say how to decorate it."""
    if callable(item) and not isinstance(item, type):
        name = getattr(item, "__name__", type(item).__name__)
        return (
            f"register() takes a Rule, got the plain function {name}(): decorate it with "
            f'@rule("CODE", summary=..., category=...) to make it one'
        )
    return f"register() takes a Rule (a function decorated with @rule), got {type(item).__name__}"


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "Edit",
    "Rule",
    "Skip",
    "Transition",
    "not_a_rule",
    "rule",
]
