"""A passkey in software, for the board's tests: it answers WebAuthn's ceremonies as an
authenticator would (ES256, attestation "none"), and can be told to misbehave.

The browser tests use Chromium's own virtual authenticator instead; this one lets the HTTP
tests make every request a browser would, and the ones a browser never would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
import time
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftKey:
    """One credential: an EC P-256 key pair and its signature counter."""

    def __init__(self, rp_id: str = "localhost") -> None:
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.count = 0

    @property
    def id(self) -> str:
        return b64url(self.credential_id)

    def cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: x, -3: y})  # EC2, ES256, P-256

    def _client(self, kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
        ).encode()

    def _auth_data(self, flags: int, rp_id: str | None = None) -> bytes:
        self.count += 1
        rp_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.count)

    def register(self, options: dict[str, Any], origin: str, flags: int = UP | UV) -> dict:
        """The answer to `navigator.credentials.create` with these options."""
        client = self._client("webauthn.create", options["challenge"], origin)
        length = struct.pack(">H", len(self.credential_id))
        attested = bytes(16) + length + self.credential_id + self.cose()  # AAGUID zero
        auth = self._auth_data(flags | AT) + attested
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "attestationObject": b64url(attestation),
            },
            "clientExtensionResults": {},
        }

    def assertion(
        self,
        options: dict[str, Any],
        origin: str,
        *,
        flags: int = UP | UV,
        rp_id: str | None = None,
        challenge: str | None = None,
    ) -> dict:
        """The answer to `navigator.credentials.get` with these options."""
        client = self._client("webauthn.get", challenge or options["challenge"], origin)
        auth = self._auth_data(flags, rp_id)
        signature = self.key.sign(auth + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "authenticatorData": b64url(auth),
                "signature": b64url(signature),
            },
            "clientExtensionResults": {},
        }


def register(board: Any, key: SoftKey, label: str = "test key") -> Any:
    """Register `key` the way a person does: the registration link, then the ceremony."""
    from automaton_rules.board.security import REGISTER

    code = board.board.guard.issue(time.time(), REGISTER)
    opened = board.request("GET", "/login?code=" + code)
    assert opened.status == 303 and opened.headers["location"] == "/passkeys", opened.text
    cookie = opened.headers["set-cookie"].split(";")[0]
    csrf = board.board.guard.csrf(cookie.split("=", 1)[1])
    options = board.post("/passkeys/options", {}, Cookie=cookie, csrf=csrf)
    assert options.status == 200, options.text
    answer = key.register(json.loads(options.text), board.site)
    return board.post(
        "/passkeys/register",
        {"credential": json.dumps(answer), "label": label},
        Cookie=cookie,
        csrf=csrf,
    )


def challenge(board: Any, task: str, pid: str = "0") -> dict:
    """The options the board hands the page for approving `task`."""
    answer = board.post(f"/p/{pid}/challenge", {"task": task})
    assert answer.status == 200, answer.text
    return json.loads(answer.text)


def approve(board: Any, key: SoftKey, task: str, pid: str = "0", **fields: str) -> Any:
    """Approve `task` as the board's page does: a challenge, the key's assertion, the form."""
    assertion = key.assertion(challenge(board, task, pid), board.site)
    return board.post(
        f"/p/{pid}/approve", {"task": task, "assertion": json.dumps(assertion), **fields}
    )
