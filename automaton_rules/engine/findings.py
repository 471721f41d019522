"""What a rule reports, and the fixed order categories print in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal

from automaton_rules.core.severity import SEVERITIES as SEVERITIES

Severity = Literal["error", "warning", "note"]

OUT_OF_ORDER = "Out-of-order Artifacts"
INCONSISTENCY = "State-Artifact Inconsistency"
UNAUTHORIZED = "Unauthorized Modifications"
MANUAL_FOLDERS = "Manually Created Task Folders"
GUARD_CHANGES = "Changes to the Guard"

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
        return PurePosixPath(self.path).name if self.path else None

    def __post_init__(self) -> None:
        if not isinstance(self.message, str):
            raise TypeError("Finding.message must be a str")
        for name in ("path", "correction", "task"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise TypeError(f"Finding.{name} must be a str or None")
        if self.severity not in ("", *SEVERITIES):
            raise ValueError(f"Finding.severity must be one of {', '.join(SEVERITIES)}")
        if not isinstance(self.data, Mapping):
            raise TypeError("Finding.data must be a mapping")

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
