"""Approvals from the board need a passkey: registering one, approving with it, and every
request a passkey does not back, made and refused.

A software authenticator (tests/softkey.py) answers the ceremonies; the real browser's
virtual authenticator is in tests/test_board_browser.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the dashboard's extra: pip install '.[board]'")
pytest.importorskip("webauthn", reason="the dashboard's extra: pip install '.[board]'")

import softkey
from helpers import Board, current_state, write_config
from softkey import UP, SoftKey

from automaton_rules.board.passkeys import KEYS_FILE
from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject

PERSON = "lead@example.com"


def refused(answer: Any, status: int, words: str = "") -> None:
    assert answer.status == status, (answer.status, answer.text[:400])
    assert 'class="refusal"' in answer.text
    assert words in answer.text, answer.text[:400]


def gated(root: Path, mode: str = "prompt", names: tuple[str, ...] = ("login",)) -> Any:
    made = AutomatonProject(root)
    made.root.mkdir()
    write_config(made, f'approval = "{mode}"\n')
    for name in names:
        made.task(name, "research")
        (made.task_dir(name) / "SPEC.md").write_text(f"# {name}\n\nWho logs in.\n")
        made.advance(name, ["research:awaiting_approval"])
    return made


@pytest.fixture
def project(tmp_path: Path) -> AutomatonProject:
    return gated(tmp_path / "p", names=("login", "signup"))


@pytest.fixture
def board(project: AutomatonProject) -> Any:
    served = Board([project.root], person=PERSON)
    yield served
    served.stop()


@pytest.fixture
def key(board: Board) -> SoftKey:
    made = SoftKey()
    answer = softkey.register(board, made)
    assert answer.status == 303, answer.text
    return made


# ------------------------------------------------------------------- registering


def test_without_a_passkey_the_board_offers_registration_and_refuses_approval(
    board: Board, project: AutomatonProject
) -> None:
    page = board.get("/").text
    assert 'href="/passkeys">register a passkey</a>' in page
    assert 'action="/p/0/approve"' not in page
    refused(board.post("/p/0/challenge", {"task": "login"}), 403, "No passkey is registered")
    refused(board.post("/p/0/approve", {"task": "login"}), 403, "No passkey is registered")
    assert current_state(project, "login") == "research:awaiting_approval"


def test_a_registered_passkey_is_written_to_the_projects_file(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    lines = (project.root / KEYS_FILE).read_text().splitlines()
    assert len(lines) == 1
    recorded = json.loads(lines[0])
    assert (recorded["person"], recorded["credential_id"], recorded["algorithm"]) == (
        PERSON,
        key.id,
        "ES256",
    )
    assert recorded["label"] == "test key"
    page = board.get("/passkeys").text
    assert key.id[:16] in page and PERSON in page
    home = board.get("/")
    assert 'action="/p/0/approve"' in home.text and 'data-passkey="/p/0/challenge"' in home.text
    assert (
        'data-confirm="Approve task &#x27;login&#x27; at research:awaiting_approval as' in home.text
    )


def test_a_plain_login_cannot_register_a_passkey(board: Board, project: AutomatonProject) -> None:
    refused(board.post("/passkeys/options", {}), 403, "needs a registration link")
    made = SoftKey()
    fake = made.register({"challenge": "AAAA"}, board.site)
    refused(board.post("/passkeys/register", {"credential": json.dumps(fake)}), 403)
    assert "Register a passkey</button>" not in board.get("/passkeys").text
    assert not (project.root / KEYS_FILE).exists()


def test_a_registration_link_registers_one_passkey_only(
    board: Board, project: AutomatonProject
) -> None:
    from automaton_rules.board.security import REGISTER

    code = board.board.guard.issue(__import__("time").time(), REGISTER)
    opened = board.request("GET", "/login?code=" + code)
    cookie = opened.headers["set-cookie"].split(";")[0]
    csrf = board.board.guard.csrf(cookie.split("=", 1)[1])
    assert "Register a passkey</button>" in board.get("/passkeys", Cookie=cookie).text
    options = json.loads(board.post("/passkeys/options", {}, Cookie=cookie, csrf=csrf).text)
    first = SoftKey()
    answer = first.register(options, board.site)
    sent = {"credential": json.dumps(answer), "label": "laptop"}
    assert board.post("/passkeys/register", sent, Cookie=cookie, csrf=csrf).status == 303
    page = board.get("/passkeys", Cookie=cookie).text
    assert "Registered the passkey laptop (ES256)" in page
    assert "Register a passkey</button>" not in page
    refused(board.post("/passkeys/options", {}, Cookie=cookie, csrf=csrf), 403)
    refused(board.post("/passkeys/register", sent, Cookie=cookie, csrf=csrf), 403)  # replayed
    assert len((project.root / KEYS_FILE).read_text().splitlines()) == 1


def test_a_registration_without_user_verification_or_for_another_site_is_refused(
    board: Board, project: AutomatonProject
) -> None:
    from automaton_rules.board.security import REGISTER

    for flags, origin in ((UP, board.site), (UP | 0x04, "http://evil.example")):
        code = board.board.guard.issue(__import__("time").time(), REGISTER)
        cookie = board.request("GET", "/login?code=" + code).headers["set-cookie"].split(";")[0]
        csrf = board.board.guard.csrf(cookie.split("=", 1)[1])
        options = json.loads(board.post("/passkeys/options", {}, Cookie=cookie, csrf=csrf).text)
        answer = SoftKey().register(options, origin, flags=flags)
        sent = {"credential": json.dumps(answer)}
        refused(board.post("/passkeys/register", sent, Cookie=cookie, csrf=csrf), 403)
    assert not (project.root / KEYS_FILE).exists()


# --------------------------------------------------------------------- approving


def test_an_approval_with_the_passkey_is_recorded_with_its_credential(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    answer = softkey.approve(board, key, "login", back="/")
    assert answer.status == 303, answer.text
    assert answer.headers["location"] == "/"
    assert current_state(project, "login") == "research:approved"
    last = json.loads((project.task_dir("login") / store.HISTORY).read_text().splitlines()[-1])
    assert (last["via"], last["approver"], last["passkey"]) == ("board-passkey", PERSON, key.id)
    for field in ("nonce", "authenticator_data", "client_data", "signature"):
        assert last[f"passkey_{field}"], field
    approvals = (project.task_dir("login") / store.APPROVALS).read_text().splitlines()
    assert approvals[-1].endswith(f"|{PERSON}|board-passkey")
    shown = board.get("/").text
    assert f"{PERSON} approved task &#x27;login&#x27; (research:approved) with the passkey" in shown
    assert "board-passkey" in board.get("/p/0/task?name=login").text
    audit = project.run("--audit", "--select", "AR2")
    assert "AR210" not in audit.out  # in prompt mode a passkey approval stands


def test_an_approval_in_open_mode_needs_the_passkey_too(tmp_path: Path) -> None:
    made = gated(tmp_path / "p", mode="open")
    served = Board([made.root], person=PERSON)
    try:
        refused(served.post("/p/0/approve", {"task": "login"}), 403, "No passkey")
        made_key = SoftKey()
        assert softkey.register(served, made_key).status == 303
        refused(served.post("/p/0/approve", {"task": "login"}), 403, "needs your passkey")
        assert current_state(made, "login") == "research:awaiting_approval"
        assert softkey.approve(served, made_key, "login").status == 303
    finally:
        served.stop()
    assert current_state(made, "login") == "research:approved"


def test_a_replayed_assertion_is_refused(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    assertion = key.assertion(softkey.challenge(board, "login"), board.site)
    fields = {"task": "login", "assertion": json.dumps(assertion)}
    assert board.post("/p/0/approve", fields).status == 303
    (project.task_dir("login") / store.STATE).write_text("research:awaiting_approval\n")
    refused(board.post("/p/0/approve", fields), 403, "answered once")


def test_an_assertion_for_another_task_is_refused(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    assertion = key.assertion(softkey.challenge(board, "login"), board.site)
    fields = {"task": "signup", "assertion": json.dumps(assertion)}
    refused(board.post("/p/0/approve", fields), 409, "another task, gate or artifact")
    assert current_state(project, "signup") == "research:awaiting_approval"
    assert current_state(project, "login") == "research:awaiting_approval"


def test_an_assertion_for_another_artifact_text_is_refused(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    assertion = key.assertion(softkey.challenge(board, "login"), board.site)
    (project.task_dir("login") / "SPEC.md").write_text("# login\n\nEveryone logs in.\n")
    fields = {"task": "login", "assertion": json.dumps(assertion)}
    refused(board.post("/p/0/approve", fields), 409, "artifact may have changed")
    assert current_state(project, "login") == "research:awaiting_approval"


@pytest.mark.parametrize(
    "change",
    [
        "no user verification",
        "another origin",
        "another relying party",
        "another key",
        "forged challenge",
        "bad signature",
    ],
)
def test_an_assertion_that_does_not_verify_is_refused(
    board: Board, project: AutomatonProject, key: SoftKey, change: str
) -> None:
    options = softkey.challenge(board, "login")
    if change == "no user verification":
        assertion = key.assertion(options, board.site, flags=UP)
    elif change == "another origin":
        assertion = key.assertion(options, "http://evil.example")
    elif change == "another relying party":
        assertion = key.assertion(options, board.site, rp_id="evil.example")
    elif change == "another key":
        other = SoftKey()
        other.credential_id = key.credential_id  # claims the registered id, signs with another
        assertion = other.assertion(options, board.site)
    elif change == "forged challenge":
        assertion = key.assertion(options, board.site, challenge=softkey.b64url(b"x" * 32))
    else:
        assertion = key.assertion(options, board.site)
        assertion["response"]["signature"] = softkey.b64url(b"\x30\x06\x02\x01\x01\x02\x01\x01")
    refused(board.post("/p/0/approve", {"task": "login", "assertion": json.dumps(assertion)}), 403)
    assert current_state(project, "login") == "research:awaiting_approval"


def test_an_unregistered_passkey_is_refused(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    assertion = SoftKey().assertion(softkey.challenge(board, "login"), board.site)
    fields = {"task": "login", "assertion": json.dumps(assertion)}
    refused(board.post("/p/0/approve", fields), 403, "not one registered for you")
    assert current_state(project, "login") == "research:awaiting_approval"


def test_another_persons_passkey_does_not_approve_for_the_board(
    tmp_path: Path,
) -> None:
    made = gated(tmp_path / "p")
    first = Board([made.root], person="someone-else@example.com")
    try:
        assert softkey.register(first, SoftKey()).status == 303
    finally:
        first.stop()
    served = Board([made.root], person=PERSON)
    try:
        refused(served.post("/p/0/challenge", {"task": "login"}), 403, "No passkey")
    finally:
        served.stop()
    assert current_state(made, "login") == "research:awaiting_approval"


def test_a_challenge_of_another_session_is_refused(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    import time

    assertion = key.assertion(softkey.challenge(board, "login"), board.site)
    cookie = board.request("GET", "/login?code=" + board.board.guard.issue(time.time()))
    other = cookie.headers["set-cookie"].split(";")[0]
    csrf = board.board.guard.csrf(other.split("=", 1)[1])
    fields = {"task": "login", "assertion": json.dumps(assertion)}
    refused(board.post("/p/0/approve", fields, Cookie=other, csrf=csrf), 403)
    assert current_state(project, "login") == "research:awaiting_approval"


def test_garbled_assertions_are_refused(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    for garbled in ("not json", "[]", '{"response": 1}', '{"response": {"clientDataJSON": "%%"}}'):
        refused(board.post("/p/0/approve", {"task": "login", "assertion": garbled}), 400)
    assert current_state(project, "login") == "research:awaiting_approval"


def test_signed_mode_hands_out_no_challenge(tmp_path: Path) -> None:
    made = gated(tmp_path / "p", mode="signed")
    served = Board([made.root], person=PERSON)
    try:
        refused(served.post("/p/0/challenge", {"task": "login"}), 403, "signed approvals only")
    finally:
        served.stop()


def test_a_task_away_from_its_gate_hands_out_no_challenge(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    project.task("build", "implement")
    refused(board.post("/p/0/challenge", {"task": "build"}), 409, "not awaiting approval")


# ------------------------------------------------------------ checked again, offline


def approved_entry(board: Board, project: AutomatonProject, key: SoftKey) -> dict:
    assert softkey.approve(board, key, "login").status == 303
    return dict(
        json.loads((project.task_dir("login") / store.HISTORY).read_text().splitlines()[-1])
    )


def test_the_audit_and_the_gate_check_a_passkey_approval_again(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    from automaton_rules.core import policy
    from automaton_rules.core.project import find_project

    entry = approved_entry(board, project, key)
    found = find_project(project.root)
    task = found.load("login")
    rules = policy.Policy("prompt")
    assert policy.unproven(found, task, rules, entry) is None
    for change, reason in (
        ({"passkey_signature": entry["passkey_client_data"]}, "passkey-invalid"),
        ({"artifact_sha256": "0" * 64}, "passkey-invalid"),  # another text of the artifact
        ({"from": "design:awaiting_approval"}, "passkey-invalid"),  # another gate
        ({"passkey_nonce": softkey.b64url(b"n" * 32)}, "passkey-invalid"),
        ({"passkey": SoftKey().id}, "passkey-unknown-key"),
        ({"approver": "someone@example.com"}, "passkey-unknown-key"),
        ({"passkey_authenticator_data": ""}, "passkey-invalid"),
    ):
        assert policy.unproven(found, task, rules, {**entry, **change}) == reason, change
    other = found.load("signup")  # the same record, for another task
    assert policy.unproven(found, other, rules, entry) == "passkey-invalid"


def test_a_passkey_approval_whose_key_is_gone_is_reported_and_holds_the_gate(
    board: Board, project: AutomatonProject, key: SoftKey
) -> None:
    approved_entry(board, project, key)
    assert "AR210" not in project.run("--audit", "--select", "AR2").out
    (project.root / KEYS_FILE).write_text("")  # the person removed the key
    audit = project.run("--audit", "--select", "AR210", "--json")
    found = [f for f in audit.json()["findings"] if f["code"] == "AR210"]
    assert audit.exit_code == 1 and len(found) == 1, audit.out
    assert "names a passkey the project's passkeys file does not hold" in found[0]["message"]
    (project.task_dir("login") / "DECOMPOSITION.md").write_text("x\n")
    moved = project.run("--task", "login", "--transition", "decomposition")
    assert moved.exit_code == 1, moved.out + moved.err
    assert current_state(project, "login") == "research:approved"
