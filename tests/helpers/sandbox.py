"""The sandbox's tests: each mechanism found or the test skipped, the start-up files a
home folder holds, git run quietly, and the environment a harness's shell runs with."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from automaton_rules.guards.sandbox import bubblewrap, landlock, mechanisms
from helpers.checkout import BIN
from helpers.tools import system_tool


def bwrap_or_skip() -> str:
    """bubblewrap where it is installed and works, else a skip saying why."""
    pinned = os.environ.get(mechanisms.PINNED)
    if pinned and pinned != "bubblewrap":
        pytest.skip(f"the suite runs under {pinned} alone ({mechanisms.PINNED})")
    system_tool("bubblewrap", "bwrap")
    found = bubblewrap.program()
    if found is None or not bubblewrap.probe(found):
        pytest.skip("bubblewrap cannot make a sandbox here (no user namespaces?)")
    return found


def landlock_or_skip() -> None:
    if landlock.abi() < 1:
        pytest.skip("this kernel offers no Landlock")


STARTUP = {
    ".gitconfig": "[user]\n\tname = T\n\temail = t@example.com\n",
    ".bashrc": "# the user's\n",
    ".profile": "# the user's\n",
    ".config/git/config": "",
    ".claude/settings.json": "{}\n",
    ".automaton/scripts/status.py": "# installed\n",
}


def git_output(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def shell_env(startup_home: Path) -> dict[str, str]:
    env = {
        "HOME": str(startup_home),
        "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
        "GIT_CONFIG_NOSYSTEM": "1",
        "LANG": "C.UTF-8",
    }
    pinned = os.environ.get(mechanisms.PINNED)  # the suite run under one mechanism
    return {**env, mechanisms.PINNED: pinned} if pinned else env
