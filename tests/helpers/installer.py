"""automaton-install run as a person runs it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers.checkout import INSTALL


def clean_env(home: Path) -> dict[str, str]:
    """This environment as a person's shell has it, with `home` as HOME: none of the
    variables the tests or a re-executed command set."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "AUTOMATON_REEXEC", "AUTOMATON_AGENT", "PYTHONHOME")
    }
    env["HOME"] = str(home)
    return env


def run_install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """automaton-install as a person runs it, from `home`."""
    return subprocess.run(
        [str(INSTALL), *args],
        capture_output=True,
        text=True,
        env=clean_env(home),
        cwd=home,
        timeout=60,
    )
