"""Signed approvals' cryptography: ssh-keygen signs what was approved, and checks it.

Keys are made by `ssh-keygen` in each test. Where the machine lacks it, the tests skip,
naming it (`bash scripts/setup.sh test` installs Debian's openssh-client, as root).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import make_key, signers_file

from automaton_rules.support import signing
from automaton_rules.support.errors import AutomatonError

MESSAGE = signing.message(
    ".automaton/tasks/login", "research:approved", "ab" * 32, "2026-12-01T04:00:00Z", "alice"
)


def test_the_message_names_everything_approved() -> None:
    text = MESSAGE.decode()
    assert text.splitlines() == [
        "automaton-rules approval v1",
        "task: .automaton/tasks/login",
        "phase: research:approved",
        f"artifact-sha256: {'ab' * 32}",
        "time: 2026-12-01T04:00:00Z",
        "approver: alice",
    ]


def test_a_signature_by_the_named_key_stands(ssh_keygen: str, tmp_path: Path) -> None:
    alice = make_key(tmp_path, "alice")
    signers = signers_file(tmp_path / "allowed_signers", alice=alice)
    signature = signing.sign(MESSAGE, alice)
    assert signature.startswith("-----BEGIN SSH SIGNATURE-----")
    assert signing.check_signature(MESSAGE, signature, signers, "alice") is None


def test_a_key_the_file_does_not_name_for_the_approver(ssh_keygen: str, tmp_path: Path) -> None:
    alice, mallory = make_key(tmp_path, "alice"), make_key(tmp_path, "mallory")
    signers = signers_file(tmp_path / "allowed_signers", alice=alice, mallory=mallory)
    forged = signing.sign(MESSAGE, mallory)
    assert signing.check_signature(MESSAGE, forged, signers, "alice") == signing.UNKNOWN_KEY
    assert signing.check_signature(MESSAGE, forged, signers, "mallory") is None


def test_a_signature_of_other_text_is_invalid(ssh_keygen: str, tmp_path: Path) -> None:
    alice = make_key(tmp_path, "alice")
    signers = signers_file(tmp_path / "allowed_signers", alice=alice)
    signature = signing.sign(MESSAGE, alice)
    changed = MESSAGE.replace(b"ab" * 32, b"cd" * 32)
    assert signing.check_signature(changed, signature, signers, "alice") == signing.INVALID
    assert signing.check_signature(MESSAGE, None, signers, "alice") == signing.MISSING
    assert signing.check_signature(MESSAGE, "not a signature", signers, "alice") == signing.INVALID


def test_a_signature_from_another_namespace_is_invalid(ssh_keygen: str, tmp_path: Path) -> None:
    alice = make_key(tmp_path, "alice")
    signers = signers_file(tmp_path / "allowed_signers", alice=alice)
    proc = subprocess.run(
        ["ssh-keygen", "-Y", "sign", "-q", "-f", str(alice), "-n", "git", "-"],
        input=MESSAGE,
        capture_output=True,
        check=True,
    )
    assert (
        signing.check_signature(MESSAGE, proc.stdout.decode(), signers, "alice") == signing.INVALID
    )


def test_signing_with_a_missing_key_is_a_clear_error(ssh_keygen: str, tmp_path: Path) -> None:
    with pytest.raises(AutomatonError) as caught:
        signing.sign(MESSAGE, tmp_path / "nothing-here")
    assert caught.value.code == "signing-failed"
    assert "nothing-here" in caught.value.message


def test_principals_are_read_from_the_signers_file(tmp_path: Path) -> None:
    path = tmp_path / "allowed_signers"
    path.write_text("# comment\nalice,bob@example.com ssh-ed25519 AAAA\n\ncarol ssh-rsa BBBB\n")
    assert signing.principals(path) == ["alice", "bob@example.com", "carol"]
    with pytest.raises(AutomatonError):
        signing.principals(tmp_path / "missing")


def test_git_signing_key_is_the_default_key(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert signing.read_git_signing_key(tmp_path) is None
    subprocess.run(
        ["git", "-C", str(tmp_path), "config", "user.signingkey", "~/.ssh/id_ed25519.pub"],
        check=True,
    )
    assert signing.read_git_signing_key(tmp_path) == Path("~/.ssh/id_ed25519.pub").expanduser()
