"""The specification's tool-integration hooks on the command line, kept light.

`--can-edit`, `--scope-check`, `--can-create-task` and `--same-session` run before
edits, so `status.py` hands them here once it has read the line (`cli/entry.py`, without
typer) and answers without loading the command-line framework, the plugin manager,
typing, json (unless `--json` asks for it) or the workflow's writing side (unless
`untracked = "infer"` needs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from automaton_rules.core.config import load_config
from automaton_rules.core.project import find_project
from automaton_rules.guards.edits import checks as guard
from automaton_rules.support.context import DEFAULT, Context
from automaton_rules.support.errors import AutomatonError, error_body
from automaton_rules.support.output import envelope, json_text, printable


def decide(
    hook: str,
    *,
    task: str | None = None,
    project: str | Path | None = None,
    file: str | None = None,
    config: str | Path | None = None,
    context: Context = DEFAULT,
) -> guard.Decision:
    """Answer one hook; raises AutomatonError for bad input (exit 2)."""
    if hook == "--can-create-task":
        return guard.can_create_task()
    proj = find_project(Path(project) if project is not None else None).opened_by(context)
    settings = load_config(proj.root, Path(config) if config is not None else None)
    if task is not None and settings.untracked == "infer":
        from automaton_rules.workflow import infer_untracked

        infer_untracked(proj, task, settings.untracked)
    if hook == "--can-edit":
        decision = guard.can_edit(proj, task, file, settings=settings)
        return guard.edit_rules(decision, proj, settings, file)
    if hook == "--scope-check":
        if file is None:
            raise AutomatonError("usage", "--scope-check needs --file PATH.")
        if task is not None:
            proj.load(task)
        return guard.scope_check(proj, file)
    if task is None:
        raise AutomatonError("usage", "--same-session needs --task NAME.")
    return guard.same_session(proj, task, settings.same_session_minutes)


def emit(hook: str, outcome: guard.Decision | AutomatonError, as_json: bool) -> int:
    """Print the decision (or the error) and return the exit code."""
    command = hook.lstrip("-")
    if isinstance(outcome, AutomatonError):
        body = error_body(outcome)
        code, text, stream = outcome.exit_code, outcome.text, sys.stderr
    else:
        body = {
            "decision": outcome.text.split(":")[0],
            "allowed": outcome.allowed,
            "reason": outcome.code,
            "message": outcome.text,
            **outcome.details,
        }
        code, text, stream = outcome.exit_code, outcome.text, sys.stdout
    if as_json:
        text, stream = json_text(envelope(command, code, body)), sys.stdout
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass
    return code


def run(
    hook: str,
    *,
    task: str | None = None,
    project: str | Path | None = None,
    file: str | None = None,
    config: str | Path | None = None,
    as_json: bool = False,
    context: Context = DEFAULT,
) -> int:
    """Answer one hook line `cli/entry.py` has read and checked: the decision, or the
    error, never a traceback and never an answer that reads as allowed."""
    try:
        outcome: guard.Decision | AutomatonError = decide(
            hook, task=task, project=project, file=file, config=config, context=context
        )
    except AutomatonError as exc:
        outcome = exc
    except RecursionError:
        outcome = AutomatonError("unreadable", "A file is nested too deeply to read.")
    except Exception as exc:
        reason = printable(f"{type(exc).__name__}: {exc}", None)
        outcome = AutomatonError("internal-error", f"Internal error: {reason}")
    return emit(hook, outcome, as_json)
