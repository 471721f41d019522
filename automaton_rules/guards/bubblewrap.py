"""bubblewrap: the write boundary as a mount namespace, exact to the file.

`bwrap` remounts the whole file system read-only, binds the boundary's writable folders
back read-write, and binds each read-only path inside them read-only again: a guard file
in a writable project is read-only by itself, and can be neither renamed over nor removed
(a mount point is busy) nor linked to from elsewhere (links across mounts fail). Every
capability is dropped, root's included, so no process inside can undo a mount, and
`no_new_privs` keeps setuid programs from gaining any. It needs unprivileged user
namespaces, or root; `probe` finds out once per machine.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from automaton_rules.guards.boundary import Boundary

NAME = "bubblewrap"
PROGRAM = "bwrap"


def program() -> str | None:
    """Where `bwrap` is on PATH, or None (found without `shutil`, which the hook need not
    pay for)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", PROGRAM)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def argv(bwrap: str, boundary: Boundary, command: Sequence[str]) -> list[str]:
    """The bwrap command line that runs `command` inside `boundary`."""
    words = [bwrap, "--cap-drop", "ALL", "--die-with-parent", "--ro-bind", "/", "/"]
    words += ["--dev-bind", "/dev", "/dev"]
    binds = [(root, "--bind") for root in boundary.writable if root != Path("/dev")]
    binds += [(kept, "--ro-bind") for kept in boundary.readonly]
    for path, how in sorted(binds, key=lambda bind: len(bind[0].parts)):  # deeper ones last
        words += [how, str(path), str(path)]
    words += ["--setenv", "TMPDIR", str(boundary.temp), "--setenv", "AUTOMATON_SANDBOX", NAME]
    return [*words, "--", *command]


def probe(bwrap: str) -> bool:
    """Whether bwrap can set up a sandbox here (user namespaces allowed, or root, and not
    inside another sandbox that forbids them)."""
    import subprocess

    try:
        done = subprocess.run(
            [bwrap, "--cap-drop", "ALL", "--ro-bind", "/", "/", "--", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def version_key(bwrap: str) -> str:
    """What a cached probe is valid for: this bwrap, as it is now, on this kernel."""
    try:
        stamp = os.stat(bwrap).st_mtime_ns
    except OSError:
        stamp = 0
    return f"{bwrap}:{stamp}:{os.uname().release}"
