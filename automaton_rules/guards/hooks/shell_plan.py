"""The adapter's answer to a shell line: refuse it, carry its workflow moves out, or run it
inside the session project's sandbox.

One rule: nothing the agent's shell starts runs outside the sandbox, wherever the harness
can rewrite a command. In this order:

1. A line of status.py moves with literal words (`guards/hooks/moves.py`) is carried out by the
   adapter itself on the session's project, and the line becomes one that prints what
   they printed.
2. What the reader sees no phase allows (an approval, a hook skip, a guard file written)
   is refused at once, with the messages agents parse.
3. Everything else, reads included, is rewritten to run inside the boundary of the
   session project's phase (`guards/sandbox/`), whatever folder the line runs in.

The session's project is the one the harness works in, never one a line's working folder
or arguments name. Where no sandbox holds the shell (no mechanism works, `sandbox = "off"`,
or a harness that cannot rewrite), the reader alone judges the line, and what would run
unconfined is held to the session's project: a status.py naming another project or a
configuration, and code run from a folder outside the project, are refused outside an
edit phase.
"""

from __future__ import annotations

import os
from pathlib import Path

from automaton_rules.core.project import inside
from automaton_rules.guards.sandbox.mechanisms import HOW_TO_ENABLE, Mechanism, choose
from automaton_rules.support.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from automaton_rules.core.config import Config
    from automaton_rules.core.project import Project
    from automaton_rules.guards.hooks.harnesses import Harness
    from automaton_rules.guards.hooks.moves import Call

REQUIRED = (
    "DENIED: This project runs the agent's shell only inside its sandbox (sandbox = "
    '"required"), and {why}.'
)
DENIED_BY_USER = (
    "DENIED: Your own {harness} permission settings deny this command; automaton-rules "
    "keeps them as they are."
)
ASKED_BY_USER = (
    "DENIED: Your own {harness} permission settings ask before this command, and "
    "automaton-rules carries a workflow move out before {harness} could ask. Ask the user "
    "to run it in a terminal: {line}"
)
UNCONFINED_STATUS = (
    "DENIED: status.py runs outside any sandbox here, so it may only work on this session's "
    "project ({root}): run it without --project and --config, from the project's folder."
)
OUTSIDE_FOLDER = (
    " This shell command runs in {folder}, outside the project, where what it starts is not "
    "the project's code and no sandbox holds it."
)


class ShellPlan(Record):
    """What the adapter answers a shell line: a refusal, or the line to run instead (None:
    as it is), what the user's own permission rules say of it, and the status.py moves the
    adapter carries out itself before the harness runs the line."""

    refusal: str | None = None
    command: str | None = None
    permission: str | None = None
    moves: list[Call] | None = None


def plan(
    line: str,
    cwd: Path | None,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool,
    harness: str,
    mark: Path | None = None,
) -> ShellPlan:
    """The answer to one shell line run in `cwd`; `finder` gives the session's project;
    a rewritten line first makes `mark`, outside the sandbox (guards/hooks/witness.py)."""
    from automaton_rules.core.config import load_config
    from automaton_rules.guards.hooks import harnesses, moves
    from automaton_rules.guards.shell import reader as shell

    record = harnesses.get(harness)
    where = cwd or Path.cwd()
    project = finder()
    if project is None:
        return _reader(line, where, finder, task, explicit, record)
    root = project.root.resolve()
    if record.rewrites:
        calls = moves.brokered(line, where, root)
        if calls is not None:
            return _carried(line, calls, project, record)
    settings = load_config(project.root)
    mechanism = _mechanism(settings, record, project.root)
    why = unavailable(settings, record, mechanism)
    if why is not None:
        if settings.sandbox == "required" and not shell.inert(line):
            return ShellPlan(REQUIRED.format(why=why))
        return _reader(line, where, finder, task, explicit, record, root)
    refusal = _refusal(line, where, finder, task, explicit, record)
    if refusal is not None:
        return ShellPlan(refusal)
    assert mechanism is not None
    return _sandboxed(line, where, project, settings, task, record, mechanism, mark)


def _refusal(
    line: str,
    cwd: Path,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool,
    record: Harness,
) -> str | None:
    """What the reader sees that no sandbox makes allowed (None: nothing)."""
    from automaton_rules.guards.shell import reader as shell

    if shell.plain_read(line):
        return None
    from automaton_rules.guards.shell import verdict as shell_verdict

    ruling = shell_verdict.rule(line, cwd, finder, task, explicit, typed=record.typed)
    return None if ruling.held else ruling.refusal


def _reader(
    line: str,
    cwd: Path,
    finder: Callable[[], Project | None],
    task: str | None,
    explicit: bool,
    record: Harness,
    root: Path | None = None,
) -> ShellPlan:
    """No sandbox: the reader's answer, and what would run unconfined held to the session's
    project (`root`; None outside any, where nothing is the guard's)."""
    from automaton_rules.guards.shell import reader as shell

    if shell.inert(line):
        return ShellPlan()
    if root is not None and _status_elsewhere(line, cwd, root):
        return ShellPlan(UNCONFINED_STATUS.format(root=root))
    ruling_refusal = None
    if not shell.plain_read(line) or (root is not None and not inside(cwd.resolve(), root)):
        from automaton_rules.guards.shell import verdict as shell_verdict

        ruling = shell_verdict.rule(line, cwd, finder, task, explicit, typed=record.typed)
        ruling_refusal = ruling.refusal
        if ruling_refusal is None and root is not None and not inside(cwd.resolve(), root):
            ruling_refusal = shell_verdict.phase_refusal(
                finder, task, cwd, OUTSIDE_FOLDER.format(folder=cwd)
            )
    return ShellPlan(ruling_refusal)


def _status_elsewhere(line: str, cwd: Path, root: Path) -> bool:
    """A status.py call (run unconfined) that names a configuration or another project,
    or finds its project from a folder outside the session's."""
    from automaton_rules.guards.shell import reader as shell

    calls = shell.read(line, cwd).calls if "status" in line else ()
    for call in calls:
        words = list(call.argv)
        if any(word.startswith("--conf") for word in words):
            return True
        named = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--project"]
        named += [word.split("=", 1)[1] for word in words if word.startswith("--project=")]
        paths = [Path(os.path.expanduser(path)) for path in named]
        if any((cwd / path).resolve() != root for path in paths):
            return True
        if not named and not inside(cwd.resolve(), root):
            return True
    return False


def _carried(line: str, calls: list[Call], project: Project, record: Harness) -> ShellPlan:
    """Moves the adapter carries out, unless the user's own rules deny or ask first."""
    from automaton_rules.guards.hooks import permissions

    said = permissions.decide(record.permission_rules(project.root.resolve(), Path.home()), line)
    if said == permissions.DENY:
        return ShellPlan(DENIED_BY_USER.format(harness=record.title))
    if said == permissions.ASK:
        return ShellPlan(ASKED_BY_USER.format(harness=record.title, line=line))
    return ShellPlan(None, None, permissions.ALLOW, calls)


def _sandboxed(
    line: str,
    cwd: Path,
    project: Project,
    settings: Config,
    task: str | None,
    record: Harness,
    mechanism: Mechanism,
    mark: Path | None = None,
) -> ShellPlan:
    from automaton_rules.guards.hooks import permissions
    from automaton_rules.guards.sandbox import boundary
    from automaton_rules.guards.sandbox.mechanisms import wrap
    from automaton_rules.guards.shell import reader as shell

    said = permissions.decide(record.permission_rules(project.root.resolve(), Path.home()), line)
    if said == permissions.DENY:
        return ShellPlan(DENIED_BY_USER.format(harness=record.title))
    if said == permissions.ASK and not record.asks_rewritten:
        return ShellPlan()  # no asking with a rewrite there: the user is asked about the line
    if said is None and shell.inert(line):
        said = permissions.ALLOW  # a plain read the harness would have let run unasked
    if record.short_rewrite:
        return ShellPlan(None, _through_launcher(line, project.root.resolve(), task, mark), said)
    limits = boundary.compute(project, settings, task, cwd=cwd)
    return ShellPlan(None, wrap(line, mechanism, limits, record.keeps_cwd, mark), said)


def _through_launcher(line: str, root: Path, task: str | None, mark: Path | None) -> str:
    """The line run by `automaton-sandbox` through the project's launcher, which computes
    the same boundary where the line runs: a line naming no path outside the project."""
    import shlex

    from automaton_rules.guards.hooks import witness
    from automaton_rules.guards.hooks.lookup import through_launcher
    from automaton_rules.guards.sandbox.mechanisms import shell

    args = ["--project", str(root), *(["--task", task] if task is not None else [])]
    args += ["--mark", witness.mark_id(mark)] if mark is not None else []
    inner = [Path(shell()).name, "-c", line]  # found on the sandbox's PATH: no outside path
    return shlex.join(through_launcher(str(root), "automaton-sandbox", *args, "--", *inner))


def describe(settings: Config, harness: str, root: Path) -> str:
    """One line for a starting session: what holds the agent's shell, or why nothing does."""
    from automaton_rules.guards.hooks import harnesses

    record = harnesses.get(harness)
    mechanism = _mechanism(settings, record, root)
    why = unavailable(settings, record, mechanism)
    if why is None:
        assert mechanism is not None
        return (
            f"Shell: every command you run goes inside an OS sandbox ({mechanism.name}): "
            "outside implement and doc_review the project is read-only, and in every phase "
            "the workflow's own files are; a private temporary folder and package caches "
            "are writable; secrets, the user's other processes and (outside the edit "
            "phases) the network are out of reach. status.py moves on a line of their own "
            "(--transition, --create-task, --claim) are carried out for you."
        )
    if settings.sandbox == "required":
        return f"Shell: refused, since this project requires a sandbox and {why}."
    return (
        f"Shell: no OS sandbox holds your commands ({why}); the reader alone guards your "
        "shell, and refuses what it cannot judge."
    )


def _mechanism(settings: Config, record: Harness, root: Path) -> Mechanism | None:
    """The mechanism that would hold this harness's shell here, if it may be rewritten."""
    if not record.rewrites or settings.sandbox == "off":
        return None
    return choose(record.runs_nested(root))


def unavailable(settings: Config, record: Harness, mechanism: Mechanism | None) -> str | None:
    """Why the reader alone guards the shell here (None: the sandbox holds it)."""
    if settings.sandbox == "off":
        return 'the project sets sandbox = "off"'
    if not record.rewrites:
        return record.no_rewrite
    if mechanism is None:
        return f"no sandbox mechanism works on this machine: {HOW_TO_ENABLE}"
    return None
