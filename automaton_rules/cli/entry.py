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
from automaton_rules.core.errors import AutomatonError, json_text, printable
from automaton_rules.core.project import STATUS_SCRIPT, use_invocation

# The edit-time hooks start here, so typing, json and the rest load on the full path only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from automaton_rules.cli.parser import Invocation
    from automaton_rules.cli.views import Outcome

SCHEMA_VERSION = 1
PROG = "status.py"

INTERRUPTED = 130  # what typer returns when Ctrl-C arrives while it parses

ACTIONS = (
    "transition",
    "approve",
    "create_task",
    "list",
    "validate_folder",
    "audit",
    "list_rules",
    "upgrade",
    "claim",
    "release",
    "follow_up",
    "can_edit",
    "scope_check",
    "can_create_task",
    "same_session",
)
HOOKS = ("can_edit", "scope_check", "can_create_task", "same_session")
_HOOK_FLAGS = frozenset("--" + hook.replace("_", "-") for hook in HOOKS)
# Options that only make sense with one action.
AUDIT_ONLY = ("select", "ignore", "fail_on")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _build_command() -> Any:
    """The typer command, built only when a command actually needs parsing."""
    from automaton_rules.cli.parser import build_command

    return build_command()


def _execute(parsed: Invocation) -> int:
    """Check the flags fit together, run the action, print its outcome."""
    opts = parsed.options
    as_json, task = opts["as_json"], opts["task"]
    if opts["version"]:
        from automaton_rules.cli.views import Outcome

        outcome = Outcome(0, f"automaton-rules {__version__}", {"version": __version__})
        return _finish(outcome, "version", as_json)
    chosen = {
        "transition": opts["transition"] is not None,
        "approve": opts["approve"],
        "create_task": opts["create_task"] is not None,
        "list": opts["list_"],
        "validate_folder": opts["validate_folder"],
        "audit": opts["audit"],
        "list_rules": opts["list_rules"],
        "upgrade": opts["upgrade"],
        "claim": opts["claim"],
        "release": opts["release"],
        "follow_up": opts["follow_up"],
        **{hook: opts[hook] for hook in HOOKS},
    }
    picked = [name for name in ACTIONS if chosen[name]]
    if len(picked) > 1:
        raise AutomatonError(
            "usage", f"{' and '.join(_flag(p) for p in picked)} cannot be combined."
        )
    action = picked[0] if picked else ("task" if task is not None else None)
    if action is None:
        raise AutomatonError(
            "usage",
            f"Nothing to do: pass --task NAME, --list or another action. Run '{PROG} --help'.",
        )
    if opts["file"] is not None and action not in ("can_edit", "scope_check"):
        raise AutomatonError("usage", "--file goes with --can-edit or --scope-check.")
    if action in HOOKS:
        from automaton_rules.guards import flags as hooks

        flag = _flag(action)
        return hooks.emit(
            flag,
            hooks.decide(
                flag, task=task, project=opts["project"], file=opts["file"], config=opts["config"]
            ),
            as_json,
        )
    if opts["approver"] != "user" and action != "approve":
        raise AutomatonError("usage", "--approver goes with --approve.")
    if opts["name"] is not None and action != "follow_up":
        raise AutomatonError("usage", "--name goes with --follow-up.")
    if action in ("transition", "approve", "claim", "release", "follow_up") and task is None:
        raise AutomatonError("usage", f"{_flag(action)} needs --task NAME.")
    if action in ("create_task", "list", "audit", "list_rules", "upgrade") and task is not None:
        raise AutomatonError("usage", f"{_flag(action)} does not take --task.")
    for name in AUDIT_ONLY:
        if opts[name] is not None and action != "audit":
            raise AutomatonError("usage", f"{_flag(name)} goes with --audit.")
    if opts["output_format"] != "text" and action != "audit":
        raise AutomatonError("usage", "--format goes with --audit (use --json elsewhere).")
    from automaton_rules.engine.findings import SEVERITIES

    if opts["fail_on"] is not None and opts["fail_on"] not in SEVERITIES:
        raise AutomatonError(
            "usage", f"Unknown severity '{opts['fail_on']}'; choose {', '.join(SEVERITIES)}."
        )
    keys = (
        "task",
        "project",
        "transition",
        "approver",
        "create_task",
        "config",
        "agent",
        "name",
        *AUDIT_ONLY,
        "output_format",
        "as_json",
    )
    outcome = _run(action, **{key: opts[key] for key in keys})
    return _finish(outcome, action.replace("_", "-"), as_json)


def _run(action: str, **opts: Any) -> Outcome:
    """Dispatch to the core; imported lazily so `--help` stays cheap."""
    from automaton_rules.cli import commands

    return getattr(commands, action)(**opts)


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

    if outcome.raw:
        _print(outcome.text, sys.stdout)
    elif as_json:
        body = {
            "schema_version": SCHEMA_VERSION,
            "tool": "automaton-rules",
            "command": command,
            "ok": outcome.exit_code == 0,
            "exit_code": outcome.exit_code,
            **outcome.payload,
        }
        if outcome.errors:
            body.setdefault("errors", outcome.errors)
        _print(json_text(body), sys.stdout)
    else:
        _print(outcome.text, sys.stdout)
        for error in outcome.errors:
            _print(f"ERROR: {printable(error, None)}", sys.stderr)
    return outcome.exit_code


def _fail(error: AutomatonError, command: str, as_json: bool) -> int:
    if as_json:
        body = {
            "schema_version": SCHEMA_VERSION,
            "tool": "automaton-rules",
            "command": command,
            "ok": False,
            "exit_code": error.exit_code,
            "error": {"code": error.code, "message": error.message, "text": error.text},
            "next": error.next_steps,
        }
        _print(json_text(body), sys.stdout)
    else:
        _print(error.text, sys.stderr)
    return error.exit_code


def _command_name(argv: Sequence[str]) -> str:
    for name in ACTIONS:
        if _flag(name) in argv:
            return name.replace("_", "-")
    return "task"


def _is_usage_error(exc: BaseException) -> bool:
    """Click's UsageError, whether typer vendors click or depends on it."""
    return any(cls.__name__ == "UsageError" for cls in type(exc).__mro__) and hasattr(
        exc, "format_message"
    )


def _invocation(argv0: str) -> str:
    """The command line that started this process, for the commands the output suggests."""
    import shlex

    path = Path(argv0)
    if path.suffix == ".py":
        script = path.resolve()
        if script == (Path.home() / ".automaton" / "scripts" / "status.py").resolve():
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
    prog = PROG
    use_invocation(STATUS_SCRIPT if argv is not None else _invocation(sys.argv[0]))
    if argv is None:
        prog = Path(sys.argv[0]).name or PROG
    _tolerant_streams()
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    command = _command_name(args)
    if any(arg in _HOOK_FLAGS for arg in args):
        from automaton_rules.guards import flags as hooks

        quick = hooks.parse(args)
        if quick is not None:
            return hooks.run(quick)
    try:
        from automaton_rules.cli.parser import Invocation

        parsed = _build_command().main(args=args, prog_name=prog, standalone_mode=False)
        if parsed == INTERRUPTED:
            raise KeyboardInterrupt
        if not isinstance(parsed, Invocation):
            return int(parsed or 0)
        return _execute(parsed)
    except AutomatonError as exc:
        return _fail(exc, command, as_json)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        error = AutomatonError("os-error", f"{where}{exc.strerror or exc}")
        return _fail(error, command, as_json)
    except KeyboardInterrupt:
        return _fail(AutomatonError("interrupted", "Interrupted."), command, as_json)
    except Exception as exc:
        if _is_usage_error(exc):
            message = exc.format_message().rstrip(".")  # type: ignore[attr-defined]
            return _fail(
                AutomatonError("usage", f"{message}. Run '{PROG} --help' for usage."),
                command,
                as_json,
            )
        if os.environ.get("AUTOMATON_DEBUG"):
            raise
        return _fail(
            AutomatonError(
                "internal-error",
                f"Internal error: {type(exc).__name__}: {exc}. "
                "Set AUTOMATON_DEBUG=1 for a traceback.",
            ),
            command,
            as_json,
        )
