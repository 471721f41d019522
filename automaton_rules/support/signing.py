"""Signed approvals: OpenSSH signatures (`ssh-keygen -Y`), the tool git signs commits with.

An approval in `signed` mode is a signature over what was approved — the task, the
phase, the artifact's SHA-256, the time and the approver — in a namespace of its own, so
no signature made for a commit or an email can be replayed as an approval. Who may
approve is an allowed-signers file, the format of git's `gpg.ssh.allowedSignersFile`.
Verifying needs no secret: the gate and the audit check every approval the same way.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

NAMESPACE = "automaton-approval"
HEADER = "automaton-rules approval v1"

# Why a signature does not stand, worded for the refusal and the audit alike.
MISSING = "missing"
INVALID = "invalid"
UNKNOWN_KEY = "unknown-key"


def message(task: str, phase: str, sha256: str, time: str, approver: str) -> bytes:
    """The text an approval signature covers, one field a line, in a fixed order."""
    lines = [
        HEADER,
        f"task: {task}",
        f"phase: {phase}",
        f"artifact-sha256: {sha256}",
        f"time: {time}",
        f"approver: {approver}",
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _run_ssh_keygen(args: Sequence[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["ssh-keygen", *args], input=data, capture_output=True, check=False, timeout=300
        )
    except FileNotFoundError:
        raise AutomatonError(
            "ssh-keygen-missing",
            "ssh-keygen is not installed; signed approvals need OpenSSH 8.2 or newer "
            "(package openssh-client).",
        ) from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AutomatonError("ssh-keygen-failed", f"Cannot run ssh-keygen: {exc}") from None


def sign(data: bytes, key: Path) -> str:
    """An armored signature of `data` by `key` (a private key, or a public one whose
    private half an ssh-agent holds); ssh-keygen asks for a passphrase or a touch itself."""
    proc = _run_ssh_keygen(["-Y", "sign", "-q", "-f", str(key), "-n", NAMESPACE, "-"], data)
    signature = proc.stdout.decode("ascii", errors="replace")
    if proc.returncode != 0 or "BEGIN SSH SIGNATURE" not in signature:
        reason = proc.stderr.decode(errors="replace").strip() or f"exit {proc.returncode}"
        raise AutomatonError("signing-failed", f"ssh-keygen could not sign with {key}: {reason}")
    return signature


def _run_with_signature_file(signature: str, args: Sequence[str], data: bytes) -> int:
    """Run an ssh-keygen check that reads the signature from a file, as it must."""
    with tempfile.NamedTemporaryFile("w", suffix=".sig", encoding="ascii") as handle:
        handle.write(signature)
        handle.flush()
        return _run_ssh_keygen([*args, "-s", handle.name], data).returncode


def check_signature(data: bytes, signature: str | None, signers: Path, approver: str) -> str | None:
    """Why the signature does not prove `approver` approved `data`, or None when it does:
    MISSING, INVALID (not a signature of this text), UNKNOWN_KEY (a good signature by a
    key the signers file does not name for the approver)."""
    if not signature:
        return MISSING
    verify = ["-Y", "verify", "-f", str(signers), "-I", approver, "-n", NAMESPACE]
    if _run_with_signature_file(signature, verify, data) == 0:
        return None
    if _run_with_signature_file(signature, ["-Y", "check-novalidate", "-n", NAMESPACE], data) != 0:
        return INVALID
    return UNKNOWN_KEY


def recorded_message(root: Path, task_path: Path, entry: Mapping[str, Any]) -> bytes | None:
    """The message a `--approve` history line's signature covers, rebuilt from what the
    line records (None when a field is missing), so changing any of them breaks it."""
    fields = [entry.get(key) for key in ("to", "artifact_sha256", "time", "approver")]
    if not all(isinstance(value, str) and value for value in fields):
        return None
    state, sha256, time, approver = (str(value) for value in fields)
    try:
        task = task_path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        task = task_path.as_posix()
    return message(task, state, sha256, time, approver)


def check_recorded_signature(
    root: Path, task_path: Path, entry: Mapping[str, Any], signers: Path
) -> str | None:
    """Why the `--approve` history line `entry` is not a standing signed approval (MISSING,
    INVALID, UNKNOWN_KEY), or None."""
    signature = entry.get("signature")
    if entry.get("via") != "signed" or not isinstance(signature, str):
        return MISSING
    text = recorded_message(root, task_path, entry)
    if text is None:
        return INVALID
    return check_signature(text, signature, signers, str(entry.get("approver")))


def principals(signers: Path) -> list[str]:
    """The approvers an allowed-signers file names (first field, comma-separated)."""
    try:
        text = signers.read_text(encoding="utf-8")
    except OSError as exc:
        raise AutomatonError(
            "signers-unreadable", f"Cannot read the allowed signers file {signers}: {exc}"
        ) from None
    names: list[str] = []
    for line in text.splitlines():
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            names += [name for name in fields[0].split(",") if name]
    return names


def read_git_signing_key(root: Path) -> Path | None:
    """git's `user.signingkey`, the key `--approve` signs with when `--key` is not given."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "user.signingkey"],
            capture_output=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return None
    value = proc.stdout.decode("utf-8", errors="replace").strip()
    if proc.returncode != 0 or not value:
        return None
    if value.startswith("key::"):
        return None  # a literal key, not a file: ssh-keygen needs a file
    return Path(value).expanduser()


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "INVALID",
    "MISSING",
    "UNKNOWN_KEY",
    "check_recorded_signature",
    "principals",
    "read_git_signing_key",
    "recorded_message",
    "sign",
]
