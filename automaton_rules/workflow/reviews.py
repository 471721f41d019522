"""Requests for changes: the person reviewing a task at its gate says what to revise.

A task waiting at `X:awaiting_approval` can be approved, or sent back with a comment on
its artifact, or on one line of it. The comment is recorded in `.state.reviews` (one
JSON object a line, append-only, beside the history) and the task stays at its gate: the
workflow has no move back from a gate, and the artifact is its phase's, which the agent
may edit there. A request is open while the task is still at the gate it was made at,
the artifact is byte for byte the one commented on, and the person has not resolved it;
once the agent revises the artifact it is answered, and the person approves or asks
again. A request is a thread: the same file records replies to it and its resolution
(lines with `kind` `reply` or `resolve` and the request's `id`), and the text commented
on is kept in `.state.revisions`, so the board can show what the agent changed since.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from automaton_rules.core import machine, store
from automaton_rules.core.project import Project, Task, load_tracked
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable

MAX_COMMENT = 20_000
MAX_REVISION = 1_000_000  # a larger text is not kept: its digest still says it changed
REQUEST, REPLY, RESOLVE = "request", "reply", "resolve"


@dataclass(frozen=True)
class Review:
    """One request for changes, as recorded: when, at which gate, on which artifact (and
    line, from 1), its digest then, the comment, who asked and how (`via`)."""

    time: str
    state: str
    artifact: str
    sha256: str | None
    line: int | None
    comment: str
    by: str
    via: str = "board"
    id: str = ""
    suggestion: str = ""  # the text the person suggests for the line, if any

    @classmethod
    def parse(cls, entry: dict[str, Any]) -> Review | None:
        """The request a line records; None for a line that is not one (a reply, a
        resolution, anything unreadable)."""
        if entry.get("kind", REQUEST) != REQUEST:
            return None
        text = {k: entry.get(k) for k in ("time", "state", "artifact", "comment", "by")}
        if not all(isinstance(value, str) for value in text.values()):
            return None
        line = entry.get("line")
        digest = entry.get("artifact_sha256")
        return cls(
            str(text["time"]),
            str(text["state"]),
            str(text["artifact"]),
            digest if isinstance(digest, str) else None,
            line if isinstance(line, int) and not isinstance(line, bool) else None,
            str(text["comment"]),
            str(text["by"]),
            str(entry.get("via") or "board"),
            str(entry.get("id") or ""),
            str(entry["suggestion"]) if isinstance(entry.get("suggestion"), str) else "",
        )

    def as_dict(self) -> dict[str, Any]:
        """The recorded line (a suggestion only when there is one)."""
        line = {
            "id": self.id,
            "time": self.time,
            "state": self.state,
            "artifact": self.artifact,
            "artifact_sha256": self.sha256,
            "line": self.line,
            "comment": self.comment,
            "by": self.by,
            "via": self.via,
        }
        return {**line, "suggestion": self.suggestion} if self.suggestion else line

    def where(self) -> str:
        """`DESIGN.md` or `DESIGN.md, line 12`, as messages name it."""
        return self.artifact if self.line is None else f"{self.artifact}, line {self.line}"


@dataclass(frozen=True)
class Note:
    """A reply to a request, or its resolution: which request, when, who, what."""

    kind: str
    to: str
    time: str
    by: str
    comment: str = ""


def reviews(task: Task) -> list[Review]:
    """Every request recorded for the task, oldest first; one recorded without an id
    (before threads) is named by its place, `r1`, `r2`…"""
    found = []
    for index, entry in enumerate(store.read_reviews(task.path), 1):
        review = Review.parse(entry)
        if review is not None:
            found.append(review if review.id else replace(review, id=f"r{index}"))
    return found


def notes(task: Task) -> list[Note]:
    """Every reply and resolution recorded for the task, oldest first."""
    found = []
    for entry in store.read_reviews(task.path):
        kind, to = entry.get("kind"), entry.get("to")
        fields = (entry.get("time"), entry.get("by"), entry.get("comment", ""))
        if (
            kind in (REPLY, RESOLVE)
            and isinstance(to, str)
            and all(isinstance(f, str) for f in fields)
        ):
            found.append(Note(str(kind), to, *(str(f) for f in fields)))
    return found


def resolved(task: Task) -> set[str]:
    """The ids of the requests the person has resolved."""
    return {note.to for note in notes(task) if note.kind == RESOLVE}


def revisions(task: Task, artifact: str) -> dict[str, tuple[str, str]]:
    """The kept texts of an artifact by SHA-256: (when kept, the text)."""
    found: dict[str, tuple[str, str]] = {}
    for entry in store.read_revisions(task.path):
        digest, text, when = entry.get("sha256"), entry.get("text"), entry.get("time")
        if entry.get("artifact") == artifact and isinstance(digest, str) and isinstance(text, str):
            found.setdefault(digest, (str(when or ""), text))
    return found


def gate_entered(task: Task) -> str | None:
    """When the task last entered the gate it waits at, as the history records it."""
    state = task.state or ""
    for entry in reversed(store.read_history(task.path)):
        if entry.get("to") == state and isinstance(entry.get("time"), str):
            return str(entry["time"])
    return None


def this_visit(task: Task) -> list[Review]:
    """The requests made since the task last came to its gate (none away from a gate)."""
    if not machine.is_awaiting(task.state or ""):
        return []
    since = gate_entered(task) or ""
    return [r for r in reviews(task) if r.state == task.state and r.time >= since]


def is_open(task: Task, review: Review) -> bool:
    """Not answered yet: the artifact is still the one commented on."""
    return review.sha256 is not None and task.digest(review.artifact) == review.sha256


def open_requests(task: Task) -> list[Review]:
    """What the agent must still revise before asking again: not revised, not resolved."""
    done = resolved(task)
    return [r for r in this_visit(task) if r.id not in done and is_open(task, r)]


def request_changes(
    project: Project,
    name: str,
    comment: str,
    *,
    by: str,
    artifact: str | None = None,
    line: int | None = None,
    via: str = "board",
    suggestion: str = "",
) -> Review:
    """Record a request for changes on a task at its gate, with the text suggested for
    its line if any; the task stays there."""
    text = comment.strip()
    if not text:
        raise AutomatonError("empty-comment", "A request for changes needs a comment.")
    if len(text) > MAX_COMMENT or len(suggestion) > MAX_COMMENT:
        raise AutomatonError(
            "comment-too-long", f"A comment holds at most {MAX_COMMENT} characters."
        )
    task_dir = load_tracked(project, name).path
    with store.locked(task_dir):
        task = load_tracked(project, name)
        state = task.state or ""
        if not machine.is_awaiting(state):
            raise Refusal(
                "not-awaiting-approval",
                f"Task '{name}' is in '{state}': changes are requested of a task awaiting "
                "approval.",
            )
        chosen = artifact or machine.required_artifact(state) or ""
        _check_target(task, chosen, line)
        now = project.context.utc_now()
        digest = task.digest(chosen)
        review = Review(
            now, state, chosen, digest, line, text, by, via, secrets.token_hex(6), suggestion
        )
        _keep_revision(task, chosen, digest, now)
        store.append_review(task_dir, review.as_dict())
    return review


def _keep_revision(task: Task, artifact: str, digest: str | None, now: str) -> None:
    """Keep the text commented on, once per text, unless it is too large to keep."""
    body = task.read(artifact)
    if digest is None or body is None or len(body) > MAX_REVISION:
        return
    if digest in revisions(task, artifact):
        return
    entry = {"time": now, "artifact": artifact, "sha256": digest, "text": body}
    store.append_revision(task.path, entry)


def answer(
    project: Project,
    name: str,
    to: str,
    *,
    by: str,
    comment: str = "",
    kind: str = REPLY,
    via: str = "board",
) -> Note:
    """Reply to a request of the task, or resolve it (`kind` RESOLVE)."""
    text = comment.strip()
    if kind == REPLY and not text:
        raise AutomatonError("empty-comment", "A reply needs a comment.")
    if len(text) > MAX_COMMENT:
        raise AutomatonError(
            "comment-too-long", f"A comment holds at most {MAX_COMMENT} characters."
        )
    task_dir = load_tracked(project, name).path
    with store.locked(task_dir):
        task = load_tracked(project, name)
        if to not in {review.id for review in reviews(task)}:
            raise AutomatonError(
                "unknown-request", f"Task '{name}' has no request for changes '{printable(to)}'."
            )
        note = Note(kind, to, project.context.utc_now(), by, text)
        entry = {"kind": kind, "to": to, "time": note.time, "by": by, "via": via}
        store.append_review(task_dir, {**entry, "comment": text} if text else entry)
    return note


def _check_target(task: Task, artifact: str, line: int | None) -> None:
    """The comment is on an artifact of the task, and on a line it has."""
    if not machine.is_artifact(artifact) or artifact not in task.files:
        raise AutomatonError(
            "unknown-artifact",
            f"Task '{task.name}' has no artifact '{printable(artifact)}' to comment on.",
        )
    if line is None:
        return
    lines = (task.read(artifact) or "").count("\n") + 1
    if not 1 <= line <= lines:
        raise AutomatonError(
            "unknown-line", f"{artifact} of task '{task.name}' has no line {line}."
        )


def as_context(task: Task, requests: list[Review]) -> str:
    """The requests as the agent reads them: what to revise, and what to do next."""
    name = printable(task.name, None)
    parts = [f"The user requested changes to task '{name}' ({task.state}) and has not approved it:"]
    for review in requests:
        comment = printable(review.comment, None)
        parts.append(f"- on {review.where()} ({printable(review.by, None)}): {comment}")
        if review.suggestion:
            suggested = "\n    ".join(printable(t, None) for t in review.suggestion.splitlines())
            parts.append(f"  suggested text for {review.where()}:\n    {suggested}")
    artifact = requests[0].artifact if requests else machine.required_artifact(task.state or "")
    parts.append(
        f"Revise {artifact} accordingly; the task stays at its gate, and the user approves "
        "or asks again once it has changed."
    )
    return "\n".join(parts)
