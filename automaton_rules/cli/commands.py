"""One function per status.py action: find the project, call the core, pick the view."""

from __future__ import annotations

from pathlib import Path

from automaton_rules import workflow
from automaton_rules.cli import consent, views
from automaton_rules.cli.views import Outcome
from automaton_rules.core import store
from automaton_rules.core.config import Config, claim_timeout, load_config, multi_agent
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.output import printable
from automaton_rules.core.project import (
    HAND_EDITED,
    Project,
    Task,
    find_project,
    load_tracked,
    refuse_hand_edit,
)
from automaton_rules.engine.calls import start_git
from automaton_rules.engine.plan import Selection
from automaton_rules.engine.plugins import PluginError, plugin_manager
from automaton_rules.engine.runner import Engine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    import pluggy

    from automaton_rules.engine.events import EventError
    from automaton_rules.engine.result import RunResult
    from automaton_rules.report import AuditReport


def _open(
    project: Path | None, config: Path | None, invoked_as: str, *, create: bool = False
) -> tuple[Project, Config]:
    """The project and its configuration; a broken configuration fails every command."""
    proj = find_project(project, create=create).started_as(invoked_as)
    return proj, load_config(proj.root, config)


def _engine(settings: Config) -> Engine:
    return Engine.create(
        settings.plugins, base=settings.base, timeout=settings.plugin_timeout_seconds
    )


def _noted(outcome: Outcome, engine: Engine) -> Outcome:
    """The outcome with what loading the plugins found suspicious, as warnings."""
    outcome.warnings.extend(engine.warnings)
    return outcome


def _logged(errors: Sequence[PluginError | str]) -> list[str]:
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


def _told(
    outcome: Outcome,
    proj: Project,
    settings: Config,
    pm: pluggy.PluginManager | None,
    *changes: workflow.Change,
) -> Outcome:
    """The outcome, once the plugins listening to events have heard of its changes (made
    durable, the lock given back): a listener that failed is a warning, and the change
    stands. `pm` None: a command that runs no rule loads the plugins that may listen."""
    failed: list[EventError] = []
    if pm is None:
        pm, load_errors = plugin_manager(
            settings.plugins,
            base=settings.base,
            builtins=False,
            timeout=settings.plugin_timeout_seconds,
        )
        if load_errors:
            from automaton_rules.engine.events import EventError

            failed = [EventError(e.plugin, None, None, e.message) for e in load_errors]
    failed += workflow.announce(pm, proj.root, changes, settings.plugin_timeout_seconds)
    return views.with_event_errors(outcome, failed)


def _selection(
    engine: Engine, settings: Config, select: str | None = None, ignore: str | None = None
) -> Selection:
    """Config first; `--select` replaces its selection and `--ignore` adds to it, as in ruff."""
    registered = [rule.code for _, rule in engine.rules]
    configured = Selection(settings.select, settings.ignore, settings.severity)
    typos = configured.unknown(registered)
    if typos:
        raise AutomatonError(
            "unknown-rule",
            f"Unknown rule code or prefix in {settings.path} (keys select, ignore, severity): "
            f"{printable(', '.join(typos), None)} (see --list-rules){_unloaded(engine)}",
        )
    chosen = Selection(
        select=_codes(select) if select is not None else settings.select,
        ignore=settings.ignore + _codes(ignore),
        severity=settings.severity,
    )
    unknown = chosen.unknown(rule.code for _, rule in engine.rules)
    if unknown:
        raise AutomatonError(
            "unknown-rule",
            f"Unknown rule code or prefix: {printable(', '.join(unknown), None)} "
            f"(see --list-rules){_unloaded(engine)}",
        )
    return chosen


def _unloaded(engine: Engine) -> str:
    """Why a code may be unknown: the plugins that failed to load (their rules were never
    registered), named with their failure, so the real cause is on the same line."""
    failed = [error for error in engine.errors if error.code is None]
    if not failed:
        return ""
    said = "; ".join(str(error) for error in failed)
    return f". Its rules may be in a plugin that did not load: {said}"


def _codes(value: str | None) -> tuple[str, ...]:
    return tuple(code.strip() for code in (value or "").split(",") if code.strip())


def _load_all(proj: Project) -> tuple[list[Task], list[str]]:
    """Every task; a task that cannot be read is an error named by task, not a stop."""
    tasks: list[Task] = []
    errors: list[str] = []
    for name, loaded in proj.load_all():
        if isinstance(loaded, Task):
            tasks.append(loaded)
        else:
            errors.append(f"task {name}: {loaded.message}")
    return tasks, errors


def task(
    *, task: str, project: Path | None, config: Path | None, invoked_as: str, **_: object
) -> Outcome:
    """`--task NAME`: the full view of one task, with its folder's validation."""
    proj, settings = _open(project, config, invoked_as)
    workflow.infer_untracked(proj, task, settings.untracked)
    current = load_tracked(proj, task)
    parent = proj.load(current.parent, strict=False) if current.parent else None
    subtasks = (
        [] if current.parent else [proj.load(n, strict=False) for n in proj.subtask_names(task)]
    )
    engine = _engine(settings)
    result = engine.run(
        "validate", proj, [current], config=settings, selection=_selection(engine, settings)
    )
    approvals = store.read_approvals(current.path)
    history = store.read_history(current.path)
    origin = history[0] if history and history[0].get("command") == "--follow-up" else None
    outcome = views.task_view(
        proj,
        current,
        parent,
        subtasks,
        approvals,
        result,
        origin,
        settings.approval,
        _shell_sandbox(settings),
    )
    return _noted(outcome, engine)


def _shell_sandbox(settings: Config) -> str | None:
    """The line `--task` adds where no sandbox holds the agent's shell (`sandbox` is not
    "off" and no mechanism works here); None where one does."""
    from automaton_rules.guards import sandbox

    if settings.sandbox == "off" or sandbox.choose() is not None:
        return None
    then = "refused" if settings.sandbox == "required" else "judged by the reader alone"
    return (
        f"Shell sandbox: none works on this machine, so shell commands are {then} "
        f"({sandbox.HOW_TO_ENABLE})"
    )


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
    task: str,
    project: Path | None,
    transition: str,
    config: Path | None,
    invoked_as: str,
    agent: str | None = None,
    **_: object,
) -> Outcome:
    """`--task NAME --transition PHASE`."""
    proj, settings = _open(project, config, invoked_as)
    workflow.infer_untracked(proj, task, settings.untracked)
    engine = _engine(settings)
    change = workflow.transition(
        proj,
        task,
        transition,
        engine=engine,
        claims=_claims(proj, settings, agent),
        policy=_policy(proj, settings),
    )
    return _told(_noted(views.moved_view(proj, change), engine), proj, settings, engine.pm, change)


def approve(
    *,
    task: str,
    project: Path | None,
    approver: str,
    key: Path | None = None,
    config: Path | None,
    invoked_as: str,
    agent: str | None = None,
    **_: object,
) -> Outcome:
    """`--task NAME --approve [--approver ID] [--key FILE]`, given the way the project's
    `approval` setting asks."""
    proj, settings = _open(project, config, invoked_as)
    workflow.infer_untracked(proj, task, settings.untracked)
    policy = _policy(proj, settings)
    engine = _engine(settings)
    # `--approver` not given ("user") names the person git knows, except where a signature
    # must name a principal of the signers file.
    named = None if approver == "user" and policy.mode != "signed" else approver
    change = workflow.approve(
        proj,
        task,
        approver=named,
        engine=engine,
        claims=_claims(proj, settings, agent),
        policy=policy,
        given=consent.given(proj, task, policy, approver, key),
    )
    return _told(_noted(views.moved_view(proj, change), engine), proj, settings, engine.pm, change)


def follow_up(
    *,
    task: str,
    project: Path | None,
    config: Path | None,
    name: str | None,
    invoked_as: str,
    **_: object,
) -> Outcome:
    """`--task NAME --follow-up [--name NEW]`: the fix or review task after a failed verdict."""
    proj, settings = _open(project, config, invoked_as)
    change = workflow.follow_up(proj, task, name)
    return _told(views.follow_up_view(proj, change), proj, settings, None, change)


def _claim_action(
    action: str,
    task: str,
    project: Path | None,
    config: Path | None,
    agent: str | None,
    invoked_as: str,
) -> Outcome:
    proj, settings = _open(project, config, invoked_as)
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
    return _told(views.claim_view(proj, change, action, claims), proj, settings, None, change)


def claim(
    *,
    task: str,
    project: Path | None,
    config: Path | None,
    agent: str | None,
    invoked_as: str,
    **_: object,
) -> Outcome:
    """`--task NAME --claim --agent ID`: take the task for one agent (multi-agent mode)."""
    return _claim_action("claim", task, project, config, agent, invoked_as)


def release(
    *,
    task: str,
    project: Path | None,
    config: Path | None,
    agent: str | None,
    invoked_as: str,
    **_: object,
) -> Outcome:
    """`--task NAME --release --agent ID`: give the claim back."""
    return _claim_action("release", task, project, config, agent, invoked_as)


def create_task(
    *, create_task: str, project: Path | None, config: Path | None, invoked_as: str, **_: object
) -> Outcome:
    """`--create-task NAME`."""
    proj, settings = _open(project, config, invoked_as, create=True)
    change = workflow.create_task(proj, create_task)
    return _told(views.created_view(proj, change), proj, settings, None, change)


def list_tasks(
    *, project: Path | None, config: Path | None, invoked_as: str, **_: object
) -> Outcome:
    """`--list`: every task, each sub-task under its parent (and its holder, multi-agent)."""
    proj, settings = _open(project, config, invoked_as)
    holders = multi_agent(proj.root, settings)
    rows = []
    for name, loaded in proj.load_all():
        if not isinstance(loaded, Task):
            rows.append(views.ListRow(name, None, problem=_problem(name, loaded)))
            continue
        try:  # the task is readable: its state is shown beside what is wrong with it
            refuse_hand_edit(proj, loaded)
            claim = store.read_claim(loaded.path) if holders else None
        except AutomatonError as exc:
            rows.append(views.ListRow(name, loaded.state, problem=_problem(name, exc)))
            continue
        rows.append(views.ListRow(name, loaded.state, holder=views.holder_text(claim)))
    return views.list_view(proj, rows, holders=holders, approval=settings.approval)


def _problem(name: str, error: AutomatonError) -> str:
    """A --list row's problem, short enough for its Next Step column."""
    if error.code == "unknown-phase" and error.next_steps.get("restores"):
        shown = printable(str(error.next_steps.get("state")))
        return f"{name}: Unknown phase '{shown}' in .state file (--upgrade restores it)"
    recorded = error.next_steps.get("recorded") if error.code == HAND_EDITED else None
    if recorded is None:
        return f"{name}: {error.message}"
    return (
        f"{name}: .state was changed outside status.py; .state.history says "
        f"'{recorded}' (--upgrade restores it)"
    )


def validate_folder(
    *, task: str | None, project: Path | None, config: Path | None, invoked_as: str, **_: object
) -> Outcome:
    """`--validate-folder [--task NAME]`: out-of-order artifacts and hand-made folders."""
    proj, settings = _open(project, config, invoked_as)
    if task is not None:
        tasks, errors = [proj.load(task)], list[str]()
        if tasks[0].state is not None:
            refuse_hand_edit(proj, tasks[0])
    else:
        tasks, errors = _load_all(proj)
    engine = _engine(settings)
    result = engine.run(
        "validate",
        proj,
        tasks,
        config=settings,
        selection=_selection(engine, settings),
        whole_project=task is None,
        jobs=settings.jobs,
    )
    outcome = views.validate_view(proj, tasks, result, errors, whole_project=task is None)
    return _noted(outcome, engine)


def audit(
    *,
    project: Path | None,
    config: Path | None,
    select: str | None,
    ignore: str | None,
    fail_on: str | None,
    output_format: str | None,
    as_json: bool,
    invoked_as: str,
    baseline: Path | None = None,
    write_baseline: Path | None = None,
    since: str | None = None,
    **_: object,
) -> Outcome:
    """`--audit`: every rule over every task, in the chosen report format; held against a
    baseline, or recording one; the git rules limited to the commits after `--since`."""
    from automaton_rules.engine import gitlog
    from automaton_rules.report import FORMATS, AuditReport
    from automaton_rules.report import baseline as baselines

    if output_format is not None and output_format not in FORMATS:
        raise AutomatonError(
            "usage", f"Unknown format '{printable(output_format)}'; choose {', '.join(FORMATS)}."
        )
    if baseline is not None and write_baseline is not None:
        raise AutomatonError("usage", "--baseline and --write-baseline cannot be combined.")
    proj, settings = _open(project, config, invoked_as)
    accepted = baselines.read(baseline) if baseline is not None else None
    commit = gitlog.resolve_since(proj.root, since) if since is not None else None
    engine = _engine(settings)
    selection = _selection(engine, settings, select, ignore)
    tasks, result, errors = _run_audit(proj, settings, engine, selection, commit)
    compared = None
    if accepted is not None:
        looked_at = gitlog.commits_after(proj.root, commit) if commit is not None else None
        compared = baselines.compare(result.findings, accepted, looked_at)
    report = AuditReport(
        project=proj,
        tasks=tasks,
        result=result,
        rules=[(p, r) for p, r in engine.rules if selection.enabled(r.code)],
        fail_on=fail_on or settings.fail_on,
        task_errors=errors,
        baseline=None if baseline is None else str(baseline),
        known=compared.known if compared else [],
        gone=compared.gone if compared else [],
        since=(since, commit) if since is not None and commit is not None else None,
        approval=settings.approval,
    )
    fmt = "json" if as_json and output_format in (None, "text") else output_format or "text"
    failed = _audited(report, engine, settings)
    if write_baseline is not None:
        outcome = _written(report, write_baseline, fmt)
    else:
        outcome = Outcome(report.exit_code, _rendered(report, fmt, failed), raw=True)
        outcome.errors = _logged([*report.task_errors, *report.result.errors])
    return views.with_event_errors(_noted(outcome, engine), failed)


def _audited(report: AuditReport, engine: Engine, settings: Config) -> list[EventError]:
    """Tell the plugins listening to events that the audit finished, with its counts."""
    from automaton_rules.engine.hookspecs import listening

    if not listening(engine.pm):
        return []
    from collections import Counter

    from automaton_rules.core.severity import SEVERITIES
    from automaton_rules.engine import events

    severities = Counter(str(f.severity) for f in report.findings)
    summary = {
        "tasks": len(report.tasks),
        "findings": len(report.findings),
        "violations": len(report.violations),
        "errors": len(report.errors),
        "by_severity": {s: severities.get(s, 0) for s in SEVERITIES},
        "fail_on": report.fail_on,
        "exit_code": report.exit_code,
    }
    root = report.project.root
    event = events.Event(events.AUDITED, root, events.recorded_time(None), summary=summary)
    return events.dispatch(engine.pm, [event], settings.plugin_timeout_seconds)


def _rendered(report: AuditReport, fmt: str, failed: list[EventError]) -> str:
    """The report in its format; in JSON, with the `event_errors` of its listeners."""
    from automaton_rules.report import renderer

    if fmt != "json" or not failed:
        return renderer(fmt)(report)
    from automaton_rules.core.output import json_text
    from automaton_rules.report import json_format

    body = json_format.as_dict(report)
    body["event_errors"] = [failure.as_dict() for failure in failed]
    return json_text(body)


def _run_audit(
    proj: Project, settings: Config, engine: Engine, selection: Selection, since: str | None
) -> tuple[list[Task], RunResult, list[str]]:
    """Every audit rule over every task, git read (after `since`) while the tasks load."""
    wants_git = engine.wants("git", "audit", selection)
    git = start_git(proj.root, settings, since) if wants_git else None
    tasks, errors = _load_all(proj)
    result = engine.run(
        "audit",
        proj,
        tasks,
        config=settings,
        selection=selection,
        whole_project=True,
        git=git,
        jobs=settings.jobs,
    )
    return tasks, result, errors


def _written(report: AuditReport, path: Path, fmt: str) -> Outcome:
    """`--write-baseline FILE`: every finding recorded, unless the audit met an error (an
    incomplete baseline would hide what it missed)."""
    from automaton_rules.report import baseline as baselines
    from automaton_rules.report import plural, written

    if report.errors:
        raise AutomatonError(
            "audit-failed",
            f"Baseline {printable(str(path), None)} not written: the audit met "
            f"{plural(len(report.errors), 'error')}: {printable(report.errors[0], None)}",
        )
    entries = baselines.write(path, report.result.findings)
    return Outcome(0, written(fmt, report, str(path), entries), raw=True)


def list_rules(*, project: Path | None, config: Path | None, **_: object) -> Outcome:
    """`--list-rules`: every registered rule with its plugin, as the engine will run it."""
    try:
        root = find_project(project).root
    except AutomatonError:
        if project is not None:
            raise
        root = Path.cwd()  # rules can be listed before the first task exists
    settings = load_config(root, config)
    engine = _engine(settings)
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
    lines = [
        f"{row['code']:<8}{row['severity']:<9}{row['category']}: {row['summary']}\n"
        f"{'':<17}runs at {', '.join(row['when'])}; plugin {row['plugin']}"
        for row in rows
    ]
    errors = _logged(engine.errors)
    outcome = Outcome(2 if errors else 0, "\n".join(lines), {"rules": rows}, errors=errors)
    return _noted(outcome, engine)


def upgrade(*, project: Path | None, config: Path | None, invoked_as: str, **_: object) -> Outcome:
    """`--upgrade`: adopt hand-made task folders."""
    proj, settings = _open(project, config, invoked_as)
    changes, errors = workflow.upgrade(proj)
    outcome = views.upgrade_view(proj, changes, errors)
    return _told(outcome, proj, settings, None, *changes) if changes else outcome


def graph(
    *,
    task: str | None,
    project: Path | None,
    config: Path | None,
    output_format: str | None,
    invoked_as: str,
    **_: object,
) -> Outcome:
    """`--graph [--task NAME] [--format mermaid|dot]`: the workflow as a diagram; with a
    task, the state it is in and the path its history records."""
    from automaton_rules.report import graph as graphs

    fmt = output_format or "mermaid"
    if fmt not in graphs.FORMATS:
        raise AutomatonError(
            "usage",
            f"Unknown format '{printable(fmt)}'; choose {', '.join(graphs.FORMATS)}.",
        )
    chosen = None
    if task is not None:  # untracked or hand-edited: refused, as --task refuses it
        proj, _settings = _open(project, config, invoked_as)
        chosen = load_tracked(proj, task)
    else:
        _project_if_any(project, config)
    drawn = graphs.workflow_graph(chosen)
    text = graphs.render(drawn, fmt)
    return Outcome(0, text, {"format": fmt, fmt: text, "graph": graphs.as_dict(drawn)})


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


def stats(
    *, task: str | None, project: Path | None, config: Path | None, invoked_as: str, **_: object
) -> Outcome:
    """`--stats [--task NAME]`: time per phase, visits, waiting for approval and approvals,
    from each task's `.state.history`, counted up to one reading of the clock."""
    from datetime import datetime, timezone

    from automaton_rules.core import clock
    from automaton_rules.report import stats as figures

    proj, _settings = _open(project, config, invoked_as)
    now = datetime.fromtimestamp(int(clock.now()), timezone.utc)
    if task is not None:
        tasks, errors = [proj.load(task, strict=False)], list[str]()
    else:
        tasks, errors = _histories(proj)
    counted = figures.project_stats(tasks, now)
    text = figures.render(counted, project=task is None)
    return Outcome(2 if errors else 0, text, figures.as_dict(counted), errors=errors)


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
