"""Workflow moves the agent asks for from its shell, carried out by the adapter itself.

Inside the sandbox the task records are read-only, so `status.py --task T --transition X`
cannot write them there; run outside it, the same line was the door an agent walked
through (an agent-chosen `--project`, `--config`, working folder or environment loaded
its own plugins with the user's rights). So the adapter, before the harness runs the
line, reads it as data: nothing but status.py calls with literal words, joined by `&&`,
at least one of them a move (`MOVES`), none approving, none naming a configuration, a
project other than the session's, or anything else but the options a move or a view
takes. It then runs them itself, as a new process of this installation (`-I`: no
environment variable of Python's, no folder of the agent's on its path) in the session's
project, with the harness's environment, and rewrites the line into one that prints what
they printed and exits as they did. Any other status.py line runs inside the sandbox,
where it can read everything it needs and write nothing of the project's.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

CARRIED = (
    "automaton-rules carried out this status.py move itself, on the session's project; the "
    "command shows what it printed and its exit status."
)
# The actions that change a task's records, and the views that may share their line.
MOVES = frozenset({"--transition", "--create-task", "--claim", "--release", "--follow-up"})
MOVES |= {"--upgrade"}
VIEWS = frozenset({"--task", "--list", "--json"})
VALUED = frozenset({"--task", "--transition", "--create-task", "--agent", "--name", "--project"})
TAKEN = MOVES | VIEWS | VALUED
_PROGRAM = Lazy(r"^(?:\S*/)?(?:status\.py|automaton-status)$")
_PYTHON = Lazy(r"^(?:\S*/)?python(?:3(?:\.\d+)?)?$")
_SPECIAL = frozenset("$`<>|;&(){}\\\n#*?[!=")
BOOT = (
    "import sys;from automaton_rules.cli.entry import main;"
    "from automaton_rules.support.context import Context;"
    "sys.exit(main(sys.argv[2:],Context(invoked_as=sys.argv[1])))"
)


class Call:
    """One status.py call of the line: how it was started, and its arguments."""

    def __init__(self, invoked_as: str, args: list[str]) -> None:
        self.invoked_as = invoked_as
        self.args = args


def brokered(line: str, cwd: Path | None, root: Path) -> list[Call] | None:
    """The calls of a line the adapter carries out for the session's project `root`; None
    when the line is anything else (it then runs inside the sandbox)."""
    if len(line) > 4000 or any(char in line.replace("&&", " ") for char in _SPECIAL):
        return None
    calls = []
    for segment in line.split("&&"):
        try:
            words = shlex.split(segment)
        except ValueError:
            return None
        program = words[:2] if words and _PYTHON.match(words[0]) else words[:1]
        if not program or not _PROGRAM.match(program[-1]):
            return None
        args = words[len(program) :]
        if not _literal_options(args, cwd, root):
            return None
        calls.append(Call(" ".join(shlex.quote(word) for word in program), args))
    if not any(word in MOVES for call in calls for word in call.args):
        return None
    return calls


def _literal_options(args: list[str], cwd: Path | None, root: Path) -> bool:
    """Only the options a move or a view takes, each value its own word, and `--project`
    only as the session's own project."""
    index = 0
    while index < len(args):
        word = args[index]
        if word not in TAKEN:
            return False
        if word in VALUED:
            if index + 1 >= len(args) or args[index + 1].startswith("--"):
                return False
            if word == "--project" and not _same(args[index + 1], cwd, root):
                return False
            index += 1
        index += 1
    return True


def _same(named: str, cwd: Path | None, root: Path) -> bool:
    path = Path(named)
    path = path if path.is_absolute() else (cwd or root) / path
    try:
        return path.resolve() == root.resolve()
    except (OSError, RuntimeError):
        return False


def carry_out(calls: Sequence[Call], root: Path, seconds: float) -> tuple[str, str, int]:
    """Run the calls one after the other as `&&` would, in the session's project; what
    they printed and the exit status of the last one run."""
    import subprocess  # only where a move is carried out

    out: list[str] = []
    err: list[str] = []
    code = 0
    for call in calls:
        args = [*call.args, "--project", str(root)] if "--project" not in call.args else call.args
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", BOOT, call.invoked_as, *args],
                cwd=root,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="backslashreplace",
                timeout=seconds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            err.append(f"ERROR: status.py did not finish within {seconds:g} s\n")
            return "".join(out), "".join(err), 2
        out.append(done.stdout)
        err.append(done.stderr)
        code = 2 if done.returncode < 0 else done.returncode
        if code != 0:
            break
    return "".join(out), "".join(err), code


def printer(out: str, err: str, code: int) -> str:
    """A shell line that prints `out` and `err` and ends with status `code`."""
    parts = []
    if out:
        parts.append(f"printf '%s' {shlex.quote(out)}")
    if err:
        parts.append(f"printf '%s' {shlex.quote(err)} >&2")
    parts.append(f"(exit {int(code)})")
    return "; ".join(parts)
