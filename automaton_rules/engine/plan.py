"""Which rules run, in what order, at which moment: decided before any rule is called.

Planning reads the registered rules and the selection, nothing else; it does no I/O, so
what a run will do can be worked out, and tested, without a project.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from automaton_rules.engine.plugins import BUILTIN_PLUGINS
from automaton_rules.engine.rule import Rule


@dataclass(frozen=True)
class Selection:
    """Which rules report, at what severity: ruff-style code prefixes."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)

    def enabled(self, code: str) -> bool:
        """Selected by some prefix (or no selection at all) and ignored by none."""
        chosen = not self.select or any(code.startswith(p) for p in self.select)
        return chosen and not any(code.startswith(p) for p in self.ignore)

    def unknown(self, codes: Iterable[str]) -> list[str]:
        """Prefixes and codes that match no registered rule: typos, never silently ignored."""
        known = list(codes)
        return [
            p for p in (*self.select, *self.ignore) if not any(c.startswith(p) for c in known)
        ] + [c for c in self.severity if c not in known]


class Registered(NamedTuple):
    """A rule and the plugin that registered it; still unpacks as `plugin, rule`."""

    plugin: str
    rule: Rule


@dataclass(frozen=True)
class Scheduled:
    """A rule chosen for this run, at the severity the selection gives it."""

    plugin: str
    rule: Rule
    severity: str
    builtin: bool

    @property
    def per_task(self) -> bool:
        """Called once for each task, since it names `task`; else once for the project."""
        return "task" in self.rule.argnames

    @property
    def reads_git(self) -> bool:
        """Waits for the git history, which is read once, in the command."""
        return "git" in self.rule.argnames

    @property
    def shareable(self) -> bool:
        """A built-in task rule that is a pure function of its task: a helper may run it.

        A plugin's rule may keep state from one call to the next, so it stays in the
        command, called on every task in order.
        """
        return self.builtin and self.per_task and not self.reads_git

    @property
    def early(self) -> bool:
        """A built-in project rule reading neither the tasks nor git: it may run while
        helpers finish, since nothing it reads is still being worked out."""
        reads = self.rule.argnames
        return self.builtin and not self.per_task and "tasks" not in reads and "git" not in reads


@dataclass(frozen=True)
class Plan:
    """The rules of one run, in registration order: those called per task, then those
    called once for the whole project."""

    categories: tuple[str, ...]
    per_task: tuple[Scheduled, ...]
    per_project: tuple[Scheduled, ...]

    @classmethod
    def build(
        cls, rules: Iterable[Registered], when: str, selection: Selection, whole_project: bool
    ) -> Plan:
        """Project rules are planned only when the whole project is checked; a selected
        rule's category is reported even when none of its rules is called."""
        categories: list[str] = []
        per_task: list[Scheduled] = []
        per_project: list[Scheduled] = []
        for plugin, rule in rules:
            if when not in rule.when or not selection.enabled(rule.code):
                continue
            if rule.category not in categories:
                categories.append(rule.category)
            severity = selection.severity.get(rule.code, rule.severity)
            scheduled = Scheduled(plugin, rule, severity, plugin in BUILTIN_PLUGINS)
            if scheduled.per_task:
                per_task.append(scheduled)
            elif whole_project:
                per_project.append(scheduled)
        return cls(tuple(categories), tuple(per_task), tuple(per_project))

    @property
    def shared(self) -> list[Scheduled]:
        """The task rules helpers may take slices of."""
        return [s for s in self.per_task if s.shareable]

    @property
    def kept(self) -> list[Scheduled]:
        """The task rules only the command runs, even on a helper's slice."""
        return [s for s in self.per_task if not s.shareable]

    @property
    def early(self) -> list[Scheduled]:
        """The project rules that may run while helpers finish."""
        return [s for s in self.per_project if s.early]

    @property
    def project_reads_git(self) -> bool:
        """Some project rule needs the git history, so it is worth reading while waiting."""
        return any(s.reads_git for s in self.per_project)
