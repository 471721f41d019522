"""Running git: one place that builds its command lines and turns its failures into errors.

The audit reads the history through it and the git hooks ask it what is staged. Every
command is an argument list, never a shell string, and git's own failures (not installed,
not a repository) become an `AutomatonError` with git's words, so they print as one line.
"""

from __future__ import annotations

import subprocess

from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

# The commit trailer that names the task a commit belongs to: `Task: add-user-auth`.
TASK_TRAILER = "Task"


def argv(root: Path, args: Sequence[str]) -> list[str]:
    """Every git command line is built here: an argument list, never a shell string."""
    return ["git", "-C", str(root), *args]


def cannot_run(exc: OSError) -> AutomatonError:
    """The error for a git that could not be started at all."""
    return AutomatonError("git-failed", f"Cannot run git: {exc.strerror or exc}")


def run(root: Path, args: Sequence[str]) -> subprocess.CompletedProcess[bytes]:
    """Run git to the end; its exit status is the caller's to judge."""
    try:
        return subprocess.run(
            argv(root, args), capture_output=True, check=False, stdin=subprocess.DEVNULL
        )
    except OSError as exc:
        raise cannot_run(exc) from None


def output(root: Path, *args: str) -> str:
    """What git printed, where anything but success is an error in git's own words."""
    proc = run(root, args)
    if proc.returncode != 0:
        raise AutomatonError("git-failed", proc.stderr.decode(errors="replace").strip())
    return proc.stdout.decode("utf-8", errors="surrogateescape")
