"""A seccomp filter: the system calls by which a sandboxed command would reach other
processes of the user without touching a file.

Connecting to a Unix socket is not a write, so neither bubblewrap's read-only mounts nor
Landlock stop it: a tmux server, the D-Bus session bus, ssh-agent or Docker would run what
the command sends them, outside the sandbox. The filter refuses to make a socket of any
family but the internet's (when the network is allowed) and netlink; `socketpair` stays,
since it can only join the command to itself. It also refuses `TIOCSTI` and `TIOCLINUX`
(typing into the terminal the command was started from) and `io_uring_setup` (whose
requests a filter cannot see), and every system call of a foreign ABI (x32, i386).

Standard library only, for the exec shim (`confine.py`).
"""

from __future__ import annotations

import ctypes
import errno
import os

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
LOAD, JUMP_EQUAL, JUMP_AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06
ALLOW = 0x7FFF0000
ERRNO = 0x00050000
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (little-endian)
AF_INET, AF_INET6, AF_NETLINK = 2, 10, 16
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
X32_BIT = 0x40000000

# machine: (audit arch, socket, ioctl, io_uring_setup)
ARCHITECTURES = {
    "x86_64": (0xC000003E, 41, 16, 425),
    "aarch64": (0xC00000B7, 198, 29, 425),
}


class _Filter(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    )


class _Program(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter)))


def supported() -> bool:
    """Whether this machine's architecture has a filter here."""
    return os.uname().machine in ARCHITECTURES


def program(machine: str, internet: bool) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump if true, jump if false, value) instructions."""
    arch, socket, ioctl, io_uring = ARCHITECTURES[machine]
    refuse = ERRNO | errno.EACCES
    families = [AF_NETLINK, *((AF_INET, AF_INET6) if internet else ())]
    socket_part = [(LOAD, 0, 0, ARG0)]
    for index, family in enumerate(families):  # allow: jump to the ALLOW after the refusal
        socket_part.append((JUMP_EQUAL, len(families) - index, 0, family))
    socket_part += [(RETURN, 0, 0, refuse), (RETURN, 0, 0, ALLOW)]
    ioctl_part = [
        (LOAD, 0, 0, ARG1),
        (JUMP_EQUAL, 2, 0, TIOCSTI),
        (JUMP_EQUAL, 1, 0, TIOCLINUX),
        (RETURN, 0, 0, ALLOW),
        (RETURN, 0, 0, ERRNO | errno.EPERM),
    ]
    head = [
        (LOAD, 0, 0, ARCH),
        (JUMP_EQUAL, 1, 0, arch),
        (RETURN, 0, 0, ERRNO | errno.ENOSYS),
        (LOAD, 0, 0, NR),
        (JUMP_AT_LEAST, 0, 1, X32_BIT),
        (RETURN, 0, 0, ERRNO | errno.ENOSYS),
        (JUMP_EQUAL, 0, 1, io_uring),
        (RETURN, 0, 0, ERRNO | errno.ENOSYS),
        (JUMP_EQUAL, 2, 0, socket),  # to the socket part
        (JUMP_EQUAL, 1 + len(socket_part), 0, ioctl),  # over it, to the ioctl part
        (RETURN, 0, 0, ALLOW),
    ]
    return head + socket_part + ioctl_part


def install(internet: bool) -> None:
    """Load the filter into this process and all it starts; `no_new_privs` must be set.
    Raises OSError where the kernel refuses, or on an architecture with no filter here."""
    machine = os.uname().machine
    if machine not in ARCHITECTURES:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {machine}")
    code = program(machine, internet)
    filters = (_Filter * len(code))(*(_Filter(*instruction) for instruction in code))
    prog = _Program(len(code), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"prctl(PR_SET_SECCOMP): {os.strerror(number)}")
