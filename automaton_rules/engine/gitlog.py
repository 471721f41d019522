"""The project's git history, read in one pass: what changed, when, and for which task.

Four git calls per audit, whatever the number of tasks or commits: where the
project sits in its repository, whether it has a commit, the whole log with file
names (with `--since REV`, only the commits after REV), and the working tree's status;
the last two run while the task folders are read. A rule that must see what a few
commits changed inside a file asks for those files in one more call (`read_blobs`). Git
always runs with an argument list, never through a shell.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from automaton_rules.support import git
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.git import TASK_TRAILER
from automaton_rules.support.output import printable

# One header per commit, then its files as `STATUS NUL PATH NUL` pairs (`-z --name-status`).
# The header holds no NUL, and its author name (git ends an identity at `<` or a newline)
# and unfolded trailers hold no newline: read in order, no file name can pass for a header.
_RECORD = "\x1e"
# The message comes last, whole: git prints it up to a NUL, so it cannot end the header.
_LOG_FORMAT = (
    f"{_RECORD}%H %ct %at %P%n%an%n%(trailers:key={TASK_TRAILER},valueonly,unfold,separator=%x2C)"
    "%n%B"
)


@dataclass(frozen=True)
class Commit:
    """One commit: when and by whom it was made, the files it touched (and of them those it
    deleted), the tasks its trailers name, the commits it builds on, and its `message`
    (`subject` its first line). `files` are relative to the project, not to the
    repository."""

    sha: str
    time: int
    files: tuple[str, ...]
    tasks: tuple[str, ...] = ()
    authored: int | None = None
    author: str = ""
    deleted: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()
    message: str = ""

    @property
    def subject(self) -> str:
        """The message's first line, as `git log --oneline` shows it."""
        return self.message.partition("\n")[0]

    @property
    def times(self) -> tuple[int, ...]:
        """When the change was committed and when it was written (a rebase moves only one)."""
        return (self.time,) if self.authored in (None, self.time) else (self.time, self.authored)

    @property
    def at(self) -> datetime:
        """`time` (when it was committed, in POSIX seconds) as a UTC datetime, for rules."""
        return datetime.fromtimestamp(self.time, timezone.utc)


@dataclass(frozen=True)
class GitHistory:
    """Everything the audit needs from git; `is_repo` is False outside a repository.

    `prefix` is where the project sits in the repository, for naming a file of a commit;
    `hooks` the folder git takes hooks from, relative to the project unless absolute.
    """

    is_repo: bool
    commits: tuple[Commit, ...] = ()
    uncommitted: tuple[str, ...] = field(default=())
    prefix: str = ""
    hooks: str = ""

    def floors(self) -> dict[str, int]:
        """For each commit, the latest committer date among the commits it builds on: a
        commit cannot have been made before its parents, whatever date it carries."""
        return commit_floors(self.commits)

    def hooks_folders(self, root: Path) -> list[Path]:
        """The folder git takes hooks from, resolved against the project at `root`."""
        if not self.hooks:
            return []
        folder = Path(self.hooks)
        return [(folder if folder.is_absolute() else root / folder).resolve()]


def commit_floors(commits: Sequence[Commit]) -> dict[str, int]:
    """sha -> the latest committer date of its ancestors (0 for a root, or a parent the log
    does not hold), walked parents first without recursion, so a history of any depth and
    any dates, however false, is placed in one pass."""
    by_sha = {commit.sha: commit for commit in commits}
    floors: dict[str, int] = {}
    for commit in commits:
        stack = [commit]
        while stack:
            top = stack[-1]
            if top.sha in floors:
                stack.pop()
                continue
            waiting = [by_sha[p] for p in top.parents if p in by_sha and p not in floors]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            floors[top.sha] = max(
                (max(by_sha[p].time, floors[p]) for p in top.parents if p in by_sha),
                default=0,
            )
    return floors


def parse_log(output: str, prefix: str = "") -> list[Commit]:
    """Parse `git log` in this module's format, keeping paths under `prefix` (made relative).

    The output is read token by token (git separates them with NUL), so a header is
    only ever where one can stand. Paths are interned: a long history names the same
    files over and over.
    """
    tokens = output.split("\0")
    commits = []
    index, count = 0, len(tokens)
    while index < count:
        header = tokens[index]
        index += 1
        files, deleted = [], []
        while index + 1 < count:
            status = tokens[index]
            if not status or status[0] == _RECORD:
                break
            path = _relative(tokens[index + 1], prefix)
            index += 2
            if path:
                files.append(sys.intern(path))
                if status[-1] == "D":
                    deleted.append(files[-1])
        commit = _commit(header, files, deleted)
        if commit is not None:
            commits.append(commit)
    commits.sort(key=lambda commit: commit.time)
    return commits


def _commit(header: str, files: list[str], deleted: list[str]) -> Commit | None:
    """The commit a header names, with its files; None for what is no header."""
    sha_and_times, _, rest = header[1:].partition("\n")
    author, _, rest = rest.partition("\n")
    trailers, _, message = rest.partition("\n")
    author = sys.intern(author)  # a history has few authors and many commits
    sha, _, stamps = sha_and_times.partition(" ")
    if header[:1] != _RECORD or not sha:
        return None
    committed, authored, *parents = [*stamps.split(" "), ""]
    tasks = tuple(t.strip() for t in trailers.split(",") if t.strip())
    return Commit(
        sha,
        _seconds(committed) or 0,
        tuple(files),
        tasks,
        _seconds(authored),
        author,
        tuple(deleted),
        tuple(p for p in parents if p),
        message.rstrip("\n"),
    )


def _seconds(text: str) -> int | None:
    """A time git printed; None where it printed none (an identity it could not read):
    such a commit is kept, dated 0, so what it changed still shows."""
    return int(text) if text.isascii() and text.isdigit() else None


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


def _read_place(root: Path) -> tuple[str, str] | None:
    """Where the project sits in its repository, and the folder git takes hooks from
    (`core.hooksPath`, else `.git/hooks`; relative to the project unless absolute); None
    outside any repository."""
    probe = git.run(
        root, ["rev-parse", "--show-prefix", "--is-shallow-repository", "--git-path", "hooks"]
    )
    if probe.returncode != 0:
        message = probe.stderr.decode(errors="replace").strip()
        if "not a git repository" in message.lower():
            return None
        raise AutomatonError("git-failed", f"git cannot read the repository at {root}: {message}")
    prefix, _, rest = probe.stdout.decode("utf-8", errors="surrogateescape").partition("\n")
    shallow, _, hooks = rest.partition("\n")
    if shallow.strip() == "true":
        raise AutomatonError(
            "git-shallow",
            "the repository is a shallow clone, so its history is incomplete; fetch the full "
            "history (git fetch --unshallow, or actions/checkout with fetch-depth: 0)",
        )
    return prefix.strip(), hooks.rstrip("\n")


def resolve_since(root: Path, rev: str) -> str:
    """The commit `--since REV` names, as a full SHA: the audit's git rules then read only
    the commits after it (`SHA..HEAD`). A REV git does not know is an error that says how
    to fetch it; a REV that reads as an option is never handed to git."""
    shown = printable(rev, None)
    if _read_place(root) is None:
        raise AutomatonError(
            "not-a-repository", f"--since {shown}: {root} is not in a git repository."
        )
    found = None
    if rev and not rev.startswith("-") and "\n" not in rev:
        probe = git.run(root, ["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"])
        found = probe.stdout.decode(errors="replace").strip() if probe.returncode == 0 else None
    if not found:
        raise AutomatonError(
            "unknown-revision",
            f"--since {shown}: git knows no commit by that name in {root}. Name a branch, "
            "tag or commit the clone has (fetch it first, e.g. git fetch origin main; in "
            "GitHub Actions, actions/checkout with fetch-depth: 0).",
        )
    return found


def read_commits_after(root: Path, commit: str) -> frozenset[str]:
    """The full SHAs of `commit..HEAD`: what `--since` lets the git rules read, so that a
    baseline's entries for older commits are not called gone."""
    listed = git.run(root, ["rev-list", f"{commit}..HEAD"])
    if listed.returncode != 0:
        return frozenset()
    return frozenset(listed.stdout.decode(errors="replace").split())


def start(
    root: Path, *, untracked: bool = False, since: str | None = None
) -> Callable[[], GitHistory]:
    """Set git reading the log and the status, and return what collects them; `since` (a
    full SHA from `resolve_since`) keeps the log to the commits after it.

    git runs while the caller reads the task folders (two processes, two cores); its
    output goes to unnamed temporary files, so it never waits on a full pipe.
    """
    where = _read_place(root)
    if where is None:
        return lambda: GitHistory(is_repo=False)
    prefix, hooks = where
    head = git.run(root, ["rev-parse", "--verify", "--quiet", "HEAD"])
    log = (
        _Running(
            root,
            ["log", "--no-renames", "--name-status", "-z", f"--format={_LOG_FORMAT}"]
            + ([f"{since}..HEAD"] if since else [])
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
        return GitHistory(True, tuple(commits), tuple(changed), prefix, hooks)

    return collect


def read_blobs(root: Path, specs: Sequence[str]) -> list[bytes | None]:
    """The files `REV:PATH` names, read by one `git cat-file --batch` for all of them; None
    where git has no such file (a path the commit lacks, the parent of a first commit)."""
    wanted = [spec for spec in specs if "\n" not in spec]
    if not wanted:
        return [None] * len(specs)
    try:
        proc = subprocess.run(
            git.argv(root, ["cat-file", "--batch"]),
            input="".join(f"{spec}\n" for spec in wanted).encode("utf-8", "surrogateescape"),
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise git.cannot_run(exc) from None
    if proc.returncode != 0:
        message = proc.stderr.decode(errors="replace").strip() or proc.returncode
        raise AutomatonError("git-failed", f"git cat-file failed in {root}: {message}")
    found = dict(zip(wanted, _batch(proc.stdout, len(wanted))))
    return [found.get(spec) for spec in specs]


def _batch(out: bytes, count: int) -> list[bytes | None]:
    """Split `cat-file --batch` output: `OID TYPE SIZE` and the content, or `SPEC missing`."""
    contents: list[bytes | None] = []
    at = 0
    for _ in range(count):
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end].split(b" ")
        at = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            contents.append(out[at : at + size] if header[1] == b"blob" else None)
            at += size + 1
        else:
            contents.append(None)
    return contents + [None] * (count - len(contents))


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


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "Commit",
    "GitHistory",
    "read_blobs",
    "read_commits_after",
    "resolve_since",
    "start",
]
