"""Run rules over tasks and collect their findings, the way pytest runs tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import pluggy

from automaton_rules.core import machine
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.project import Project, Task
from automaton_rules.engine import parallel
from automaton_rules.engine.findings import BUILTIN_CATEGORIES, Finding
from automaton_rules.engine.plugins import (
    BUILTIN_PLUGINS,
    DEFAULT_TIMEOUT,
    PLUGIN_FAILURES,
    PluginError,
    _describe,
    plugin_manager,
    time_limit,
)
from automaton_rules.engine.rule import Edit, Rule, Skip, Transition

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.engine.gitlog import GitHistory

_Scheduled = tuple[str, Rule, str]  # plugin, rule, severity

FIXTURES: tuple[str, ...] = ("task", "tasks", "project", "transition", "edit", "config", "git")


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


@dataclass
class RunResult:
    """Findings sorted for stable output, plus every plugin failure met on the way."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[PluginError] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def violations(self) -> list[Finding]:
        """Findings that fail the check."""
        return [f for f in self.findings if f.severity == "error"]

    def absorb(self, other: RunResult) -> None:
        """Take in a part of the run done elsewhere, as if it had been met here."""
        self.findings.extend(other.findings)
        self.errors.extend(other.errors)
        for category, reason in other.skipped.items():
            self.skipped.setdefault(category, reason)


class _AlreadyReported(Exception):
    """The git history could not be read, and the first rule that asked reported why."""


class _Fixtures:
    """The arguments rules may name; the costly ones are computed once, on first use."""

    def __init__(
        self,
        project: Project,
        tasks: list[Task],
        git: Callable[[], GitHistory] | None = None,
        **values: Any,
    ) -> None:
        self.project = project
        self.tasks = tasks
        self.values = values
        self._pending_git = git
        self._git: GitHistory | AutomatonError | None = None  # the history, or why not
        self._git_reported = False

    def get(self, name: str, task: Task | None) -> Any:
        if name == "task":
            return task
        if name == "tasks":
            return self.tasks
        if name == "project":
            return self.project
        if name == "git":
            self.prefetch_git()
            if isinstance(self._git, AutomatonError):
                if self._git_reported:
                    raise _AlreadyReported
                self._git_reported = True
                raise self._git
            return self._git
        return self.values.get(name)

    def prefetch_git(self) -> None:
        """Collect the git history (once); a failure is kept for the first rule that asks."""
        if self._git is None:
            pending, self._pending_git = self._pending_git, None
            try:
                self._git = (
                    pending()
                    if pending is not None
                    else start_git(self.project.root, self.values.get("config"))()
                )
            except AutomatonError as exc:
                self._git = exc


class Engine:
    """Holds the plugin manager and the rules it registered, collected once, lazily."""

    def __init__(
        self,
        pm: pluggy.PluginManager,
        load_errors: Sequence[PluginError] = (),
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        self.pm = pm
        self.load_errors = list(load_errors)
        self.timeout = timeout
        self._rules: list[tuple[str, Rule]] | None = None
        self._register_errors: list[PluginError] = []

    @classmethod
    def create(
        cls,
        plugins: Sequence[str] = (),
        *,
        base: Path | None = None,
        entry_points: bool = True,
        builtins: bool = True,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> Engine:
        """An engine with the built-in rules, entry-point plugins and configured plugins."""
        pm, errors = plugin_manager(
            plugins, base=base, entry_points=entry_points, builtins=builtins, timeout=timeout
        )
        return cls(pm, errors, timeout)

    def _limit(self, plugin: str) -> float | None:
        """Plugins from outside the package run under the time limit; built-ins do not."""
        return None if plugin in BUILTIN_PLUGINS else self.timeout

    @property
    def rules(self) -> list[tuple[str, Rule]]:
        """(plugin name, rule) for every registered rule, in registration order."""
        if self._rules is None:
            self._rules = self._collect()
        return self._rules

    @property
    def errors(self) -> list[PluginError]:
        """Plugins that failed to import or to register their rules."""
        self.rules  # noqa: B018 - collecting rules is what records register errors
        return self.load_errors + self._register_errors

    def _collect(self) -> list[tuple[str, Rule]]:
        collected: list[tuple[str, Rule]] = []
        codes: dict[str, str] = {}
        for impl in self.pm.hook.register_rules.get_hookimpls():
            plugin = impl.plugin_name

            def register(item: Rule, plugin: str = plugin) -> None:
                if not isinstance(item, Rule):
                    raise TypeError(f"register() takes a Rule, got {type(item).__name__}")
                if item.code in codes:
                    raise ValueError(
                        f"rule code {item.code} is already registered by {codes[item.code]}"
                    )
                unknown = [name for name in item.argnames if name not in FIXTURES]
                if unknown:
                    raise TypeError(
                        f"rule {item.code} asks for unknown argument(s) {', '.join(unknown)}; "
                        f"rules may ask for {', '.join(FIXTURES)}"
                    )
                codes[item.code] = plugin
                collected.append((plugin, item))

            try:
                with time_limit(self._limit(plugin)):
                    impl.function(register=register)
            except PLUGIN_FAILURES as exc:
                self._register_errors.append(
                    PluginError(plugin, f"register_rules failed: {_describe(exc)}")
                )
        return collected

    def wants(self, argument: str, when: str, selection: Selection | None = None) -> bool:
        """Whether any rule that will run asks for `argument`, so it can be prepared early."""
        selection = selection or Selection()
        return any(
            when in item.when and selection.enabled(item.code) and argument in item.argnames
            for _, item in self.rules
        )

    def run(
        self,
        when: str,
        project: Project,
        tasks: Iterable[Task],
        transition: Transition | None = None,
        *,
        edit: Edit | None = None,
        config: Any = None,
        selection: Selection | None = None,
        whole_project: bool | None = None,
        git: Callable[[], GitHistory] | None = None,
        jobs: int | None = None,
    ) -> RunResult:
        """Run every selected rule registered for `when`; broken plugins are errors too.

        Rules that do not name `task` look at the whole project, so they run only when
        the whole project is being checked: always in the audit and at edits, and in
        --validate-folder without --task. Task rules run task by task, so each task's
        records are read once for all of them and then let go; `git` is a history
        already being read. `jobs` caps the processes that share the task rules (None:
        one per usable CPU, for large projects).
        """
        if whole_project is None:
            whole_project = when == "audit"
        result = RunResult(errors=list(self.errors))
        selection = selection or Selection()
        fixtures = _Fixtures(
            project, list(tasks), git, transition=transition, edit=edit, config=config
        )
        per_task: list[_Scheduled] = []
        per_project: list[_Scheduled] = []
        for plugin, item in self.rules:
            if when not in item.when or not selection.enabled(item.code):
                continue
            if item.category not in result.categories:
                result.categories.append(item.category)
            severity = selection.severity.get(item.code, item.severity)
            if "task" in item.argnames:
                per_task.append((plugin, item, severity))
            elif whole_project:
                per_project.append((plugin, item, severity))
        # Built-in rules that read neither the tasks nor git may run while helpers finish;
        # what they find is added after the task rules', as if they had run then.
        early = [
            r
            for r in per_project
            if r[0] in BUILTIN_PLUGINS and not {"tasks", "git"} & set(r[1].argnames)
        ]
        early_result = RunResult()

        def meanwhile() -> None:
            for plugin, item, severity in early:
                self._call(plugin, item, severity, early_result, fixtures, None)
            if any("git" in item.argnames for _, item, _ in per_project):
                fixtures.prefetch_git()

        if per_task:
            self._task_pass(per_task, result, fixtures, jobs, meanwhile)
        else:
            meanwhile()
        for scheduled in per_project:
            if scheduled in early:
                result.absorb(early_result)
                early_result = RunResult()
            else:
                self._call(*scheduled, result, fixtures, None)
        result.findings.sort(key=_sort_key)
        return result

    def _task_pass(
        self,
        rules: list[_Scheduled],
        result: RunResult,
        fixtures: _Fixtures,
        jobs: int | None,
        meanwhile: Callable[[], None],
    ) -> None:
        """Every task rule on every task; helpers take slices of the built-in rules' work.

        Built-in rules are pure functions of the task, so where they run does not matter.
        A plugin's rule may keep state from one call to the next, so plugin rules run
        here, on every task, in order. Errors are put back in the order a single process
        meets them (task by task, built-in rules first), so the report is the same.
        """
        shared = [r for r in rules if r[0] in BUILTIN_PLUGINS and "git" not in r[1].argnames]
        kept = [r for r in rules if r not in shared]
        count = parallel.processes(jobs, len(fixtures.tasks))
        # With helpers, this process takes a smaller slice: `meanwhile` is its work too.
        parts = parallel.slices(fixtures.tasks, count, first=0.8 if count > 1 else 1.0)
        helpers = [
            parallel.Helper(partial(self._share, shared, fixtures, part)) for part in parts[1:]
        ]
        self._each(parts[0], rules, result, fixtures)
        meanwhile()
        for part, helper in zip(parts[1:], helpers):
            sent = helper.result()
            if sent is None:
                self._each(part, rules, result, fixtures)  # as if there had been no helper
                continue
            theirs, errors, entered = sent
            result.absorb(theirs)
            for task in part:
                if task.name in entered:
                    task.__dict__["entered"] = entered[task.name]
            own = RunResult()
            mine: list[tuple[int, PluginError]] = []
            self._each(part, kept, own, fixtures, mine)
            result.absorb(own)
            ordered = sorted(
                [(index, 0, error) for index, error in errors]
                + [(index, 1, error) for index, error in mine],
                key=lambda item: item[:2],
            )
            result.errors.extend(error for _, _, error in ordered)

    def _share(
        self, rules: list[_Scheduled], fixtures: _Fixtures, tasks: Sequence[Task]
    ) -> tuple[RunResult, list[tuple[int, PluginError]], dict[str, Any]]:
        """A helper's work: its slice, its errors by task position (kept out of the result,
        to be put in order), and the timelines the project-wide rules will need."""
        result = RunResult()
        errors: list[tuple[int, PluginError]] = []
        self._each(tasks, rules, result, fixtures, errors)
        entered = {t.name: t.__dict__["entered"] for t in tasks if "entered" in t.__dict__}
        return result, errors, entered

    def _each(
        self,
        tasks: Sequence[Task],
        rules: list[_Scheduled],
        result: RunResult,
        fixtures: _Fixtures,
        errors: list[tuple[int, PluginError]] | None = None,
    ) -> None:
        """The rules on each task in turn; with `errors`, their errors are kept there,
        each with the position of its task."""
        for index, task in enumerate(tasks):
            before = len(result.errors)
            for plugin, item, severity in rules:
                self._call(plugin, item, severity, result, fixtures, task)
            task.release()
            if errors is not None and len(result.errors) > before:
                errors.extend((index, error) for error in result.errors[before:])
                del result.errors[before:]

    def _call(
        self,
        plugin: str,
        item: Rule,
        severity: str,
        result: RunResult,
        fixtures: _Fixtures,
        task: Task | None,
    ) -> None:
        try:
            limit = self._limit(plugin)
            if limit is None and item.argnames == ("task",):
                produced = item.func(task=task)  # built-in task rules: the quick road
                found = list(produced) if produced is not None else []
            else:
                kwargs = {name: fixtures.get(name, task) for name in item.argnames}
                with time_limit(limit):
                    produced = item.func(**kwargs)
                    found = list(produced) if produced is not None else []
            for finding in found:
                if not isinstance(finding, Finding):
                    raise TypeError(f"yielded {type(finding).__name__}, not a Finding")
        except Skip as skip:
            result.skipped.setdefault(item.category, str(skip))
            return
        except _AlreadyReported:  # git failed for an earlier rule: no verdict here either
            result.skipped.setdefault(
                item.category, "the git history could not be read (see Errors)"
            )
            return
        except AutomatonError as exc:
            result.errors.append(PluginError(plugin, f"rule {item.code}: {exc.message}", item.code))
            return
        except PLUGIN_FAILURES as exc:
            where = f" on task '{task.name}'" if task is not None else ""
            result.errors.append(
                PluginError(plugin, f"rule {item.code}{where}: {_describe(exc)}", item.code)
            )
            return
        for finding in found:
            result.findings.append(
                replace(
                    finding,
                    code=item.code,
                    category=finding.category or item.category,
                    severity=finding.severity or severity,
                    task=finding.task or (task.name if task is not None else None),
                )
            )


def start_git(root: Path, config: Any) -> Callable[[], GitHistory]:
    """Start reading the git history the `git` argument will hold; a failure surfaces
    when a rule asks for it, as that rule's error, and the other rules still report."""
    from automaton_rules.engine import gitlog

    try:
        return gitlog.start(root, untracked=bool(getattr(config, "source_untracked", False)))
    except AutomatonError as exc:
        error = exc

    def failed() -> GitHistory:
        raise error

    return failed


def _sort_key(finding: Finding) -> tuple[Any, ...]:
    try:
        order = BUILTIN_CATEGORIES.index(finding.category)
    except ValueError:
        order = len(BUILTIN_CATEGORIES)
    path = finding.path or ""
    place = _ARTIFACT_ORDER.get(finding.artifact or "", len(_ARTIFACT_ORDER))
    return (order, finding.category, finding.task or "", finding.code, place, path, finding.message)


# Artifacts sort in workflow order (SPEC.md before IMPLEMENTATION.md), other paths by name.
_ARTIFACT_ORDER = {name: index for index, name in enumerate(machine.ARTIFACTS.values())}
