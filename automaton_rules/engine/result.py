"""What a run of the rules hands to the reports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from automaton_rules.engine.findings import Finding
from automaton_rules.engine.plugins import PluginError


@dataclass(frozen=True)
class RuleSkip:
    """A rule that raised `Skip`: the first reason it gave, and the tasks it gave one on
    in the order met (none for a rule over the whole project)."""

    reason: str
    tasks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Planned:
    """A rule of the run as the reports judge its category: whether it runs per task."""

    code: str
    category: str
    per_task: bool


@dataclass(frozen=True)
class NoVerdict:
    """A category none of whose rules gave a verdict anywhere: the rules that failed (none
    when every one skipped) and the first reason a rule skipped with."""

    failed: tuple[str, ...]
    reason: str


@dataclass
class RunResult:
    """Findings sorted for stable output, plus every plugin failure met on the way.

    `skips` holds each rule that skipped, by code; `skipped` the categories every rule
    of which skipped wherever it ran (one rule's skip leaves the others' verdicts)."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[PluginError] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    skips: dict[str, RuleSkip] = field(default_factory=dict)
    planned: list[Planned] = field(default_factory=list)
    tasks: int = 0
    # The time each rule took, by code: seconds and calls (plugins' rules always, for
    # their budget; the built-in ones when the run was asked to time them).
    durations: dict[str, tuple[float, int]] = field(default_factory=dict)

    @property
    def violations(self) -> list[Finding]:
        """Findings that fail the check."""
        return [f for f in self.findings if f.severity == "error"]

    def skip(self, code: str, reason: str, task: str | None) -> None:
        """Record that a rule skipped on `task` (None: on the project)."""
        known = self.skips.get(code)
        on = (task,) if task is not None else ()
        if known is None:
            self.skips[code] = RuleSkip(reason, on)
        elif on and task not in known.tasks:
            self.skips[code] = RuleSkip(known.reason, known.tasks + on)

    def absorb(self, other: RunResult) -> None:
        """Take in a part of the run done elsewhere, as if it had been met here."""
        self.findings.extend(other.findings)
        self.errors.extend(other.errors)
        for code, skipped in other.skips.items():
            for task in skipped.tasks or (None,):
                self.skip(code, skipped.reason, task)
        for code, (seconds, calls) in other.durations.items():
            self.took(code, seconds, calls)

    def took(self, code: str, seconds: float, calls: int = 1) -> None:
        """Add a rule's time: `seconds` over `calls` calls."""
        spent, made = self.durations.get(code, (0.0, 0))
        self.durations[code] = (spent + seconds, made + calls)

    def failed_on(self, code: str) -> tuple[bool, tuple[str, ...]]:
        """Whether a rule failed, and the tasks it failed on (none: on the project)."""
        tasks: list[str] = []
        failed = False
        for error in self.errors:
            if error.code == code:
                failed = True
                tasks += [task for task in error.tasks if task not in tasks]
        return failed, tuple(tasks)

    def no_verdict(self, category: str) -> NoVerdict | None:
        """The category's lack of any verdict: every rule of it that had something to
        judge skipped or failed everywhere; None when some rule judged something."""
        rules = [p for p in self.planned if p.category == category]
        failed: list[str] = []
        reasons: list[str] = []
        judged_any = False
        for planned in rules:
            if planned.per_task and not self.tasks:
                continue  # a task rule with no task has nothing to judge
            judged_any = True
            skipped = self.skips.get(planned.code)
            crashed, on = self.failed_on(planned.code)
            if planned.per_task:
                covered = set(on) | set(skipped.tasks if skipped else ())
                if len(covered) < self.tasks:
                    return None
            elif not (skipped or crashed):
                return None
            if crashed:
                failed.append(planned.code)
            if skipped:
                reasons.append(skipped.reason)
        if not judged_any or not (failed or reasons):
            return None
        return NoVerdict(tuple(failed), reasons[0] if reasons else "")

    def settle(self, planned: Iterable[Planned], tasks: int) -> None:
        """Note what ran, and mark the categories every rule of which skipped."""
        self.planned = list(planned)
        self.tasks = tasks
        self.skipped = {}
        for category in dict.fromkeys(p.category for p in self.planned):
            missing = self.no_verdict(category)
            if missing is not None and not missing.failed:
                self.skipped[category] = missing.reason
