"""A rule: a function with a stable code that yields findings, like a lint check."""

from __future__ import annotations

import re
from collections.abc import Callable

from automaton_rules.core.record import Record
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


class Transition(Record):
    """The move being decided; rules see it as the `transition` argument."""

    _fields = ("source", "target")
    source: str
    target: str

    def __init__(self, source: str, target: str) -> None:
        self._init(source, target)


class Edit(Record):
    """The edit being decided; rules see it as the `edit` argument.

    `file` is the edited file, resolved, and `path` the same relative to the project
    root; both are None when the question names no file (a shell command that writes,
    `--can-edit` without `--file`). `task` is the task the edit is made under, if any.
    """

    _fields = ("file", "path", "task")
    file: Path | None
    path: str | None
    task: str | None

    def __init__(self, file: Path | None, path: str | None, task: str | None) -> None:
        self._init(file, path, task)


class Rule(Record):
    """A check with a stable code; it receives only the arguments it names."""

    _fields = ("code", "func", "summary", "category", "severity", "when", "name", "argnames")
    _unshown = ("func",)
    code: str
    func: RuleFunction
    summary: str
    category: str
    severity: Severity
    when: frozenset[str]
    name: str
    argnames: tuple[str, ...]

    def __init__(
        self,
        code: str,
        func: RuleFunction,
        summary: str,
        category: str,
        severity: Severity = "error",
        when: frozenset[str] = frozenset({"audit"}),
        name: str = "",
        argnames: tuple[str, ...] = (),
    ) -> None:
        if not CODE_PATTERN.fullmatch(code):
            raise ValueError(f"rule code {code!r} must look like ABC123")
        if severity not in SEVERITIES:
            raise ValueError(f"rule {code}: severity must be one of {', '.join(SEVERITIES)}")
        unknown = set(when) - set(WHEN)
        if not when or unknown:
            raise ValueError(f"rule {code}: 'when' takes {', '.join(WHEN)}")
        if not argnames:
            import inspect

            argnames = tuple(inspect.signature(func).parameters)
        name = name or getattr(func, "__name__", code)
        self._init(code, func, summary, category, severity, when, name, argnames)

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
