"""Who did it: the person a history line or an approval names, never the OS login.

A team of three who all run as `root` in their containers, or as `ubuntu` on shared
machines, cannot be told apart by login. The person is read from git's configuration, which
each person already keeps for their commits: `automaton.person` when set (`git config
--global automaton.person alice@example.com`), else `user.email`. Without either, the
specification's word for a person, `user`. Read with one git call per command, in the
project's folder, so a repository's own `user.email` wins over the global one as it does
for commits. Never loaded on the edit-time path.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SETTING = "automaton.person"
EMAIL = "user.email"
UNNAMED = "user"
# What a history line, an approval log line (fields split by `|`) and a claim can hold.
PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}")


def identity(root: Path | None = None) -> str:
    """The person working in `root`: git's `automaton.person`, else `user.email`, else
    `user`. A value a log line cannot hold (a space, a `|`) counts as not set."""
    found = read_settings(root)
    for key in (SETTING, EMAIL):
        value = found.get(key, "")
        if PATTERN.fullmatch(value):
            return value
    return UNNAMED


def read_settings(root: Path | None) -> dict[str, str]:
    """The two settings as git reads them in `root`; empty when git is missing or fails."""
    import subprocess

    pattern = r"^(automaton\.person|user\.email)$"
    command = ["git", "config", "--get-regexp", pattern]
    if root is not None:
        command[1:1] = ["-C", str(root)]
    try:
        proc = subprocess.run(
            command, capture_output=True, check=False, stdin=subprocess.DEVNULL, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    found: dict[str, str] = {}
    for line in proc.stdout.decode("utf-8", errors="replace").splitlines():
        key, _, value = line.partition(" ")
        found[key.lower()] = value.strip()  # the last one read is the one in force
    return found
