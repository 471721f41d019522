"""Whether the harness ran the line the adapter rewrote, and what the agent is told when a
sandboxed line met the boundary.

A rewrite can be dropped without a word: Claude Code has had releases that ignore a hook's
`updatedInput` for Bash (anthropics/claude-code#79321, #81340, #32348), and Codex before
openai/codex#20527 answers "unsupported updatedInput" and runs the agent's own line. The
sandbox then holds nothing, and nothing says so. So each rewritten line, before it enters
the sandbox, makes a mark (`mechanisms.wrap(mark=...)`) in a folder of the session's
under `~/.automaton/run/` (or has `automaton-sandbox --mark` make it), which the sandbox
keeps read-only, and the adapter notes there
the lines it rewrote. After the tool ran (Claude Code's and Codex's `PostToolUse`,
Gemini's `AfterTool`, Copilot's `postToolUse`), a noted line that made no mark ran as the
agent wrote it: the session is marked, the agent is told, and every later shell line of
that session is refused. opencode runs the very object its plugin changed, so it cannot
drop a rewrite; Cursor and Kiro are not rewritten.

The same after-event tells the agent, when a sandboxed line failed on "Read-only file
system", "Permission denied" or "Operation not permitted", that the phase did it and
what its next step is: a bare `sed: couldn't open temporary file` says neither.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from pathlib import Path

from automaton_rules.core.project import FRAMEWORK_HOME
from automaton_rules.support.context import STATUS_SCRIPT

RUN = "run"  # ~/.automaton/run/HARNESS-SESSION/
UNWRAPPED = "unwrapped"  # the line that ran without its sandbox
KEPT_DAYS = 7  # how long a session's folder outlives its last rewritten line
BOUNDARY_ERRORS = ("Read-only file system", "Permission denied", "Operation not permitted")

DROPPED = (
    "automaton-rules: {harness} ran this shell command as it was written, not inside the "
    "sandbox the guard rewrote it to (this {harness} release dropped the hook's rewrite). "
    "Nothing held it. Every later shell command of this session is refused: tell the user, "
    'who can update {harness} (docs/sandbox.md, "A rewrite the harness drops").'
)
REFUSED = (
    "DENIED: Earlier in this session {harness} ran a shell command without the sandbox the "
    "guard rewrote it to (its hook answer was dropped), so no shell command of this session "
    "runs: tell the user, who can update {harness} and start a new session "
    '(docs/sandbox.md, "A rewrite the harness drops").'
)
KEPT_OUT = (
    "automaton-rules: that command ran inside the sandbox of this project's phase ({states}), "
    'and what failed with "Read-only file system", "Permission denied" or "Operation not '
    'permitted" met its boundary, not a fault to work around: {what}'
)
NOT_EDITING = (
    "outside implement and doc_review the project is read-only (scratch files go under "
    "$TMPDIR). To change code, finish this phase's artifact and move the task on with "
    "{script} --task NAME --transition PHASE on a line of its own."
)
EDITING = (
    "the workflow's own files (automaton.toml, the harness settings, git's hooks and "
    "configuration, .automaton/) stay read-only in every phase, and so does everything "
    "outside the project but $TMPDIR and the package caches; ask the user to change those."
)


def _digest(text: str) -> str:
    """A file name for `text`: two checksums and the length (zlib loads in a tenth of
    hashlib's time, on a path every shell line takes; a name needs no secrecy)."""
    data = text.encode("utf-8", "replace")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def folder(harness: str, session: str, home: Path | None = None) -> Path:
    """The session's folder: named by a digest, since a session id is the harness's text."""
    return (home or Path.home()) / FRAMEWORK_HOME / RUN / f"{harness}-{_digest(session)}"


def mark(harness: str, session: str, command: str) -> Path:
    """The file the rewritten `command` makes when it runs."""
    return folder(harness, session) / f"{_digest(command)}.ran"


def mark_id(marked: Path) -> str:
    """The mark as `automaton-sandbox --mark` takes it: relative to `~/.automaton/run`, so
    a rewritten line names no path outside the project (GitHub Copilot CLI's path check)."""
    return f"{marked.parent.name}/{marked.stem}"


def named(marked: Path, command: str) -> bool:
    """Whether the rewritten `command` makes the mark `marked`."""
    return str(marked) in command or f"--mark {mark_id(marked)}" in command


def expect(marked: Path) -> None:
    """Note that the line whose mark is `marked` was rewritten (best effort: a note that
    cannot be written leaves only the detection undone)."""
    with contextlib.suppress(OSError):
        marked.parent.mkdir(parents=True, exist_ok=True)
        marked.with_suffix(".asked").touch()


def unwrapped(harness: str, session: str) -> bool:
    """Whether a rewritten line of this session ran without its sandbox."""
    return os.path.lexists(folder(harness, session) / UNWRAPPED)


def ran(harness: str, session: str, command: str) -> bool | None:
    """Once a shell line ran: True when it ran as the adapter rewrote it, False when the
    harness dropped the rewrite (the session is marked), None for a line the adapter did
    not rewrite."""
    own = folder(harness, session)
    if str(own) in command or f"--mark {own.name}/" in command:  # the rewritten line, as it ran
        return True
    marked = mark(harness, session, command)
    if not marked.with_suffix(".asked").exists():
        return None
    if marked.exists():  # the harness shows the agent's line, but ran the rewritten one
        return True
    with contextlib.suppress(OSError):
        (own / UNWRAPPED).write_text(command[:2000], encoding="utf-8")
    return False


def prune(now: float, home: Path | None = None) -> None:
    """Remove the folders of sessions untouched for `KEPT_DAYS` (each rewritten line leaves
    two empty files; run at each session start, best effort)."""
    import shutil

    base = (home or Path.home()) / FRAMEWORK_HOME / RUN
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name == "waiting" or not entry.is_dir() or entry.is_symlink():
            continue
        try:
            old = now - entry.stat().st_mtime > KEPT_DAYS * 86400
        except OSError:
            continue
        if old:
            shutil.rmtree(entry, ignore_errors=True)


def met_boundary(response: str) -> bool:
    """Whether a command's output shows it failed on a path the sandbox keeps."""
    return any(error in response for error in BOUNDARY_ERRORS)


def kept_out(editing: bool, states: str) -> str:
    """Why a sandboxed line failed on a path, and the agent's next step."""
    what = EDITING if editing else NOT_EDITING.format(script=STATUS_SCRIPT)
    return KEPT_OUT.format(states=states or "no task", what=what)
