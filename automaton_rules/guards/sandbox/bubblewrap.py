"""bubblewrap: the boundary as namespaces of its own, exact to the file.

`bwrap` remounts the whole file system read-only, binds the boundary's writable folders
back read-write, binds each read-only path inside them read-only again, and covers each
hidden path (an empty folder, `/dev/null` for a file): a guard file in a writable project
is read-only by itself, and can be neither renamed over nor removed (a mount point is
busy) nor linked to from elsewhere (links across mounts fail). The command gets a PID
namespace and a `/proc` of its own (no other process to signal, trace or reach through
`/proc/PID/cwd`), its own IPC namespace, a `/dev` of the few device files a command uses
(no disk, root's included), and, while the network is off, a network namespace of its own
(its 127.0.0.1 is its own: the board, dev servers and everything else listening here are
out of reach). Every capability is dropped, root's included, and `no_new_privs` keeps
setuid programs from gaining any. It needs unprivileged user namespaces, or root;
`probe` finds out once per machine.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from automaton_rules.guards.sandbox.boundary import Boundary

PROGRAM = "bwrap"
NAMESPACES = ("--unshare-pid", "--unshare-ipc")
PROBE_VERSION = "2"  # what the probe asks; a change asks again


def program() -> str | None:
    """Where `bwrap` is on PATH, or None (found without `shutil`, which the hook need not
    pay for)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", PROGRAM)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def argv(bwrap: str, boundary: Boundary, command: Sequence[str]) -> list[str]:
    """The bwrap command line that runs `command` (the exec shim) inside `boundary`."""
    words = [bwrap, "--cap-drop", "ALL", "--die-with-parent", *NAMESPACES]
    if not boundary.internet:
        words.append("--unshare-net")
    words += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    devices = set(boundary.devices)
    binds = [(root, "--bind") for root in boundary.writable if root not in devices]
    binds += [(kept, "--ro-bind") for kept in boundary.readonly]
    for path, how in sorted(binds, key=lambda bind: len(bind[0].parts)):  # deeper ones last
        if not any(path == h or h in path.parents for h in boundary.hidden):
            words += [how, str(path), str(path)]
    for hidden in boundary.hidden:  # an empty folder, or nothing, where a secret was
        cover = ["--tmpfs"] if hidden.is_dir() else ["--ro-bind", "/dev/null"]
        words += [*cover, str(hidden)]
    words += ["--setenv", "AUTOMATON_SANDBOX", "bubblewrap"]
    return [*words, "--", *command]


def probe(bwrap: str) -> bool:
    """Whether bwrap can set up a sandbox here (user namespaces allowed, or root, and not
    inside another sandbox that forbids them)."""
    import subprocess

    try:
        done = subprocess.run(
            [
                bwrap,
                "--cap-drop",
                "ALL",
                *NAMESPACES,
                "--unshare-net",
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--",
                "true",
            ],
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
    return f"{bwrap}:{stamp}:{os.uname().release}:{PROBE_VERSION}"
