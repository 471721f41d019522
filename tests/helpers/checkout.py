"""Where things are: the checkout under test, the documents several test modules hold
the code to, and the installation that runs it (its console scripts)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATUS_PY = ROOT / "status.py"
# The documents several test modules hold the code to.
README = (ROOT / "README.md").read_text(encoding="utf-8")
WRITING_RULES = (ROOT / "docs" / "writing-rules.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # the console scripts of the installation under test
HOOK = BIN / "automaton-hook"
INSTALL = BIN / "automaton-install"
PACKAGE = ROOT / "automaton_rules"
