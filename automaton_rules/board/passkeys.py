"""Approvals a passkey makes: the registered keys, and the WebAuthn ceremonies that use them.

A login link, a session cookie or a CSRF token proves only that something held them; an
agent that reads the terminal's scroll-back holds them too. An approval from the board
therefore needs a WebAuthn assertion, made by the browser's authenticator with user
verification, from a passkey registered for the board's person, over a challenge bound to
the project, the task, its gate and the SHA-256 of the artifact it approves. No process of
the user can make one: the private key stays in the authenticator, which asks a person.

The public keys live in each project's `.automaton/passkeys.jsonl` (one JSON object a
line: person, credential id, COSE public key, algorithm, when, a label): committed like
the signers file, one of the guard's files an agent may not change, and written only when
a person registers a key with a registration link printed on the board's terminal. The
ceremonies are verified by py_webauthn (the `webauthn` package: ES256 and EdDSA keys); a
challenge is kept in this process's memory, answered once, for `CHALLENGE_SECONDS`.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from automaton_rules.board.security import Refused
from automaton_rules.support import passkey_check
from automaton_rules.support.passkey_check import KEYS_FILE as KEYS_FILE
from automaton_rules.support.passkey_check import b64url as b64url
from automaton_rules.support.passkey_check import unb64url as unb64url

RP_ID = passkey_check.RP_ID  # a passkey is bound to a domain name; browsers refuse an address
RP_NAME = "automaton-rules board"
CHALLENGE_SECONDS = 300
ALGORITHMS = {-7: "ES256", -8: "EdDSA"}


@dataclass(frozen=True)
class Passkey:
    """One registered passkey: whose it is, its credential, its public key (COSE)."""

    person: str
    credential_id: str
    public_key: str
    algorithm: str
    registered: str
    label: str = ""


def keys_file(root: Path) -> Path:
    """A project's file of registered passkeys."""
    return root / KEYS_FILE


def read_keys(root: Path) -> list[Passkey]:
    """The project's registered passkeys; a line that is not one is left out."""
    try:
        text = keys_file(root).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
            found.append(
                Passkey(
                    str(data["person"]),
                    str(data["credential_id"]),
                    str(data["public_key"]),
                    str(data.get("algorithm", "")),
                    str(data.get("registered", "")),
                    str(data.get("label", "")),
                )
            )
        except (ValueError, KeyError, TypeError):
            continue
    return found


def keys_of(root: Path, person: str) -> list[Passkey]:
    """The passkeys registered in a project for one person."""
    return [key for key in read_keys(root) if key.person == person]


def add_key(root: Path, key: Passkey) -> None:
    """Append a passkey to the project's file, whole line at once, flushed to disk."""
    path = keys_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(asdict(key), sort_keys=True, separators=(",", ":")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Binding:
    """What an approval's challenge is bound to: the project, the task, its gate, and the
    artifact with its SHA-256 as the person read it."""

    pid: str
    task: str
    gate: str
    artifact: str
    digest: str

    def challenge(self, nonce: bytes) -> bytes:
        """The challenge the authenticator signs: a digest of the nonce and the binding
        (all but the project's number on this board, so the audit can recompute it)."""
        return passkey_check.challenge(nonce, self.task, self.gate, self.artifact, self.digest)


@dataclass(frozen=True)
class Pending:
    """A challenge handed out: to which session, until when, bound to what."""

    session: str
    expires: float
    binding: Binding | None  # None: a registration
    nonce: bytes = b""


def _challenge_of(credential: dict[str, Any]) -> str:
    """The challenge the browser says it answered (read from its client data)."""
    try:
        client = json.loads(unb64url(str(credential["response"]["clientDataJSON"])))
        return str(client["challenge"])
    except (KeyError, TypeError, ValueError):
        raise Refused(400, "The passkey's answer cannot be read.") from None


def parse_credential(text: str) -> dict[str, Any]:
    """The browser's credential, as JSON sent in a form field."""
    try:
        found = json.loads(text)
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("response"), dict):
        raise Refused(400, "The passkey's answer cannot be read.")
    return found


class Ceremonies:
    """The challenges this board has handed out and not yet seen answered, and the
    signature counters of the keys it has checked."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.pending: dict[str, Pending] = {}
        self.counts: dict[str, int] = {}

    def _forget(self, now: float) -> None:
        """Drop the challenges no answer can use any more."""
        self.pending = {k: v for k, v in self.pending.items() if v.expires >= now}

    def _take(self, challenge: str, session: str, now: float) -> Pending:
        """The pending challenge the answer names, once: a replayed answer finds none."""
        found = self.pending.pop(challenge, None)
        if found is None or found.session != session:
            raise Refused(
                403,
                "Refused: this passkey answer is not for a challenge the board has open "
                "(each is answered once). Approve again.",
            )
        if now > found.expires:
            raise Refused(403, "Refused: the passkey's challenge has expired. Approve again.")
        return found

    def registration_options(
        self, person: str, session: str, existing: list[Passkey], now: float
    ) -> str:
        """The browser's `navigator.credentials.create` options, as JSON."""
        self._forget(now)
        challenge = secrets.token_bytes(32)
        self.pending[b64url(challenge)] = Pending(session, now + CHALLENGE_SECONDS, None)
        return _creation_options(person, challenge, existing)

    def register(
        self,
        person: str,
        session: str,
        credential: dict[str, Any],
        label: str,
        when: str,
        now: float,
    ) -> Passkey:
        """A verified new passkey of `person`, from the browser's answer to our options."""
        from webauthn import verify_registration_response
        from webauthn.helpers.exceptions import WebAuthnException

        challenge = _challenge_of(credential)
        pending = self._take(challenge, session, now)
        if pending.binding is not None:
            raise Refused(403, "Refused: this challenge was not handed out to register a key.")
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=unb64url(challenge),
                expected_rp_id=RP_ID,
                expected_origin=self.origin,
                require_user_verification=True,
                supported_pub_key_algs=_algorithms(),
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            raise Refused(403, f"Refused: the new passkey does not verify: {exc}") from None
        algorithm = _algorithm_of(verified.credential_public_key)
        return Passkey(
            person,
            b64url(verified.credential_id),
            b64url(verified.credential_public_key),
            algorithm,
            when,
            label[:80],
        )

    def approval_options(
        self, binding: Binding, keys: list[Passkey], session: str, now: float
    ) -> str:
        """The browser's `navigator.credentials.get` options for one approval, as JSON."""
        self._forget(now)
        nonce = secrets.token_bytes(32)
        challenge = binding.challenge(nonce)
        expires = now + CHALLENGE_SECONDS
        self.pending[b64url(challenge)] = Pending(session, expires, binding, nonce)
        return _request_options(challenge, keys)

    def take(self, credential: dict[str, Any], session: str, now: float) -> Pending:
        """The open challenge an assertion answers, taken: a replay finds none."""
        return self._take(_challenge_of(credential), session, now)

    def verify_approval(
        self,
        credential: dict[str, Any],
        pending: Pending,
        binding: Binding,
        keys: list[Passkey],
    ) -> Passkey:
        """The key that made this assertion, if it answers a challenge (taken with `take`)
        bound to exactly this task, gate and artifact text, with user verification."""
        from webauthn import verify_authentication_response
        from webauthn.helpers.exceptions import WebAuthnException

        if pending.binding != binding:
            raise Refused(
                409,
                "Refused: the passkey signed for another task, gate or artifact text than "
                "the one at its gate now (the artifact may have changed since you read it). "
                "Read it again and approve again.",
            )
        used = str(credential.get("id") or "")
        key = next((k for k in keys if k.credential_id == used), None)
        if key is None:
            raise Refused(
                403, "Refused: this passkey is not one registered for you in this project."
            )
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=unb64url(_challenge_of(credential)),
                expected_rp_id=RP_ID,
                expected_origin=self.origin,
                credential_public_key=unb64url(key.public_key),
                credential_current_sign_count=self.counts.get(key.credential_id, 0),
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            raise Refused(403, f"Refused: the passkey's answer does not verify: {exc}") from None
        self.counts[key.credential_id] = verified.new_sign_count
        return key


def _creation_options(person: str, challenge: bytes, existing: list[Passkey]) -> str:
    """Options to create a passkey of `person`: user verification required, ES256 or
    EdDSA, none of the keys already registered again."""
    from webauthn import generate_registration_options, options_to_json
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        PublicKeyCredentialDescriptor,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    options = generate_registration_options(
        rp_id=RP_ID,
        rp_name=RP_NAME,
        user_name=person,
        user_id=hashlib.sha256(person.encode("utf-8")).digest(),
        challenge=challenge,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=unb64url(k.credential_id)) for k in existing
        ],
        supported_pub_key_algs=_algorithms(),
    )
    return str(options_to_json(options))


def _request_options(challenge: bytes, keys: list[Passkey]) -> str:
    """Options to sign `challenge` with one of `keys`, user verification required."""
    from webauthn import generate_authentication_options, options_to_json
    from webauthn.helpers.structs import (
        PublicKeyCredentialDescriptor,
        UserVerificationRequirement,
    )

    options = generate_authentication_options(
        rp_id=RP_ID,
        challenge=challenge,
        allow_credentials=[
            PublicKeyCredentialDescriptor(id=unb64url(k.credential_id)) for k in keys
        ],
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return str(options_to_json(options))


def _algorithms() -> list[Any]:
    from webauthn.helpers.cose import COSEAlgorithmIdentifier

    return [COSEAlgorithmIdentifier.ECDSA_SHA_256, COSEAlgorithmIdentifier.EDDSA]


def _algorithm_of(public_key: bytes) -> str:
    """The COSE algorithm a registered public key names."""
    from webauthn.helpers import decode_credential_public_key

    decoded = decode_credential_public_key(public_key)
    return ALGORITHMS.get(int(decoded.alg or 0), str(decoded.alg))


def assertion_record(credential: dict[str, Any], pending: Pending) -> dict[str, str]:
    """What the history keeps of an assertion, so the audit can check it again
    (support/passkey_check.py): the nonce, and what the authenticator signed."""
    response = credential.get("response") or {}
    return {
        "passkey_nonce": b64url(pending.nonce),
        "passkey_authenticator_data": str(response.get("authenticatorData") or ""),
        "passkey_client_data": str(response.get("clientDataJSON") or ""),
        "passkey_signature": str(response.get("signature") or ""),
    }
