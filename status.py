#!/usr/bin/env python3
"""status.py: ask where a task stands in its workflow, and move it only along legal paths."""

import sys

try:
    from automaton_rules.cli.entry import main
except ImportError as exc:
    sys.stderr.write(
        f"ERROR: automaton-rules cannot start with {sys.executable} ({exc}). "
        "Install it first: 'bash scripts/setup.sh', then run '.venv/bin/python status.py'.\n"
    )
    sys.exit(2)

if __name__ == "__main__":
    sys.exit(main())
