"""The typer command of `status.py`, for the lines the hand reader leaves to it.

`cli/entry.py` reads a plain line (known flags, each value its own word) itself; typer
reads the rest: `--help`, shell completion, `--flag=value`, and every line it refuses, in
click's words. `status` is typer's command as its documentation writes one: a function
whose parameters are the options, each declared with `Annotated[..., typer.Option(...)]`,
its flag, help and metavar taken from the table in `cli/actions.py`. Kept apart from
`entry` so the edit-time hooks never import typer, click or typing.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from automaton_rules.cli.actions import BY_NAME
from automaton_rules.support.errors import AutomatonError

EPILOG = """\
\b
Examples:
  status.py --create-task add-user-auth --project .
  status.py --task add-user-auth
  status.py --task add-user-auth --transition research
  status.py --task add-user-auth --approve      # only after the user says APPROVED
  status.py --task add-user-auth --approve --approver alice --key ~/.ssh/id_ed25519
  status.py --list --json
  status.py --validate-folder --task add-user-auth
  status.py --audit --write-baseline .automaton/baseline.json
  status.py --audit --baseline .automaton/baseline.json --since origin/main
  status.py --graph --task add-user-auth      # Mermaid; --format dot for Graphviz
  status.py --stats --json
  status.py --serve --project .   # the live dashboard (pip install 'automaton-rules[board]')

Exit codes: 0 done or clean, 1 refused by the workflow or violations found, 2 error.
"""
PROG = "status.py"
INTERRUPTED = 130  # what typer returns when Ctrl-C arrives while it parses


def declared(name: str) -> Any:
    """typer's declaration of the option the table names `name`."""
    row = BY_NAME[name]
    return typer.Option(row.flag, metavar=row.metavar, envvar=row.envvar, help=row.help)


def status(
    task: Annotated[Optional[str], declared("task")] = None,
    project: Annotated[Optional[Path], declared("project")] = None,
    transition: Annotated[Optional[str], declared("transition")] = None,
    approve: Annotated[bool, declared("approve")] = False,
    create_task: Annotated[Optional[str], declared("create_task")] = None,
    list_tasks: Annotated[bool, declared("list_tasks")] = False,
    validate_folder: Annotated[bool, declared("validate_folder")] = False,
    audit: Annotated[bool, declared("audit")] = False,
    list_rules: Annotated[bool, declared("list_rules")] = False,
    upgrade: Annotated[bool, declared("upgrade")] = False,
    claim: Annotated[bool, declared("claim")] = False,
    release: Annotated[bool, declared("release")] = False,
    follow_up: Annotated[bool, declared("follow_up")] = False,
    graph: Annotated[bool, declared("graph")] = False,
    stats: Annotated[bool, declared("stats")] = False,
    can_edit: Annotated[bool, declared("can_edit")] = False,
    scope_check: Annotated[bool, declared("scope_check")] = False,
    can_create_task: Annotated[bool, declared("can_create_task")] = False,
    same_session: Annotated[bool, declared("same_session")] = False,
    file: Annotated[Optional[str], declared("file")] = None,
    approver: Annotated[str, declared("approver")] = "user",
    key: Annotated[Optional[Path], declared("key")] = None,
    name: Annotated[Optional[str], declared("name")] = None,
    select: Annotated[Optional[str], declared("select")] = None,
    ignore: Annotated[Optional[str], declared("ignore")] = None,
    fail_on: Annotated[Optional[str], declared("fail_on")] = None,
    baseline: Annotated[Optional[Path], declared("baseline")] = None,
    write_baseline: Annotated[Optional[Path], declared("write_baseline")] = None,
    since: Annotated[Optional[str], declared("since")] = None,
    durations: Annotated[Optional[str], declared("durations")] = None,
    output_format: Annotated[Optional[str], declared("output_format")] = None,
    agent: Annotated[Optional[str], declared("agent")] = None,
    config: Annotated[Optional[Path], declared("config")] = None,
    as_json: Annotated[bool, declared("as_json")] = False,
    version: Annotated[bool, declared("version")] = False,
) -> dict[str, Any]:
    """Where a task stands in its workflow, and the only legal way to move it."""
    # Acted on outside typer, so its own exception handling never applies: every option
    # by the name the table gives it.
    return dict(locals())


def build_command() -> Any:
    """The click command typer makes of `status`."""
    app = typer.Typer(
        add_completion=True,  # --install-completion, --show-completion: typer is loaded anyway
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.command(epilog=EPILOG)(status)
    return typer.main.get_command(app)


def command() -> Any:
    """The command, built once per process: it holds no state of a run (click makes a
    fresh context for each), so a process that reads many lines (the test fixture, a
    long-lived host) builds it once."""
    if not _COMMAND:
        _COMMAND.append(build_command())
    return _COMMAND[0]


_COMMAND: list[Any] = []


def read(args: list[str], prog: str) -> dict[str, Any] | int:
    """The options of a line, or the exit code typer ended with having answered it
    itself (`--help`, shell completion); a line typer refuses is a usage error."""
    try:
        parsed = command().main(args=args, prog_name=prog, standalone_mode=False)
    except _usage_error() as exc:
        message = exc.format_message().rstrip(".")
        raise AutomatonError("usage", f"{message}. Run '{PROG} --help' for usage.") from None
    except SystemExit as exc:  # shell completion exits once it has printed
        return exc.code if isinstance(exc.code, int) else 0
    if parsed == INTERRUPTED:
        raise KeyboardInterrupt
    return parsed if isinstance(parsed, dict) else int(parsed or 0)


def _usage_error() -> Any:
    """click's `UsageError`: typer's own copy of click where it vendors it, else click's."""
    for module in ("typer._click.exceptions", "click.exceptions"):
        try:
            return importlib.import_module(module).UsageError
        except ImportError:
            continue
    raise ImportError("typer depends on click, vendored or not")
