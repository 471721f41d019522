"""The command line: reading `status.py`'s flags, running a command, printing its outcome.

`actions` is the table of options and actions everything else is built from, `entry` the
front door (light enough for the edit-time hooks and `--task`, which it answers without
typer), `parser` declares the options for typer, `run` the context a handler runs in and
the outcome it prints, `task_view`, `commands` and `audit` the handlers, `views` renders
the specification's texts, and `install` writes harness settings and git hooks. It may
import every other layer; nothing imports it.
"""

from automaton_rules.cli.entry import main

__all__ = ["main"]
