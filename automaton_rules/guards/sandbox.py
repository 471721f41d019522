"""The agent's shell inside its phase: the mechanism that holds the boundary here, the
runner `automaton-sandbox`, and the shell text a harness's command is rewritten to.

The boundary comes from `guards/boundary.py`; a mechanism makes the kernel keep it for
every process the command starts. bubblewrap is exact and, measured here, costs what a
shell's start-up costs, so it comes first wherever it works; Landlock needs no program
and nests inside another sandbox (Codex's own, Claude Code's when it is on), so it is the
fallback, and the only one inside those; macOS has `sandbox-exec`. The setting `sandbox`
says what happens where none works: `required` refuses shell commands, `auto` (the
default) falls back to the reader and says so, `off` is the reader alone.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from automaton_rules.core.project import framework_home
from automaton_rules.guards import bubblewrap, seatbelt
from automaton_rules.support.context import STATUS_SCRIPT
from automaton_rules.support.errors import AutomatonError
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from automaton_rules.core.config import Config
    from automaton_rules.core.project import Project
    from automaton_rules.guards.boundary import Boundary
    from automaton_rules.guards.harnesses import Harness

PROBE_FILE = ("cache", "sandbox-probe")
HOW_TO_ENABLE = (
    "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap) where user namespaces are allowed, or use a Linux kernel with Landlock "
    "(5.13 or later, on by default in most distributions); see docs/sandbox.md"
)


class Mechanism(Record):
    """How the boundary is kept: its name and the program that sets it up."""

    _fields = ("name", "program")
    name: str  # "bubblewrap", "landlock" or "seatbelt"
    program: str

    def __init__(self, name: str, program: str) -> None:
        self._init(name, program)


def choose(nested: bool = False, home: Path | None = None) -> Mechanism | None:
    """The first mechanism that works here; `nested`: commands run inside the harness's own
    sandbox, where bubblewrap cannot make its namespaces but Landlock stacks."""
    if sys.platform == "darwin":
        return (
            Mechanism(seatbelt.NAME, seatbelt.PROGRAM) if Path(seatbelt.PROGRAM).exists() else None
        )
    bwrap = None if nested else bubblewrap.program()
    if bwrap is not None and _probe_once(bwrap, home):
        return Mechanism(bubblewrap.NAME, bwrap)
    from automaton_rules.guards import landlock  # ctypes: only where bubblewrap is not

    if landlock.abi() >= 1:
        return Mechanism(landlock.NAME, sys.executable)
    return None


def _probe_once(bwrap: str, home: Path | None) -> bool:
    """Whether bwrap works here, asked once per bwrap and kernel: the answer is kept in
    `~/.automaton/cache/sandbox-probe`, which no sandbox lets an agent write."""
    cache = framework_home(home).joinpath(*PROBE_FILE)
    key = bubblewrap.version_key(bwrap)
    try:
        kept, _, answer = cache.read_text(encoding="utf-8").strip().rpartition(" ")
    except OSError:
        kept, answer = "", ""
    if kept == key and answer in ("yes", "no"):
        return answer == "yes"
    works = bubblewrap.probe(bwrap)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f"{cache.name}.{os.getpid()}")
        tmp.write_text(f"{key} {'yes' if works else 'no'}\n", encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        pass  # asked again next time
    return works


def argv(mechanism: Mechanism, boundary: Boundary, command: Sequence[str]) -> list[str]:
    """The command line that runs `command` inside `boundary` with `mechanism`."""
    if mechanism.name == bubblewrap.NAME:
        return bubblewrap.argv(mechanism.program, boundary, command)
    if mechanism.name == seatbelt.NAME:
        return ["env", f"AUTOMATON_SANDBOX={seatbelt.NAME}", *seatbelt.argv(boundary, command)]
    from automaton_rules.guards import landlock

    words = [mechanism.program, "-I", "-S", landlock.__file__]
    words += [item for root in boundary.writable for item in ("--write", str(root))]
    words += [item for kept in boundary.readonly for item in ("--keep", str(kept))]
    return [*words, "--tmp", str(boundary.temp), "--", *command]


def shell() -> str:
    """The shell a rewritten command line runs in: bash where there is one."""
    return "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"


def wrap(command: str, mechanism: Mechanism, boundary: Boundary, carry_cwd: bool) -> str:
    """Shell text that runs the line `command` inside the boundary, with its output, exit
    status and interrupt as they were. `carry_cwd`: hand the folder the line ends in back to
    the calling shell (Claude Code reads it after each command to keep `cd`)."""
    if not carry_cwd:
        return shlex.join(argv(mechanism, boundary, [shell(), "-c", command]))
    inner = f"{{ {command}\n}} 3>&-; __automaton_status=$?; pwd -P >&3; exit $__automaton_status"
    runner = shlex.join(argv(mechanism, boundary, [shell(), "-c", inner]))
    return (
        f"{{ __automaton_cwd=$({runner} 3>&1 1>&4 4>&-); }} 4>&1; __automaton_status=$?; "
        '[ -n "$__automaton_cwd" ] && cd -- "$__automaton_cwd"; (exit $__automaton_status)'
    )


def trusted_status(calls: Sequence[tuple[str, bool]], cwd: Path, home: Path | None = None) -> bool:
    """Whether every status.py a line names is the installed one, which no agent can change:
    `~/.automaton/scripts/status.py`, or `automaton-status`/`status.py` found on PATH in a
    folder the sandbox keeps read-only."""
    import shutil

    installed = framework_home(home).joinpath("scripts", "status.py").resolve()
    for word, script in calls:
        if script:
            path = Path(os.path.expanduser(word))
            if (path if path.is_absolute() else cwd / path).resolve() != installed:
                return False
            continue
        found = shutil.which(word)
        if found is None or "/" in word:
            return False
    return True


def describe(settings: Config, harness: str, root: Path) -> str:
    """One line for a starting session: what holds the agent's shell, or why nothing does."""
    from automaton_rules.guards import harnesses

    kind = harnesses.get(harness)
    mechanism = _mechanism(settings, kind, root)
    why = unavailable(settings, kind, mechanism)
    if why is None:
        assert mechanism is not None
        return (
            f"Shell: your commands run inside an OS sandbox ({mechanism.name}): outside "
            "implement and doc_review the project is read-only, and in every phase the "
            "workflow's own files are; a temporary folder and package caches are writable. "
            "Run status.py on a line of its own: it runs outside the sandbox."
        )
    if settings.sandbox == "required":
        return f"Shell: refused, since this project requires a sandbox and {why}."
    return (
        f"Shell: no OS sandbox holds your commands ({why}); the reader refuses what it "
        "cannot judge."
    )


def _mechanism(settings: Config, kind: Harness, root: Path) -> Mechanism | None:
    """The mechanism that would hold this harness's shell here, if it may be rewritten."""
    if not kind.rewrites or settings.sandbox == "off":
        return None
    return choose(kind.runs_nested(root))


def unavailable(settings: Config, kind: Harness, mechanism: Mechanism | None) -> str | None:
    """Why the reader alone guards the shell here (None: the sandbox holds it)."""
    if settings.sandbox == "off":
        return 'the project sets sandbox = "off"'
    if not kind.rewrites:
        return kind.no_rewrite
    if mechanism is None:
        return f"no sandbox mechanism works on this machine: {HOW_TO_ENABLE}"
    return None


USAGE = f"""\
usage: automaton-sandbox [--project DIR] [--task NAME] [--explain] [-- COMMAND [ARG...]]

Runs COMMAND (default: $SHELL) inside the write boundary of the project's current state,
as the agent's shell runs: the kernel refuses every write outside it, for every process
COMMAND starts. In implement and doc_review the project is writable, but for the guard's
own files; in every other phase it is read-only, .git included. A temporary folder, the
package managers' caches and the project's `sandbox-writable` folders are always writable;
the rest of the machine never is. --explain prints the mechanism and the boundary instead.
Exit status: COMMAND's; 2 when no sandbox can be set up.

Examples:
  automaton-sandbox -- pytest -q
  automaton-sandbox --explain
  automaton-sandbox --project ~/work/app --task add-login -- make build

See docs/sandbox.md. Agents do not run this themselves: the adapter rewrites their shell
commands to run inside it. Its status.py: {STATUS_SCRIPT}.
"""


def main(argv_: Sequence[str] | None = None) -> int:
    """Console script `automaton-sandbox`."""
    from automaton_rules.support.console import Script

    script = Script(
        "automaton-sandbox", USAGE, valued=("--project", "--task"), switches=("--explain",)
    )
    words = list(sys.argv[1:] if argv_ is None else argv_)
    command = words[words.index("--") + 1 :] if "--" in words else []
    own = words[: words.index("--")] if "--" in words else words
    return script.run(own, lambda options, _: _run(options, command))


def _run(options: dict[str, str | bool], command: list[str]) -> int:
    from automaton_rules.core.config import load_config
    from automaton_rules.core.project import find_project
    from automaton_rules.guards import boundary as boundaries

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
    return _exec(mechanism, limits, command or [os.environ.get("SHELL") or shell()])


def _exec(mechanism: Mechanism, limits: Boundary, command: list[str]) -> int:
    """Become `command` inside the boundary; only a failure to do so returns."""
    from automaton_rules.guards import landlock

    if mechanism.name == landlock.NAME:  # in this process: no second interpreter
        try:
            landlock.restrict([str(p) for p in limits.writable], [str(p) for p in limits.readonly])
        except OSError as exc:
            sys.stderr.write(f"ERROR: automaton-sandbox: Landlock refused ({exc.strerror})\n")
            return 2
        os.environ.update(TMPDIR=str(limits.temp), AUTOMATON_SANDBOX=landlock.NAME)
        words = command
    else:
        words = argv(mechanism, limits, command)
    try:
        os.execvp(words[0], words)
    except OSError as exc:
        sys.stderr.write(f"ERROR: automaton-sandbox: cannot run {words[0]}: {exc.strerror}\n")
        return 127 if mechanism.name == landlock.NAME else 2


def explain(mechanism: Mechanism | None, limits: Boundary) -> str:
    """What `--explain` prints: the mechanism, the phase's reach, and every path."""
    how = mechanism.name if mechanism is not None else f"none ({HOW_TO_ENABLE})"
    reach = "writable, but for the guard's files" if limits.editing else "read-only"
    lines = [f"Sandbox: {how}", f"Project: {limits.project} ({reach})", "Writable:"]
    lines += [f"  {path}" for path in limits.writable]
    lines += ["Read-only inside those:", *[f"  {path}" for path in limits.readonly]]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the adapter's plan


REQUIRED = (
    "DENIED: This project runs the agent's shell only inside its sandbox (sandbox = "
    '"required"), and {why}.'
)
DENIED_BY_USER = (
    "DENIED: Your own {harness} permission settings deny this command; automaton-rules "
    "keeps them as they are."
)


class ShellPlan(Record):
    """What the adapter answers a shell line: a refusal, or the line to run instead (None:
    as it is) and what the user's own permission rules say of it."""

    _fields = ("refusal", "command", "permission")
    refusal: str | None
    command: str | None
    permission: str | None

    def __init__(
        self, refusal: str | None = None, command: str | None = None, permission: str | None = None
    ) -> None:
        self._init(refusal, command, permission)


def plan(
    line: str,
    cwd: Path | None,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool,
    harness: str,
) -> ShellPlan:
    """Refuse what the reader sees is forbidden; run the rest inside the boundary where a
    sandbox works, and by the reader's answer where none does."""
    from automaton_rules.guards import harnesses, shell

    if shell.inert(line):
        return ShellPlan()
    kind = harnesses.get(harness)
    where = cwd or Path.cwd()
    refusal, held = None, False  # a test runner or a build: nothing to refuse, much to hold
    if not shell.plain_read(line):
        from automaton_rules.guards import shell_verdict

        ruling = shell_verdict.rule(line, where, finder, task, explicit, typed=kind.typed)
        refusal, held = ruling.refusal, ruling.held
    if refusal is not None and not held:
        return ShellPlan(refusal)
    project = finder()
    calls = shell.status_calls(line)
    if project is None or (calls is not None and trusted_status(calls, where)):
        return ShellPlan(refusal)
    return _sandboxed(line, where, project, task, kind, refusal)


def _sandboxed(
    line: str,
    cwd: Path,
    project: Project,
    task: str | None,
    kind: Harness,
    refusal: str | None,
) -> ShellPlan:
    from automaton_rules.core.config import load_config
    from automaton_rules.guards import boundary, permissions

    settings = load_config(project.root)
    mechanism = _mechanism(settings, kind, project.root)
    why = unavailable(settings, kind, mechanism)
    if why is not None:
        return ShellPlan(REQUIRED.format(why=why) if settings.sandbox == "required" else refusal)
    assert mechanism is not None
    said = permissions.decide(kind, line, project.root.resolve(), Path.home())
    if said == permissions.DENY:
        return ShellPlan(DENIED_BY_USER.format(harness=kind.title))
    if said == permissions.ASK and not kind.asks_rewritten:
        return ShellPlan()  # no asking with a rewrite there: the user is asked about the line
    limits = boundary.compute(project, settings, task, cwd=cwd)
    return ShellPlan(None, wrap(line, mechanism, limits, kind.keeps_cwd), said)
