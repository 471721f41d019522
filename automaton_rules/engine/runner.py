"""Run rules over tasks and collect their findings, the way pytest runs tests.

The engine collects the registered rules once; each run plans which of them to call
(`plan`), calls them (`calls`), and shares a large audit's task rules with helper
processes (`parallel`, loaded only for more than one task). With the built-in rules alone (no plugin
configured, no entry point installed) it calls each built-in module's `register_rules`
itself, in the order pluggy would, and builds pluggy's manager only when asked for it
(`pm`: to tell listeners, none of which can be registered then).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from automaton_rules.core import machine
from automaton_rules.core.project import Project, Task
from automaton_rules.engine import plugins
from automaton_rules.engine.calls import FIXTURES, Fixtures, RuleCaller
from automaton_rules.engine.findings import BUILTIN_CATEGORIES, Finding
from automaton_rules.engine.plan import Plan, Registered, Selection
from automaton_rules.engine.plugins import (
    DEFAULT_TIMEOUT,
    PLUGIN_FAILURES,
    PluginError,
    describe,
    failure_site,
    merge_rule_errors,
    time_limit,
)
from automaton_rules.engine.result import Planned, RunResult
from automaton_rules.engine.rule import Edit, Rule, Transition, not_a_rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pluggy

    from automaton_rules.engine.gitlog import GitHistory
    from automaton_rules.engine.settings import Declarations

    # A plugin's `register_rules`, by the plugin's name.
    Source = tuple[str, Callable[..., Any]]


class Engine:
    """Holds the plugin manager and the rules it registered, collected once, lazily."""

    def __init__(
        self,
        pm: pluggy.PluginManager | None,
        load_errors: Sequence[PluginError] = (),
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        self._pm = pm  # None: the built-in rules alone, the manager built when asked for
        self.load_errors = list(load_errors)
        self.timeout = timeout
        self._rules: list[Registered] | None = None
        self._register_errors: list[PluginError] = []
        self._settings: Declarations | None = None

    @classmethod
    def create(
        cls,
        plugins: Sequence[str] = (),
        *,
        base: Path | None = None,
        entry_points: bool = True,
        builtins: bool = True,
        timeout: float | None = DEFAULT_TIMEOUT,
        packages: frozenset[str] | None = None,
    ) -> Engine:
        """An engine with the built-in rules, entry-point plugins and configured plugins;
        `packages` names the installed packages that may load (a run's `Context.plugins`)."""
        if builtins and not plugins and not (entry_points and _installed(packages)):
            return cls(None, (), timeout)
        from automaton_rules.engine.manager import plugin_manager

        pm, errors = plugin_manager(
            plugins,
            base=base,
            entry_points=entry_points,
            builtins=builtins,
            timeout=timeout,
            packages=packages,
        )
        return cls(pm, errors, timeout)

    @property
    def pm(self) -> pluggy.PluginManager:
        """pluggy's manager of the engine's plugins, built now if the engine was made of
        the built-in rules alone."""
        if self._pm is None:
            from automaton_rules.engine.manager import plugin_manager

            self._pm, _ = plugin_manager(entry_points=False, timeout=self.timeout)
        return self._pm

    @property
    def rules(self) -> list[Registered]:
        """(plugin name, rule) for every registered rule, in registration order."""
        if self._rules is None:
            sources = _builtin_sources() if self._pm is None else _sources(self._pm)
            self._rules, self._register_errors = collect_rules(sources, self.timeout)
        return self._rules

    def check_settings(self, config: Any) -> None:
        """Refuse a plugin's table its plugin does not declare so; check nothing for none."""
        if self._pm is not None or getattr(config, "tables", None):
            self.settings.resolve(config)

    @property
    def settings(self) -> Declarations:
        """The plugins' settings (`register_settings`), declared once."""
        if self._settings is None:
            self._settings = _declarations(self._pm, self.timeout, self.load_errors)
        return self._settings

    @property
    def warnings(self) -> list[str]:
        """What loading the plugins found suspicious but not broken: a function named
        almost like a hook, which would never be called."""
        return list(getattr(self._pm, "warnings", ()))

    @property
    def errors(self) -> list[PluginError]:
        """Plugins that failed to import or to register their rules."""
        self.rules  # noqa: B018 - collecting rules is what records register errors
        return self.load_errors + self._register_errors + self.settings.errors

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
        timed: bool = False,
    ) -> RunResult:
        """Run every selected rule registered for `when`; broken plugins are errors too.

        Rules that do not name `task` look at the whole project, so they run only when
        the whole project is being checked: always in the audit and at edits, and in
        --validate-folder without --task. Task rules run task by task, so each task's
        records are read once for all of them and then let go; `git` is a history
        already being read. `jobs` caps the processes that share the task rules (None:
        one per CPU); `timed` times the built-in rules as well as the plugins' (`durations`).
        """
        if whole_project is None:
            whole_project = when == "audit"
        result = RunResult(errors=list(self.errors))
        plan = Plan.build(self.rules, when, selection or Selection(), whole_project)
        result.categories.extend(plan.categories)
        fixtures = Fixtures(
            project, list(tasks), git, transition=transition, edit=edit, config=config
        )
        fixtures.settings = lambda config: self.settings.resolve(config)
        caller = RuleCaller(fixtures, self.timeout, timed)
        early = RunResult()

        def while_waiting() -> None:
            """The command's work while helpers finish the task rules."""
            for scheduled in plan.early:
                caller.call(scheduled, early, None)
            if plan.project_reads_git:
                fixtures.prefetch_git()

        if not plan.per_task:
            while_waiting()
        elif len(fixtures.tasks) == 1:  # one task is never shared: no helper to load
            caller.on_tasks(fixtures.tasks, plan.per_task, result)
            while_waiting()
        else:
            from automaton_rules.engine import parallel

            parallel.run_task_rules(plan, caller, result, jobs, while_waiting)
        _project_rules(plan, caller, result, early)
        return _finished(result, plan, len(fixtures.tasks))


def _finished(result: RunResult, plan: Plan, tasks: int) -> RunResult:
    """The result in report order, one error per failing rule, and told what ran, so it
    can say which categories no rule judged."""
    result.findings.sort(key=_sort_key)
    result.errors = merge_rule_errors(result.errors)
    scheduled = (*plan.per_task, *plan.per_project)
    result.settle((Planned(s.rule.code, s.rule.category, s.per_task) for s in scheduled), tasks)
    return result


def _project_rules(plan: Plan, caller: RuleCaller, result: RunResult, early: RunResult) -> None:
    """The project rules in order, the early ones having run already: what they met counts
    where the first of them stands, as if they had run then."""
    early_taken = False
    for scheduled in plan.per_project:
        if not scheduled.early:
            caller.call(scheduled, result, None)
        elif not early_taken:
            result.absorb(early)
            early_taken = True


def _installed(packages: frozenset[str] | None) -> list:
    """The installed packages' entry points that load (`plugins.entry_points`)."""
    return plugins.entry_points(packages)


def _builtin_sources() -> list[Source]:
    """The built-in modules' `register_rules`, in the order pluggy registers them."""
    return [
        (name, importlib.import_module(name).register_rules) for name in plugins.BUILTIN_PLUGINS
    ]


def _sources(pm: pluggy.PluginManager) -> list[Source]:
    """Every registered plugin's `register_rules`, in registration order."""
    return [(impl.plugin_name, impl.function) for impl in pm.hook.register_rules.get_hookimpls()]


def _declarations(
    pm: pluggy.PluginManager | None, timeout: float | None, load_errors: Sequence[PluginError]
) -> Declarations:
    """Every registered plugin's `register_settings` called, in registration order."""
    from automaton_rules.engine.settings import Declarations

    impls = [] if pm is None else pm.hook.register_settings.get_hookimpls()
    sources = [(impl.plugin_name, impl.function) for impl in impls]
    return Declarations(sources, timeout, load_errors)


def collect_rules(
    sources: Iterable[Source], timeout: float | None
) -> tuple[list[Registered], list[PluginError]]:
    """Every plugin's rules in registration order, and an error for each plugin whose
    `register_rules` failed; the rules it registered before failing still run."""
    collected: list[Registered] = []
    errors: list[PluginError] = []
    codes: dict[str, str] = {}
    for plugin, function in sources:

        def register(item: Rule, plugin: str = plugin) -> None:
            _check_registration(item, codes)
            codes[item.code] = plugin
            collected.append(Registered(plugin, item))

        try:
            with time_limit(None if plugin in plugins.BUILTIN_PLUGINS else timeout):
                function(register=register)
        except PLUGIN_FAILURES as exc:
            home = getattr(getattr(function, "__code__", None), "co_filename", None)
            where, trace = failure_site(exc, home)
            at = f" at {where}" if where else ""
            errors.append(
                PluginError(
                    plugin,
                    f"register_rules failed{at}: {describe(exc)}",
                    where=where,
                    trace=trace,
                )
            )
    return collected, errors


def readable_tasks(project: Project) -> tuple[list[Task], list[str]]:
    """Every task; a task that cannot be read is an error named by task, not a stop."""
    tasks: list[Task] = []
    errors: list[str] = []
    for name, loaded in project.load_all():
        if isinstance(loaded, Task):
            tasks.append(loaded)
        else:
            errors.append(f"task {name}: {loaded.message}")
    return tasks, errors


def run_audit(
    engine: Engine,
    project: Project,
    settings: Any,
    chosen: Selection,
    since: str | None = None,
    timed: bool = False,
) -> tuple[list[Task], RunResult, list[str]]:
    """Every selected audit rule over every task, as `--audit` and the board run it: git
    read (after `since`) while the tasks load; the tasks, the result, the unreadable tasks.
    `timed` times every rule (`--durations`)."""
    from automaton_rules.engine.calls import start_git

    wants_git = engine.wants("git", "audit", chosen)
    git = start_git(project.root, settings, since) if wants_git else None
    tasks, errors = readable_tasks(project)
    result = engine.run(
        "audit",
        project,
        tasks,
        config=settings,
        selection=chosen,
        whole_project=True,
        git=git,
        jobs=settings.jobs,
        timed=timed,
    )
    return tasks, result, errors


def _check_registration(item: Rule, codes: dict[str, str]) -> None:
    """Refuse what `register()` cannot run, in the words the plugin's author needs."""
    if not isinstance(item, Rule):
        raise TypeError(not_a_rule(item))
    if item.code in codes:
        raise ValueError(f"rule code {item.code} is already registered by {codes[item.code]}")
    unknown = [name for name in item.argnames if name not in FIXTURES]
    if unknown:
        raise TypeError(
            f"rule {item.code} asks for unknown argument(s) {', '.join(unknown)}; "
            f"rules may ask for {', '.join(FIXTURES)}"
        )


def _sort_key(finding: Finding) -> tuple[Any, ...]:
    """The specification's category order, then by task, so a report reads the same each run."""
    try:
        order = BUILTIN_CATEGORIES.index(finding.category)
    except ValueError:
        order = len(BUILTIN_CATEGORIES)
    path = finding.path or ""
    place = _ARTIFACT_ORDER.get(finding.artifact or "", len(_ARTIFACT_ORDER))
    return (order, finding.category, finding.task or "", finding.code, place, path, finding.message)


# Artifacts sort in workflow order (SPEC.md before IMPLEMENTATION.md), other paths by name.
_ARTIFACT_ORDER = {name: index for index, name in enumerate(machine.ARTIFACTS.values())}
