"""The pages of one task: where it stands, its timeline, its artifacts and the diagram.

The task page shows the state and how long it has been there, the decision a gate waits
for (approve, or ask for changes), the requests for changes and whether the agent has
revised since, the time spent in each phase with rework, every history line with who
made it, the sub-tasks, parent, follow-ups and origin, and the artifacts. The
artifact page, where the person reviews, is board/review.py.
"""

from __future__ import annotations

from automaton_rules.board.pages import Frame, breakable, crumbs, how_to_approve, link, text
from automaton_rules.board.projects import (
    HAND_EDITED_COLUMN,
    UNREADABLE_COLUMN,
    Watched,
    hand_edit,
    truth_of,
)
from automaton_rules.core import machine, store
from automaton_rules.core.project import Task
from automaton_rules.report.stats import duration, from_entries
from automaton_rules.support import clock
from automaton_rules.workflow import reviews


def task_page(frame: Frame, watched: Watched, task: Task, mode: str, now: float) -> str:
    """Everything about one task."""
    entries = task.entries
    since = entries[-1].time.timestamp() if entries else None
    held = f" for {duration(max(0, int(now - since)))}" if since is not None else ""
    recorded = hand_edit(task)
    truth = truth_of(task.state, None, recorded)
    shown = breakable(task.state) if task.state is not None else "no .state"
    where = (
        _truth(task, truth, recorded)
        if truth
        else f'<p class="muted">{text(machine.base_phase(task.state or ""))} phase{held} · '
        f'<a href="{link(watched.pid, "workflow", task=task.name)}">its path in the '
        f'workflow</a> · <a href="{link(watched.pid, "code", task=task.name)}">the code it '
        "changed</a></p>"
    )
    parts = [
        f'<article class="task" data-task="{text(task.name)}" '
        f'data-state="{text(task.state or "")}" data-truth="{text(truth or "")}">'
        f"{crumbs(watched, task.name)}"
        f"<h2>{breakable(task.name)} <code>{shown}</code></h2>{where}",
        "" if truth else _decision(frame, watched, task, mode),
        _requests(task),
        _relatives(watched, task),
        _artifacts(watched, task),
        _phases(task, now),
        _history(task),
        "</article>",
    ]
    return "".join(parts)


def _truth(task: Task, truth: str, recorded: str | None) -> str:
    """A banner saying why the task has no phase the board can show, and what to do."""
    name = text(task.name)
    if truth == HAND_EDITED_COLUMN:
        body = (
            f"<code>.state</code> says <code>{text(task.state)}</code>, but its history's last "
            f"move is to <code>{text(recorded)}</code>: it was edited by hand, not moved by "
            "status.py. The board shows no phase for it and offers no decision; the audit "
            f"reports it (AR206). Put back what the history says, or run "
            f"<code>status.py --task {name} --audit</code> for the suggested correction."
        )
    elif truth == UNREADABLE_COLUMN:
        body = (
            "<code>.state</code> holds no phase the workflow knows: "
            f"<code>{text(task.state)}</code> (shown escaped). The board shows no phase for "
            f"it; <code>status.py --task {name} --upgrade</code> rebuilds it from the "
            "artifacts."
        )
    else:
        body = (
            "This folder has no <code>.state</code>: it was made by hand, not by "
            "<code>status.py --create-task</code>. The board shows no phase for it; "
            f"<code>status.py --task {name} --upgrade</code> takes it into the workflow."
        )
    return f'<p class="banner truth" role="alert"><b>{text(truth)}.</b> {body}</p>'


def _decision(frame: Frame, watched: Watched, task: Task, mode: str) -> str:
    """At a gate: approve, or ask for changes on the artifact."""
    if not machine.is_awaiting(task.state or ""):
        return ""
    artifact = machine.required_artifact(task.state or "") or ""
    ask = changes_form(frame, watched, task, artifact) if frame.approving else ""
    return (
        '<section class="decision"><h3>Awaiting approval</h3>'
        f"<p>{how_to_approve(frame, watched, task.name, mode)}</p>{ask}</section>"
    )


def changes_form(frame: Frame, watched: Watched, task: Task, artifact: str) -> str:
    """Request changes: a comment on the artifact, or on one of its lines."""
    return (
        f'<form method="post" action="{link(watched.pid, "changes")}" class="changes">'
        f'<input type="hidden" name="csrf" value="{text(frame.csrf)}">'
        f'<input type="hidden" name="task" value="{text(task.name)}">'
        f'<input type="hidden" name="artifact" value="{text(artifact)}">'
        f"<label>Request changes to <code>{text(artifact)}</code>"
        '<textarea name="comment" id="comment" data-keep required rows="3"></textarea>'
        "</label><label>on line (optional) "
        '<input type="number" name="line" id="line" data-keep min="1"></label>'
        "<label>suggested text for that line (optional; the agent is told it)"
        '<textarea name="suggestion" id="suggestion" data-keep rows="2"></textarea></label>'
        '<button type="submit">Request changes</button></form>'
    )


def _requests(task: Task) -> str:
    """The requests for changes of this visit to the gate, open or answered."""
    found = reviews.this_visit(task)
    if not found:
        return ""
    items = "".join(
        f'<li class="{"open" if reviews.is_open(task, r) else "answered"}">'
        f"<b>{text(r.where())}</b> by {text(r.by)} at {text(r.time)} "
        f"({'open' if reviews.is_open(task, r) else 'revised since'}): "
        f'<span class="comment">{text(r.comment)}</span></li>'
        for r in found
    )
    return f'<section class="requests"><h3>Changes requested</h3><ul>{items}</ul></section>'


def _relatives(watched: Watched, task: Task) -> str:
    """Parent, sub-tasks, the task this one follows up, and its follow-ups."""
    project = watched.project
    found = []
    if task.parent:
        found.append(("parent", [task.parent]))
    else:
        found.append(("sub-tasks", project.subtask_names(task.name)))
    first = task.history[0] if task.history else {}
    if first.get("command") == "--follow-up" and isinstance(first.get("origin"), str):
        found.append(("follows up", [first["origin"]]))
    found.append(
        (
            "follow-ups",
            watched.cached(("follow-ups",), lambda: follow_ups(watched)).get(task.name, []),
        )
    )
    rows = "".join(
        f"<li>{label}: "
        + (
            ", ".join(
                f'<a href="{link(watched.pid, "task", name=n)}">{breakable(n)}</a>' for n in names
            )
            or '<span class="muted">none</span>'
        )
        + "</li>"
        for label, names in found
    )
    return f'<section class="relatives"><ul>{rows}</ul></section>'


def follow_ups(watched: Watched) -> dict[str, list[str]]:
    """Each task's follow-up tasks, from the first history line of every task."""
    found: dict[str, list[str]] = {}
    for name in watched.project.names():
        try:
            lines = store.history_lines(watched.project.task_dir(name))[:1]
        except Exception:
            continue
        first = store.parse_history(lines)[0] if lines else {}
        origin = first.get("origin")
        if first.get("command") == "--follow-up" and isinstance(origin, str):
            found.setdefault(origin, []).append(name)
    return found


def _artifacts(watched: Watched, task: Task) -> str:
    """The artifacts in the folder (records left out), and those the state expects."""
    present = [name for name in machine.ARTIFACTS.values() if name in task.files]
    others = sorted(n for n in task.files if not n.startswith(".") and n not in present)
    rows = "".join(
        f'<li><a href="{link(watched.pid, "artifact", task=task.name, file=n)}">{text(n)}</a>'
        f' <span class="muted">{text(_role(task, n))}</span></li>'
        for n in (*present, *others)
    )
    return (
        f'<section class="artifacts"><h3>Artifacts</h3><ul>{rows or "<li>none</li>"}</ul></section>'
    )


def _role(task: Task, name: str) -> str:
    if not machine.is_artifact(name):
        return "other file"
    changed = approved_change(task, name)
    note = " — changed since its approval" if changed else ""
    return f"{machine.ARTIFACT_PHASE[name]} phase{note}"


def _phases(task: Task, now: float) -> str:
    """Time per phase, visits (rework) and time waiting for approval."""
    from datetime import datetime, timezone

    figures = from_entries(task.name, task.entries, datetime.fromtimestamp(now, timezone.utc))
    if not figures.tracked:
        return '<section><h3>Timeline</h3><p class="empty">no history</p></section>'
    rows = "".join(
        f"<tr><td>{text(phase)}</td><td>{duration(f.seconds)}</td><td>{f.visits}</td>"
        f"<td>{duration(f.waiting) if f.waiting else '—'}</td>"
        f"<td>{'rework' if f.visits > 1 else ''}</td></tr>"
        for phase, f in figures.phases.items()
    )
    return (
        "<section><h3>Timeline</h3><table><thead><tr><th>Phase</th><th>Time</th>"
        "<th>Visits</th><th>Waiting for approval</th><th></th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def _history(task: Task) -> str:
    """Every history line: when, the move, who made it, who approved and how."""
    rows = "".join(
        f"<tr><td><time>{e.time.strftime(clock.TIME_FORMAT)}</time></td>"
        f"<td>{breakable(e.source or '—')}</td><td>{breakable(e.target)}</td>"
        f"<td>{text(e.actor)}</td><td>{text(e.approver or '')}</td>"
        f"<td>{text(e.via or '')}</td><td><code>{text(e.command)}</code></td></tr>"
        for e in task.entries
    )
    return (
        "<section><h3>History</h3><table><thead><tr><th>Time (UTC)</th><th>From</th>"
        "<th>To</th><th>Who</th><th>Approver</th><th>Via</th><th>Command</th></tr>"
        f'</thead><tbody class="history">{rows}</tbody></table></section>'
    )


def approved_change(task: Task, artifact: str) -> tuple[str | None, str] | None:
    """(the approved text if kept, the current text) of an approved artifact that has
    changed since its latest approval; None when it has not, or was never approved."""
    approvals = [e for e in task.entries if e.is_approval and e.artifact == artifact]
    if not approvals or approvals[-1].artifact_sha256 is None:
        return None
    recorded = approvals[-1].artifact_sha256
    if task.digest(artifact) == recorded:
        return None
    copy = store.read_approved_copy(task.path, artifact)
    before = None
    if copy is not None and store.bytes_digest(copy) == recorded:
        before = copy.decode("utf-8", errors="replace")
    return before, task.read(artifact) or ""


def workflow_page(watched: Watched, drawing: str, task: Task | None, engine: str) -> str:
    """The workflow diagram; with a task, its path."""
    title = f"The path of {breakable(task.name)}" if task is not None else "The workflow"
    return (
        f"{crumbs(watched, task.name if task is not None else None)}<h2>{title}</h2>"
        f'<p class="muted">Drawn by {text(engine)}. Approval gates in '
        "amber; with a task, the states it went through in blue and where it stands in "
        f'green.</p><div class="diagram">{drawing}</div>'
    )


def audit_page(watched: Watched, section: str, ran: str | None) -> str:
    """The findings by category, or a button to run the audit."""
    run = link(watched.pid, "audit", run="1")
    if ran is None:
        return (
            f"{crumbs(watched)}<h2>Audit of <code>{text(watched.root)}</code></h2>"
            "<p>The audit runs on "
            f'request and is kept until the files change. <a class="button" href="{run}">'
            "Run the audit</a></p>"
        )
    return (
        f"{crumbs(watched)}<h2>Audit of <code>{text(watched.root)}</code></h2>"
        f'<p class="muted">run at {text(ran)} on the files as they are now · '
        f'<a href="{run}">run again</a></p>{section}'
    )
