"""The code a task changed: the commits that name it in their `Task:` trailer, and a diff.

The git hooks ask every commit made while a task may edit to name it (`Task: NAME`), so a
task's code changes are the commits whose trailer names it. The page lists them, newest
first, and shows the diff of the one chosen (`git show`, cut at `MAX_DIFF` characters).
Git runs with an argument list in the project's folder (support/git.py), never a shell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from automaton_rules.board import markup
from automaton_rules.board.pages import breakable, crumbs, link, text
from automaton_rules.board.projects import Watched
from automaton_rules.support import git
from automaton_rules.support.errors import AutomatonError

MAX_COMMITS = 100
MAX_DIFF = 500_000
HASH = re.compile(r"[0-9a-f]{40}")
_TRAILERS = f"%(trailers:key={git.TASK_TRAILER},valueonly,unfold,separator=%x2C)"
_FORMAT = f"%H%x1f%an%x1f%cI%x1f%s%x1f{_TRAILERS}%x1e"  # fields and records apart


@dataclass(frozen=True)
class Commit:
    """One commit of a task: its hash, author, date and subject."""

    sha: str
    author: str
    date: str
    subject: str


def task_commits(watched: Watched, name: str) -> list[Commit]:
    """The commits whose `Task:` trailer names the task, newest first."""
    out = git.output(watched.root, "log", f"--format={_FORMAT}", "--", ".")
    found = []
    for record in out.split("\x1e"):
        fields = record.strip("\n").split("\x1f")
        if len(fields) != 5:
            continue
        sha, author, date, subject, trailers = fields
        if name in (value.strip() for value in trailers.split(",")):
            found.append(Commit(sha, author, date, subject))
            if len(found) == MAX_COMMITS:
                break
    return found


def commit_diff(watched: Watched, sha: str) -> str:
    """What one commit changed, as a unified diff (cut when long)."""
    out = git.output(watched.root, "show", "--format=", "--patch", "--no-color", sha)
    return out[:MAX_DIFF]


def code_page(watched: Watched, name: str, chosen: str | None) -> str:
    """The task's commits, and the diff of the chosen one (else the newest)."""
    head = f"{crumbs(watched, name)}<h2>Code changes of {breakable(name)}</h2>"
    try:
        commits = task_commits(watched, name)
    except AutomatonError as exc:
        return f'{head}<p class="missing">No git history to read: {text(exc.message)}</p>'
    if not commits:
        return (
            f'{head}<p class="empty">No commit names this task in a <code>Task: '
            f"{text(name)}</code> trailer.</p>"
        )
    shown = chosen or commits[0].sha
    if shown not in {c.sha for c in commits}:
        return f'{head}<p class="missing">That commit does not name this task.</p>'
    items = "".join(
        f"<li{' class=current' if c.sha == shown else ''}>"
        f'<a href="{link(watched.pid, "code", task=name, commit=c.sha)}"><code>{c.sha[:10]}'
        f'</code></a> {text(c.subject)} <span class="muted">{text(c.author)}, '
        f"{text(c.date)}</span></li>"
        for c in commits
    )
    diff = markup.diff_html(
        markup.rows(
            commit_diff(watched, shown).splitlines(), ("diff --git", "index ", "---", "+++")
        )
    )
    return f'{head}<ol class="commits">{items}</ol><section class="diff-of">{diff}</section>'
