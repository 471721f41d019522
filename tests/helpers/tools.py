"""The system's programs some tests need (chromium, ssh-keygen, graphviz, bubblewrap):
found on PATH or the test skipped, saying why. `bash scripts/setup.sh test` installs
them; the tests never do. And what ssh-keygen makes for the approval tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def system_tool(package: str, *commands: str) -> str:
    """The first of `commands` on PATH; else the test is skipped, naming what to install.
    The tests never install anything: `bash scripts/setup.sh test` does (Debian's
    `package`), saying so."""
    found = next((path for name in commands if (path := shutil.which(name))), None)
    if found is None:
        pytest.skip(
            f"{' or '.join(commands)} is not installed (Debian's {package}: "
            "`bash scripts/setup.sh test` installs it, as root with apt-get)"
        )
    return found


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
