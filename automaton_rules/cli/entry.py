"""The `status.py` command line: read the line, check it against the table, run the action,
print its outcome.

Flags follow the specification (`--task X --transition Y`), so one command with action
flags rather than sub-commands, every one a row of `cli/actions.py`. The line is read in
one place: a plain line (known flags, each value its own word, as agents and harnesses
write them) by hand, without loading typer, so the edit-time hooks and `--task` answer
fast; anything else (`--help`, completion, `--flag=value`, a mistake) by typer
(`cli/parser.py`). Every failure becomes exit 2 with an `ERROR:` line; nothing reaches the
user as a traceback.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from pathlib import Path

from automaton_rules.cli.actions import (
    ACTIONS,
    BY_FLAG,
    BY_NAME,
    EXCLUSIVE,
    NEEDS_TASK,
    NO_TASK,
    OPTIONS,
    PARTICULAR,
    PATH,
    SHOW_TASK,
    SWITCH,
    Action,
    refusal,
    resolve,
)
from automaton_rules.core.project import framework_home
from automaton_rules.support.context import STATUS_SCRIPT, Context, running
from automaton_rules.support.errors import AutomatonError, error_body
from automaton_rules.support.output import (
    envelope,
    json_text,
    message_lines,
    printable,
)
from automaton_rules.support.version import __version__

# The edit-time hooks start here, so typing, json and the rest load on the full path only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from automaton_rules.cli.run import Outcome

PROG = "status.py"
SERVE = "--serve"  # the dashboard (board/server.py), which reads the rest of the line


def _usage(message: str) -> AutomatonError:
    return AutomatonError("usage", message)


def read_line(args: list[str], prog: str) -> dict[str, Any] | int:
    """Every option of the line by the table's names, or the exit code typer ended with
    having answered the line itself (`--help`, shell completion)."""
    plain = read_plain(args)
    if plain is not None:
        return plain
    from automaton_rules.cli.parser import read

    return read(args, prog)


def read_plain(args: Sequence[str]) -> dict[str, Any] | None:
    """A plain line read as typer would read it; None for anything else, which typer
    reads: a flag the table does not have (`--help` too), `--flag=value`, a value that
    starts with `-`, an option given twice, a path typer would refuse, shell completion."""
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None
    values: dict[str, Any] = {}
    items = iter(args)
    for item in items:
        option = BY_FLAG.get(item)
        if option is None or option.name in values:
            return None
        if option.kind == SWITCH:
            values[option.name] = True
            continue
        value = next(items, None)
        if value is None or value.startswith("-"):
            return None
        if option.kind == PATH:
            if os.path.exists(value) and not os.access(value, os.R_OK):
                return None  # typer refuses a path it cannot read, in its words
            values[option.name] = Path(value)
        else:
            values[option.name] = value
    for option in OPTIONS:
        if option.name not in values:
            given = os.environ.get(option.envvar) if option.envvar else None
            values[option.name] = given or option.default
    return values


def _execute(values: dict[str, Any], context: Context) -> int:
    """Check the line fits the table, run the action, print its outcome."""
    if values["version"]:
        from automaton_rules.cli.run import Outcome

        outcome = Outcome(0, f"automaton-rules {__version__}", {"version": __version__})
        return _finish(outcome, "version", values["as_json"])
    action = _chosen(values)
    check(action, values)
    if action.hook:
        from automaton_rules.guards.edits import flags

        return flags.run(
            action.flag,
            task=values["task"],
            project=values["project"],
            file=in_project(values["file"], values["project"]),
            config=values["config"],
            as_json=values["as_json"],
            context=context,
        )
    return _finish(_dispatch(action, values, context), action.command, values["as_json"])


def in_project(file: str | None, project: Path | None) -> str | None:
    """`--file` as the hook reads it: a relative path is the project's, when `--project`
    names the project (a harness calls from anywhere with project-relative paths), else
    the current folder's; `~` and absolute paths stand as they are."""
    if not file or project is None or os.path.isabs(os.path.expanduser(file)):
        return file
    return os.path.join(os.path.expanduser(project), file)


def _chosen(values: dict[str, Any]) -> Action:
    """The one action asked for; --task alone shows the task."""
    picked = [action for action in ACTIONS if _given(action, values)]
    if len(picked) > 1:
        raise _usage(f"{' and '.join(action.flag for action in picked)} cannot be combined.")
    if picked:
        return picked[0]
    if _given(SHOW_TASK, values):
        return SHOW_TASK
    raise _usage(f"Nothing to do: pass --task NAME, --list or another action. Run '{PROG} --help'.")


def _given(action: Action, values: dict[str, Any]) -> bool:
    """Asked for: a valued flag even with an empty value, a switch when set."""
    value = values[action.name]
    return value is not None if action.metavar is not None else bool(value)


def check(action: Action, values: dict[str, Any]) -> None:
    """Refuse a line the action would read otherwise than meant: an option that goes with
    another action, `--task` where it needs one or takes none, a value none of its
    choices, options that exclude each other."""
    for option in PARTICULAR:
        if values[option.name] != option.default and option.name not in action.options:
            raise _usage(refusal(option))
    if action.task == NEEDS_TASK and values["task"] is None:
        raise _usage(f"{action.flag} needs --task NAME.")
    if action.task == NO_TASK and values["task"] is not None:
        raise _usage(f"{action.flag} does not take --task.")
    from automaton_rules.core.severity import SEVERITIES

    fail_on = values["fail_on"]
    if fail_on is not None and fail_on not in SEVERITIES:
        raise _usage(f"Unknown severity '{fail_on}'; choose {', '.join(SEVERITIES)}.")
    chosen = values["output_format"]
    formats: tuple[str, ...] = resolve(action.formats) if action.formats else ()
    if chosen is not None and formats and chosen not in formats:
        raise _usage(f"Unknown format '{printable(chosen)}'; choose {', '.join(formats)}.")
    for first, second in EXCLUSIVE:
        if values[first] is not None and values[second] is not None:
            raise _usage(f"{BY_NAME[first].flag} and {BY_NAME[second].flag} cannot be combined.")


def _dispatch(action: Action, values: dict[str, Any], context: Context) -> Outcome:
    """Run the action's handler with what it asks for, by name (`run`, the command line's
    context, and options), and hand what it returns to the action's view. Both are
    imported now, so `--help` and the hooks never load them."""
    from automaton_rules.cli.run import Run

    handler: Any = resolve(action.handler or "")
    view: Any = resolve(action.view or "")
    run = Run(context)
    code = handler.__code__
    asked = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    given = {name: run if name == "run" else values[name] for name in asked}
    return run.finish(view(handler(**given)))


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
    if outcome.notes:
        _print("\n".join(printable(line, None) for line in outcome.notes), sys.stderr)
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
    "read-only: run the move on a line of its own, with nothing else on it ({script} "
    "--task NAME --transition PHASE), and the hook carries it out for you."
)


def _fail(error: AutomatonError, command: str, as_json: bool) -> int:
    """A failure goes to stderr as text, or to stdout as the JSON answer a reader parses."""
    sandbox = os.environ.get("AUTOMATON_SANDBOX")
    if sandbox and error.code in ("write-failed", "lock-failed", "os-error", "unreadable"):
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


def answer_format(args: Sequence[str]) -> tuple[str, bool]:
    """What a line tells before it is read, so that a line that cannot be read is still
    answered as it asks: the action its JSON answer names, and whether it asks for JSON."""
    return _command_name(args), BY_NAME["as_json"].flag in args


def _as_error(exc: BaseException) -> AutomatonError | None:
    """Any other failure as one ERROR line; None when AUTOMATON_DEBUG asks for the traceback."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return AutomatonError("os-error", f"{where}{exc.strerror or exc}")
    if isinstance(exc, KeyboardInterrupt):
        return AutomatonError("interrupted", "Interrupted.")
    if os.environ.get("AUTOMATON_DEBUG"):
        return None
    return AutomatonError(
        "internal-error",
        f"Internal error: {type(exc).__name__}: {exc}. Set AUTOMATON_DEBUG=1 for a traceback.",
    )


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


def main(argv: Sequence[str] | None = None, context: Context | None = None) -> int:
    """Entry point of `status.py` and `automaton-status`; returns the exit code. `context`
    is the run's clock, plugin selection and invocation (the test fixture passes its own);
    by default the system's clock, every installed package, and how this process started."""
    if context is None:
        context = Context(
            invoked_as=STATUS_SCRIPT if argv is not None else _invoked_as(sys.argv[0])
        )
    with running(context):
        return _main(argv, context)


def _main(argv: Sequence[str] | None, context: Context) -> int:
    prog = PROG if argv is not None else (Path(sys.argv[0]).name or PROG)
    _tolerant_streams()
    args = list(sys.argv[1:] if argv is None else argv)
    if SERVE in args:  # the dashboard reads its own options (--project repeats)
        from automaton_rules.board.server import main as serve

        return serve([arg for arg in args if arg != SERVE])
    command, as_json = answer_format(args)
    try:
        values = read_line(args, prog)
        if isinstance(values, int):
            return values
        return _execute(values, context)
    except AutomatonError as exc:
        return _fail(exc, command, as_json)
    except (Exception, KeyboardInterrupt) as exc:
        error = _as_error(exc)
        if error is None:
            raise
        return _fail(error, command, as_json)


def audit_once(
    argv: Sequence[str], context: Context, formats: Sequence[str]
) -> tuple[Any, list[tuple[int, str, str]]] | None:
    """`--audit` run once, its report printed in each of `formats` as status.py prints it
    (exit code, stdout, stderr), and the report itself: the test fixture's one audit seen
    every way. None when the line runs no audit (a usage error, a configuration that
    fails, no `--audit`): running it as a command says why."""
    import dataclasses
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from automaton_rules.cli.run import Run
    from automaton_rules.report import format_named

    with running(context), redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        try:
            values = read_line(list(argv), PROG)
            if isinstance(values, int):
                return None
            action = _chosen(values)
            if action.command != "audit":
                return None
            check(action, values)
            handler: Any = resolve(action.handler or "")
            view: Any = resolve(action.view or "")
            run = Run(context)
            code = handler.__code__
            asked = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
            audited = handler(**{name: run if name == "run" else values[name] for name in asked})
        except AutomatonError:
            return None
    printed = []
    for fmt in formats:
        out, err = io.StringIO(), io.StringIO()
        with running(context), redirect_stdout(out), redirect_stderr(err):
            outcome = run.finish(view(dataclasses.replace(audited, fmt=fmt)))
            answer = values["as_json"] and format_named(fmt).answer
            exit_code = _finish(outcome, action.command, answer)
        printed.append((exit_code, out.getvalue(), err.getvalue()))
    return audited.report, printed
