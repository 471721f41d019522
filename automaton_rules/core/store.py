"""The task's metadata files, and the only code that writes them.

Every write is built to survive a kill at any instant: `.state` is replaced by
rename, log lines are appended whole with one write each, and new task folders
appear in one rename. Read-modify-write sequences run under a per-task lock.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager, suppress
from pathlib import Path

from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.support.output import printable
from automaton_rules.support.record import Record

# The edit-time hooks read `.state` through this module and nothing else of it, so
# json, hashlib, datetime, secrets and shutil load in the functions that use them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from datetime import datetime
    from typing import Any, BinaryIO

STATE = ".state"
STATE_TMP = ".state.tmp"
APPROVALS = ".state.approvals"
HISTORY = ".state.history"
CLAIM = ".state.lock"
MUTEX = ".state.mutex"
REVIEWS = ".state.reviews"
REVISIONS = ".state.revisions"  # the texts requests for changes were made on
APPROVED_COPY = ".state.approved."  # + the artifact's name: its text as last approved

MAX_STATE_BYTES = 4096
LOCK_TIMEOUT = 30.0
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _unreadable(path: str | Path, exc: OSError) -> AutomatonError:
    reason = "a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
    return AutomatonError("unreadable", f"Cannot read {path}: {reason}")


def _regular(fd: int, path: str | Path) -> int:
    """Refuse anything but a regular file: a link, pipe or device could hang or mislead."""
    try:
        _regular_stat(fd, path)
    except OSError:
        os.close(fd)
        raise
    return fd


def _regular_stat(fd: int, path: str | Path) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return info


@contextmanager
def open_regular(path: Path) -> Iterator[BinaryIO]:
    """Open a file for reading only if it is a regular file, never following a link."""
    fd = _regular(os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK), path)
    with os.fdopen(fd, "rb") as handle:
        yield handle


def read_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """A regular file's bytes (at most `limit`), with no link followed and no file object:
    the audit reads several small files per task, and this halves the cost of each."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    try:
        remaining = limit
        want = _regular_stat(fd, path).st_size + 1
        chunks = []
        while True:
            if remaining is not None:
                want = min(want, remaining)
            if want <= 0:
                break
            chunk = os.read(fd, want)
            chunks.append(chunk)
            if len(chunk) < want:
                break  # a short read of a regular file is its end
            if remaining is not None:
                remaining -= len(chunk)
            want = 1 << 16
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_state(task_dir: Path) -> str | None:
    """The raw phase in `.state`, or None when the folder has no `.state` at all."""
    path = f"{task_dir}/{STATE}"
    try:
        data = read_bytes(path, MAX_STATE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    return data.decode("utf-8", errors="replace").strip(" \t\r\n")


def state_mtime(task_dir: Path) -> float | None:
    """When `.state` was last written; the fallback clock of the audit."""
    try:
        return (task_dir / STATE).stat().st_mtime
    except OSError:
        return None


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_file(path: Path, data: bytes) -> None:
    """Write a new file; a leftover or a link of that name is removed, never followed."""
    with suppress(FileNotFoundError):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_state(task_dir: Path, state: str) -> None:
    """Replace `.state` atomically: a failed write leaves the old one intact."""
    tmp = task_dir / STATE_TMP
    _write_file(tmp, f"{state}\n".encode())
    os.replace(tmp, task_dir / STATE)
    _fsync_dir(task_dir)


def append_line(path: Path, line: str) -> None:
    """Append one whole line with a single write, so a kill never leaves half of it."""
    if "\n" in line or "\r" in line:
        raise ValueError("a log line cannot contain a line break")
    data = f"{line}\n".encode()
    fd = _regular(os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644), path)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_lines(path: Path) -> list[str]:
    try:
        text = read_bytes(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise _unreadable(path, exc) from None
    return [line for line in text.splitlines() if line.strip()]


# How an approval was given: `--approve` on a command line, confirmed by a person at a
# terminal, typed by the user in the agent's chat, signed with an SSH key, or clicked on
# the dashboard by the person who started it (`board`, before the board asked for a
# passkey; `board-passkey` since).
VIAS = ("cli", "terminal", "prompt", "signed", "board", "board-passkey")


class Approval(Record):
    """One line of `.state.approvals`: `{phase}:approved|{time}|{approver}`, the
    specification's format, with `|{via}` after it when not given on a command line."""

    state: str
    time: str
    approver: str
    via: str = "cli"

    @property
    def at(self) -> datetime | None:
        """`time` as a UTC datetime, for rules; None when the line's time is not readable."""
        from automaton_rules.support import clock

        return clock.parse_time(self.time)

    @classmethod
    def parse(cls, line: str) -> Approval | None:
        """None for a line that is not in the log's format."""
        parts = line.split("|")
        if len(parts) not in (3, 4) or not all(parts):
            return None
        if len(parts) == 4 and parts[3] not in VIAS[1:]:
            return None
        return cls(*parts)

    def line(self) -> str:
        """The log line: exactly the specification's for `cli`, the way named otherwise."""
        line = f"{self.state}|{self.time}|{self.approver}"
        return line if self.via == "cli" else f"{line}|{self.via}"


def read_approvals(task_dir: Path) -> list[Approval | None]:
    """Every line of the approval log; None stands for a line that does not parse."""
    return [Approval.parse(line) for line in _read_lines(task_dir / APPROVALS)]


def append_approval(task_dir: Path, approval: Approval) -> None:
    """Record an approval; the log is append-only."""
    append_line(task_dir / APPROVALS, approval.line())


CLAIM_KEYS = ("agent", "phase", "claimed", "expires")


def read_claim(task_dir: Path) -> dict[str, str] | None:
    """The multi-agent claim in `.state.lock` (`agent:`, `phase:`, `claimed:`, `expires:`)."""
    lines = _read_lines(task_dir / CLAIM)
    if not lines and not (task_dir / CLAIM).exists():
        return None
    claim = {}
    for line in lines:
        key, sep, value = line.partition(":")
        if sep and key.strip() in CLAIM_KEYS:
            claim[key.strip()] = value.strip()
    return claim


def write_claim(task_dir: Path, claim: Mapping[str, str]) -> None:
    """Replace `.state.lock` atomically, the same way as `.state`."""
    tmp = task_dir / f"{CLAIM}.tmp"
    _write_file(tmp, "".join(f"{key}: {claim[key]}\n" for key in CLAIM_KEYS).encode())
    os.replace(tmp, task_dir / CLAIM)
    _fsync_dir(task_dir)


def remove_claim(task_dir: Path) -> None:
    """Release a claim; a claim already gone is released."""
    with suppress(FileNotFoundError):
        os.unlink(task_dir / CLAIM)
    _fsync_dir(task_dir)


def ensure_approvals(task_dir: Path) -> None:
    """Give an adopted task the empty approval log every created task has."""
    path = task_dir / APPROVALS
    os.close(
        _regular(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW, 0o644), path)
    )


def read_history(task_dir: Path) -> list[dict[str, Any]]:
    """Every entry of `.state.history`; a line that is not a JSON object reads as {}."""
    return parse_history(_read_lines(task_dir / HISTORY))


def parse_history(lines: Iterable[str]) -> list[dict[str, Any]]:
    """History lines as entries; a line that is not a JSON object reads as {}.

    The decoder's scanner is called directly, which is what `json.loads` does after two
    layers of checks; a line it does not consume whole goes through `json.loads` itself.
    """
    import json

    scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
    entries = []
    for line in lines:
        try:
            entry, end = scan(line, 0)
            if end != len(line):
                entry = json.loads(line)
        except (StopIteration, ValueError, RecursionError):
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):  # nested too deep is no entry either
                entry = {}
        entries.append(entry if isinstance(entry, dict) else {})
    return entries


def append_review(task_dir: Path, entry: Mapping[str, Any]) -> None:
    """Record a request for changes (`.state.reviews`, one JSON object a line, append-only)."""
    import json

    append_line(task_dir / REVIEWS, json.dumps(dict(entry), separators=(",", ":")))


def read_reviews(task_dir: Path) -> list[dict[str, Any]]:
    """Every request for changes recorded; a line that is not a JSON object reads as {}."""
    return parse_history(_read_lines(task_dir / REVIEWS))


def append_revision(task_dir: Path, entry: Mapping[str, Any]) -> None:
    """Keep the text a request for changes was made on (`.state.revisions`, one JSON
    object a line, append-only), so the board can diff it against the agent's revision."""
    import json

    append_line(task_dir / REVISIONS, json.dumps(dict(entry), separators=(",", ":")))


def read_revisions(task_dir: Path) -> list[dict[str, Any]]:
    """Every kept revision; a line that is not a JSON object reads as {}."""
    return parse_history(_read_lines(task_dir / REVISIONS))


def write_approved_copy(task_dir: Path, artifact: str, data: bytes) -> None:
    """Keep the text an approval covers, so a later change to it can be shown as a diff;
    replaced atomically, like `.state`, at each approval of that artifact."""
    if "/" in artifact or artifact.startswith("."):
        raise ValueError(f"not an artifact's name: {artifact!r}")
    tmp = task_dir / f"{APPROVED_COPY}{artifact}.tmp"
    _write_file(tmp, data)
    os.replace(tmp, task_dir / f"{APPROVED_COPY}{artifact}")


def read_approved_copy(task_dir: Path, artifact: str) -> bytes | None:
    """The text of `artifact` as last approved, or None when no copy was kept."""
    try:
        return read_bytes(task_dir / f"{APPROVED_COPY}{artifact}")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(task_dir / f"{APPROVED_COPY}{artifact}", exc) from None


def history_lines(task_dir: Path) -> list[str]:
    """The raw history lines, for checking the digest chain."""
    return _read_lines(task_dir / HISTORY)


TAIL_BLOCK = 4096


def history_tail(task_dir: Path, count: int = 2) -> list[str]:
    """The last `count` lines of `.state.history`, read backwards from its end: the live
    commands hold `.state` to them before every decision, and a history grows without
    bound. Lines are split and blank ones skipped exactly as `history_lines` does."""
    path = f"{task_dir}/{HISTORY}"
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise _unreadable(path, exc) from None
    try:
        return _tail_lines(fd, _regular_stat(fd, path).st_size, count)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    finally:
        os.close(fd)


def _tail_lines(fd: int, size: int, count: int) -> list[str]:
    """Read ever larger blocks from the end until `count` whole lines (or the file) fit."""
    block = TAIL_BLOCK
    while True:
        start = max(0, size - block)
        data = os.pread(fd, size - start, start)
        lines = data.decode("utf-8", errors="replace").splitlines()
        if start > 0:
            lines = lines[1:]  # the first piece may be the end of a longer line
        kept = [line for line in lines if line.strip()]
        if len(kept) >= count or start == 0:
            return kept[-count:] if count else []
        block *= 4


def line_digest(line: str) -> str:
    """SHA-256 of one history line, which the next line records to chain the log."""
    return sha256(line.encode()).hexdigest()


def sha256(data: bytes = b"", more: int = 0) -> Any:
    """A SHA-256 hash of `data`, `hashlib.sha256(data)`'s digest (`more`: the bytes the
    caller will add with `update`). The interpreter's own SHA-256 hashes the first
    mebibyte a command hashes: hashlib loads OpenSSL's bindings first, about 4 ms, a tenth
    of `--task`, which checks its history's chain. OpenSSL's, about five times as fast per
    byte, takes the rest, so an audit of large artifacts pays that load once."""
    size = len(data) + more
    builtin = _builtin_sha256() if _HASHED[0] + size <= BUILTIN_BUDGET else None
    if builtin is None:
        import hashlib

        return hashlib.sha256(data)
    _HASHED[0] += size
    return builtin(data)


BUILTIN_BUDGET = 1 << 20
_HASHED = [0]  # bytes this process hashed with the interpreter's own SHA-256
_BUILTIN: list[Any] = []


def _builtin_sha256() -> Any:
    """The interpreter's own SHA-256 constructor, or None where it was built without."""
    if not _BUILTIN:
        import importlib

        found = None
        for name in ("_sha2", "_sha256"):  # CPython 3.12 on, and before
            try:
                found = importlib.import_module(name).sha256
                break
            except ImportError:
                continue
        _BUILTIN.append(found)
    return _BUILTIN[0]


def append_history(task_dir: Path, entry: Mapping[str, Any]) -> dict[str, Any]:
    """Append an entry chained to the line before it, and return what was written."""
    import json

    lines = _read_lines(task_dir / HISTORY)
    record = dict(entry)
    record["prev"] = line_digest(lines[-1]) if lines else None
    append_line(task_dir / HISTORY, json.dumps(record, separators=(",", ":")))
    return record


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return None


def _restore_size(path: Path, size: int | None) -> None:
    try:
        if size is None:
            path.unlink(missing_ok=True)
        elif path.stat().st_size != size:
            os.truncate(path, size)
    except OSError:
        pass


def commit(
    task_dir: Path, entry: Mapping[str, Any], state: str, approval: Approval | None = None
) -> dict[str, Any]:
    """Apply one change: approval line, history line, then `.state`, in that order.

    A kill part-way leaves the history line as a journal that the next command rolls
    forward; an I/O error is undone here, so a command that reports failure changed nothing.
    """
    logs = (task_dir / APPROVALS, task_dir / HISTORY)
    sizes = [_size(path) for path in logs]
    try:
        if approval is not None:
            append_approval(task_dir, approval)
        record = append_history(task_dir, entry)
        write_state(task_dir, state)
    except OSError as exc:
        for path, size in zip(logs, sizes):
            _restore_size(path, size)
        (task_dir / STATE_TMP).unlink(missing_ok=True)
        raise AutomatonError(
            "write-failed",
            f"Cannot write the task files in {task_dir}: {exc.strerror or exc}. "
            "Nothing was changed.",
        ) from None
    return record


def bytes_digest(data: bytes) -> str:
    """SHA-256 of bytes already read, the same digest `file_digest` gives for the file."""
    return sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, or None when it does not exist."""
    try:
        with open_regular(path) as handle:
            digest = sha256(more=os.fstat(handle.fileno()).st_size)
            for block in iter(lambda: handle.read(1 << 16), b""):
                digest.update(block)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    return digest.hexdigest()


@contextmanager
def locked(task_dir: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the task's exclusive inter-process lock for one read-modify-write."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(task_dir / MUTEX), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise AutomatonError(
            "locked",
            f"Task folder {task_dir} is locked by another command (waited {timeout:.0f}s).",
        ) from None
    except OSError as exc:
        raise AutomatonError("lock-failed", f"Cannot lock {task_dir}: {exc}") from None
    try:
        yield
    finally:
        lock.release()


def create_task_dir(
    final: Path,
    name: str,
    state: str,
    entry: Mapping[str, Any],
    where: str,
    files: Mapping[str, bytes] | None = None,
) -> None:
    """Make a complete task folder appear in one rename, so no half-made task is ever seen."""
    import secrets
    import shutil

    if final.exists() or final.is_symlink():
        raise Refusal("task-exists", f"Task '{printable(name)}' already exists in {where}")
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = final.parent / f".{final.name}.{secrets.token_hex(6)}.creating"
    try:
        os.mkdir(staging)
    except OSError as exc:
        raise AutomatonError("write-failed", f"Cannot create {final}: {exc}") from None
    try:
        _write_file(staging / STATE, f"{state}\n".encode())
        _write_file(staging / APPROVALS, b"")
        _write_file(staging / MUTEX, b"")
        for filename, data in (files or {}).items():
            _write_file(staging / filename, data)
        append_history(staging, entry)
        os.rename(staging, final)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if final.exists():
            raise Refusal(
                "task-exists", f"Task '{printable(name)}' already exists in {where}"
            ) from None
        raise AutomatonError("write-failed", f"Cannot create {final}: {exc}") from None
    _fsync_dir(final.parent)


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "APPROVALS",
    "CLAIM",
    "CLAIM_KEYS",
    "HISTORY",
    "MUTEX",
    "STATE",
    "Approval",
    "append_review",
    "append_revision",
    "bytes_digest",
    "commit",
    "create_task_dir",
    "ensure_approvals",
    "file_digest",
    "history_lines",
    "history_tail",
    "line_digest",
    "locked",
    "open_regular",
    "parse_history",
    "read_approvals",
    "read_approved_copy",
    "read_bytes",
    "read_claim",
    "read_history",
    "read_reviews",
    "read_revisions",
    "read_state",
    "remove_claim",
    "state_mtime",
    "write_approved_copy",
    "write_claim",
    "write_state",
]
