"""`automaton-sandbox`: any command inside the boundary of the project's current state, as
the agent's shell runs, and `--explain`, what that boundary is here."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from automaton_rules.guards.sandbox.mechanisms import HOW_TO_ENABLE, Mechanism, choose, shell
from automaton_rules.support.context import STATUS_SCRIPT
from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from automaton_rules.guards.sandbox.boundary import Boundary

USAGE = f"""\
usage: automaton-sandbox [--project DIR] [--task NAME] [--mark ID] [--explain] [-- COMMAND [ARG...]]

Runs COMMAND (default: $SHELL) inside the boundary of the project's current state, as the
agent's shell runs: the kernel refuses every write outside it, for every process COMMAND
starts. In implement and doc_review the project is writable, but for the guard's own
files; in every other phase it is read-only, .git included. A private temporary folder,
the package managers' caches and the project's `sandbox-writable` folders are always
writable; the rest of the machine never is. Secrets (SSH keys, browser profiles, cloud
credentials, `sandbox-hidden`) cannot be read; no other process of yours can be signalled
or reached through a socket; the network is on in the edit phases only
(`sandbox-network`), and then only to `sandbox-ports`. --explain prints the mechanism and
the boundary instead. --mark makes ~/.automaton/run/ID.ran first, outside the sandbox,
by which the adapter learns that a shell line it rewrote ran (ID is HARNESS-HEX/HEX).
Exit status: COMMAND's; 2 when no sandbox can be set up.

Examples:
  automaton-sandbox -- pytest -q
  automaton-sandbox --explain
  automaton-sandbox --project ~/work/app --task add-login -- make build

See docs/sandbox.md. Agents do not run this themselves: the adapter rewrites their shell
commands to run inside it. Its status.py: {STATUS_SCRIPT}.
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-sandbox`."""
    from automaton_rules.support.console import Script

    script = Script(
        "automaton-sandbox",
        USAGE,
        valued=("--project", "--task", "--mark"),
        switches=("--explain",),
    )
    words = list(sys.argv[1:] if argv is None else argv)
    command = words[words.index("--") + 1 :] if "--" in words else []
    own = words[: words.index("--")] if "--" in words else words
    return script.run(own, lambda options, _: _run(options, command))


def _run(options: dict[str, str | bool], command: list[str]) -> int:
    from automaton_rules.core.config import load_config
    from automaton_rules.core.project import find_project
    from automaton_rules.guards.sandbox import boundary as boundaries

    try:
        project = find_project(Path(str(options["project"])) if "project" in options else None)
        settings = load_config(project.root)
        task = str(options["task"]) if "task" in options else None
        limits = boundaries.compute(project, settings, task, cwd=Path.cwd())
    except AutomatonError as exc:
        sys.stderr.write(exc.text + "\n")
        return 2
    mechanism = choose(nested=os.environ.get("AUTOMATON_SANDBOX") is not None)
    if options.get("explain"):
        sys.stdout.write(explain(mechanism, limits))
        return 0 if mechanism is not None else 1
    if mechanism is None:
        sys.stderr.write(
            f"ERROR: automaton-sandbox: no sandbox mechanism works here: {HOW_TO_ENABLE}\n"
        )
        return 2
    if "mark" in options and not _marked(str(options["mark"])):
        return 2
    words = mechanism.argv(limits, command or [os.environ.get("SHELL") or shell()])
    try:
        os.execvp(words[0], words)
    except OSError as exc:
        sys.stderr.write(f"ERROR: automaton-sandbox: cannot run {words[0]}: {exc.strerror}\n")
        return 2


# A mark as the adapter names it (guards/hooks/witness.py, `mark_id`): the session's folder and
# the line's digest, nothing that could climb out of ~/.automaton/run.
_MARK = re.compile(r"[a-z]+-[0-9a-f]+/[0-9a-f]+")


def _marked(mark: str) -> bool:
    """Make the mark of a rewritten line, before it enters the sandbox (best effort, as
    the line's own `: >|MARK` was); False, said, for an ID that is not a mark's."""
    if _MARK.fullmatch(mark) is None:
        sys.stderr.write(f"ERROR: automaton-sandbox: --mark {mark!r} is not a mark\n")
        return False
    from automaton_rules.core.project import framework_home

    path = framework_home() / "run" / f"{mark}.ran"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:
        pass
    return True


def explain(mechanism: Mechanism | None, limits: Boundary) -> str:
    """What `--explain` prints: the mechanism, the phase's reach, and every path."""
    how = mechanism.name if mechanism is not None else f"none ({HOW_TO_ENABLE})"
    reach = "writable, but for the guard's files" if limits.editing else "read-only"
    if not limits.internet:
        network = "off (no connection leaves the sandbox)"
    elif mechanism is not None and not mechanism.ports_kept():
        network = "on, every port (this kernel cannot hold TCP to ports)"
    else:
        network = "on, TCP to ports " + ", ".join(str(port) for port in limits.ports)
    lines = [f"Sandbox: {how}", f"Project: {limits.project} ({reach})", f"Network: {network}"]
    lines += [f"Temporary folder: {limits.temp}", "Writable:"]
    lines += [f"  {path}" for path in limits.writable]
    lines += ["Read-only inside those:", *[f"  {path}" for path in limits.readonly]]
    lines += ["Hidden:", *[f"  {path}" for path in limits.hidden]]
    lines.append("Other processes: out of reach (no signals, no Unix sockets, no terminal input)")
    return "\n".join(lines) + "\n"
