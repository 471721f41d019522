"""Reading what status.py printed, and proving what it left alone."""

from __future__ import annotations

import os
from pathlib import Path

from automaton_rules.testing import Run

OUT_OF_ORDER_PASS = "Folder validation: PASS — no out-of-order artifacts found"
# How the commands status.py suggests call it: the installed script, as the spec installs it.
SCRIPT_CALL = "python3 ~/.automaton/scripts/status.py"


def no_traceback(result: Run) -> None:
    """Nothing status.py printed is a Python traceback."""
    assert "Traceback" not in result.out + result.err, result


def one_line(text: str, prefix: str) -> str:
    """The one line of `text` that starts with `prefix`."""
    found = [line for line in text.splitlines() if line.startswith(prefix)]
    assert len(found) == 1, (prefix, text)
    return found[0]


def entries_below(folder: Path) -> dict[str, bytes | str]:
    """Every entry below a folder: file bytes, link targets, folders, to prove nothing
    changed."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            found[key] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "dir"
    return found


def files_below(folder: Path) -> dict[str, bytes]:
    """Every file below a folder with its bytes, to prove a command wrote nothing."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }
