"""The typer command of `status.py`: every option and its help, built only when needed.

Kept apart from `entry` so the edit-time hooks, which `entry.main` answers first, never
import typer, click or typing. `Invocation` declares the options, in the order `--help`
lists them; an action's flag and help come from `entry.ACTIONS`, every other option's
from `OPTIONS`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Optional, get_type_hints

from automaton_rules.cli.entry import ACTIONS

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


@dataclass(frozen=True)
class Invocation:
    """The parsed options; acted on outside typer so its own exception handling never applies."""

    task: Optional[str] = None
    project: Optional[Path] = None
    transition: Optional[str] = None
    approve: bool = False
    approver: str = "user"
    key: Optional[Path] = None
    create_task: Optional[str] = None
    list_tasks: bool = False
    validate_folder: bool = False
    upgrade: bool = False
    audit: bool = False
    output_format: Optional[str] = None
    select: Optional[str] = None
    ignore: Optional[str] = None
    fail_on: Optional[str] = None
    baseline: Optional[Path] = None
    write_baseline: Optional[Path] = None
    since: Optional[str] = None
    claim: bool = False
    release: bool = False
    follow_up: bool = False
    graph: bool = False
    stats: bool = False
    name: Optional[str] = None
    agent: Optional[str] = None
    can_edit: bool = False
    scope_check: bool = False
    can_create_task: bool = False
    same_session: bool = False
    file: Optional[str] = None
    list_rules: bool = False
    config: Optional[Path] = None
    as_json: bool = False
    version: bool = False


@dataclass(frozen=True)
class Option:
    """How typer spells and explains an option that is not an action."""

    flag: str
    help: str
    metavar: Optional[str] = None
    envvar: Optional[str] = None


OPTIONS = {
    "task": Option("--task", "Task name; parent/sub for a sub-task.", "NAME"),
    "project": Option(
        "--project", "Project folder (default: nearest folder above with .automaton/tasks/).", "DIR"
    ),
    "approver": Option(
        "--approver",
        "Who approves: 'user' or an agent id; with approval = \"signed\", a principal "
        "of the allowed signers file.",
        "ID",
    ),
    "key": Option(
        "--key",
        'SSH key to sign the approval with (approval = "signed"; default: git\'s user.signingkey).',
        "FILE",
    ),
    "output_format": Option(
        "--format",
        "With --audit: text (default), json, sarif, github, markdown, junit, gitlab or "
        "html. With --graph: mermaid (default) or dot.",
        "FORMAT",
    ),
    "select": Option(
        "--select", "Audit only these rule codes or prefixes (comma-separated).", "CODES"
    ),
    "ignore": Option("--ignore", "Skip these rule codes or prefixes (comma-separated).", "CODES"),
    "fail_on": Option(
        "--fail-on", "Exit 1 on findings at or above: error, warning, note.", "SEVERITY"
    ),
    "baseline": Option(
        "--baseline",
        "Audit against a baseline: fail only on findings it does not hold, and list its "
        "entries no longer found.",
        "FILE",
    ),
    "write_baseline": Option(
        "--write-baseline",
        "Record today's findings as a baseline (rule, task, path, commit) and exit 0.",
        "FILE",
    ),
    "since": Option(
        "--since",
        "Git rules read only the commits after REV (REV..HEAD), e.g. origin/main.",
        "REV",
    ),
    "name": Option("--name", "Name of the --follow-up task (default TASK-fix).", "NAME"),
    "agent": Option(
        "--agent",
        "The agent running the command (multi-agent mode; default $AUTOMATON_AGENT).",
        "ID",
        envvar="AUTOMATON_AGENT",
    ),
    "file": Option("--file", "The file an edit hook asks about.", "PATH"),
    "config": Option(
        "--config", "automaton.toml to use (default: the nearest one above the project).", "FILE"
    ),
    "as_json": Option("--json", "Print one JSON object instead of text."),
    "version": Option("--version", "Print the version and exit."),
}


def option(name: str) -> Option:
    """The spelling and help of one field of `Invocation`, action or not."""
    for action in ACTIONS:
        if action.name == name:
            return Option(action.flag, action.help, action.metavar)
    return OPTIONS[name]


def build_command() -> Any:
    """The typer command, built only when a command actually needs parsing."""
    import typer

    app = typer.Typer(
        add_completion=True,  # --install-completion, --show-completion: typer is loaded anyway
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.command(
        help="Where a task stands in its workflow, and the only legal way to move it.",
        epilog=EPILOG,
    )(_callback(typer))
    return typer.main.get_command(app)


def _callback(typer: Any) -> Callable[..., Invocation]:
    """A function typer reads as one option per field of `Invocation`, and that returns it."""
    types = get_type_hints(Invocation)

    def status(**options: Any) -> Invocation:
        return Invocation(**options)

    status.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=_declare(typer, field.name, field.default),
                annotation=types[field.name],
            )
            for field in fields(Invocation)
        ],
        return_annotation=Invocation,
    )
    return status


def _declare(typer: Any, name: str, default: object) -> Any:
    """typer's declaration of one option."""
    spelled = option(name)
    return typer.Option(
        default, spelled.flag, metavar=spelled.metavar, envvar=spelled.envvar, help=spelled.help
    )
