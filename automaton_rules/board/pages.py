"""The board's pages as HTML: the frame every page shares, and the board itself.

Every untrusted string (task names, states, messages, people) goes through `text`, which
escapes markup and shows control characters; the page loads one script and one style
sheet from the board itself (the Content-Security-Policy allows nothing else). The
board lists every project: its tasks awaiting approval first, with how long each has
waited and how to approve it, then a column per phase that holds a task (the empty
phases named on one line), each card with its findings as badges.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from automaton_rules.board import passkeys
from automaton_rules.board.passkeys import KEYS_FILE, Passkey
from automaton_rules.board.projects import HAND_EDITED_COLUMN, Card, Watched
from automaton_rules.core import machine
from automaton_rules.core.policy import Policy
from automaton_rules.core.project import Task
from automaton_rules.core.severity import SEVERITIES
from automaton_rules.report import plural
from automaton_rules.report.stats import duration
from automaton_rules.support.context import STATUS_SCRIPT
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.workflow import reviews


def text(value: object) -> str:
    """Untrusted text as HTML: markup escaped, control characters shown escaped."""
    return escape(printable(str(value), None), quote=True)


def breakable(value: object) -> str:
    """A name or state that may wrap only after `:`, `_`, `-` or `/`, never mid-word."""
    shown = text(value)
    for mark in (":", "_", "-", "/"):
        shown = shown.replace(mark, f"{mark}<wbr>")
    return shown


def link(pid: str, page: str, **query: str) -> str:
    """A URL of the board, its query escaped."""
    from urllib.parse import urlencode

    return escape(f"/p/{pid}/{page}?{urlencode(query)}" if query else f"/p/{pid}/{page}")


class Frame:
    """What every page of one session shares: who is signed in, the CSRF token, the
    notification settings."""

    def __init__(
        self, person: str, csrf: str, stale_minutes: float, approving: bool, note: str = ""
    ) -> None:
        self.person = person
        self.csrf = csrf
        self.stale_minutes = stale_minutes
        self.approving = approving
        self.note = note

    def page(self, title: str, main: str, generation: str, kind: str = "board") -> str:
        """A whole page around its main part."""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="csrf" content="{escape(self.csrf)}">'
            f'<meta name="stale-minutes" content="{self.stale_minutes:g}">'
            '<link rel="icon" href="data:,"><link rel="stylesheet" href="/board.css">'
            f"<title>{text(title)}</title></head>"
            f'<body data-page="{kind}"><header class="topbar"><a href="/">Board</a>'
            f'<span class="muted">signed in as <b id="person">{text(self.person)}</b></span>'
            '<a href="/passkeys">passkeys</a>'
            '<button type="button" id="notify" hidden>Enable notifications</button>'
            '<span id="live" class="muted">connecting…</span></header>'
            + (f'<p class="note" role="status">{text(self.note)}</p>' if self.note else "")
            + '<p id="alert" class="alert" role="alert" hidden></p>'
            + f'<main data-generation="{escape(generation)}">{main}</main>'
            '<script src="/board.js"></script></body></html>\n'
        )

    def form(self, action: str, fields: dict[str, str], button: str, css: str = "") -> str:
        """A POST form with its CSRF token and hidden fields."""
        hidden = "".join(
            f'<input type="hidden" name="{escape(k)}" value="{text(v)}">' for k, v in fields.items()
        )
        return (
            f'<form method="post" action="{action}" class="inline {css}">'
            f'<input type="hidden" name="csrf" value="{escape(self.csrf)}">{hidden}'
            f'<button type="submit">{text(button)}</button></form>'
        )


def how_to_approve(frame: Frame, watched: Watched, name: str, mode: str) -> str:
    """How the task at its gate is approved: a button that asks the person's passkey where
    the board may approve, else the command or the words the person uses."""
    root = str(watched.root)
    quoted = f"--task {name} --approve --project {root}"
    if Policy(mode).needs_signature:
        return (
            '<span class="how">signed mode: run <code>'
            f"{text(STATUS_SCRIPT)} {text(quoted)} --approver ID</code> in a terminal</span>"
        )
    typed = f"type <code>approve {text(name)}</code> in the agent's chat"
    also = f" or {typed}"
    if not frame.approving:
        return (
            f'<span class="how">this board is read-only (not started at a terminal): {typed}</span>'
        )
    if not passkeys.keys_of(watched.root, frame.person):
        return (
            f'<span class="how">to approve here, <a href="/passkeys">register a passkey</a>'
            f"{also}</span>"
        )
    try:
        asked = confirmation(frame, watched.project.load(name, strict=False))
    except AutomatonError:
        asked = None
    button = approve_form(frame, watched, name, "/", confirm=asked)
    return button + f'<span class="how muted">{also}</span>'


def approve_form(
    frame: Frame, watched: Watched, name: str, back: str, confirm: str | None = None
) -> str:
    """The Approve button: the page's script asks for confirmation when the form says what
    to confirm, then asks the passkey, then sends its assertion."""
    asked = f' data-confirm="{text(confirm)}"' if confirm else ""
    return (
        f'<form method="post" action="{link(watched.pid, "approve")}" class="inline approve"'
        f' data-passkey="{link(watched.pid, "challenge")}"{asked}>'
        f'<input type="hidden" name="csrf" value="{escape(frame.csrf)}">'
        f'<input type="hidden" name="task" value="{text(name)}">'
        f'<input type="hidden" name="back" value="{text(back)}">'
        '<input type="hidden" name="assertion" value="">'
        '<button type="submit">Approve</button></form>'
    )


def confirmation(frame: Frame, task: Task) -> str:
    """What the person confirms: the task, the gate, who, the open requests, and whether
    the text changed since the last request."""
    requests = reviews.open_requests(task)
    lines = [f"Approve task '{task.name}' at {task.state} as {frame.person}?"]
    if requests:
        lines.append(f"{len(requests)} open request(s) for changes will stay unanswered:")
        lines += [f"- {r.where()}: {r.comment[:120]}" for r in requests]
    else:
        lines.append("No request for changes is open.")
    visit = reviews.this_visit(task)
    if visit:
        last = visit[-1]
        changed = task.digest(last.artifact) != last.sha256
        lines.append(
            "The text changed since the last request for changes."
            if changed
            else "The text is unchanged since the last request for changes."
        )
    return "\n".join(lines)


def crumbs(watched: Watched, task: str | None = None, file: str | None = None) -> str:
    """Where a page is: the project (by its folder), the task, the file."""
    parts = [f'<a href="/#project-{watched.pid}">{text(watched.root)}</a>']
    if task is not None:
        parts.append(f'<a href="{link(watched.pid, "task", name=task)}">{breakable(task)}</a>')
    if file is not None:
        parts.append(text(file))
    return f'<nav class="crumbs" data-project-root="{text(watched.root)}">{" / ".join(parts)}</nav>'


def passkeys_page(frame: Frame, listed: list[tuple[Watched, list[Passkey]]], may: bool) -> str:
    """Every project's registered passkeys, and the registration of one."""
    rows = "".join(
        f"<tr><td><code>{text(watched.root)}</code></td><td>{text(k.person)}</td>"
        f"<td>{text(k.label)}</td><td><code>{text(k.credential_id[:16])}…</code></td>"
        f"<td>{text(k.algorithm)}</td><td>{text(k.registered)}</td></tr>"
        for watched, keys in listed
        for k in keys
    )
    table = (
        "<table><thead><tr><th>Project</th><th>Person</th><th>Label</th><th>Credential</th>"
        f'<th>Algorithm</th><th>Registered</th></tr></thead><tbody class="keys">{rows}</tbody>'
        "</table>"
        if rows
        else '<p class="empty">No passkey is registered in any project this board serves.</p>'
    )
    if may:
        register = (
            '<form method="post" action="/passkeys/register" id="register" class="changes">'
            f'<input type="hidden" name="csrf" value="{escape(frame.csrf)}">'
            '<input type="hidden" name="credential" value="">'
            f"<label>A name for the new passkey of {text(frame.person)} "
            '<input name="label" id="label" maxlength="80" data-keep></label>'
            '<button type="submit">Register a passkey</button></form>'
        )
    else:
        register = (
            "<p>To register a passkey, type <code>passkey</code> and Enter on the board's "
            "terminal, and open the link it prints (good once, for 10 minutes). The key is "
            f"added to <code>{text(KEYS_FILE)}</code> of every project this board serves: "
            "commit it, as you would the signers file.</p>"
        )
    return (
        f"<h2>Passkeys</h2><p>An approval from the board is signed by the passkey of "
        f"<b>{text(frame.person)}</b>, with user verification, over a challenge bound to "
        "the task, its gate and the artifact's SHA-256.</p>"
        f"{table}{register}"
    )


def board(frame: Frame, projects: list[tuple[Watched, list[Card], str]], now: float) -> str:
    """Every project's board, under a filter that hides the cards it does not match."""
    parts = [project_board(frame, watched, cards, mode, now) for watched, cards, mode in projects]
    needs = sum(1 for _w, cards, _m in projects for c in cards if c.awaiting)
    tools = (
        '<p class="tools"><label>Filter <input type="search" id="filter" data-keep '
        'placeholder="task name or state"></label> '
        f'<a href="/inbox">needs me ({needs})</a></p>'
    )
    return tools + "".join(parts)


def inbox(frame: Frame, projects: list[tuple[Watched, list[Card], str]], now: float) -> str:
    """What waits for the person, in every project, the longest waiting first."""
    waiting = sorted(
        ((w, c, mode) for w, cards, mode in projects for c in cards if c.awaiting),
        key=lambda item: item[1].waiting_since or 0,
    )
    items = "".join(
        _waiting_item(frame, w, c, mode, now, f'<a href="/#project-{w.pid}">{text(w.root)}</a> ·')
        for w, c, mode in waiting
    )
    body = f"<ol>{items}</ol>" if items else '<p class="empty">Nothing waits for you.</p>'
    return f'<h2>Needs me ({len(waiting)})</h2><div class="waiting inbox">{body}</div>'


def project_board(frame: Frame, watched: Watched, cards: list[Card], mode: str, now: float) -> str:
    """One project: the tasks awaiting approval, then the phases that hold a task."""
    if watched.missing():
        return (
            f'<section class="project missing-project" data-project="{watched.pid}" '
            f'id="project-{watched.pid}"><h2><code>{text(watched.root)}</code></h2>'
            f'<p class="missing">This project is missing: {text(watched.project.tasks_dir)} '
            "no longer exists (deleted or moved since the board started). Its tasks are not "
            "shown; restart the board with the project's new folder.</p></section>"
        )
    badges = finding_counts(watched)
    waiting = sorted((c for c in cards if c.awaiting), key=lambda c: c.waiting_since or 0)
    lane = "".join(_waiting_item(frame, watched, c, mode, now) for c in waiting)
    lane = f"<ol>{lane}</ol>" if lane else '<p class="empty">no task awaits approval</p>'
    columns = _columns(cards)
    empty = [phase for phase in machine.PHASES if phase not in columns]
    shown = "".join(_column(watched, phase, held, badges, now) for phase, held in columns.items())
    audit = _audit_line(watched)
    return (
        f'<section class="project" data-project="{watched.pid}" id="project-{watched.pid}">'
        f'<details open class="fold"><summary><h2><code>{text(watched.root)}</code></h2>'
        "</summary>"
        f'<p class="muted">{plural(len(cards), "task")} · approval = "{text(mode)}" · '
        f'<a href="{link(watched.pid, "workflow")}">workflow</a> · {audit}</p>'
        f'<div class="waiting" data-lane="{watched.pid}"><h3>Awaiting approval '
        f"({len(waiting)})</h3>{lane}</div>"
        f'<div class="board">{shown}</div>'
        + (f'<p class="muted empty-phases">No task in: {", ".join(empty)}</p>' if empty else "")
        + "</details></section>"
    )


def _audit_line(watched: Watched) -> str:
    where = link(watched.pid, "audit")
    if watched.audit is None or watched.audit[0] != watched.generation:
        return f'<a href="{where}">audit</a> (findings show once it has run)'
    report = watched.audit[1]
    return f'<a href="{where}">audit</a>: {plural(len(report.findings), "finding")}'


def finding_counts(watched: Watched) -> dict[str, Counter[str]]:
    """Each task's findings by severity, from the audit if it ran on today's files."""
    if watched.audit is None or watched.audit[0] != watched.generation:
        return {}
    counts: dict[str, Counter[str]] = {}
    for finding in watched.audit[1].findings:
        if finding.task is not None:
            counts.setdefault(finding.task, Counter())[str(finding.severity)] += 1
    return counts


def _columns(cards: list[Card]) -> dict[str, list[Card]]:
    """The phases that hold a task, in workflow order, then columns for the folders the
    workflow cannot place."""
    found: dict[str, list[Card]] = {}
    for card in cards:
        found.setdefault(card.phase, []).append(card)
    order = [*machine.PHASES, *sorted(set(found) - set(machine.PHASES))]
    return {phase: found[phase] for phase in order if phase in found}


def _column(
    watched: Watched, phase: str, cards: list[Card], badges: dict[str, Counter[str]], now: float
) -> str:
    items = "".join(card(watched, c, badges.get(c.name), now) for c in cards)
    folded = "" if phase == "complete" and len(cards) > 20 else " open"
    return (
        f'<details class="column" data-phase="{text(phase)}"{folded}><summary>'
        f"<span>{breakable(phase)}</span><span>{len(cards)}</span></summary>"
        f"<ol>{items}</ol></details>"
    )


def card(watched: Watched, task: Card, counts: Counter[str] | None, now: float) -> str:
    """One task on the board."""
    gate = ' <span class="badge gate">awaiting approval</span>' if task.awaiting else ""
    state = breakable(task.state) if task.state is not None else "no .state"
    if task.truth == HAND_EDITED_COLUMN:
        state = f"{state} (its history: {breakable(task.recorded)})"
    truth = f' <span class="badge truth">{text(task.truth)}</span>' if task.truth else ""
    if task.review:
        truth += f' <span class="badge review">{text(task.review)}</span>'
    problem = f'<span class="missing">{text(task.problem)}</span>' if task.problem else ""
    badges = "".join(
        f' <span class="badge {s}">{plural(counts[s], s)}</span>'
        for s in SEVERITIES
        if counts and counts[s]
    )
    activity = f' data-activity="{task.activity:.0f}"' if task.activity else ""
    return (
        f'<li class="card{" awaiting" if task.awaiting else ""}" data-task="{text(task.name)}"'
        f' data-state="{text(task.state or "")}"{activity}>'
        f'<a href="{link(watched.pid, "task", name=task.name)}">{breakable(task.name)}</a>'
        f'{gate}{truth}<span class="state mono">{state}</span>{badges}{problem}</li>'
    )


def _waiting_item(
    frame: Frame, watched: Watched, task: Card, mode: str, now: float, where: str = ""
) -> str:
    waited = (
        f"waiting {duration(max(0, int(now - task.waiting_since)))}"
        if task.waiting_since is not None
        else "waiting since an unknown time"
    )
    return (
        f'<li data-awaiting="{text(task.name)}">{where}'
        f'<a href="{link(watched.pid, "task", name=task.name)}">{breakable(task.name)}</a> '
        f'<span class="mono muted">{breakable(task.state)}</span> '
        f'<span class="waited">{waited}</span> '
        + (f'<span class="badge review">{text(task.review)}</span> ' if task.review else "")
        + f"{how_to_approve(frame, watched, task.name, mode)}</li>"
    )


def message(title: str, body: str, status: int) -> str:
    """A page for a refusal or an error, with no session needed."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<link rel="icon" href="data:,"><link rel="stylesheet" href="/board.css">'
        f"<title>{text(title)}</title></head><body><main><h1>{text(title)}</h1>"
        f'<p class="refusal" data-status="{status}">{text(body)}</p>'
        '<p><a href="/">Back to the board</a></p></main></body></html>\n'
    )
