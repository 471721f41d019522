"""The mechanisms that keep the boundary, one record each in one table, and the shell text
a harness's command is rewritten to.

bubblewrap is exact and, measured here, costs what a shell's start-up costs, so it comes
first wherever it works; Landlock needs no program and nests inside another sandbox
(Codex's own, Claude Code's when it is on), so it is the fallback, and the only one inside
those; macOS has `sandbox-exec`. A record says whether it works here (`found`), the
command line that runs a command inside a boundary (`argv`), and how it describes itself;
nothing else names a mechanism. Every command starts through the exec shim
(`confine.py`), which applies what the mechanism itself does not: the seccomp filter,
Landlock's network and scope rules, root's capabilities.
`AUTOMATON_SANDBOX_MECHANISM=NAME` narrows the choice to one (the tests run the suite
under each); it can only take a mechanism away, never add one.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from automaton_rules.core.project import framework_home
from automaton_rules.guards.sandbox import bubblewrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from automaton_rules.guards.sandbox.boundary import Boundary

PROBE_FILE = ("cache", "sandbox-probe")
ABI_FILE = ("cache", "landlock-abi")
NET_ABI = 4  # landlock.NET_ABI: TCP held to ports (the hook need not load ctypes to know)
PINNED = "AUTOMATON_SANDBOX_MECHANISM"
HOW_TO_ENABLE = (
    "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap) where user namespaces are allowed, or use a Linux kernel with Landlock "
    "(5.13 or later, on by default in most distributions); see docs/sandbox.md"
)
# The shim's start: the package's folder first on a path that holds nothing else (-I -S),
# then its `main`.
ROOT = str(Path(__file__).resolve().parents[3])
BOOT = (
    f"import sys;sys.path[:0]=[{ROOT!r}];"
    "from automaton_rules.guards.sandbox.confine import main;sys.exit(main())"
)


class Mechanism:
    """One way of keeping the boundary. `program` is what sets it up on this machine."""

    name = ""
    nests = False  # works inside another sandbox (the harness's own)

    def __init__(self, program: str = "") -> None:
        self.program = program

    def found(self, home: Path | None) -> Mechanism | None:
        """This mechanism, bound to its program, where it works here; else None."""
        raise NotImplementedError

    def argv(self, boundary: Boundary, command: Sequence[str]) -> list[str]:
        """The command line that runs `command` inside `boundary`."""
        raise NotImplementedError

    def ports_kept(self) -> bool:
        """Whether, with the network on, TCP is held to the boundary's ports (Landlock
        ABI 4, in the shim); where not, the whole network is open."""
        return landlock_abi() >= NET_ABI


class Bubblewrap(Mechanism):
    """Mount, PID, IPC and (network off) network namespaces of its own (bubblewrap.py)."""

    name = "bubblewrap"

    def found(self, home: Path | None) -> Mechanism | None:
        bwrap = bubblewrap.program()
        return Bubblewrap(bwrap) if bwrap is not None and _probe_once(bwrap, home) else None

    def argv(self, boundary: Boundary, command: Sequence[str]) -> list[str]:
        inner = shim(boundary, command, fs=False, ports=self.ports_kept())
        return bubblewrap.argv(self.program, boundary, inner)


class Landlock(Mechanism):
    """The kernel's own rules, set by the shim on itself (landlock.py)."""

    name = "landlock"
    nests = True

    def found(self, home: Path | None) -> Mechanism | None:
        return Landlock(sys.executable) if landlock_abi(home) >= 1 else None

    def argv(self, boundary: Boundary, command: Sequence[str]) -> list[str]:
        return shim(boundary, command, fs=True, ports=self.ports_kept())


class Seatbelt(Mechanism):
    """macOS's `sandbox-exec` with a profile (seatbelt.py); never run on these machines."""

    name = "seatbelt"

    def found(self, home: Path | None) -> Mechanism | None:
        if sys.platform != "darwin":
            return None
        from automaton_rules.guards.sandbox import seatbelt

        return Seatbelt(seatbelt.PROGRAM) if Path(seatbelt.PROGRAM).exists() else None

    def argv(self, boundary: Boundary, command: Sequence[str]) -> list[str]:
        from automaton_rules.guards.sandbox import seatbelt

        return ["env", f"AUTOMATON_SANDBOX={self.name}", *seatbelt.argv(boundary, command)]

    def ports_kept(self) -> bool:
        return True  # the profile names the ports


TABLE: tuple[Mechanism, ...] = (Bubblewrap(), Landlock(), Seatbelt())
NAMES = tuple(mechanism.name for mechanism in TABLE)


def choose(
    nested: bool = False, home: Path | None = None, environ: Mapping[str, str] | None = None
) -> Mechanism | None:
    """The first mechanism that works here; `nested`: commands run inside the harness's own
    sandbox, where only a mechanism that nests can work."""
    pinned = (os.environ if environ is None else environ).get(PINNED, "")
    for mechanism in TABLE:
        if (pinned and mechanism.name != pinned) or (nested and not mechanism.nests):
            continue
        found = mechanism.found(home)
        if found is not None:
            return found
    return None


def shim(boundary: Boundary, command: Sequence[str], fs: bool, ports: bool) -> list[str]:
    """The exec shim's command line: confine (the write boundary and the hidden paths too,
    where `fs`), then run `command`."""
    from automaton_rules.guards.sandbox.boundary import UNSET

    words = [sys.executable, "-I", "-S", "-c", BOOT, "--tmp", str(boundary.temp)]
    words += ["--internet", "yes" if boundary.internet else "no"]
    if boundary.internet and ports:
        words += ["--ports", ",".join(str(port) for port in boundary.ports)]
    for name in UNSET:
        words += ["--unset", name]
    if fs:
        words.append("--fs")
        words += [item for root in boundary.writable for item in ("--write", str(root))]
        words += [item for kept in boundary.readonly for item in ("--keep", str(kept))]
        words += [item for hidden in boundary.hidden for item in ("--hide", str(hidden))]
    return [*words, "--", *command]


def _probe_once(bwrap: str, home: Path | None) -> bool:
    """Whether bwrap works here, asked once per bwrap and kernel."""
    answer = _kept(PROBE_FILE, bubblewrap.version_key(bwrap), home, bubblewrap.probe, bwrap)
    return answer == "yes"


def landlock_abi(home: Path | None = None) -> int:
    """The kernel's Landlock ABI, asked once per kernel: asking loads ctypes, 3 ms of every
    hook's time."""

    def ask() -> str:
        from automaton_rules.guards.sandbox import landlock

        return str(landlock.abi())

    if not sys.platform.startswith("linux"):
        return 0
    answer = _kept(ABI_FILE, f"linux-{os.uname().release}", home, lambda _: ask(), "")
    return int(answer) if answer.isdigit() else 0


def _kept(
    where: tuple[str, ...], key: str, home: Path | None, compute: Callable[[str], object], arg: str
) -> str:
    """An answer about this machine kept under `~/.automaton/cache` (which no sandbox lets
    an agent write) for as long as `key` (a program's version, the kernel) is the same."""
    cache = framework_home(home).joinpath(*where)
    try:
        kept, _, answer = cache.read_text(encoding="utf-8").strip().rpartition(" ")
    except OSError:
        kept, answer = "", ""
    if kept == key and answer:
        return answer
    found = compute(arg)
    answer = ("yes" if found else "no") if isinstance(found, bool) else str(found)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f"{cache.name}.{os.getpid()}")
        tmp.write_text(f"{key} {answer}\n", encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        pass  # asked again next time
    return answer


def shell() -> str:
    """The shell a rewritten command line runs in: bash where there is one."""
    return "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"


def wrap(
    command: str,
    mechanism: Mechanism,
    boundary: Boundary,
    carry_cwd: bool,
    mark: Path | None = None,
) -> str:
    """Shell text that runs the line `command` inside the boundary, with its output, exit
    status and interrupt as they were. `carry_cwd`: hand the folder the line ends in back to
    the calling shell (Claude Code reads it after each command to keep `cd`). `mark`: a
    file the text makes before it starts, outside the sandbox, by which the adapter learns
    that the harness ran the rewritten line and not the agent's own."""
    marked = f"{{ : >|{shlex.quote(str(mark))}; }} 2>/dev/null; " if mark is not None else ""
    if not carry_cwd:
        return marked + shlex.join(mechanism.argv(boundary, [shell(), "-c", command]))
    inner = f"{{ {command}\n}} 3>&-; __automaton_status=$?; pwd -P >&3; exit $__automaton_status"
    runner = shlex.join(mechanism.argv(boundary, [shell(), "-c", inner]))
    return (
        f"{marked}{{ __automaton_cwd=$({runner} 3>&1 1>&4 4>&-); }} 4>&1; "
        '__automaton_status=$?; [ -n "$__automaton_cwd" ] && cd -- "$__automaton_cwd"; '
        "(exit $__automaton_status)"
    )
