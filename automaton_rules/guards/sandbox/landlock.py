"""Landlock: rights a process gives up for good, for itself and all it starts.

Linux 5.13 and later let an unprivileged process restrict itself, and each ABI adds what
can be restricted: file writes and reads (1), links and renames across the boundary (2),
truncation (3), TCP `bind` and `connect` by port (4), and signals and abstract Unix sockets
scoped to the sandbox (6). Landlock allows by hierarchy: a right granted on a folder holds
for everything below it, so a path kept out of a granted folder is kept by granting that
folder's other entries one by one (`carve`). The cost is that nothing can be created or
removed directly in a carved folder; `docs/sandbox.md` says where that shows.

Standard library only: the sandbox's exec shim (`confine.py`) runs it before anything of
the agent's does, with `python -I -S`.
"""

from __future__ import annotations

import ctypes
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
READ_FILE = 1 << 2
WRITE_FILE = 1 << 1
DIRECTORY_WRITES = sum(1 << bit for bit in range(4, 13))  # remove and make, every kind
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
NET_ABI, SCOPE_ABI = 4, 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The Landlock ABI this kernel offers; 0 where it offers none."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        found = _libc().syscall(CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(int(found), 0)


def rights(version: int) -> tuple[int, int]:
    """(every write right the ABI handles, the ones a rule on a file may hold)."""
    extra = (REFER if version >= 2 else 0) | (TRUNCATE if version >= 3 else 0)
    file_rights = WRITE_FILE | (TRUNCATE if version >= 3 else 0)
    return WRITE_FILE | DIRECTORY_WRITES | extra, file_rights


def carve(roots: Sequence[str], kept: Sequence[str]) -> list[tuple[str, bool]]:
    """(path, is a folder) to grant: each root, but where a kept path lies inside it, that
    root's other entries instead, down to the kept path."""
    granted: list[tuple[str, bool]] = []
    kept = [os.path.normpath(path) for path in kept]
    for root in roots:
        _carve(os.path.normpath(root), kept, granted)
    return granted


def rules(writable: Sequence[str], readonly: Sequence[str]) -> list[tuple[str, bool]]:
    """The write rules: each writable root, carved around the read-only paths in it."""
    return carve(writable, readonly)


def _carve(path: str, kept: list[str], granted: list[tuple[str, bool]]) -> None:
    prefix = path.rstrip("/") + "/"
    within = [k for k in kept if k == path or k.startswith(prefix)]
    if not within:
        if not os.path.islink(path):
            granted.append((path, os.path.isdir(path)))
        return
    if path in within or not os.path.isdir(path) or os.path.islink(path):
        return  # kept itself
    try:
        entries = sorted(os.listdir(path))
    except OSError:
        return
    for name in entries:
        _carve(os.path.join(path, name), within, granted)


PR_SET_NO_NEW_PRIVS = 38


class Ruleset:
    """A ruleset being built: what it handles, then the rights it grants."""

    def __init__(self, version: int, fs: int, net: int, scoped: int) -> None:
        self.libc = _libc()
        attr = _RulesetAttr(fs, net if version >= NET_ABI else 0, scoped)
        size = 24 if version >= SCOPE_ABI else 16 if version >= NET_ABI else 8
        self.fd = int(self.libc.syscall(CREATE_RULESET, ctypes.byref(attr), size, 0))
        if self.fd < 0:
            _raise("landlock_create_ruleset")

    def grant_path(self, path: str, allowed: int) -> None:
        """`allowed` on `path` and everything below it (a file: on the file)."""
        try:
            descriptor = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # gone since it was listed: nothing to grant
        try:
            beneath = _PathBeneathAttr(allowed, descriptor)
            if self.libc.syscall(ADD_RULE, self.fd, RULE_PATH_BENEATH, ctypes.byref(beneath), 0):
                _raise(f"landlock_add_rule({path})")
        finally:
            os.close(descriptor)

    def grant_port(self, port: int, allowed: int) -> None:
        """`allowed` (bind, connect) on one TCP port."""
        attr = _NetPortAttr(allowed, port)
        if self.libc.syscall(ADD_RULE, self.fd, RULE_NET_PORT, ctypes.byref(attr), 0):
            _raise(f"landlock_add_rule(port {port})")

    def enforce(self) -> None:
        """Restrict this thread, and all it starts, for good."""
        try:
            if self.libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                _raise("prctl(PR_SET_NO_NEW_PRIVS)")
            if self.libc.syscall(RESTRICT_SELF, self.fd, 0) != 0:
                _raise("landlock_restrict_self")
        finally:
            os.close(self.fd)


def restrict(
    writable: Sequence[str] | None,
    readonly: Sequence[str] = (),
    hidden: Sequence[str] = (),
    ports: Sequence[int] | None = None,
) -> int:
    """Give up, for good: writes outside `writable` (less `readonly`; None: writes are
    not restricted here), reads of `hidden`, TCP to ports not in `ports` (None: no limit),
    and signals and abstract sockets to anything outside. Returns the ABI used; raises
    OSError where the kernel refuses."""
    version = abi()
    if version < 1:
        raise OSError(38, "this kernel offers no Landlock")
    handled, file_rights = rights(version) if writable is not None else (0, 0)
    handled |= READ_FILE if hidden else 0
    net = NET_BIND_TCP | NET_CONNECT_TCP if ports is not None and version >= NET_ABI else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= SCOPE_ABI else 0
    if not (handled or net or scoped):
        return version
    ruleset = Ruleset(version, handled, net, scoped)
    for path, folder in carve(writable or (), readonly):
        ruleset.grant_path(path, (handled & ~READ_FILE) if folder else file_rights)
    if hidden:
        for path, _ in carve(["/"], hidden):
            ruleset.grant_path(path, READ_FILE)
    if net:
        for port in ports or ():
            ruleset.grant_port(port, NET_CONNECT_TCP)
    ruleset.enforce()
    return version


def _raise(call: str) -> None:
    number = ctypes.get_errno()
    raise OSError(number, f"{call}: {os.strerror(number)}")
