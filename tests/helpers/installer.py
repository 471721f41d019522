"""automaton-install run as a person runs it, and what its tests start from: the user's own
settings it must keep."""

from __future__ import annotations

import os
import stat
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


# The programs the installer's launchers start.
LAUNCHED = ("automaton-hook", "automaton-git-hook", "automaton-sandbox")

USER_CLAUDE = {
    "permissions": {"allow": ["Bash(ls:*)", "Read"], "deny": ["Bash(rm -rf:*)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "my-own-linter --strict"}],
            }
        ],
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}],
    },
    "model": "opus",
}
USER_GEMINI = {"theme": "dark", "general": {"vimMode": True}}


def files_with_modes(*folders: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below the folders: its bytes and permission bits."""
    files = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return files


def git_hooks_dir(user_repo: Path) -> Path:
    return user_repo / ".git" / "hooks"
