"""The typer command of `status.py`: every flag and its help, built only when needed.

Kept apart from `cli.py` so the edit-time hooks, which `cli.main` answers first, never
import typer, click or typing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

EPILOG = """\
\b
Examples:
  status.py --create-task add-user-auth --project .
  status.py --task add-user-auth
  status.py --task add-user-auth --transition research
  status.py --task add-user-auth --approve      # only after the user says APPROVED
  status.py --list --json
  status.py --validate-folder --task add-user-auth

Exit codes: 0 done or clean, 1 refused by the workflow or violations found, 2 error.
"""


def build_command() -> Any:
    """The typer command, built only when a command actually needs parsing."""
    import typer

    app = typer.Typer(
        add_completion=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @app.command(
        help="Where a task stands in its workflow, and the only legal way to move it.",
        epilog=EPILOG,
    )
    def status(
        task: Optional[str] = typer.Option(
            None, "--task", metavar="NAME", help="Task name; parent/sub for a sub-task."
        ),
        project: Optional[Path] = typer.Option(
            None,
            "--project",
            metavar="DIR",
            help="Project folder (default: nearest folder above with .automaton/tasks/).",
        ),
        transition: Optional[str] = typer.Option(
            None,
            "--transition",
            metavar="PHASE",
            help="Move --task to PHASE along a legal transition.",
        ),
        approve: bool = typer.Option(
            False, "--approve", help="Approve --task's artifact (from PHASE:awaiting_approval)."
        ),
        approver: str = typer.Option(
            "user", "--approver", metavar="ID", help="Who approves: 'user' or an agent id."
        ),
        create_task: Optional[str] = typer.Option(
            None,
            "--create-task",
            metavar="NAME",
            help="Create a task (kebab-case; parent/sub for a sub-task).",
        ),
        list_: bool = typer.Option(
            False, "--list", help="List every task with its phase and next step."
        ),
        validate_folder: bool = typer.Option(
            False,
            "--validate-folder",
            help="Check --task (or every task) for out-of-order artifacts.",
        ),
        upgrade: bool = typer.Option(
            False, "--upgrade", help="Bootstrap .state for task folders made by hand."
        ),
        audit: bool = typer.Option(
            False,
            "--audit",
            help="Audit every task: all rules, grouped report, exit 1 on violations.",
        ),
        output_format: str = typer.Option(
            "text",
            "--format",
            metavar="FORMAT",
            help="Audit report format: text, json, sarif, github.",
        ),
        select: Optional[str] = typer.Option(
            None,
            "--select",
            metavar="CODES",
            help="Audit only these rule codes or prefixes (comma-separated).",
        ),
        ignore: Optional[str] = typer.Option(
            None,
            "--ignore",
            metavar="CODES",
            help="Skip these rule codes or prefixes (comma-separated).",
        ),
        fail_on: Optional[str] = typer.Option(
            None,
            "--fail-on",
            metavar="SEVERITY",
            help="Exit 1 on findings at or above: error, warning, note.",
        ),
        claim: bool = typer.Option(
            False, "--claim", help="Multi-agent mode: claim --task for --agent (30 minutes)."
        ),
        release: bool = typer.Option(
            False, "--release", help="Multi-agent mode: give back --agent's claim on --task."
        ),
        follow_up: bool = typer.Option(
            False,
            "--follow-up",
            help="After a FAIL or NEEDS_REVIEW verdict of --task: create the fix or review task.",
        ),
        name: Optional[str] = typer.Option(
            None, "--name", metavar="NAME", help="Name of the --follow-up task (default TASK-fix)."
        ),
        agent: Optional[str] = typer.Option(
            None,
            "--agent",
            metavar="ID",
            envvar="AUTOMATON_AGENT",
            help="The agent running the command (multi-agent mode; default $AUTOMATON_AGENT).",
        ),
        can_edit: bool = typer.Option(
            False, "--can-edit", help="Hook: may code be edited now? ALLOWED (0) or DENIED (1)."
        ),
        scope_check: bool = typer.Option(
            False,
            "--scope-check",
            help="Hook: is --file inside the project? IN_SCOPE or OUT_OF_SCOPE.",
        ),
        can_create_task: bool = typer.Option(
            False, "--can-create-task", help="Hook: may a task be created? Always ALLOWED."
        ),
        same_session: bool = typer.Option(
            False, "--same-session", help="Hook: was --task created within the last 30 minutes?"
        ),
        file: Optional[str] = typer.Option(
            None, "--file", metavar="PATH", help="The file an edit hook asks about."
        ),
        list_rules: bool = typer.Option(
            False, "--list-rules", help="List every registered rule with its plugin."
        ),
        config: Optional[Path] = typer.Option(
            None,
            "--config",
            metavar="FILE",
            help="automaton.toml to use (default: the nearest one above the project).",
        ),
        as_json: bool = typer.Option(
            False, "--json", help="Print one JSON object instead of text."
        ),
        version: bool = typer.Option(False, "--version", help="Print the version and exit."),
    ) -> Invocation:
        return Invocation(dict(locals()))

    return typer.main.get_command(app)


class Invocation:
    """The parsed flags; run outside typer so its own exception handling never applies."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
