"""A recorded passkey approval checked again, offline: by the audit and at the gate.

An approval the board made with a passkey (`via: board-passkey`) records the credential,
the challenge's nonce and what the authenticator signed. Anyone can check it later
against the project's registered keys (`.automaton/passkeys.jsonl`), as a signed approval
is checked against the signers file: the key is registered for the approver, the
challenge is the one bound to this task, gate and artifact text, the authenticator
verified its user for `localhost`, and the signature (ES256 or EdDSA) holds. A line
written by hand cannot pass: the private key never left the authenticator.

`cryptography` and `cbor2` (the `[board]` extra's, through py_webauthn) do the
arithmetic; they are imported only when a passkey approval is checked.
"""

from __future__ import annotations

import base64
import hashlib
import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

KEYS_FILE = ".automaton/passkeys.jsonl"
RP_ID = "localhost"
PASSKEY_UNKNOWN = "passkey-unknown-key"
PASSKEY_INVALID = "passkey-invalid"
PASSKEY_UNCHECKABLE = "passkey-uncheckable"
REASONS = {
    PASSKEY_UNKNOWN: "it names a passkey the project's passkeys file does not hold for "
    "that approver",
    PASSKEY_INVALID: "its passkey assertion is not a valid one of this task, gate and "
    "artifact text",
    PASSKEY_UNCHECKABLE: "its passkey assertion cannot be checked here (pip install "
    "'automaton-rules[board]')",
}
_UP, _UV = 0x01, 0x04


def unb64url(text: str) -> bytes:
    """base64url, padded or not, as bytes."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data: bytes) -> str:
    """Bytes as WebAuthn's JSON writes them: base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def challenge(nonce: bytes, task: str, gate: str, artifact: str, digest: str) -> bytes:
    """The challenge an approval's passkey signs: a digest of a nonce, the task, its gate,
    and the artifact with its SHA-256."""
    text = "\0".join(("automaton-board approval", task, gate, artifact, digest))
    return hashlib.sha256(nonce + text.encode("utf-8")).digest()


def registered_key(root: Path, person: str, credential: str) -> str | None:
    """The COSE public key (base64url) registered in the project for this credential of
    this person, or None."""
    try:
        text = (root / KEYS_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(data, dict)
            and data.get("person") == person
            and data.get("credential_id") == credential
            and isinstance(data.get("public_key"), str)
        ):
            return str(data["public_key"])
    return None


def check_recorded(root: Path, task: str, entry: dict[str, Any]) -> str | None:
    """Why a `board-passkey` approval line does not stand, or None when it does."""
    fields = [
        entry.get(k)
        for k in (
            "passkey",
            "passkey_nonce",
            "passkey_authenticator_data",
            "passkey_client_data",
            "passkey_signature",
        )
    ]
    if not all(isinstance(f, str) and f for f in fields):
        return PASSKEY_INVALID
    credential, nonce, auth, client, signature = (str(f) for f in fields)
    public = registered_key(root, str(entry.get("approver") or ""), credential)
    if public is None:
        return PASSKEY_UNKNOWN
    try:
        auth_bytes, client_bytes = unb64url(auth), unb64url(client)
        said = json.loads(client_bytes)
        expected = challenge(
            unb64url(nonce),
            task,
            str(entry.get("from") or ""),
            str(entry.get("artifact") or ""),
            str(entry.get("artifact_sha256") or ""),
        )
    except ValueError:
        return PASSKEY_INVALID
    if not (
        isinstance(said, dict)
        and said.get("type") == "webauthn.get"
        and said.get("challenge") == b64url(expected)
        and str(said.get("origin", "")).startswith(f"http://{RP_ID}:")
        and auth_bytes[:32] == hashlib.sha256(RP_ID.encode()).digest()
        and len(auth_bytes) >= 37
        and auth_bytes[32] & _UP
        and auth_bytes[32] & _UV
    ):
        return PASSKEY_INVALID
    signed = auth_bytes + hashlib.sha256(client_bytes).digest()
    return _verify(public, signed, signature)


def _verify(public: str, signed: bytes, signature: str) -> str | None:
    """Check an ES256 or EdDSA signature with a COSE public key."""
    try:
        import cbor2
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, ed25519
    except ImportError:
        return PASSKEY_UNCHECKABLE
    try:
        key = cbor2.loads(unb64url(public))
        raw = unb64url(signature)
        if key.get(1) == 2 and key.get(3) == -7 and key.get(-1) == 1:  # EC2, ES256, P-256
            x, y = key[-2], key[-3]
            numbers = ec.EllipticCurvePublicNumbers(
                int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1()
            )
            numbers.public_key().verify(raw, signed, ec.ECDSA(hashes.SHA256()))
        elif key.get(1) == 1 and key.get(3) == -8 and key.get(-1) == 6:  # OKP, EdDSA, Ed25519
            ed25519.Ed25519PublicKey.from_public_bytes(key[-2]).verify(raw, signed)
        else:
            return PASSKEY_INVALID
    except (InvalidSignature, ValueError, KeyError, TypeError, AttributeError):
        return PASSKEY_INVALID
    except Exception:  # a COSE key cbor2 cannot read is no key
        return PASSKEY_INVALID
    return None
