#!/usr/bin/env python3
"""status.py: ask where a task stands in its workflow, and move it only along legal paths."""

import sys

from automaton_rules.cli import main

if __name__ == "__main__":
    sys.exit(main())
