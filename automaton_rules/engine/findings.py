"""What a rule reports, and the fixed order categories print in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Literal

from automaton_rules.core.severity import SEVERITIES as SEVERITIES

Severity = Literal["error", "warning", "note"]

OUT_OF_ORDER = "Out-of-order Artifacts"
INCONSISTENCY = "State-Artifact Inconsistency"
UNAUTHORIZED = "Unauthorized Modifications"
MANUAL_FOLDERS = "Manually Created Task Folders"
GUARD_CHANGES = "Changes to the Guard"

_SEVERITY_VALUES = ("", *SEVERITIES)  # a finding's own: "" until the runner stamps it

# The specification's four categories print first, in this order, then the guard's own
# history (issue 11); plugin categories follow.
BUILTIN_CATEGORIES: tuple[str, ...] = (
    OUT_OF_ORDER,
    INCONSISTENCY,
    UNAUTHORIZED,
    MANUAL_FOLDERS,
    GUARD_CHANGES,
)


@dataclass(frozen=True)
class Finding:
    """One problem a rule found; the runner fills in code, category, severity and task."""

    message: str
    path: str | None = None
    correction: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)
    code: str = ""
    category: str = ""
    severity: Severity | str = ""
    task: str | None = None

    @property
    def artifact(self) -> str | None:
        """The task file the finding is about: `data["artifact"]`, else the path's file name."""
        named = self.data.get("artifact")
        if named:
            return str(named)
        if not self.path:
            return None
        name = self.path.rpartition("/")[2]  # what PurePosixPath would say, without parsing
        return name if name and name != "." else PurePosixPath(self.path).name

    def __post_init__(self) -> None:
        if not isinstance(self.message, str):
            raise TypeError("Finding.message must be a str")
        named = (("path", self.path), ("correction", self.correction), ("task", self.task))
        for name, value in named:
            if value is not None and not isinstance(value, str):
                raise TypeError(f"Finding.{name} must be a str or None")
        if self.severity not in _SEVERITY_VALUES:
            raise ValueError(f"Finding.severity must be one of {', '.join(SEVERITIES)}")
        if type(self.data) is not dict and not isinstance(self.data, Mapping):
            raise TypeError("Finding.data must be a mapping")

    def stamped(self, code: str, category: str, severity: str, task: str | None) -> Finding:
        """`dataclasses.replace` with what the runner fills in, without checking again what
        `__post_init__` checked when the rule made it: an audit stamps tens of thousands."""
        if type(self) is not Finding or severity not in SEVERITIES or not isinstance(task, str):
            return replace(self, code=code, category=category, severity=severity, task=task)
        copy = object.__new__(Finding)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields.update(code=code, category=category, severity=severity, task=task)
        return copy

    def as_dict(self) -> dict[str, Any]:
        """The finding as the JSON report writes it."""
        return {
            "code": self.code,
            "category": self.category,
            "severity": self.severity,
            "task": self.task,
            "message": self.message,
            "path": self.path,
            "correction": self.correction,
            "data": dict(self.data),
        }


def refusal(finding: Finding, source: str, target: str) -> str:
    """How a finding refuses the move from `source` to `target`: an out-of-order artifact
    in the specification's words (from any rule of that category), any other as its
    message and code."""
    from automaton_rules.core import machine

    artifact = finding.artifact
    if finding.category != OUT_OF_ORDER or not artifact:
        return f"{finding.message} ({finding.code})"
    later = artifact in machine.forbidden_artifacts(target)
    if later and artifact not in machine.forbidden_artifacts(source):
        stem = artifact.rsplit(".", 1)[0]  # met on the way back: archive, don't delete
        return (
            f"Found artifact '{artifact}' of a later phase in task folder. "
            f"To resume at '{target}', archive it first (rename it, e.g. to {stem}.v1.md)."
        )
    return (
        f"Found forbidden artifact '{artifact}' in task folder. "
        "This indicates phase-skipping. Remove the artifact or revert to the correct phase."
    )


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "BUILTIN_CATEGORIES",
    "GUARD_CHANGES",
    "INCONSISTENCY",
    "MANUAL_FOLDERS",
    "OUT_OF_ORDER",
    "SEVERITIES",
    "UNAUTHORIZED",
    "Finding",
    "Severity",
    "refusal",
]
