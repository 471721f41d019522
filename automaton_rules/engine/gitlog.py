"""The project's git history, read in one pass: what changed, when, and for which task.

Four git calls per audit, whatever the number of tasks or commits: where the
project sits in its repository, whether it has a commit, the whole log with file
names, and the working tree's status; the last two run while the task folders are
read. Git always runs with an argument list, never through a shell.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from automaton_rules.core import git
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.git import TASK_TRAILER

_RECORD, _FIELD = "\x1e", "\x1f"
_LOG_FORMAT = (
    f"{_RECORD}%H{_FIELD}%ct %at{_FIELD}"
    f"%(trailers:key={TASK_TRAILER},valueonly,separator=%x2C){_FIELD}"
)


@dataclass(frozen=True)
class Commit:
    """One commit: when it was made, the files it touched, the tasks its trailers name."""

    sha: str
    time: int
    files: tuple[str, ...]
    tasks: tuple[str, ...] = ()
    authored: int | None = None

    @property
    def times(self) -> tuple[int, ...]:
        """When the change was committed and when it was written (a rebase moves only one)."""
        return (self.time,) if self.authored in (None, self.time) else (self.time, self.authored)


@dataclass(frozen=True)
class GitHistory:
    """Everything the audit needs from git; `is_repo` is False outside a repository."""

    is_repo: bool
    commits: tuple[Commit, ...] = ()
    uncommitted: tuple[str, ...] = field(default=())


def parse_log(output: str, prefix: str = "") -> list[Commit]:
    """Parse `git log` in this module's format, keeping paths under `prefix` (made relative).

    Paths are interned: a long history names the same files over and over.
    """
    commits = []
    for record in output.split(_RECORD):
        fields = record.split(_FIELD)
        if len(fields) < 4:
            continue
        sha, stamp, trailers = fields[0], fields[1], fields[2]
        names = _FIELD.join(fields[3:]).split("\0")
        files = tuple(sys.intern(_relative(name.strip("\n"), prefix)) for name in names)
        tasks = tuple(t.strip() for t in trailers.split(",") if t.strip())
        try:
            committed, _, authored = stamp.partition(" ")
            time, written = int(committed), int(authored) if authored else None
        except ValueError:
            continue
        commits.append(Commit(sha, time, tuple(f for f in files if f), tasks, written))
    commits.sort(key=lambda commit: commit.time)
    return commits


def parse_status(output: str, prefix: str = "", *, untracked: bool = False) -> list[str]:
    """Paths with uncommitted changes from `status -z`; untracked files only if asked for."""
    paths = []
    for entry in output.split("\0"):
        if entry.startswith("??") and not untracked:
            continue
        if len(entry) > 3 and entry[2] == " ":
            path = _relative(entry[3:], prefix)
            if path:
                paths.append(path)
    return sorted(set(paths))


def _relative(path: str, prefix: str) -> str:
    if not path or not path.startswith(prefix):
        return ""
    return path[len(prefix) :]


def _prefix(root: Path) -> str | None:
    """Where the project sits in its repository; None outside any repository."""
    probe = git.run(root, ["rev-parse", "--show-prefix", "--is-shallow-repository"])
    if probe.returncode != 0:
        message = probe.stderr.decode(errors="replace").strip()
        if "not a git repository" in message.lower():
            return None
        raise AutomatonError("git-failed", f"git cannot read the repository at {root}: {message}")
    prefix, _, shallow = probe.stdout.decode("utf-8", errors="surrogateescape").partition("\n")
    if shallow.strip() == "true":
        raise AutomatonError(
            "git-shallow",
            "the repository is a shallow clone, so its history is incomplete; fetch the full "
            "history (git fetch --unshallow, or actions/checkout with fetch-depth: 0)",
        )
    return prefix.strip()


def start(root: Path, *, untracked: bool = False) -> Callable[[], GitHistory]:
    """Set git reading the log and the status, and return what collects them.

    git runs while the caller reads the task folders (two processes, two cores); its
    output goes to unnamed temporary files, so it never waits on a full pipe.
    """
    prefix = _prefix(root)
    if prefix is None:
        return lambda: GitHistory(is_repo=False)
    head = git.run(root, ["rev-parse", "--verify", "--quiet", "HEAD"])
    log = (
        _Running(
            root,
            ["log", "--no-renames", "--name-only", "-z", f"--format={_LOG_FORMAT}"]
            # A path limit costs git half again as much time, so it is given only for a
            # project below the repository's top (parse_log drops other paths anyway), with
            # --full-history so that both cases list every commit, side branches included.
            + (["--full-history", "--", "."] if prefix else []),
        )
        if head.returncode == 0
        else None
    )
    try:
        status = _Running(
            root,
            [
                "status",
                "--porcelain=v1",
                "-z",
                "--no-renames",
                # Untracked files are listed only when they count: a project's task folders
                # alone can be tens of thousands of them.
                f"--untracked-files={'all' if untracked else 'no'}",
                "--",
                ".",
            ],
        )
    except AutomatonError:
        if log is not None:
            with suppress(AutomatonError):
                log.output()  # waited for and closed: nothing left running
        raise

    def collect() -> GitHistory:
        try:
            commits = parse_log(log.output(), prefix) if log is not None else []
        except BaseException:
            with suppress(AutomatonError):
                status.output()  # waited for and closed even when the log failed
            raise
        changed = parse_status(status.output(), prefix, untracked=untracked)
        return GitHistory(True, tuple(commits), tuple(changed))

    return collect


class _Running:
    """One git command started now and read later; a failure is an error naming the command."""

    def __init__(self, root: Path, args: Sequence[str]) -> None:
        self.root, self.args = root, args
        self.out: IO[bytes] | None = None
        self.err: IO[bytes] | None = None
        try:
            self.out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by output()
            self.err = tempfile.TemporaryFile()  # noqa: SIM115 - closed by output()
        except OSError as exc:
            self._close()
            raise AutomatonError(
                "git-failed", f"Cannot make a temporary file for git: {exc.strerror or exc}"
            ) from None
        try:
            self.proc = subprocess.Popen(
                git.argv(root, args),
                stdin=subprocess.DEVNULL,
                stdout=self.out,
                stderr=self.err,
            )
        except OSError as exc:
            self._close()
            raise git.cannot_run(exc) from None

    def output(self) -> str:
        """Wait for git and return what it printed."""
        try:
            code = self.proc.wait()
            stdout, stderr = _reread(self.out), _reread(self.err)
        finally:
            self._close()
        if code != 0:
            message = stderr.decode(errors="replace").strip().splitlines()
            raise AutomatonError(
                "git-failed",
                f"git {self.args[0]} failed in {self.root}: {message[-1] if message else code}",
            )
        return stdout.decode("utf-8", errors="surrogateescape")

    def _close(self) -> None:
        for handle in (self.out, self.err):
            if handle is not None:
                handle.close()


def _reread(handle: IO[bytes] | None) -> bytes:
    """What git wrote into one of its temporary files."""
    if handle is None:
        return b""
    handle.seek(0)
    return handle.read()
