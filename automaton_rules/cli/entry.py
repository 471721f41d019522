"""The `status.py` command line: parse flags, call the core, render the result.

Flags follow the specification (`--task X --transition Y`), so one command with
action flags rather than sub-commands. Every failure becomes exit 2 with an
`ERROR:` line; nothing reaches the user as a traceback.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from pathlib import Path

from automaton_rules import __version__
from automaton_rules.core.errors import AutomatonError
from automaton_rules.core.output import (
    envelope,
    error_body,
    json_text,
    message_lines,
)
from automaton_rules.core.project import STATUS_SCRIPT, framework_home
from automaton_rules.core.record import Record

# The edit-time hooks start here, so typing, json and the rest load on the full path only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from automaton_rules.cli.parser import Invocation
    from automaton_rules.cli.views import Outcome

PROG = "status.py"

INTERRUPTED = 130  # what typer returns when Ctrl-C arrives while it parses

# What an action asks of --task.
NEEDS_TASK = "needs"
TAKES_TASK = "takes"
NO_TASK = "refuses"


class Action(Record):
    """One action flag: how typer offers it, what it asks of --task, and who answers it."""

    _fields = ("name", "flag", "help", "metavar", "task", "hook")
    name: str  # its field in `Invocation`, and its function in `commands` unless a hook
    flag: str
    help: str
    metavar: str | None  # the value it takes; None for a switch
    task: str
    hook: bool

    def __init__(
        self,
        name: str,
        flag: str,
        help: str,
        *,
        metavar: str | None = None,
        task: str = TAKES_TASK,
        hook: bool = False,
    ) -> None:
        self._init(name, flag, help, metavar, task, hook)

    @property
    def command(self) -> str:
        """The action's name in JSON answers, so a reader matches it to the flag it typed."""
        return self.flag[2:]

    def chosen(self, parsed: Invocation) -> bool:
        """Asked for: a valued flag even with an empty value, a switch when set."""
        value = getattr(parsed, self.name)
        return value is not None if self.metavar is not None else bool(value)


# In the order `cannot be combined` names them and a failed parse looks for them.
ACTIONS = (
    Action(
        "transition",
        "--transition",
        "Move --task to PHASE along a legal transition.",
        metavar="PHASE",
        task=NEEDS_TASK,
    ),
    Action(
        "approve",
        "--approve",
        "Approve --task's artifact (from PHASE:awaiting_approval).",
        task=NEEDS_TASK,
    ),
    Action(
        "create_task",
        "--create-task",
        "Create a task (kebab-case; parent/sub for a sub-task).",
        metavar="NAME",
        task=NO_TASK,
    ),
    Action("list_tasks", "--list", "List every task with its phase and next step.", task=NO_TASK),
    Action(
        "validate_folder",
        "--validate-folder",
        "Check --task (or every task) for out-of-order artifacts.",
    ),
    Action(
        "audit",
        "--audit",
        "Audit every task: all rules, grouped report, exit 1 on violations.",
        task=NO_TASK,
    ),
    Action(
        "list_rules", "--list-rules", "List every registered rule with its plugin.", task=NO_TASK
    ),
    Action(
        "upgrade",
        "--upgrade",
        "Bootstrap .state for task folders made by hand; restore a lost or hand-edited .state.",
        task=NO_TASK,
    ),
    Action(
        "claim",
        "--claim",
        "Multi-agent mode: claim --task for --agent (30 minutes unless configured).",
        task=NEEDS_TASK,
    ),
    Action(
        "release",
        "--release",
        "Multi-agent mode: give back --agent's claim on --task.",
        task=NEEDS_TASK,
    ),
    Action(
        "follow_up",
        "--follow-up",
        "After a FAIL or NEEDS_REVIEW verdict of --task: create the fix or review task.",
        task=NEEDS_TASK,
    ),
    Action(
        "graph",
        "--graph",
        "Print the workflow as a diagram (Mermaid, or --format dot); with --task, its path.",
    ),
    Action(
        "stats",
        "--stats",
        "Time per phase, rework, waiting for approval and approvals, from each task's history.",
    ),
    Action(
        "can_edit",
        "--can-edit",
        "Hook: may code be edited now? ALLOWED (0) or DENIED (1).",
        hook=True,
    ),
    Action(
        "scope_check",
        "--scope-check",
        "Hook: is --file inside the project? IN_SCOPE or OUT_OF_SCOPE.",
        hook=True,
    ),
    Action(
        "can_create_task",
        "--can-create-task",
        "Hook: may a task be created? Always ALLOWED.",
        hook=True,
    ),
    Action(
        "same_session",
        "--same-session",
        "Hook: was --task created within the last 30 minutes?",
        hook=True,
    ),
)


def _flag(name: str) -> str:
    """An option's flag from its field name: `fail_on` is `--fail-on`."""
    return "--" + name.replace("_", "-")


# No action flag but --task: the task's own view.
SHOW_TASK = Action("task", "--task", "Where --task stands.", metavar="NAME", task=NEEDS_TASK)
_HOOK_FLAGS = frozenset(action.flag for action in ACTIONS if action.hook)
# Options that only make sense with one action.
AUDIT_ONLY = ("select", "ignore", "fail_on", "baseline", "write_baseline", "since")
# Option -> (its value when not given, the actions it goes with, the refusal otherwise),
# checked in this order so the first misplaced option is the one named.
BELONGS: tuple[tuple[str, object, tuple[str, ...], str], ...] = (
    ("file", None, ("can_edit", "scope_check"), "--file goes with --can-edit or --scope-check."),
    ("approver", "user", ("approve",), "--approver goes with --approve."),
    ("key", None, ("approve",), "--key goes with --approve."),
    ("name", None, ("follow_up",), "--name goes with --follow-up."),
)
LATE_BELONGS: tuple[tuple[str, object, tuple[str, ...], str], ...] = (
    *((name, None, ("audit",), f"{_flag(name)} goes with --audit.") for name in AUDIT_ONLY),
    (
        "output_format",
        None,
        ("audit", "graph"),
        "--format goes with --audit or --graph (use --json elsewhere).",
    ),
)
# The options the functions of `commands` read, by keyword.
COMMAND_OPTIONS = (
    "task",
    "project",
    "transition",
    "approver",
    "key",
    "create_task",
    "config",
    "agent",
    "name",
    *AUDIT_ONLY,
    "output_format",
    "as_json",
)


def _usage(message: str) -> AutomatonError:
    return AutomatonError("usage", message)


def _build_command() -> Any:
    """The typer command, built only when a command actually needs parsing, and once per
    process: it holds no state of a run (click makes a fresh context for each), so a
    process that parses many lines (the test fixture, a long-lived host) builds it once."""
    global _COMMAND
    if _COMMAND is None:
        from automaton_rules.cli.parser import build_command

        _COMMAND = build_command()
    return _COMMAND


_COMMAND: Any = None


def _execute(parsed: Invocation, invoked_as: str) -> int:
    """Check the flags fit together, run the action, print its outcome."""
    if parsed.version:
        from automaton_rules.cli.views import Outcome

        outcome = Outcome(0, f"automaton-rules {__version__}", {"version": __version__})
        return _finish(outcome, "version", parsed.as_json)
    action = _chosen(parsed)
    _check_belongs(BELONGS[:1], action, parsed)
    if action.hook:
        return _answer_hook(action, parsed, invoked_as)
    _check_options(action, parsed)
    return _finish(_run(action, parsed, invoked_as), action.command, parsed.as_json)


def _chosen(parsed: Invocation) -> Action:
    """The one action asked for; --task alone shows the task."""
    picked = [action for action in ACTIONS if action.chosen(parsed)]
    if len(picked) > 1:
        raise _usage(f"{' and '.join(action.flag for action in picked)} cannot be combined.")
    if picked:
        return picked[0]
    if SHOW_TASK.chosen(parsed):
        return SHOW_TASK
    raise _usage(f"Nothing to do: pass --task NAME, --list or another action. Run '{PROG} --help'.")


def _answer_hook(action: Action, parsed: Invocation, invoked_as: str) -> int:
    """A hook line the fast path left to typer (help, odd spelling) gets the same answer."""
    from automaton_rules.guards import flags

    decision = flags.decide(
        action.flag,
        task=parsed.task,
        project=parsed.project,
        file=parsed.file,
        config=parsed.config,
        invoked_as=invoked_as,
    )
    return flags.emit(action.flag, decision, parsed.as_json)


def _check_options(action: Action, parsed: Invocation) -> None:
    """Refuse what the action would silently ignore, rather than guess what was meant."""
    _check_belongs(BELONGS[1:], action, parsed)
    if action.task == NEEDS_TASK and parsed.task is None:
        raise _usage(f"{action.flag} needs --task NAME.")
    if action.task == NO_TASK and parsed.task is not None:
        raise _usage(f"{action.flag} does not take --task.")
    _check_belongs(LATE_BELONGS, action, parsed)
    from automaton_rules.core.severity import SEVERITIES

    if parsed.fail_on is not None and parsed.fail_on not in SEVERITIES:
        raise _usage(f"Unknown severity '{parsed.fail_on}'; choose {', '.join(SEVERITIES)}.")


def _check_belongs(
    table: tuple[tuple[str, object, tuple[str, ...], str], ...],
    action: Action,
    parsed: Invocation,
) -> None:
    """An option given to an action it does not go with is refused by name."""
    for name, unset, actions, message in table:
        if getattr(parsed, name) != unset and action.name not in actions:
            raise _usage(message)


def _run(action: Action, parsed: Invocation, invoked_as: str) -> Outcome:
    """Dispatch to the command; imported lazily so `--help` stays cheap."""
    from automaton_rules.cli import commands

    options = {name: getattr(parsed, name) for name in COMMAND_OPTIONS}
    return getattr(commands, action.name)(**options, invoked_as=invoked_as)


def _print(text: str, stream: Any) -> None:
    """Write a line; a closed or vanished stream must never change the exit code."""
    if not text or stream is None:
        return
    try:
        stream.write(text + "\n")
        stream.flush()
    except BrokenPipeError:
        # The reader went away (`status.py --list | head -1`): nothing left to tell it.
        with suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (OSError, ValueError):
        pass


def _finish(outcome: Outcome, command: str, as_json: bool) -> int:
    """Print the outcome as text, or as one JSON answer that carries its errors too."""
    if outcome.raw:
        _print(outcome.text, sys.stdout)
    elif as_json:
        body = envelope(command, outcome.exit_code, outcome.payload)
        if outcome.errors:
            body.setdefault("errors", outcome.errors)
        _print(json_text(body), sys.stdout)
    else:
        _print(_in_colour(outcome), sys.stdout)
    if outcome.raw or not as_json:  # a report in any format: its errors reach the log too
        for error in outcome.errors:
            _print("\n".join(message_lines(error)), sys.stderr)
    for warning in outcome.warnings:  # in every format: stdout stays the answer
        _print("\n".join(message_lines(warning, "WARNING: ")), sys.stderr)
    return outcome.exit_code


def _in_colour(outcome: Outcome) -> str:
    """The text in colour where stdout takes it (cli/style.py decides); plain otherwise,
    byte for byte. Only text views offer a painter: raw reports and JSON never change."""
    if outcome.painter is None:
        return outcome.text
    from automaton_rules.cli.style import Style

    style = Style.for_stream(sys.stdout, os.environ)
    return outcome.painter(style) if style.enabled else outcome.text


# The agent's sandbox keeps the task records read-only: a status.py that cannot write them
# there is told where it can.
IN_SANDBOX = (
    " This command ran inside the agent's sandbox ({how}), where the task records are "
    "read-only: run status.py on a line of its own ({script} --task NAME --transition "
    "PHASE), which runs outside it."
)


def _fail(error: AutomatonError, command: str, as_json: bool) -> int:
    """A failure goes to stderr as text, or to stdout as the JSON answer a reader parses."""
    sandbox = os.environ.get("AUTOMATON_SANDBOX")
    if sandbox and error.code in ("write-failed", "lock-failed", "os-error", "unreadable"):
        from automaton_rules.core.project import STATUS_SCRIPT

        hint = IN_SANDBOX.format(how=sandbox, script=STATUS_SCRIPT)
        error.message += hint
        error.text += hint
    if as_json:
        _print(json_text(envelope(command, error.exit_code, error_body(error))), sys.stdout)
    else:
        _print(error.text, sys.stderr)
    return error.exit_code


def _command_name(argv: Sequence[str]) -> str:
    """The action a line asks for, known even when the line fails to parse."""
    return next((action.command for action in ACTIONS if action.flag in argv), SHOW_TASK.command)


def _is_usage_error(exc: BaseException) -> bool:
    """Click's UsageError, whether typer vendors click or depends on it."""
    return any(cls.__name__ == "UsageError" for cls in type(exc).__mro__) and hasattr(
        exc, "format_message"
    )


def _as_error(exc: BaseException) -> AutomatonError | None:
    """Any other failure as one ERROR line; None when AUTOMATON_DEBUG asks for the traceback."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return AutomatonError("os-error", f"{where}{exc.strerror or exc}")
    if isinstance(exc, KeyboardInterrupt):
        return AutomatonError("interrupted", "Interrupted.")
    if _is_usage_error(exc):
        message = exc.format_message().rstrip(".")  # type: ignore[attr-defined]
        return _usage(f"{message}. Run '{PROG} --help' for usage.")
    if os.environ.get("AUTOMATON_DEBUG"):
        return None
    return AutomatonError(
        "internal-error",
        f"Internal error: {type(exc).__name__}: {exc}. Set AUTOMATON_DEBUG=1 for a traceback.",
    )


def _parse(args: Sequence[str], prog: str) -> Any:
    """The parsed `Invocation`, or the exit code typer ends with: its shell completion
    exits once it has printed, and only that exit is caught here."""
    try:
        return _build_command().main(args=list(args), prog_name=prog, standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0


def _invoked_as(argv0: str) -> str:
    """The command line that started this process, for the commands the output suggests."""
    import shlex

    path = Path(argv0)
    if path.suffix == ".py":
        script = path.resolve()
        if script == framework_home().joinpath("scripts", "status.py").resolve():
            return STATUS_SCRIPT
        return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    import shutil

    found = shutil.which(path.name)
    if found and Path(found).resolve() == path.resolve():
        return path.name
    return shlex.quote(str(path.resolve()))


def _tolerant_streams() -> None:
    """Characters the terminal cannot show are escaped rather than crashing the command."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `status.py` and `automaton-status`; returns the exit code."""
    invoked_as = STATUS_SCRIPT if argv is not None else _invoked_as(sys.argv[0])
    prog = PROG if argv is not None else (Path(sys.argv[0]).name or PROG)
    _tolerant_streams()
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    command = _command_name(args)
    if "--serve" in args:  # the dashboard reads its own options (--project repeats)
        from automaton_rules.board.server import main as serve

        return serve([arg for arg in args if arg != "--serve"])
    if any(arg in _HOOK_FLAGS for arg in args):
        from automaton_rules.guards import flags

        quick = flags.parse(args)
        if quick is not None:
            return flags.run(quick, invoked_as)
    try:
        from automaton_rules.cli.parser import Invocation

        parsed = _parse(args, prog)
        if parsed == INTERRUPTED:
            raise KeyboardInterrupt
        if not isinstance(parsed, Invocation):
            return int(parsed or 0)
        return _execute(parsed, invoked_as)
    except AutomatonError as exc:
        return _fail(exc, command, as_json)
    except (Exception, KeyboardInterrupt) as exc:
        error = _as_error(exc)
        if error is None:
            raise
        return _fail(error, command, as_json)
