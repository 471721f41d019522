"""The console scripts' entry points, written to survive an install that cannot load.

pip's wrapper for a console script imports its entry point before anything runs, so a
broken install (a dependency missing, a file gone) would end in a traceback and exit 1 —
and exit 1 lets the action through in the harnesses that run `automaton-hook`. Each
entry here imports its command inside a `try`: a failure is one `ERROR:` line naming the
cause and exit 2, a refusal everywhere. It imports nothing but `sys`.
"""

from __future__ import annotations

import sys

REINSTALL = "reinstall it: pip install --force-reinstall automaton-rules"


def _run(module: str, prog: str) -> int:
    """Load `module` and run its `main`; exit 2 with the cause when it cannot load."""
    try:
        main = __import__(module, fromlist=["main"]).main
    except Exception as exc:
        cause = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        sys.stderr.write(f"ERROR: {prog} cannot load automaton-rules ({cause}); {REINSTALL}\n")
        return 2
    return int(main())


def hook() -> int:
    """`automaton-hook`: a harness's hook that cannot load refuses the action."""
    return _run("automaton_rules.guards.hooks.adapter", "automaton-hook")


def git_hook() -> int:
    """`automaton-git-hook`: a commit its hook cannot check is refused."""
    return _run("automaton_rules.guards.edits.commits", "automaton-git-hook")


def status() -> int:
    """`automaton-status`, status.py's console script."""
    return _run("automaton_rules.cli.entry", "automaton-status")


def sandbox() -> int:
    """`automaton-sandbox`: a command that cannot be put in its sandbox does not run."""
    return _run("automaton_rules.guards.sandbox.runner", "automaton-sandbox")


def board() -> int:
    """`automaton-board`, the dashboard."""
    return _run("automaton_rules.board.server", "automaton-board")


def install() -> int:
    """`automaton-install`."""
    return _run("automaton_rules.cli.install", "automaton-install")
