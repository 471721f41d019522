"""The child side of the kill storm: one status.py command, in a process forked ready-made.

The kill storm's fork server imports this module once, so each command starts in a
few milliseconds with the command line already loaded, instead of a second of imports
that no kill could harm; the command itself runs exactly as `status.py` runs it.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import filelock  # noqa: F401 - loaded before the fork, as every command needs it

from automaton_rules import report, workflow  # noqa: F401
from automaton_rules.cli import entry as cli
from automaton_rules.cli import parser

parser.command()  # typer and click, loaded once in the fork server


def run_status_in_child(
    argv: list[str], out_path: str, first_write: Any, fsync_delay: float
) -> None:
    """Run one command; set `first_write` at the first fsync, which slows each a little."""
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        first_write.set()
        time.sleep(fsync_delay)
        real_fsync(fd)

    os.fsync = slow_fsync
    with open(out_path, "w") as out, redirect_stdout(out), redirect_stderr(out):
        code = cli.main(argv)
    sys.exit(code)
