"""macOS: the boundary as a `sandbox-exec` profile (Seatbelt's SBPL).

The profile allows everything, then denies every file write, then allows writes below the
boundary's writable folders, then denies them again for the read-only paths: later rules
win in SBPL. Reads of the hidden paths are denied, outbound connections are denied but to
the boundary's ports while the network is on (UDP too), and Unix sockets, signals and
process information of other processes always. It cannot run on Linux, so only its text
is tested here (tests/test_sandbox.py); `docs/sandbox.md` says so.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from automaton_rules.guards.sandbox.boundary import Boundary

NAME = "seatbelt"
PROGRAM = "/usr/bin/sandbox-exec"


def _quoted(path: str) -> str:
    """A path as an SBPL string literal."""
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def profile(boundary: Boundary) -> str:
    """The SBPL profile of `boundary`: writes, then the hidden paths' reads, then reach
    (the network by the phase and its ports, no Unix socket, no other process)."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    lines += [f"(allow file-write* (subpath {_quoted(str(root))}))" for root in boundary.writable]
    for kept in boundary.readonly:
        lines.append(f"(deny file-write* (subpath {_quoted(str(kept))}))")
    lines += [f"(deny file-read* (subpath {_quoted(str(path))}))" for path in boundary.hidden]
    lines.append("(deny network-outbound)")
    if boundary.internet:
        lines += [f'(allow network-outbound (remote ip "*:{port}"))' for port in boundary.ports]
        lines.append('(allow network-outbound (remote udp "*:*"))')
    lines.append("(deny network-outbound (remote unix-socket))")
    lines += ["(deny signal (target others))", "(deny process-info* (target others))"]
    return "\n".join(lines) + "\n"


def argv(boundary: Boundary, command: Sequence[str]) -> list[str]:
    """The sandbox-exec command line that runs `command` inside `boundary`."""
    return [PROGRAM, "-p", profile(boundary), *command]
