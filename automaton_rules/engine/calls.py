"""Calling a rule: the arguments it names, its time limit, and what it found, stamped.

Whatever a rule raises is caught here and becomes an error under its plugin's name, so
one broken rule never hides the findings of the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from automaton_rules.core.project import Project, Task
from automaton_rules.engine.findings import Finding
from automaton_rules.engine.plan import Scheduled
from automaton_rules.engine.plugins import (
    PLUGIN_FAILURES,
    PluginError,
    describe,
    failure_site,
    seconds_text,
    time_limit,
)
from automaton_rules.engine.result import RunResult
from automaton_rules.engine.rule import Skip
from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from automaton_rules.engine.gitlog import GitHistory

# The arguments a rule may name, as pytest's fixtures; `Fixtures.get` provides each.
FIXTURES: tuple[str, ...] = (
    "task",
    "tasks",
    "project",
    "transition",
    "edit",
    "config",
    "git",
    "now",
    "settings",
)


@dataclass(frozen=True)
class PlacedError:
    """An error met on a task, with the task's position in its slice of the tasks."""

    position: int
    error: PluginError


class _WrongReturn(Exception):
    """A rule returned something that is no way of giving findings."""


def _findings(produced: object) -> list[Finding]:
    """What a rule gave: a generator or an iterable of findings, or None; a bare Finding,
    a string or any other value is the rule's mistake, said in the words that fix it."""
    if produced is None:
        return []
    if isinstance(produced, (Finding, str, bytes, dict)) or not hasattr(produced, "__iter__"):
        raise _WrongReturn(
            f"returned {type(produced).__name__}; yield Findings (or return a list of them)"
        )
    return list(produced)


def _on(task: Task | None) -> tuple[str, ...]:
    return (task.name,) if task is not None else ()


class _AlreadyReported(Exception):
    """The git history could not be read, and the first rule that asked reported why."""


def start_git(root: Path, config: Any, since: str | None = None) -> Callable[[], GitHistory]:
    """Start reading the git history the `git` argument will hold (the commits after
    `since` only, when given); a failure surfaces when a rule asks for it, as that rule's
    error, and the other rules still report."""
    from automaton_rules.engine import gitlog

    try:
        untracked = bool(getattr(config, "source_untracked", False))
        return gitlog.start(root, untracked=untracked, since=since)
    except AutomatonError as exc:
        error = exc

    def failed() -> GitHistory:
        raise error

    return failed


class Fixtures:
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
        # Each plugin's settings for a configuration (`Engine.plugin_settings`).
        self.settings: Callable[[Any], dict[str, Any]] = lambda config: {}

    def get(self, name: str, task: Task | None, plugin: str | None = None) -> Any:
        """The value of the argument `name` for a rule of `plugin` called on `task` (None:
        the project)."""
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
        if name == "now":
            if "now" not in self.values:  # one reading for the whole run: rules agree
                from automaton_rules.core.history import now

                self.values["now"] = now()
            return self.values["now"]
        if name == "settings":
            from automaton_rules.engine.settings import NO_SETTINGS

            return self.settings(self.get("config", task)).get(plugin or "", NO_SETTINGS)
        if name == "config" and self.values.get("config") is None:
            # A caller that passed none (the Python API) gets the project's own.
            from automaton_rules.core.config import load_config

            self.values["config"] = load_config(self.project.root)
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


class RuleCaller:
    """Calls scheduled rules with their arguments; plugins' rules under the time limit."""

    def __init__(self, fixtures: Fixtures, timeout: float | None, timed: bool = False) -> None:
        self.fixtures = fixtures
        self.timeout = timeout  # each plugin rule's budget for the whole run, in seconds
        self.timed = timed  # the built-in rules timed too (--durations)
        self.spent: dict[str, float] = {}

    def on_tasks(
        self,
        tasks: Sequence[Task],
        rules: Sequence[Scheduled],
        result: RunResult,
        placed: list[PlacedError] | None = None,
    ) -> None:
        """The rules on each task in turn, each task let go of once done; with `placed`,
        errors go there instead, so they can be put in order with another process's."""
        call = self.call
        for position, task in enumerate(tasks):
            before = len(result.errors)
            for scheduled in rules:
                call(scheduled, result, task)
            task.release()
            if placed is not None and len(result.errors) > before:
                placed.extend(PlacedError(position, error) for error in result.errors[before:])
                del result.errors[before:]

    def call(self, scheduled: Scheduled, result: RunResult, task: Task | None) -> None:
        """One rule on `task` (None: on the project), its time counted: a plugin's rule runs
        within what is left of its budget for the whole run (`timeout`), and once that is
        spent it is called no more, each task it was not called on its error."""
        if scheduled.builtin and not self.timed:
            self._run(scheduled, result, task, None)
            return
        code = scheduled.rule.code
        left = None
        if not scheduled.builtin and self.timeout:
            left = self.timeout - self.spent.get(code, 0.0)
            if left <= 0:
                said = f"not run: {self._budget()} was spent"
                result.errors.append(
                    PluginError.of_rule(scheduled.plugin, code, _on(task), (said,))
                )
                return
        started = time.perf_counter()
        try:
            self._run(scheduled, result, task, left)
        finally:
            taken = time.perf_counter() - started
            self.spent[code] = self.spent.get(code, 0.0) + taken
            result.took(code, taken)

    def _budget(self) -> str:
        """A rule's budget, as its errors name it."""
        return f"its budget of {seconds_text(self.timeout or 0)} for the whole run"

    def _run(
        self, scheduled: Scheduled, result: RunResult, task: Task | None, left: float | None
    ) -> None:
        """The call itself; what the rule raises is its plugin's error."""
        rule, plugin = scheduled.rule, scheduled.plugin
        name = task.name if task is not None else None
        try:
            if scheduled.builtin and rule.argnames == ("task",):
                produced = rule.func(task=task)  # built-in task rules: the quick road
                found = list(produced) if produced is not None else []
            elif scheduled.builtin:  # built-in rules have no time limit: no timer to set
                produced = rule.func(
                    **{name: self.fixtures.get(name, task, plugin) for name in rule.argnames}
                )
                found = list(produced) if produced is not None else []
            else:
                kwargs = {name: self.fixtures.get(name, task, plugin) for name in rule.argnames}
                with time_limit(left, f"ran out of {self._budget()}"):
                    produced = rule.func(**kwargs)
                    found = _findings(produced)
            for finding in found:
                if not isinstance(finding, Finding):
                    raise TypeError(f"yielded {type(finding).__name__}, not a Finding")
        except _WrongReturn as wrong:
            result.errors.append(
                PluginError.of_rule(scheduled.plugin, rule.code, _on(task), (str(wrong),))
            )
            return
        except Skip as skip:
            result.skip(rule.code, str(skip), name)
            return
        except _AlreadyReported:  # git failed for an earlier rule: no verdict here either
            result.skip(rule.code, "the git history could not be read (see Errors)", name)
            return
        except AutomatonError as exc:
            result.errors.append(
                PluginError.of_rule(scheduled.plugin, rule.code, _on(task), (exc.message,))
            )
            return
        except PLUGIN_FAILURES as exc:
            home = getattr(getattr(rule.func, "__code__", None), "co_filename", None)
            where, trace = failure_site(exc, home, self.fixtures.project.root)
            result.errors.append(
                PluginError.of_rule(
                    scheduled.plugin, rule.code, _on(task), (describe(exc),), where, trace
                )
            )
            return
        for finding in found:  # stamped with what the rule knows and the finding left out
            result.findings.append(
                finding.stamped(
                    rule.code,
                    finding.category or rule.category,
                    finding.severity or scheduled.severity,
                    finding.task or name,
                )
            )
