"""What a command imports, read from `python -X importtime`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from helpers.checkout import ROOT

IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|(?P<name>\s*\S+)\s*$")


def modules_imported(command: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, set[str]]:
    """Run `python -X importtime COMMAND`; its exit code, stdout and every module imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    names = set()
    for line in proc.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match:
            names.add(match.group("name").strip())
    assert names, proc.stderr[:2000]
    return proc.returncode, proc.stdout, names
