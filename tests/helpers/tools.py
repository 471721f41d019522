"""The system's programs some tests need (chromium, ssh-keygen, graphviz, bubblewrap),
and what ssh-keygen makes for the approval tests."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

APT_TIMEOUT = 900  # seconds for one apt-get call: a browser is a large download


def _apt_install(package: str) -> str:
    """`apt-get install PACKAGE`, with `apt-get update` first if the lists lack it; what
    went wrong, or ''."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", package]
    options: dict[str, Any] = dict(capture_output=True, text=True, env=env, check=False)
    try:
        done = subprocess.run(install, timeout=APT_TIMEOUT, **options)
        if done.returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], timeout=APT_TIMEOUT, **options)
            done = subprocess.run(install, timeout=APT_TIMEOUT, **options)
    except subprocess.TimeoutExpired:
        return f"apt-get took more than {APT_TIMEOUT} s"
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["failed"])[-1]


def system_tool(package: str, *commands: str) -> str:
    """The first of `commands` on PATH, installed with apt-get (Debian's `package`) where
    the tests run as root; otherwise the test is skipped, saying why."""
    import shutil

    def found() -> str | None:
        return next((path for name in commands if (path := shutil.which(name))), None)

    named = " or ".join(commands)
    if found() is None:
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            why = "not root" if shutil.which("apt-get") else "no apt-get"
            pytest.skip(f"{named} is not installed, and apt-get cannot install it here ({why})")
        # Parallel test processes install one at a time (apt-get holds dpkg's lock, and a
        # second one would fail on it); the one that waited finds the tool installed.
        from filelock import FileLock

        with FileLock(Path(tempfile.gettempdir()) / "automaton-rules-tests-apt.lock"):
            problem = "" if found() is not None else _apt_install(package)
        if found() is None:
            problem = problem or f"no {named} after it"
            pytest.skip(f"{named} is not installed: apt-get install {package}: {problem}")
    path = found()
    assert path is not None
    return path


def make_key(folder: Path, name: str) -> Path:
    """A passphrase-less ed25519 key pair; the private key's path."""
    key = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True
    )
    return key


def signers_file(path: Path, **keys: Path) -> Path:
    """An allowed-signers file at `path` naming each principal's public key."""
    lines = []
    for principal, key in keys.items():
        kind, blob = Path(f"{key}.pub").read_text().split()[:2]
        lines.append(f"{principal} {kind} {blob}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# who may approve\n" + "\n".join(lines) + "\n")
    return path
