"""What the board does for the person using it: approve, ask for changes, run the audit.

An approval from the board is recorded `via: board-passkey` with the id of the passkey
whose assertion the board checked (board/passkeys.py) and what the assertion carried, the
board's person (the one who started it and holds its session, support/person.py) as the
approver, and only where the project's `approval` mode takes a person's approval that
way: `open` and `prompt`. In `signed` mode a browser cannot sign, and the board shows the
command to run instead. Plugins that listen to events hear of the approval as of any other.
"""

from __future__ import annotations

import threading

from automaton_rules import workflow
from automaton_rules.board.projects import Watched
from automaton_rules.board.security import Refused
from automaton_rules.core.config import multi_agent
from automaton_rules.support.context import STATUS_SCRIPT
from automaton_rules.workflow import reviews

_audit_lock = threading.Lock()
VIA = "board-passkey"


def refuse_signed(watched: Watched, name: str) -> None:
    """Signed mode: a browser cannot sign; say what the approver runs instead."""
    raise Refused(
        403,
        f'This project takes signed approvals only (approval = "signed"): a browser '
        f"cannot sign. The approver runs, in a terminal: {STATUS_SCRIPT} --task {name} "
        f"--approve --approver ID --project {watched.project.root}",
    )


def approve(
    watched: Watched, name: str, person: str, passkey: str, assertion: dict[str, str]
) -> workflow.Moved:
    """Approve the task at its gate as the board's person, whose passkey `passkey` the
    board has just checked, if the mode lets a person do it here."""
    from automaton_rules.engine.runner import Engine

    project = watched.project
    settings = watched.settings()
    policy = workflow.Policy.of(settings, project.root)
    if policy.needs_signature:
        refuse_signed(watched, name)
    timeout = settings.plugin_timeout_seconds
    engine = Engine.create(settings.plugins, base=settings.base, timeout=timeout)
    change = workflow.approve(
        project,
        name,
        approver=person,
        engine=engine,
        claims=workflow.Claims(
            enabled=multi_agent(project.root, settings),
            timeout_minutes=settings.claim_timeout_minutes,
        ),
        policy=policy,
        given=workflow.Given(VIA, {"passkey": passkey, **assertion}),
    )
    workflow.announce(engine.pm, project.root, [change], timeout)
    return change


def request_changes(
    watched: Watched,
    person: str,
    name: str,
    comment: str,
    artifact: str | None,
    line: int | None,
    suggestion: str = "",
) -> reviews.Review:
    """Record the person's request for changes (and suggested text); the agent reads it
    at its next hook."""
    return reviews.request_changes(
        watched.project,
        name,
        comment,
        by=person,
        artifact=artifact,
        line=line,
        suggestion=suggestion,
    )


def run_audit(watched: Watched) -> None:
    """Run every audit rule over the project's tasks, as `--audit` does, and keep the
    report for the files as they are now."""
    from automaton_rules.engine.plan import Selection
    from automaton_rules.engine.runner import Engine, run_audit
    from automaton_rules.report import AuditReport

    with _audit_lock:
        generation = watched.generation
        settings = watched.settings()
        engine = Engine.create(
            settings.plugins, base=settings.base, timeout=settings.plugin_timeout_seconds
        )
        selection = Selection(settings.select, settings.ignore, settings.severity)
        tasks, result, errors = run_audit(engine, watched.project, settings, selection)
        report = AuditReport(
            project=watched.project,
            tasks=tasks,
            result=result,
            rules=[(p, r) for p, r in engine.rules if selection.enabled(r.code)],
            fail_on=settings.fail_on,
            task_errors=errors,
            approval=settings.approval,
        )
        watched.audit = (generation, report, watched.project.context.utc_now())


def audit_section(watched: Watched) -> tuple[str, str | None]:
    """The kept audit's findings by category, and when it ran."""
    from automaton_rules.report.html import findings_section

    if watched.audit is None:
        return "", None
    report = watched.audit[1]
    links = {task.name: f"/p/{watched.pid}/task?name={task.name}" for task in report.tasks}
    return findings_section(report, links), watched.audit[2]
