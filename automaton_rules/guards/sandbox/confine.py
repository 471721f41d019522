"""The exec shim every sandboxed command starts through: it confines itself, then becomes
the command.

Run as `python -I -S -c BOOT ARGS -- COMMAND...` (`mechanisms.shim`), before anything of the
agent's, inside bubblewrap's namespaces or, for Landlock, as the sandbox itself:

- the environment: `TMPDIR` set to the sandbox's private temporary folder, the sockets of
  the user's agents and terminals (`SSH_AUTH_SOCK`, `TMUX`, ...) unset;
- root's capabilities dropped, the bounding set included, so no `exec` gets them back;
- Landlock: the write boundary and the hidden paths (`--fs`; bubblewrap keeps those with
  mounts), TCP only to the allowed ports, signals and abstract sockets kept inside;
- the seccomp filter (`seccomp.py`): no Unix socket, no internet socket when the network
  is off, no typing into the terminal.

Each step that fails ends the shim with exit 126 and the reason; the command never runs
unconfined. Standard library only, besides its two siblings.
"""

from __future__ import annotations

import ctypes
import os
import sys

from automaton_rules.guards.sandbox import landlock, seccomp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
LAST_CAPABILITY = 63
REFUSED = 126  # the shell's "found but could not run"
LISTS = ("--write", "--keep", "--hide", "--unset")


class Options:
    """What the shim was told: lists of paths, the ports, the network, the command."""

    def __init__(self) -> None:
        self.lists: dict[str, list[str]] = {flag: [] for flag in LISTS}
        self.fs = False
        self.internet = False
        self.ports: list[int] | None = None
        self.temp = ""
        self.command: list[str] = []


def parse(argv: Sequence[str]) -> Options:
    """The shim's arguments; ValueError on anything else (the runner wrote them)."""
    options = Options()
    items = list(argv)
    while items and items[0] != "--":
        flag = items.pop(0)
        if flag == "--fs":
            options.fs = True
            continue
        if not items:
            raise ValueError(f"{flag} needs a value")
        value = items.pop(0)
        if flag in LISTS:
            options.lists[flag].append(value)
        elif flag == "--ports":
            options.ports = [int(port) for port in value.split(",") if port]
        elif flag == "--internet":
            options.internet = value == "yes"
        elif flag == "--tmp":
            options.temp = value
        else:
            raise ValueError(f"unknown option {flag}")
    options.command = items[1:]
    if not options.command:
        raise ValueError("no command to run")
    return options


def drop_capabilities() -> None:
    """Give up every capability, for this process and whatever it runs (root's too)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(LAST_CAPABILITY + 1):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # EINVAL past the kernel's last
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))

    class Data(ctypes.Structure):
        _fields_ = tuple((name, ctypes.c_uint32) for name in ("effective", "permitted", "inherit"))

    empty = (Data * 2)()
    if libc.capset(ctypes.byref(Header(0x20080522, 0)), empty) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"capset: {os.strerror(number)}")


def confine(options: Options) -> None:
    """Every step, in order; OSError from the first that fails."""
    for name in options.lists["--unset"]:
        os.environ.pop(name, None)
    if options.temp:
        os.environ["TMPDIR"] = options.temp
    if options.fs:  # Landlock holds the files: status.py run inside then says so
        os.environ["AUTOMATON_SANDBOX"] = "landlock"
    if os.geteuid() == 0:
        drop_capabilities()
    writable = options.lists["--write"] if options.fs else None
    hidden = options.lists["--hide"] if options.fs else []
    if options.fs or options.ports is not None or landlock.abi() >= 1:
        landlock.restrict(writable, options.lists["--keep"], hidden, options.ports)
    ctypes.CDLL(None).prctl(landlock.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if seccomp.supported():
        seccomp.install(options.internet)


def main(argv: Sequence[str] | None = None) -> int:
    """Confine, then become the command; only a failure returns."""
    try:
        options = parse(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        sys.stderr.write(f"ERROR: automaton-rules sandbox: {exc}\n")
        return 2
    try:
        confine(options)
    except OSError as exc:
        sys.stderr.write(f"ERROR: automaton-rules could not enter its sandbox ({exc.strerror})\n")
        return REFUSED
    try:
        os.execvp(options.command[0], options.command)
    except OSError as exc:
        sys.stderr.write(f"ERROR: cannot run {options.command[0]}: {exc.strerror}\n")
        return 127
