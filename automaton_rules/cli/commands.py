"""The handlers of status.py's actions: find the project, call the workflow or the engine,
and hand the action's view what it shows.

Each handler asks, by its keyword parameters, for the options it reads (as a rule asks for
its arguments) and for `run`, the command line's context (`cli/run.py`); `cli/actions.py`
pairs it with its view. `--task` is in `cli/task_view.py`, `--audit` in `cli/audit.py`.
"""

from __future__ import annotations

from pathlib import Path

from automaton_rules import workflow
from automaton_rules.cli import consent
from automaton_rules.cli.run import Run, selection
from automaton_rules.cli.views import (
    Claimed,
    Counted,
    Drawn,
    Listing,
    ListRow,
    RuleListing,
    Upgraded,
    Validation,
    holder_text,
)
from automaton_rules.core import store
from automaton_rules.core.config import Config, claim_timeout, load_config, multi_agent
from automaton_rules.core.project import (
    HAND_EDITED,
    Project,
    Task,
    find_project,
    load_tracked,
    refuse_hand_edit,
)
from automaton_rules.engine.manager import plugin_manager
from automaton_rules.engine.plugins import PluginError
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    import pluggy

    from automaton_rules.engine.events import EventError


def logged(errors: Sequence[PluginError | str]) -> list[str]:
    """Errors as stderr shows them: with AUTOMATON_DEBUG set, a plugin's traceback under
    its error."""
    import os

    debug = bool(os.environ.get("AUTOMATON_DEBUG"))
    return [
        f"{error}\n{error.trace}"
        if debug and not isinstance(error, str) and error.trace
        else str(error)
        for error in errors
    ]


def announce(
    run: Run,
    proj: Project,
    settings: Config,
    pm: pluggy.PluginManager | None,
    *changes: workflow.Change,
) -> None:
    """Tell the plugins listening to events of the command's changes (made durable, the
    lock given back); a listener that failed is the run's, and the change stands. `pm`
    None: a command that runs no rule loads the plugins that may listen."""
    failed: list[EventError] = []
    if pm is None:
        pm, load_errors = plugin_manager(
            settings.plugins,
            base=settings.base,
            builtins=False,
            timeout=settings.plugin_timeout_seconds,
            packages=proj.context.plugins,
        )
        if load_errors:
            from automaton_rules.engine.events import EventError

            failed = [EventError(e.plugin, None, None, e.message) for e in load_errors]
    failed += workflow.announce(pm, proj.root, changes, settings.plugin_timeout_seconds)
    run.failed.extend(failed)


def _claims(proj: Project, settings: Config, agent: str | None) -> workflow.Claims:
    return workflow.Claims(
        enabled=multi_agent(proj.root, settings),
        agent=agent,
        timeout_minutes=claim_timeout(proj.root, settings),
    )


def _policy(proj: Project, settings: Config) -> workflow.Policy:
    return workflow.Policy.of(settings, proj.root)


def transition(
    *,
    run: Run,
    task: str,
    transition: str,
    project: Path | None,
    config: Path | None,
    agent: str | None,
) -> workflow.Moved:
    """`--task NAME --transition PHASE`."""
    proj, settings = run.open(project, config)
    workflow.infer_untracked(proj, task, settings.untracked)
    engine = run.engine(settings)
    change = workflow.transition(
        proj,
        task,
        transition,
        engine=engine,
        claims=_claims(proj, settings, agent),
        policy=_policy(proj, settings),
    )
    announce(run, proj, settings, engine.pm, change)
    return change


def approve(
    *,
    run: Run,
    task: str,
    project: Path | None,
    approver: str,
    key: Path | None,
    config: Path | None,
    agent: str | None,
) -> workflow.Moved:
    """`--task NAME --approve [--approver ID] [--key FILE]`, given the way the project's
    `approval` setting asks."""
    proj, settings = run.open(project, config)
    workflow.infer_untracked(proj, task, settings.untracked)
    policy = _policy(proj, settings)
    engine = run.engine(settings)
    # `--approver` not given ("user") names the person git knows, except where a signature
    # must name a principal of the signers file.
    named = None if approver == "user" and not policy.needs_signature else approver
    change = workflow.approve(
        proj,
        task,
        approver=named,
        engine=engine,
        claims=_claims(proj, settings, agent),
        policy=policy,
        given=consent.given(proj, task, policy, approver, key),
    )
    announce(run, proj, settings, engine.pm, change)
    return change


def follow_up(
    *, run: Run, task: str, project: Path | None, config: Path | None, name: str | None
) -> workflow.FollowedUp:
    """`--task NAME --follow-up [--name NEW]`: the fix or review task after a failed verdict."""
    proj, settings = run.open(project, config)
    change = workflow.follow_up(proj, task, name)
    announce(run, proj, settings, None, change)
    return change


def _change_claim(
    run: Run,
    action: str,
    task: str,
    project: Path | None,
    config: Path | None,
    agent: str | None,
) -> Claimed:
    proj, settings = run.open(project, config)
    claims = _claims(proj, settings, agent)
    if not claims.enabled:
        raise AutomatonError(
            "not-multi-agent",
            f'--{action} works in multi-agent mode: set mode = "multi-agent" in '
            "automaton.toml, or 'Mode: multi-agent' in the project's .agent.md.",
        )
    if agent is None:
        raise AutomatonError("usage", f"--{action} needs --agent ID (or $AUTOMATON_AGENT).")
    operation = workflow.claim if action == "claim" else workflow.release
    change = operation(proj, task, claims)
    announce(run, proj, settings, None, change)
    return Claimed(change, action, claims.timeout_minutes)


def claim(
    *, run: Run, task: str, project: Path | None, config: Path | None, agent: str | None
) -> Claimed:
    """`--task NAME --claim --agent ID`: take the task for one agent (multi-agent mode)."""
    return _change_claim(run, "claim", task, project, config, agent)


def release(
    *, run: Run, task: str, project: Path | None, config: Path | None, agent: str | None
) -> Claimed:
    """`--task NAME --release --agent ID`: give the claim back."""
    return _change_claim(run, "release", task, project, config, agent)


def create_task(
    *, run: Run, create_task: str, project: Path | None, config: Path | None
) -> workflow.Created:
    """`--create-task NAME`."""
    proj, settings = run.open(project, config, create=True)
    change = workflow.create_task(proj, create_task)
    announce(run, proj, settings, None, change)
    return change


def list_tasks(*, run: Run, project: Path | None, config: Path | None) -> Listing:
    """`--list`: every task, each sub-task under its parent (and its holder, multi-agent)."""
    proj, settings = run.open(project, config)
    holders = multi_agent(proj.root, settings)
    now = proj.context.now()  # one reading, for every claim the list shows
    rows = []
    for name, loaded in proj.load_all():
        if not isinstance(loaded, Task):
            rows.append(ListRow(name, None, problem=_problem(name, loaded)))
            continue
        try:  # the task is readable: its state is shown beside what is wrong with it
            refuse_hand_edit(proj, loaded)
            claim = store.read_claim(loaded.path) if holders else None
        except AutomatonError as exc:
            if exc.code == HAND_EDITED:  # shown as the history has it, never as edited
                recorded = exc.next_steps.get("recorded")
                row = ListRow(name, recorded, _problem(name, exc), edited=loaded.state)
            else:
                row = ListRow(name, loaded.state, problem=_problem(name, exc))
            rows.append(row)
            continue
        rows.append(ListRow(name, loaded.state, holder=holder_text(claim, now)))
    return Listing(proj, rows, holders=holders, approval=settings.approval)


def _problem(name: str, error: AutomatonError) -> str:
    """A --list row's problem, short enough for its Next Step column."""
    if error.code == "unknown-phase" and error.next_steps.get("restores"):
        shown = printable(str(error.next_steps.get("state")))
        return f"{name}: Unknown phase '{shown}' in .state file (--upgrade restores it)"
    recorded = error.next_steps.get("recorded") if error.code == HAND_EDITED else None
    if recorded is None:
        return f"{name}: {error.message}"
    edited = printable(str(error.next_steps.get("state")))
    return (
        f"{name}: .state was changed outside status.py to '{edited}'; .state.history says "
        f"'{recorded}' (--upgrade restores it)"
    )


def validate_folder(
    *,
    run: Run,
    task: str | None,
    project: Path | None,
    config: Path | None,
    select: str | None,
    ignore: str | None,
) -> Validation:
    """`--validate-folder [--task NAME] [--select CODES] [--ignore CODES]`: out-of-order
    artifacts and hand-made folders, the rules chosen as the audit's are."""
    proj, settings = run.open(project, config)
    if task is not None:
        tasks, errors = [proj.load(task)], list[str]()
        if tasks[0].state is not None:
            refuse_hand_edit(proj, tasks[0])
    else:
        from automaton_rules.engine.runner import readable_tasks

        tasks, errors = readable_tasks(proj)
    engine = run.engine(settings)
    result = engine.run(
        "validate",
        proj,
        tasks,
        config=settings,
        selection=selection(engine, settings, select, ignore),
        whole_project=task is None,
        jobs=settings.jobs,
    )
    return Validation(proj, tasks, result, errors, whole_project=task is None)


def list_rules(*, run: Run, project: Path | None, config: Path | None) -> RuleListing:
    """`--list-rules`: every registered rule with its plugin, as the engine will run it."""
    try:
        root = find_project(project).root
    except AutomatonError:
        if project is not None:
            raise
        root = Path.cwd()  # rules can be listed before the first task exists
    settings = load_config(root, config)
    engine = run.engine(settings)
    rows = [
        {
            "code": rule.code,
            "severity": settings.severity.get(rule.code, rule.severity),
            "category": rule.category,
            "when": sorted(rule.when),
            "plugin": plugin,
            "summary": rule.summary,
        }
        for plugin, rule in engine.rules
    ]
    values = engine.settings.resolve(settings)
    declared = [
        {**setting.as_dict(), "value": _shown(values[setting.plugin][setting.name])}
        for setting in engine.settings.declared
    ]
    return RuleListing(rows, logged(engine.errors), declared)


def _shown(value: object) -> object:
    """A setting's value as JSON writes it: a list for a tuple."""
    return list(value) if isinstance(value, tuple) else value


def upgrade(*, run: Run, project: Path | None, config: Path | None) -> Upgraded:
    """`--upgrade`: adopt hand-made task folders."""
    proj, settings = run.open(project, config)
    changes, errors = workflow.upgrade(proj)
    if changes:
        announce(run, proj, settings, None, *changes)
    return Upgraded(proj, changes, errors)


def graph(
    *,
    run: Run,
    task: str | None,
    project: Path | None,
    config: Path | None,
    output_format: str | None,
) -> Drawn:
    """`--graph [--task NAME] [--format mermaid|dot]`: the workflow as a diagram; with a
    task, the state it is in and the path its history records."""
    from automaton_rules.report import graph as graphs

    chosen = None
    if task is not None:  # untracked or hand-edited: refused, as --task refuses it
        proj, _settings = run.open(project, config)
        chosen = load_tracked(proj, task)
    else:
        _project_if_any(project, config)
    return Drawn(graphs.workflow_graph(chosen), output_format or "mermaid")


def _project_if_any(project: Path | None, config: Path | None) -> None:
    """The workflow is drawn outside a project too; a named project must exist, and a
    project's configuration must read."""
    try:
        root = find_project(project).root
    except AutomatonError:
        if project is not None:
            raise
        return
    load_config(root, config)


def stats(*, run: Run, task: str | None, project: Path | None, config: Path | None) -> Counted:
    """`--stats [--task NAME]`: time per phase, visits, waiting for approval and approvals,
    from each task's `.state.history`, counted up to one reading of the clock."""
    from datetime import datetime, timezone

    from automaton_rules.report import stats as figures

    proj, _settings = run.open(project, config)
    now = datetime.fromtimestamp(int(proj.context.now()), timezone.utc)
    if task is not None:
        tasks, errors = [proj.load(task, strict=False)], list[str]()
    else:
        tasks, errors = _histories(proj)
    return Counted(figures.project_stats(tasks, now), task is None, errors)


def _histories(proj: Project) -> tuple[list[Task], list[str]]:
    """Every task whose history can be read: one whose `.state` names no known phase still
    has one; a folder that cannot be read at all is an error named by task."""
    tasks: list[Task] = []
    errors: list[str] = []
    for name, loaded in proj.load_all():
        if not isinstance(loaded, Task):
            try:
                loaded = proj.load(name, strict=False)
            except AutomatonError as exc:
                errors.append(f"task {name}: {exc.message}")
                continue
        tasks.append(loaded)
    return tasks, errors
