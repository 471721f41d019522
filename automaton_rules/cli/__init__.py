"""The command line: parsing `status.py`'s flags, running a command, printing its outcome.

`entry` is the front door (light enough for the edit-time hooks it hands over to),
`parser` declares the options for typer, `commands` calls the workflow, the engine and the
reports, `views` renders the specification's texts, and `install` writes harness settings
and git hooks. It may import every other layer; nothing imports it.
"""

from automaton_rules.cli.entry import main

__all__ = ["main"]
