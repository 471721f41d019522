"""The audit as one self-contained HTML page: a board of the tasks by phase, each task's
timeline and artifacts, the findings by category, and the workflow drawn as inline SVG.

The page works offline and prints: inline CSS, no script, no URL of any kind; every
untrusted string (task names, messages, paths, file names) is escaped. Layer `report`:
imports the core, the engine and the other report modules.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from automaton_rules.core import machine
from automaton_rules.core.policy import Policy
from automaton_rules.core.project import Task, presumed_artifacts
from automaton_rules.core.severity import SEVERITIES
from automaton_rules.engine.findings import Finding
from automaton_rules.report.graph import Edge, Graph, workflow_graph
from automaton_rules.report.model import AuditReport, notes, plural
from automaton_rules.report.stats import duration
from automaton_rules.support import clock
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.output import printable
from automaton_rules.support.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from automaton_rules.core.history import HistoryEntry

# Board columns for folders the workflow cannot place.
UNTRACKED = "no .state"
UNKNOWN = "unknown state"
OUTCOMES = {0: "passed", 1: "violations", 2: "errors"}

CSS = """
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --card: #f6f8fa;
  --error: #cf222e; --warning: #9a6700; --note: #0969da; --ok: #1a7f37; --gate: #b8860b; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  background: #fff; margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 90rem; }
h1 { font-size: 1.5rem; margin: .2rem 0; } h2 { font-size: 1.2rem; margin: 2rem 0 .6rem;
  border-bottom: 1px solid var(--line); padding-bottom: .2rem; } h3 { font-size: 1rem; margin: 0; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: .9em; }
code { overflow-wrap: anywhere; }
.topbar { position: sticky; top: 0; background: #fff; border-bottom: 1px solid var(--line);
  padding: .4rem 0; z-index: 1; }
.topbar a { margin-right: 1rem; }
a { color: var(--note); }
.muted { color: var(--muted); }
.outcome { display: inline-block; padding: .1rem .6rem; border-radius: 1rem; color: #fff;
  font-weight: 600; }
.outcome.passed { background: var(--ok); } .outcome.violations { background: var(--error); }
.outcome.errors { background: #6e7781; }
.counts { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; padding: 0; }
.counts li { border: 1px solid var(--line); border-radius: .4rem; padding: .3rem .7rem; }
.counts b { font-size: 1.2rem; margin-right: .3rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .7rem; font-size: .8em;
  font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.badge.error { color: var(--error); } .badge.warning { color: var(--warning); }
.badge.note { color: var(--note); } .badge.known { color: var(--muted); }
.badge.gate { color: #5c4300; background: #fff3cd; border-color: var(--gate); }
.badge.ok { color: var(--ok); }
.board { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr));
  gap: .75rem; align-items: start; }
.column { background: var(--card); border: 1px solid var(--line); border-radius: .5rem;
  padding: .5rem; }
.column h3 { display: flex; justify-content: space-between; font-size: .9rem; }
.column ol { list-style: none; margin: .5rem 0 0; padding: 0; }
.card { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--line);
  border-radius: .4rem; padding: .4rem .5rem; margin-bottom: .4rem; break-inside: avoid; }
.card.awaiting { border-left-color: var(--gate); }
.card a { font-weight: 600; text-decoration: none; color: var(--ink); }
.card .state { display: block; color: var(--muted); font-size: .85em; }
.empty { color: var(--muted); font-style: italic; font-size: .85em; }
.waiting { border: 1px solid var(--gate); border-left-width: 4px; border-radius: .5rem;
  background: #fffbeb; padding: .5rem .7rem; margin-bottom: .75rem; break-inside: avoid; }
.waiting h3 { font-size: .95rem; }
.waiting ol { display: flex; flex-wrap: wrap; gap: .4rem; list-style: none; margin: .4rem 0 0;
  padding: 0; }
.waiting li { background: #fff; border: 1px solid var(--gate); border-radius: .4rem;
  padding: .2rem .5rem; }
.waiting a { font-weight: 600; color: var(--ink); }
.waited { font-weight: 600; color: var(--warning); }
.diagram { overflow-x: auto; border: 1px solid var(--line); border-radius: .5rem;
  padding: .5rem; }
.diagram svg { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .4rem; text-align: left;
  vertical-align: top; }
th { background: var(--card); font-weight: 600; }
tr { break-inside: avoid; }
.category { break-inside: avoid-page; }
.task { border: 1px solid var(--line); border-radius: .5rem; padding: .6rem .8rem;
  margin: .8rem 0; break-inside: avoid; }
.task.awaiting { border-left: 4px solid var(--gate); }
.task header { display: flex; flex-wrap: wrap; gap: .6rem; align-items: baseline; }
.task h4 { margin: .6rem 0 .2rem; font-size: .9rem; }
.rule { white-space: nowrap; }
.missing { color: var(--error); } .ahead { color: var(--warning); }
@media print {
  @page { margin: 1.5cm; }
  body { max-width: none; padding: 0; color: #000; background: #fff; font-size: 11px; }
  .topbar { position: static; display: none; }
  a { color: inherit; text-decoration: none; }
  .board { grid-template-columns: repeat(3, 1fr); }
  .column, .card, .task, .category, .diagram, table, tr { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  .column, th { background: #fff; }
  .diagram { overflow: visible; }
}
"""


def _text(value: object) -> str:
    """Untrusted text as HTML: control characters shown escaped, markup characters escaped."""
    return escape(printable(str(value), None), quote=True)


def _anchor(index: int) -> str:
    """A task's fragment id, by its place in the report: names may hold `/`."""
    return f"task-{index}"


def render(report: AuditReport) -> str:
    """The whole page."""
    anchors = {task.name: f"#{_anchor(i)}" for i, task in enumerate(report.tasks)}
    by_task: dict[str | None, list[Finding]] = {}
    for finding in report.result.findings:
        by_task.setdefault(finding.task, []).append(finding)
    root = _text(report.project.root)
    body = [
        _top(report, root),
        _summary(report),
        _board(report, anchors, by_task),
        _diagram(report),
        _findings(report, anchors),
        _errors(report),
        _details(report, anchors, by_task),
    ]
    title = f"Audit of {root} ({plural(len(report.tasks), 'task')}, {_outcome(report)})"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{title}</title>",
            f"<style>{CSS}</style>",
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )


def _outcome(report: AuditReport) -> str:
    return OUTCOMES.get(report.exit_code, "errors")


def _top(report: AuditReport, root: str) -> str:
    """The title, the outcome, and links to each part of the page."""
    outcome = _outcome(report)
    links = ("board", "workflow", "findings", "errors", "tasks")
    nav = "".join(f'<a href="#{part}">{part.capitalize()}</a>' for part in links)
    return (
        f'<header><h1>Audit of <code>{root}</code> <span class="outcome {outcome}">{outcome}'
        f'</span></h1><p class="muted">automaton-rules {escape(__version__)} · exit code '
        f"{report.exit_code} · fail-on {_text(report.fail_on)}</p></header>"
        f'<nav class="topbar">{nav}</nav>'
    )


def _summary(report: AuditReport) -> str:
    """The counts a reader looks at first."""
    severities = Counter(str(f.severity) for f in report.findings)
    fail_on = _text(report.fail_on)
    counts = [
        (len(report.tasks), "task", "tasks", ""),
        (len(report.violations), "violation", "violations", f" (at or above {fail_on})"),
        *((severities.get(s, 0), "finding", "findings", f" of severity {s}") for s in SEVERITIES),
        (len(report.errors), "error", "errors", " (broken tasks or plugins)"),
    ]
    if report.baseline is not None:
        known = f"known from the baseline {_text(report.baseline)}"
        counts.append((len(report.known), known, known, ""))
        counts.append((len(report.gone), "baseline entry", "baseline entries", " no longer found"))
    items = "".join(
        f"<li><b>{count}</b>{one if count == 1 else many}{rest}</li>"
        for count, one, many, rest in counts
    )
    since = ""
    if report.since is not None:
        rev, sha = report.since
        since = (
            f'<p class="muted">Git rules read the commits after {_text(rev)} '
            f"(<code>{_text(sha[:7])}</code>) only.</p>"
        )
    return f'<section id="summary"><h2>Summary</h2><ul class="counts">{items}</ul>{since}</section>'


def columns(tasks: Iterable[Task]) -> list[tuple[str, list[Task]]]:
    """The board's columns in workflow order, only for the phases that hold a task, each
    phase's tasks awaiting approval first; folders without a known state in columns of
    their own, after the workflow's."""
    found: dict[str, list[Task]] = {phase: [] for phase in machine.PHASES}
    for task in tasks:
        phase = task.phase or (UNTRACKED if task.state is None else UNKNOWN)
        found.setdefault(phase, []).append(task)
    return [
        (phase, sorted(held, key=lambda t: not machine.is_awaiting(t.state or "")))
        for phase, held in found.items()
        if held
    ]


def _board(
    report: AuditReport, anchors: dict[str, str], by_task: dict[str | None, list[Finding]]
) -> str:
    """The tasks awaiting approval first, all of them, with how long each has waited and
    how to approve it; then a column per phase that holds a task, a card per task, each
    linking to its timeline and artifacts; the empty phases named on one line."""
    out = []
    board = columns(report.tasks)
    for phase, tasks in board:
        cards = "".join(_card(report, t, anchors[t.name], by_task.get(t.name, [])) for t in tasks)
        out.append(
            f'<div class="column" data-phase="{_text(phase)}">'
            f"<h3><span>{_breakable(phase)}</span><span>{len(tasks)}</span></h3>"
            f"<ol>{cards}</ol></div>"
        )
    held = {phase for phase, _ in board}
    empty = [phase for phase in machine.PHASES if phase not in held]
    empty_line = (
        f'<p class="muted" id="empty-phases">No task in: {", ".join(empty)}</p>' if empty else ""
    )
    waiting = [t for _, tasks in board for t in tasks if machine.is_awaiting(t.state or "")]
    return (
        f'<section id="board"><h2>Board</h2>{_waiting(report, waiting, anchors)}'
        f'<p class="muted">{plural(len(report.tasks), "task")} by phase</p>'
        f'<div class="board">{"".join(out)}</div>{empty_line}</section>'
    )


def _breakable(value: object) -> str:
    """A name or state that wraps only after `:`, `_`, `-` or `/`, never inside a word."""
    shown = _text(value)
    for mark in (":", "_", "-", "/"):
        shown = shown.replace(mark, f"{mark}<wbr>")
    return shown


def _waited(task: Task, now: float) -> str:
    """How long the task has waited at its gate, up to the report's moment."""
    entries = task.entries
    entered = next((e for e in reversed(entries) if e.target == task.state), None)
    if entered is None:
        return "waiting since an unknown time"
    return f"waiting {duration(max(0, int(now - entered.time.timestamp())))}"


def approve_how(report: AuditReport, name: str) -> str:
    """How a task awaiting approval is approved under the project's `approval` mode."""
    command = report.project.context.command(
        "--task", name, "--approve", "--project", report.project.root
    )
    policy = Policy(report.approval)
    if policy.needs_signature:
        return f"the approver signs in a terminal: <code>{_text(command)} --approver ID</code>"
    typed = f"type <code>approve {_text(name)}</code> in the agent's chat"
    if policy.needs_person:
        return f"{typed}, or run <code>{_text(command)}</code> in a terminal"
    return f"run <code>{_text(command)}</code>, or {typed}"


def _waiting(report: AuditReport, tasks: list[Task], anchors: dict[str, str]) -> str:
    """Every task awaiting approval, in the workflow's order, above the columns: what a
    person supervising agents has to act on, how long it has waited, how to approve."""
    now = report.project.context.now()
    items = "".join(
        f'<li data-awaiting="{_text(t.name)}"><a href="{anchors[t.name]}">{_breakable(t.name)}'
        f'</a> <span class="mono muted">{_breakable(t.state)}</span> '
        f'<span class="waited">{_waited(t, now)}</span> '
        f'<span class="how">{approve_how(report, t.name)}</span></li>'
        for t in tasks
    )
    listed = f"<ol>{items}</ol>" if items else '<p class="empty">no task awaits approval</p>'
    return (
        f'<div class="waiting" id="awaiting"><h3>Awaiting approval ({len(tasks)})</h3>'
        f"{listed}</div>"
    )


def _card(report: AuditReport, task: Task, anchor: str, findings: list[Finding]) -> str:
    """One task on the board: its name, its state, a gate mark, its findings' count."""
    awaiting = machine.is_awaiting(task.state or "")
    gate = ' <span class="badge gate">awaiting approval</span>' if awaiting else ""
    state = _breakable(task.state) if task.state is not None else "no .state"
    return (
        f'<li class="card{" awaiting" if awaiting else ""}" data-task="{_text(task.name)}">'
        f'<a href="{anchor}">{_breakable(task.name)}</a>{gate}'
        f'<span class="state mono">{state}</span>{_badges(report, findings)}</li>'
    )


def _badges(report: AuditReport, findings: list[Finding]) -> str:
    """Counts of a task's findings by severity, as badges; those a baseline knows are not
    counted, as the summary does not count them."""
    counts = Counter(str(f.severity) for f in findings if not report.is_known(f))
    return "".join(
        f' <span class="badge {s}">{plural(counts[s], s)}</span>' for s in SEVERITIES if counts[s]
    )


def _diagram(report: AuditReport) -> str:
    """The workflow as inline SVG, drawn here: no network, no script."""
    held = Counter(task.state for task in report.tasks if task.state is not None)
    return (
        '<section id="workflow"><h2>Workflow</h2><p class="muted">Each state with the number '
        "of tasks in it; approval gates in amber, their approvals dashed, and the way back "
        "to a gate once an approved artifact has changed dotted.</p>"
        f'<div class="diagram">{svg(workflow_graph(), held)}</div></section>'
    )


def findings_section(report: AuditReport, links: dict[str, str]) -> str:
    """The findings by category, each task linking where `links` says: a place on this
    page, or the dashboard's page of the task."""
    return _findings(report, links)


def _findings(report: AuditReport, anchors: dict[str, str]) -> str:
    """The findings, category by category, in the order the text report prints them."""
    parts = [
        _category(report, number, category, anchors)
        for number, category in enumerate(report.categories, start=1)
    ]
    return f'<section id="findings"><h2>Findings</h2>{"".join(parts)}</section>'


def _category(report: AuditReport, number: int, category: str, anchors: dict[str, str]) -> str:
    """One category: why it has no verdict, that it is clean, or its findings."""
    found = [f for f in report.result.findings if f.category == category]
    missing = report.result.no_verdict(category)
    if category not in report.result.categories:
        status = "Skipped: no rule of this category selected"
    elif missing is not None and not missing.failed:
        status = f"Skipped: {_text(missing.reason)}"
    elif missing is not None:
        codes = ", ".join(missing.failed)
        status = f'<span class="badge error">error</span> rule {_text(codes)} failed; no verdict'
    elif not found:
        status = '<span class="badge ok">pass</span> no findings'
    else:
        status = plural(len(found), "finding")
    if missing is None:
        status += "".join(f"; {_text(note)}" for note in notes(report, category))
    table = _finding_table(report, found, anchors) if found else ""
    return (
        f'<div class="category"><h3>{number}. {_text(category)}</h3>'
        f'<p class="muted">{status}</p>{table}</div>'
    )


def _finding_table(
    report: AuditReport, findings: list[Finding], anchors: dict[str, str], *, task: bool = True
) -> str:
    """Findings as table rows: severity, rule code, task, path, message and correction."""
    head = "<th>Severity</th><th>Rule</th>" + ("<th>Task</th>" if task else "")
    rows = []
    for finding in findings:
        cells = [_severity(report, finding), f'<code class="rule">{_text(finding.code)}</code>']
        if task:
            cells.append(_task_link(finding.task, anchors))
        cells.append(f"<code>{_text(finding.path)}</code>" if finding.path else "")
        message = _text(finding.message)
        if finding.correction:
            fix = _text(finding.correction)
            message += f' <span class="muted">— suggested correction: {fix}</span>'
        cells.append(message)
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    return (
        f"<table><thead><tr>{head}<th>Path</th><th>Message</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _severity(report: AuditReport, finding: Finding) -> str:
    """A severity badge; a finding the baseline knows says so."""
    severity = _text(finding.severity)
    if report.is_known(finding):
        return f'<span class="badge known" title="known from the baseline">{severity}</span>'
    return f'<span class="badge {severity}">{severity}</span>'


def _task_link(name: str | None, anchors: dict[str, str]) -> str:
    if name is None:
        return '<span class="muted">(project)</span>'
    anchor = anchors.get(name)
    shown = _text(name)
    return f'<a href="{anchor}">{shown}</a>' if anchor else shown


def _errors(report: AuditReport) -> str:
    """Broken tasks and plugins: each makes the exit code 2."""
    if not report.errors:
        return '<section id="errors"><h2>Errors</h2><p class="muted">none</p></section>'
    items = "".join(
        f'<li><span class="badge error">error</span> {_text(error)}</li>' for error in report.errors
    )
    return f'<section id="errors"><h2>Errors</h2><ul>{items}</ul></section>'


def _details(
    report: AuditReport, anchors: dict[str, str], by_task: dict[str | None, list[Finding]]
) -> str:
    """Every task's card: its findings, its timeline, its artifacts."""
    cards = [
        _detail(report, task, anchors[task.name][1:], by_task.get(task.name, []))
        for task in report.tasks
    ]
    return f'<section id="tasks"><h2>Tasks</h2>{"".join(cards)}</section>'


def _detail(report: AuditReport, task: Task, anchor: str, findings: list[Finding]) -> str:
    """One task's card."""
    awaiting = machine.is_awaiting(task.state or "")
    state = _text(task.state) if task.state is not None else "no .state"
    gate = '<span class="badge gate">awaiting approval</span>' if awaiting else ""
    found = _finding_table(report, findings, {}, task=False) if findings else ""
    out = (
        f'<article class="task{" awaiting" if awaiting else ""}" id="{anchor}">'
        f"<header><h3>{_text(task.name)}</h3><code>{state}</code>{gate}"
        f"{_badges(report, findings)}"
        f"</header>{found}<h4>Timeline</h4>{_timeline(task)}"
        f"<h4>Artifacts</h4>{_artifacts(task)}</article>"
    )
    task.release()  # thousands of tasks: their histories need not stay read
    return out


def _timeline(task: Task) -> str:
    """The task's history: when, which move, who, approved by whom and how."""
    try:
        entries = task.entries
        unread = len(task.history) - len(entries)
    except (AutomatonError, OSError) as exc:
        return f'<p class="missing">.state.history cannot be read: {_text(exc)}</p>'
    if not entries and not unread:
        return '<p class="empty">no .state.history</p>'
    rows = "".join(_entry_row(entry) for entry in entries)
    note = (
        f'<p class="missing">{plural(unread, "line")} of .state.history could not be read</p>'
        if unread
        else ""
    )
    return (
        "<table><thead><tr><th>Time (UTC)</th><th>From</th><th>To</th><th>Actor</th>"
        "<th>Approver</th><th>Via</th><th>Command</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>{note}"
    )


def _entry_row(entry: HistoryEntry) -> str:
    """One history line as a table row."""
    moment = entry.time.strftime(clock.TIME_FORMAT)
    cells = (
        f'<time datetime="{moment}">{moment.replace("T", " ")}</time>',
        f"<code>{_text(entry.source)}</code>" if entry.source else '<span class="muted">—</span>',
        f"→ <code>{_text(entry.target)}</code>",
        _text(entry.actor),
        _text(entry.approver or ""),
        _text(entry.via or ""),
        f"<code>{_text(entry.command)}</code>",
    )
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def roles(task: Task) -> list[tuple[str, str, str]]:
    """(file, what it is to the task's state, css class) for each file in the task folder
    but its records (`.state*`), then each artifact the state expects that is missing.
    Every artifact is worded alike: `artifact of <phase>: expected` (or `optional`,
    `this phase's deliverable`, …)."""
    state = task.state if task.state is not None and machine.is_state(task.state) else None
    wanted = presumed_artifacts(task) if state else ()
    out = []
    for name in sorted(task.files):
        if name.startswith(".state"):
            continue  # the records every task has: the timeline shows what they say
        if machine.is_artifact(name):
            role, css = _artifact_role(name, state, wanted)
            out.append((name, f"artifact of {machine.ARTIFACT_PHASE[name]}{role}", css))
        else:
            out.append((name, "other file", "muted"))
    missing = [name for name in wanted if name not in task.files]
    out += [
        (name, f"artifact of {machine.ARTIFACT_PHASE[name]}: expected, missing", "missing")
        for name in missing
    ]
    return out


def _artifact_role(name: str, state: str | None, wanted: tuple[str, ...]) -> tuple[str, str]:
    """What an artifact in the folder is to the task's state (nothing to say without a
    known state), and its css class."""
    if state is None:
        return "", ""
    if name in wanted:
        return ": expected", "ok"
    if name == machine.required_artifact(state):
        return ": this phase's deliverable", "ok"
    if name in machine.forbidden_artifacts(state):
        return ": phase not reached", "ahead"
    if machine.ARTIFACT_PHASE[name] in machine.MANDATORY_PHASES:
        return ": not required here", ""  # a decomposed parent's, done by its sub-tasks
    return ": optional", ""


def _artifacts(task: Task) -> str:
    """The files of the task folder, and which of them the phase expects."""
    found = roles(task)
    if not found:
        return '<p class="empty">the folder is empty</p>'
    rows = "".join(
        f'<tr><td><code>{_text(name)}</code></td><td class="{css}">{role}</td></tr>'
        for name, role, css in found
    )
    return f"<table><thead><tr><th>File</th><th>Role</th></tr></thead><tbody>{rows}</tbody></table>"


# The diagram's grid: a row per phase, a column per sub-state (phase, gate, approved).
# Edges run only in the gaps between the boxes (channels between rows and between
# columns), so none crosses a box; each edge has its own lane in a channel.
NODE_W, NODE_H, COL_GAP, ROW_GAP, MARGIN, TOP = 236, 30, 64, 46, 64, 20
ROW = NODE_H + ROW_GAP
LANE = 5.0  # distance between two edges' lanes in a channel
LANES = 7


def _place(state: str) -> tuple[float, float]:
    """Where a state's box stands: its phase's row, its sub-state's column."""
    row, col = _cell(state)
    return MARGIN + col * (NODE_W + COL_GAP), TOP + row * ROW


def _cell(state: str) -> tuple[int, int]:
    row = machine.PHASES.index(machine.base_phase(state))
    col = 1 if machine.is_awaiting(state) else 2 if machine.is_approved(state) else 0
    return row, col


def _node(state: str, css: str, count: int) -> str:
    """A state's box with its name and how many tasks are in it."""
    x, y = _place(state)
    css += " held" if count else ""
    label = f"{state} ({count})" if count else state
    return (
        f'<g class="{css}" data-state="{_text(state)}"><title>{_text(label)}</title>'
        f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6"/>'
        f'<text x="{x + NODE_W / 2}" y="{y + NODE_H / 2 + 4}">{_text(label)}</text></g>'
    )


def _start() -> str:
    """The start: a dot pointing at `new`, in the gate column its row leaves empty."""
    x, y = _place("new")
    box, dot, cy = x + NODE_W, x + NODE_W + COL_GAP + 10, y + NODE_H / 2
    return (
        f'<g><title>start: --create-task</title><circle cx="{dot}" cy="{cy}" r="5"/>'
        f'<path class="edge" d="M{dot - 6},{cy} L{box},{cy}" marker-end="url(#arrow)"/></g>'
    )


def _below(row: int) -> float:
    """The channel between a row and the next one."""
    return TOP + row * ROW + NODE_H + ROW_GAP / 2


def _between(col: int) -> float:
    """The channel between a column and the next one (-1: left of the first)."""
    return MARGIN + col * (NODE_W + COL_GAP) + NODE_W + COL_GAP / 2


def route(source: str, target: str, lane: int) -> list[tuple[float, float]]:
    """The points of an edge's line, every segment in a gap between boxes: straight to a
    neighbour, else out of the source's bottom (top, going up) into the channel between
    rows, along it, down (up) a channel between columns, and into the target."""
    (r1, c1), (r2, c2) = _cell(source), _cell(target)
    (x1, y1), (x2, y2) = _place(source), _place(target)
    shift = (lane % LANES - LANES // 2) * LANE
    if r1 == r2 and c2 == c1 + 1:
        y = y1 + NODE_H / 2
        return [(x1 + NODE_W, y), (x2, y)]
    if c1 == c2 and r2 == r1 + 1:
        x = x1 + NODE_W / 2
        return [(x, y1 + NODE_H), (x, y2)]
    sx, tx = x1 + NODE_W / 2 + shift * 2, x2 + NODE_W / 2 + shift * 2
    down = r2 >= r1
    leave = (y1 + NODE_H, _below(r1) + shift) if down else (y1, _below(r1 - 1) + shift)
    enter = (y2, _below(r2 - 1) + shift) if r2 > r1 else (y2 + NODE_H, _below(r2) + shift)
    points = [(sx, leave[0]), (sx, leave[1])]
    if leave[1] != enter[1]:
        col = max(c1, c2) if down else min(c1, c2) - 1
        vx = _between(col) + shift
        points += [(vx, leave[1]), (vx, enter[1])]
    return [*points, (tx, enter[1]), (tx, enter[0])]


def _edge(edge: Edge, lane: int, taken: bool) -> str:
    """An arrow between two boxes, along `route`."""
    if edge.source is None or edge.target is None:
        return _start() if edge.source is None else ""
    points = route(edge.source, edge.target, lane)
    path = "M" + " L".join(f"{x:g},{y:g}" for x, y in points)
    css = f"edge {_text(edge.kind)}" + (" taken" if taken else "")
    return (
        f'<path class="{css}" d="{path}" marker-end="url(#arrow)">'
        f"<title>{_text(edge.source)} → {_text(edge.target)} ({_text(edge.kind)})</title></path>"
    )


SVG_STYLE = (
    ".node rect{fill:#fff;stroke:#6e7781;stroke-width:1.2}"
    ".node.gate rect{fill:#fff3cd;stroke:#b8860b;stroke-width:2}"
    ".node.final rect{stroke-width:3.5;stroke:#1b1f24}"
    ".node.held rect{fill:#dbe9ff}"
    ".node text{font:12px system-ui,sans-serif;text-anchor:middle;fill:#1b1f24}"
    ".edge{fill:none;stroke:#57606a;stroke-width:1.2}"
    ".edge.approve{stroke:#b8860b;stroke-dasharray:5 3}"
    ".edge.re-approval{stroke:#b8860b;stroke-dasharray:2 3}"
    ".edge.taken{stroke:#1f5fbf;stroke-width:2.5}"
    ".node.visited rect{fill:#dbe9ff;stroke:#1f5fbf}"
    ".node.current rect{fill:#2e7d32;stroke:#1b5e20;stroke-width:3}"
    ".node.current text{fill:#fff}"
    "circle{fill:#1b1f24}"
    "#arrow path{fill:#57606a}"
)
ARROW = (
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
    'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>'
)


def _kind(graph: Graph, state: str) -> str:
    """A box's classes: an approval gate, a final state (ringed thick), or a plain state."""
    if state in graph.gates:
        return "node gate"
    final = any(edge.source == state and edge.target is None for edge in graph.edges)
    return "node final" if final else "node"


def svg(graph: Graph, held: Counter[str]) -> str:
    """The workflow's states, moves and gates, from `workflow_graph`; `held` counts the
    tasks in each state. With a task's graph, its path is drawn in blue and its current
    state in green."""
    width = MARGIN * 2 + 3 * NODE_W + 2 * COL_GAP
    height = TOP * 2 + len(machine.PHASES) * ROW
    parts = [_edge(edge, i, bool(graph.steps(edge))) for i, edge in enumerate(graph.edges)]
    visited = set(graph.visited)
    for state in graph.states:
        css = _kind(graph, state)
        if state == graph.current:
            css += " current"
        elif state in visited:
            css += " visited"
        parts.append(_node(state, css, held.get(state, 0)))
    return (
        f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="The workflow: states and moves"><style>{SVG_STYLE}</style>{ARROW}'
        f"{''.join(parts)}</svg>"
    )
