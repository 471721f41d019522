"""`scripts/setup.sh` says what it does while pip installs (issue 32: a first install looked
hung for a minute), and shows pip's whole output when pip fails.

The script runs for real on a copy of itself, with a stand-in for `.venv/bin/python` that
prints what pip prints: installing the project for real takes a minute and the network.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from helpers import ROOT

PIP_SAYS = """\
Obtaining file:///work/automaton-rules
Collecting pluggy>=1.5 (from automaton-rules==0.1.0)
  Using cached pluggy-1.6.0-py3-none-any.whl (20 kB)
Requirement already satisfied: typer in ./.venv/lib/python3.11/site-packages
Collecting pytest (from automaton-rules==0.1.0)
Building editable for automaton-rules (pyproject.toml): started
Installing collected packages: pluggy, pytest, automaton-rules
Successfully installed automaton-rules-0.1.0 pluggy-1.6.0 pytest-8.3.4
"""


def _copy(tmp_path: Path, status: int, output: str) -> Path:
    """A checkout holding only the script, and a `.venv/bin/python` that prints `output`
    and exits with `status` (and records the arguments it was given)."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", checkout / "scripts" / "setup.sh")
    (checkout / "pip-output").write_text(output)
    python = checkout / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        '#!/bin/sh\nprintf "%s\\n" "$*" > "$(dirname "$0")/../../args"\n'
        f'cat "$(dirname "$0")/../../pip-output"\nexit {status}\n'
    )
    python.chmod(0o755)
    return checkout


def _setup(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(checkout / "scripts" / "setup.sh"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_setup_prints_each_package_as_pip_collects_it(tmp_path: Path) -> None:
    checkout = _copy(tmp_path, 0, PIP_SAYS)
    proc = _setup(checkout, "test")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == "setup.sh: installing .[test,board] into .venv (editable)"
    assert lines[1:-1] == [
        "  Collecting pluggy>=1.5 (from automaton-rules==0.1.0)",
        "  Collecting pytest (from automaton-rules==0.1.0)",
        "  Building editable for automaton-rules (pyproject.toml): started",
        "  Installing collected packages: pluggy, pytest, automaton-rules",
        "  Successfully installed automaton-rules-0.1.0 pluggy-1.6.0 pytest-8.3.4",
    ]
    assert lines[-1].startswith("setup.sh: done in ") and lines[-1].endswith("s")
    args = (checkout / "args").read_text().split()
    assert args[:3] == ["-m", "pip", "install"] and args[-2:] == ["-e", ".[test,board]"]
    assert "--quiet" not in args and "--progress-bar" in args


def test_setup_shows_pip_s_whole_output_when_pip_fails(tmp_path: Path) -> None:
    failure = "Collecting nope\nERROR: Could not find a version that satisfies nope\n  hint\n"
    checkout = _copy(tmp_path, 1, failure)
    proc = _setup(checkout)
    assert proc.returncode == 1
    assert "setup.sh: pip failed; its output:\n" + failure in proc.stderr
    assert "done in" not in proc.stderr
