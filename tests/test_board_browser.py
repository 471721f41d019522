"""The dashboard in a real browser (Debian's chromium, driven by Playwright): it opens,
follows a change made by status.py without a reload, approves in prompt mode, sends a
request for changes the agent's next hook answer carries, and logs no console error.

One browser and one board for the module; the tests run in order on one project.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Board, current_state, run_hook, status_env, system_tool, write_config

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
        opened.errors = []  # console errors and uncaught exceptions, for the last test
        opened.on(
            "console",
            lambda message: opened.errors.append(message.text) if message.type == "error" else None,
        )
        opened.on("pageerror", lambda error: opened.errors.append(str(error)))
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


def test_3_a_task_is_approved_from_the_board_in_prompt_mode(
    page: Any, browser_project: AutomatonProject
) -> None:
    page.click('[data-awaiting="signup"] form.approve button')
    page.wait_for_selector('[data-awaiting="signup"]', state="detached", timeout=10000)
    assert current_state(browser_project, "signup") == "research:approved"
    last = json.loads(
        (browser_project.task_dir("signup") / store.HISTORY).read_text().splitlines()[-1]
    )
    assert (last["via"], last["approver"]) == ("board", "hana@example.com")


def test_4_changes_requested_on_an_artifact_reach_the_agent(
    page: Any, browser_board: Board, browser_project: AutomatonProject
) -> None:
    page.goto(browser_board.site + "/p/0/artifact?task=login&file=SPEC.md")
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
    assert current_state(browser_project, "login") == "research:awaiting_approval"


def test_5_no_console_errors(page: Any, browser_board: Board) -> None:
    for path in ("/", "/p/0/task?name=login", "/p/0/workflow?task=login", "/p/0/audit?run=1"):
        page.goto(browser_board.site + path)
        page.wait_for_load_state("networkidle") if path != "/" else page.wait_for_timeout(300)
    assert page.errors == []
