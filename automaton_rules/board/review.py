"""The artifact page is the review page: the text rendered with its lines, the decision in
its header, the threads of comments, and the diff between any two of its revisions.

Approve and Request changes sit in the header, where the person reads; Approve asks for
confirmation in words that name the open requests and whether the text changed since the
last one, then for the passkey. A block of the text that a request is about is marked,
and clicking a block fills the line of a new comment. Each request is a thread: replies
and a resolve button, both recorded beside it (workflow/reviews.py). The revisions are
the text as approved (kept at `--approve`), each text a request was made on (kept when it
was made) and the text now; any two are compared.
"""

from __future__ import annotations

from automaton_rules.board import markup
from automaton_rules.board.pages import (
    Frame,
    approve_form,
    breakable,
    confirmation,
    crumbs,
    link,
    text,
)
from automaton_rules.board.projects import Watched
from automaton_rules.core import machine, store
from automaton_rules.core.policy import Policy
from automaton_rules.core.project import Task
from automaton_rules.workflow import reviews

NOW = "now"
APPROVED = "approved"
MAX_SHOWN = 1_000_000  # characters of an artifact rendered; the rest through the raw file


def revisions(task: Task, name: str) -> dict[str, tuple[str, str]]:
    """The artifact's revisions by key (a SHA-256, `approved`, `now`): (label, text)."""
    found: dict[str, tuple[str, str]] = {}
    copy = store.read_approved_copy(task.path, name)
    if copy is not None:
        found[APPROVED] = ("as approved", copy.decode("utf-8", errors="replace"))
    for digest, (when, body) in reviews.revisions(task, name).items():
        found[digest] = (f"commented on at {when} ({digest[:8]})", body)
    found[NOW] = ("now", task.read(name) or "")
    return found


def artifact_page(
    frame: Frame, watched: Watched, task: Task, name: str, compare: tuple[str, str] | None
) -> str:
    """An artifact as the page a person reviews it on."""
    body = task.read(name) or ""
    threads = [r for r in reviews.reviews(task) if r.artifact == name]
    marked = {r.line for r in threads if r.line is not None}
    shown = body[:MAX_SHOWN]
    cut = ""
    if len(body) > MAX_SHOWN:
        raw = link(watched.pid, "raw", task=task.name, file=name)
        cut = (
            f'<p class="missing">Only the first {MAX_SHOWN:,} of {len(body):,} characters '
            f'are shown. <a href="{raw}">The whole file</a>.</p>'
        )
    rendered = markup.render(shown, marked) if name.endswith(".md") else f"<pre>{text(shown)}</pre>"
    return (
        f'<article class="artifact" data-task="{text(task.name)}" data-file="{text(name)}">'
        f"{crumbs(watched, task.name, name)}"
        f"<h2>{breakable(task.name)} / {text(name)}</h2>"
        f"{_decision(frame, watched, task, name, threads)}"
        f"{_approved_change(task, name)}{_compare(watched, task, name, compare)}"
        f'{cut}<div class="markdown">{rendered}</div>'
        f"{_threads(frame, watched, task, threads)}{_ask(frame, watched, task, name)}</article>"
    )


def _decision(
    frame: Frame, watched: Watched, task: Task, name: str, threads: list[reviews.Review]
) -> str:
    """At the gate this artifact is for: Approve (confirmed), or go to Request changes."""
    state = task.state or ""
    if not (machine.is_awaiting(state) and machine.required_artifact(state) == name):
        return ""
    if not frame.approving:
        return '<p class="how">This board is read-only: approve in the agent\'s chat.</p>'
    if Policy(watched.settings().approval).needs_signature:
        return (
            '<p class="how">signed mode: approve with <code>status.py --task '
            f"{text(task.name)} --approve --approver ID</code> in a terminal.</p>"
        )
    from automaton_rules.board import passkeys

    back = link(watched.pid, "task", name=task.name).replace("&amp;", "&")
    approve = (
        approve_form(frame, watched, task.name, back, confirm=confirmation(frame, task))
        if passkeys.keys_of(watched.root, frame.person)
        else '<a href="/passkeys">register a passkey</a> to approve here'
    )
    return (
        f'<div class="decision header-actions"><b>Awaiting approval</b> {approve} '
        '<a class="button" href="#ask">Request changes</a></div>'
    )


def _approved_change(task: Task, name: str) -> str:
    """The diff since the artifact's last approval, when it changed since."""
    from automaton_rules.board.task_pages import approved_change

    changed = approved_change(task, name)
    if changed is None:
        return ""
    before, after = changed
    shown = (
        markup.diff_html(markup.diff(before, after, name, ("approved", "now")))
        if before is not None
        else '<p class="missing">The approved text was not kept (approved by an older '
        "version); only its digest shows the change.</p>"
    )
    return f'<section class="changed"><h3>Changed since its approval</h3>{shown}</section>'


def _compare(watched: Watched, task: Task, name: str, compare: tuple[str, str] | None) -> str:
    """Pick two revisions to compare, and their diff when two are picked."""
    found = revisions(task, name)
    if len(found) < 2:
        return ""

    def options(chosen: str) -> str:
        return "".join(
            f'<option value="{text(key)}"{" selected" if key == chosen else ""}>'
            f"{text(label)}</option>"
            for key, (label, _body) in found.items()
        )

    older = next(iter(found))
    start, end = compare or (older, NOW)
    diff = ""
    if compare is not None and start in found and end in found:
        rows = markup.diff(found[start][1], found[end][1], name, (found[start][0], found[end][0]))
        diff = markup.diff_html(rows) if rows else '<p class="empty">The two are the same.</p>'
    elif compare is not None:
        diff = '<p class="missing">No such revision of this artifact.</p>'
    return (
        f'<section class="revisions"><h3>Revisions</h3><form method="get" '
        f'action="{link(watched.pid, "artifact")}" class="inline">'
        f'<input type="hidden" name="task" value="{text(task.name)}">'
        f'<input type="hidden" name="file" value="{text(name)}">'
        f'<label>from <select name="from">{options(start)}</select></label> '
        f'<label>to <select name="to">{options(end)}</select></label> '
        f'<button type="submit">Compare</button></form>{diff}</section>'
    )


def _threads(frame: Frame, watched: Watched, task: Task, threads: list[reviews.Review]) -> str:
    """Every request on this artifact, with its replies, its state and what can be done."""
    if not threads:
        return ""
    notes = reviews.notes(task)
    done = reviews.resolved(task)
    items = "".join(_thread(frame, watched, task, r, notes, r.id in done) for r in threads)
    return f'<section class="threads"><h3>Comments</h3><ol>{items}</ol></section>'


def _thread(
    frame: Frame,
    watched: Watched,
    task: Task,
    review: reviews.Review,
    notes: list[reviews.Note],
    resolved: bool,
) -> str:
    if resolved:
        status = "resolved"
    elif reviews.is_open(task, review) and review.state == task.state:
        status = "open"
    else:
        status = "revised since"
    where = f'<a href="#L{review.line}">line {review.line}</a>' if review.line else "the whole text"
    replies = "".join(
        f'<li class="{n.kind}"><b>{text(n.by)}</b> at {text(n.time)}: '
        + (text(n.comment) if n.kind == reviews.REPLY else "<i>resolved</i>")
        + (f" <i>{text(n.comment)}</i>" if n.kind == reviews.RESOLVE and n.comment else "")
        + "</li>"
        for n in notes
        if n.to == review.id
    )
    actions = ""
    if frame.approving:
        fields = {"task": task.name, "to": review.id, "file": review.artifact}
        reply = (
            f'<form method="post" action="{link(watched.pid, "reply")}" class="reply">'
            f'<input type="hidden" name="csrf" value="{text(frame.csrf)}">'
            + "".join(
                f'<input type="hidden" name="{k}" value="{text(v)}">' for k, v in fields.items()
            )
            + f'<input name="comment" id="reply-{text(review.id)}" data-keep required '
            'placeholder="Reply"><button type="submit">Reply</button></form>'
        )
        resolve = "" if resolved else frame.form(link(watched.pid, "resolve"), fields, "Resolve")
        actions = reply + resolve
    return (
        f'<li class="thread {status.replace(" ", "-")}" data-thread="{text(review.id)}">'
        f"<p><b>{text(review.by)}</b> on {where} at {text(review.time)} "
        f'<span class="badge">{status}</span></p><p class="comment">{text(review.comment)}</p>'
        + (
            '<p class="muted">suggested text:</p><pre class="suggestion">'
            + "\n".join(text(line) for line in review.suggestion.splitlines())
            + "</pre>"
            if review.suggestion
            else ""
        )
        + f"<ul>{replies}</ul>{actions}</li>"
    )


def _ask(frame: Frame, watched: Watched, task: Task, name: str) -> str:
    from automaton_rules.board.task_pages import changes_form

    if not (machine.is_awaiting(task.state or "") and frame.approving):
        return ""
    if not machine.is_artifact(name):
        return ""
    return f'<section id="ask">{changes_form(frame, watched, task, name)}</section>'
