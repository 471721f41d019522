"""The dashboard in a real browser (Debian's chromium, driven by Playwright): it opens,
follows a change made by status.py without a reload, registers a passkey in Chromium's
virtual authenticator (DevTools protocol `WebAuthn`) and approves with it in prompt mode,
sends a request for changes the agent's next hook answer carries, and logs no console
error; then a refused assertion, a replayed one and one for another artifact text approve
nothing.

One browser and one board for the module (for each test process: the tests may be dealt
out to several); each test makes the tasks it needs, and the passkey is registered once,
through the page, by the `passkey` fixture. Without chromium or playwright they are
skipped, saying which is missing (scripts/setup.sh test installs both).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import Board, current_state, run_hook, status_env, system_tool, write_config

from automaton_rules.board.passkeys import KEYS_FILE
from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject

pytest.importorskip("starlette", reason="the dashboard's extra: pip install '.[board]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


NOTIFICATIONS = """
window.__notes = [];
window.Notification = class {
  constructor(title, options) { window.__notes.push([title, options && options.body]); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
"""


@pytest.fixture(scope="module")
def browser_project(tmp_path_factory: pytest.TempPathFactory) -> AutomatonProject:
    root = tmp_path_factory.mktemp("browser") / "proj"
    root.mkdir()
    made = AutomatonProject(root)
    write_config(made, 'approval = "prompt"\n')
    made.task("login", "research")
    (made.task_dir("login") / "SPEC.md").write_text("# Login\n\nWho logs in.\n\nHow.\n")
    made.task("signup", "research")
    (made.task_dir("signup") / "SPEC.md").write_text("# Signup\n\nA form.\n")
    made.advance("signup", ["research:awaiting_approval"])
    return made


@pytest.fixture(scope="module")
def browser_board(browser_project: AutomatonProject) -> Any:
    served = Board([browser_project.root], person="hana@example.com")
    yield served
    served.stop()


@pytest.fixture(scope="module")
def page(browser_board: Board) -> Any:
    chromium = system_tool("chromium", "chromium", "chromium-browser")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        context = browser.new_context()
        # A stand-in for the browser's notifications, granted, that records each one.
        context.add_init_script(NOTIFICATIONS)
        opened = context.new_page()
        # A platform authenticator that verifies its user, as a passkey would.
        opened.cdp = context.new_cdp_session(opened)
        opened.cdp.send("WebAuthn.enable")
        opened.authenticator = opened.cdp.send(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": True,
                    "hasUserVerification": True,
                    "isUserVerified": True,
                    "automaticPresenceSimulation": True,
                }
            },
        )["authenticatorId"]
        opened.errors = []  # console errors and uncaught exceptions, for the last test
        opened.on(
            "console",
            lambda message: opened.errors.append(message.text) if message.type == "error" else None,
        )
        opened.on("pageerror", lambda error: opened.errors.append(str(error)))
        # Approve asks for confirmation: accepted, unless a test answers it itself.
        opened.answer_dialog = None
        opened.on(
            "dialog",
            lambda dialog: (opened.answer_dialog or (lambda d: d.accept()))(dialog),
        )
        opened.goto(
            f"{browser_board.site}/login?code={browser_board.board.guard.issue(time.time())}"
        )
        yield opened
        browser.close()


def test_1_the_board_opens_from_the_printed_address(page: Any, browser_board: Board) -> None:
    page.goto(browser_board.url)
    assert page.url == browser_board.site + "/"  # the secret left the address bar
    page.wait_for_selector('[data-task="login"]')
    assert page.text_content("#live") in ("live", "connecting…")
    page.wait_for_function("document.getElementById('live').textContent === 'live'")
    assert page.is_visible('[data-awaiting="signup"]')


def test_2_a_transition_made_by_status_py_appears_without_a_reload(
    page: Any, browser_project: AutomatonProject
) -> None:
    page.evaluate("window.notReloaded = true")
    proc = subprocess.run(
        [
            sys.executable,
            "status.py",
            "--task",
            "login",
            "--transition",
            "research:awaiting_approval",
            "--project",
            str(browser_project.root),
        ],
        cwd=Path(__file__).resolve().parent.parent,
        env=status_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    page.wait_for_selector('[data-awaiting="login"]', timeout=10000)
    assert page.evaluate("window.notReloaded") is True
    # The task started waiting for approval: the open board says so in a notification.
    assert ["Awaiting approval", "login"] in page.evaluate("window.__notes")


def gated(project: AutomatonProject, name: str, text: str = "# Spec\n\nWho.\n") -> None:
    """A task of this test's own, waiting at its research gate."""
    project.task(name, "research")
    (project.task_dir(name) / "SPEC.md").write_text(text)
    project.advance(name, ["research:awaiting_approval"])


@pytest.fixture(scope="module")
def passkey(page: Any, browser_board: Board, browser_project: AutomatonProject) -> dict:
    """The person's passkey, registered once through the page with a registration link:
    the line `.automaton/passkeys.jsonl` gained."""
    from automaton_rules.board.security import REGISTER

    page.goto(browser_board.site + "/")
    page.wait_for_selector('[data-awaiting="signup"] a[href="/passkeys"]')  # none yet
    code = browser_board.board.guard.issue(time.time(), REGISTER)
    page.goto(f"{browser_board.site}/login?code={code}")
    assert page.url == browser_board.site + "/passkeys"
    page.fill("#label", "virtual")
    page.click("#register button")
    page.wait_for_selector(".note", timeout=10000)
    assert "Registered the passkey virtual" in page.text_content(".note")
    return dict(json.loads((browser_project.root / KEYS_FILE).read_text().splitlines()[0]))


def test_3a_a_passkey_is_registered_with_a_registration_link(page: Any, passkey: dict) -> None:
    credentials = page.cdp.send("WebAuthn.getCredentials", {"authenticatorId": page.authenticator})[
        "credentials"
    ]
    assert [c["credentialId"] for c in credentials] == [base64_of(passkey["credential_id"])]
    assert (passkey["person"], passkey["algorithm"]) == ("hana@example.com", "ES256")


def base64_of(b64url: str) -> str:
    """A base64url credential id as the DevTools protocol writes it (base64)."""
    import base64

    raw = base64.urlsafe_b64decode(b64url + "=" * (-len(b64url) % 4))
    return base64.b64encode(raw).decode()


def test_3_a_task_is_approved_with_the_passkey_in_prompt_mode(
    page: Any, browser_board: Board, browser_project: AutomatonProject, passkey: dict
) -> None:
    page.goto(browser_board.site + "/")
    page.click('[data-awaiting="signup"] form.approve button')
    page.wait_for_selector('[data-awaiting="signup"]', state="detached", timeout=10000)
    assert current_state(browser_project, "signup") == "research:approved"
    last = json.loads(
        (browser_project.task_dir("signup") / store.HISTORY).read_text().splitlines()[-1]
    )
    assert (last["via"], last["approver"], last["passkey"]) == (
        "board-passkey",
        "hana@example.com",
        passkey["credential_id"],
    )
    assert "hana@example.com approved task 'signup'" in page.text_content(".note")


def test_4_changes_requested_on_an_artifact_reach_the_agent(
    page: Any, browser_board: Board, browser_project: AutomatonProject
) -> None:
    gated(browser_project, "profile", "# Profile\n\nWho logs in.\n\nHow.\n")
    page.goto(browser_board.site + "/p/0/artifact?task=profile&file=SPEC.md")
    page.click('.markdown [data-line="3"]')  # a comment on this line
    assert page.input_value("#line") == "3"
    page.fill("#comment", "Say which users.")
    page.click("form.changes button")
    page.wait_for_selector(".requests li.open", timeout=10000)
    event = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "continue",
        "cwd": str(browser_project.root),
    }
    hook = run_hook("claude", event)
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "on SPEC.md, line 3 (hana@example.com): Say which users." in context
    assert current_state(browser_project, "profile") == "research:awaiting_approval"


def test_5_no_console_errors(page: Any, browser_board: Board) -> None:
    page.errors.clear()  # the refusals other tests provoke log theirs
    for path in ("/", "/p/0/task?name=login", "/p/0/workflow?task=login", "/p/0/audit?run=1"):
        page.goto(browser_board.site + path)
        page.wait_for_load_state("networkidle") if path != "/" else page.wait_for_timeout(300)
    page.goto(browser_board.site + "/p/0/artifact?task=signup&file=SPEC.md")
    page.goto(browser_board.site + "/passkeys")
    assert page.errors == []


def _session_of(page: Any, board: Board) -> tuple[str, str]:
    """The browser's session cookie, and its CSRF token."""
    cookie = next(c for c in page.context.cookies() if c["name"] == board.board.guard.cookie)
    return f"{cookie['name']}={cookie['value']}", board.board.guard.csrf(cookie["value"])


def _captured_approval(page: Any, task: str) -> str:
    """Click Approve on `task`, and keep the form the page posts instead of sending it."""
    captured: list[str] = []

    def hold(route: Any) -> None:
        captured.append(route.request.post_data or "")
        route.abort()

    page.route("**/p/0/approve", hold)
    try:
        page.click(f'[data-awaiting="{task}"] form.approve button')
        for _ in range(200):  # the ceremony runs in the page; wait for its post
            if captured:
                break
            page.wait_for_timeout(50)
    finally:
        page.unroute("**/p/0/approve")
    assert captured, "the page posted no approval"
    return captured[0]


def test_6_an_assertion_without_user_verification_approves_nothing(
    page: Any, browser_board: Board, browser_project: AutomatonProject, passkey: dict
) -> None:
    gated(browser_project, "unverified")
    page.cdp.send(
        "WebAuthn.setUserVerified", {"authenticatorId": page.authenticator, "isUserVerified": False}
    )
    try:
        page.goto(browser_board.site + "/")
        page.click('[data-awaiting="unverified"] form.approve button')
        page.wait_for_selector("#alert:not([hidden])", timeout=15000)
        said = page.text_content("#alert") or ""
    finally:
        page.cdp.send(
            "WebAuthn.setUserVerified",
            {"authenticatorId": page.authenticator, "isUserVerified": True},
        )
    assert said.strip()
    assert current_state(browser_project, "unverified") == "research:awaiting_approval"


def test_7_a_replayed_assertion_is_refused(
    page: Any, browser_board: Board, browser_project: AutomatonProject, passkey: dict
) -> None:
    gated(browser_project, "export")
    page.goto(browser_board.site + "/")
    body = _captured_approval(page, "export")
    cookie, _csrf = _session_of(page, browser_board)
    headers = {
        "Cookie": cookie,
        "Origin": browser_board.site,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    first = browser_board.request("POST", "/p/0/approve", body.encode(), headers)
    assert first.status == 303, first.text
    assert current_state(browser_project, "export") == "research:approved"
    again = browser_board.request("POST", "/p/0/approve", body.encode(), headers)
    assert again.status == 403 and "answered once" in again.text


def test_8_an_assertion_for_another_artifact_text_is_refused(
    page: Any, browser_board: Board, browser_project: AutomatonProject, passkey: dict
) -> None:
    gated(browser_project, "billing", "# Billing\n\nMonthly.\n")
    page.goto(browser_board.site + "/")
    page.wait_for_selector('[data-awaiting="billing"] form.approve')
    body = _captured_approval(page, "billing")
    (browser_project.task_dir("billing") / "SPEC.md").write_text("# Billing\n\nYearly.\n")
    cookie, _csrf = _session_of(page, browser_board)
    headers = {
        "Cookie": cookie,
        "Origin": browser_board.site,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    answer = browser_board.request("POST", "/p/0/approve", body.encode(), headers)
    assert answer.status == 409 and "artifact may have changed" in answer.text
    assert current_state(browser_project, "billing") == "research:awaiting_approval"


def test_9_approve_on_the_artifact_page_confirms_naming_the_open_requests(
    page: Any, browser_board: Board, browser_project: AutomatonProject, passkey: dict
) -> None:
    gated(browser_project, "pricing", "# Pricing\n\nPer seat.\n")
    page.goto(browser_board.site + "/p/0/artifact?task=pricing&file=SPEC.md")
    page.click('.markdown [data-line="3"]')
    page.fill("#comment", "Which currency?")
    page.click("#ask form.changes button")
    page.wait_for_selector(".note")
    assert "requested changes to task 'pricing' on SPEC.md, line 3" in page.text_content(".note")
    page.goto(browser_board.site + "/p/0/artifact?task=pricing&file=SPEC.md")
    assert page.is_visible(".markdown .commented")
    said: list[str] = []
    page.answer_dialog = lambda dialog: (said.append(dialog.message), dialog.dismiss())
    try:
        page.click(".header-actions form.approve button")
        for _ in range(100):
            if said:
                break
            page.wait_for_timeout(50)
    finally:
        page.answer_dialog = None
    assert "1 open request(s) for changes will stay unanswered" in said[0]
    assert "- SPEC.md, line 3: Which currency?" in said[0]
    assert current_state(browser_project, "pricing") == "research:awaiting_approval"
    page.click(".header-actions form.approve button")
    page.wait_for_url("**/p/0/task?name=pricing", timeout=10000)
    assert "hana@example.com approved task 'pricing'" in page.text_content(".note")
    assert current_state(browser_project, "pricing") == "research:approved"


def test_10_after_a_restart_the_page_says_so_and_how_to_log_in(
    page: Any, browser_project: AutomatonProject
) -> None:
    first = Board([browser_project.root], person="hana@example.com")
    other = page.context.new_page()
    try:
        other.goto(f"{first.site}/login?code={first.board.guard.issue(time.time())}")
        other.wait_for_function("() => document.getElementById('live').textContent === 'live'")
        first.stop()
        second = Board([browser_project.root], person="hana@example.com", port=first.port)
        try:
            other.wait_for_selector("#live[data-restarted]", timeout=20000)
            said = other.text_content("#live") or ""
        finally:
            second.stop()
    finally:
        other.close()
    assert said.startswith("The board restarted")
    assert "press Enter there for a fresh one" in said


def test_11_the_filter_hides_the_cards_it_does_not_match(
    page: Any, browser_board: Board, browser_project: AutomatonProject
) -> None:
    browser_project.task("filter-me", "implement")
    page.goto(browser_board.site + "/")
    page.wait_for_selector('.card[data-task="filter-me"]')
    page.fill("#filter", "filter-m")
    # The filter runs on the input event: wait for the page to have done it, not a time.
    page.wait_for_selector('.card[data-task="signup"]', state="hidden")
    assert page.is_visible('.card[data-task="filter-me"]')
    page.fill("#filter", "")
    page.wait_for_selector('.card[data-task="signup"]', state="visible")
    assert page.is_visible('.card[data-task="filter-me"]')
