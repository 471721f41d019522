"""Landlock: the write boundary kept by the kernel, for this process and all it starts.

Linux 5.13 and later let an unprivileged process give up rights for good (ABI 2 adds
`REFER`, which refuses links and renames across the boundary; ABI 3 `TRUNCATE`). Only
writes are restricted; reads and execution stay as they were. Landlock allows by
hierarchy: a right granted on a folder holds for everything below it, so a read-only path
inside a writable folder is kept by granting that folder's other entries one by one
(`rules`). The cost is that nothing can be created or removed directly in such a folder;
`docs/sandbox.md` says where that shows (bubblewrap, when it works, has no such limit).

The module imports only the standard library, so it also runs on its own, as the exec
shim of a rewritten shell command (`python -I -S landlock.py --write DIR ... --keep PATH
... -- CMD ARGS`), at the cost of an interpreter's start-up and nothing more.
"""

from __future__ import annotations

import ctypes
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

NAME = "landlock"
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
WRITE_FILE = 1 << 1
DIRECTORY_WRITES = sum(1 << bit for bit in range(4, 13))  # remove and make, every kind
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3


class _RulesetAttr(ctypes.Structure):
    _fields_ = (("handled_access_fs", ctypes.c_uint64),)


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


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


def rules(writable: Sequence[str], readonly: Sequence[str]) -> list[tuple[str, bool]]:
    """(path, is a folder) to grant: each writable root, but where a read-only path lies
    inside it, that root's other entries instead, down to the read-only path."""
    granted: list[tuple[str, bool]] = []
    kept = [os.path.normpath(path) for path in readonly]
    for root in writable:
        _carve(os.path.normpath(root), kept, granted)
    return granted


def _carve(path: str, kept: list[str], granted: list[tuple[str, bool]]) -> None:
    within = [k for k in kept if k == path or k.startswith(path.rstrip("/") + "/")]
    if not within:
        if not os.path.islink(path):
            granted.append((path, os.path.isdir(path)))
        return
    if path in within or not os.path.isdir(path) or os.path.islink(path):
        return  # read-only itself
    try:
        entries = sorted(os.listdir(path))
    except OSError:
        return
    for name in entries:
        _carve(os.path.join(path, name), within, granted)


def restrict(writable: Sequence[str], readonly: Sequence[str]) -> None:
    """Give up every write outside `writable` (less `readonly`), for good: this process
    and all it starts. Raises OSError where the kernel refuses."""
    version = abi()
    if version < 1:
        raise OSError(38, "this kernel offers no Landlock")
    handled, file_rights = rights(version)
    libc = _libc()
    attr = _RulesetAttr(handled)
    ruleset = libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        _raise("landlock_create_ruleset")
    try:
        for path, folder in rules(writable, readonly):
            _add(libc, ruleset, path, handled if folder else file_rights)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            _raise("prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(RESTRICT_SELF, ruleset, 0) != 0:
            _raise("landlock_restrict_self")
    finally:
        os.close(ruleset)


def _add(libc: ctypes.CDLL, ruleset: int, path: str, allowed: int) -> None:
    try:
        descriptor = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone since it was listed: nothing to grant
    try:
        beneath = _PathBeneathAttr(allowed, descriptor)
        if libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(beneath), 0) != 0:
            _raise(f"landlock_add_rule({path})")
    finally:
        os.close(descriptor)


def _raise(call: str) -> None:
    number = ctypes.get_errno()
    raise OSError(number, f"{call}: {os.strerror(number)}")


def main(argv: Sequence[str]) -> int:
    """`landlock.py --write DIR ... --keep PATH ... [--tmp DIR] -- CMD ARGS`: restrict,
    then become CMD; exit 126 with the reason when the kernel refuses."""
    writable: list[str] = []
    readonly: list[str] = []
    items = list(argv)
    while items and items[0] != "--":
        flag = items.pop(0)
        if not items:
            break
        value = items.pop(0)
        if flag == "--write":
            writable.append(value)
        elif flag == "--keep":
            readonly.append(value)
        elif flag == "--tmp":
            os.environ["TMPDIR"] = value
    os.environ["AUTOMATON_SANDBOX"] = NAME
    command = items[1:]
    if not command:
        sys.stderr.write("ERROR: automaton-rules sandbox: no command to run\n")
        return 2
    try:
        restrict(writable, readonly)
    except OSError as exc:
        sys.stderr.write(f"ERROR: automaton-rules could not enter its sandbox ({exc.strerror})\n")
        return 126
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"ERROR: cannot run {command[0]}: {exc.strerror}\n")
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
