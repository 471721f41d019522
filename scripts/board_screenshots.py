"""Take the screenshots docs/board.md shows, of a demo board in headless chromium.

    .venv/bin/python scripts/board_screenshots.py [OUT_DIR]   # default docs/images

Builds two demo projects in a temporary folder (a task at its gate with a comment thread
and a revision, a `.state` edited by hand, one garbled, a folder made by hand), serves
them, registers a passkey in Chromium's virtual authenticator through the page, and
saves the board, the review page, the passkeys page and a task page whose `.state` the
board cannot vouch for. Needs the `[board]` and `[test]` extras and Debian's chromium.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
PERSON = "lead@example.com"


def demo(folder: Path) -> list[Path]:
    """Two projects with what the screenshots show."""
    from automaton_rules.core import store
    from automaton_rules.testing import AutomatonProject

    shop = AutomatonProject(folder / "shop")
    shop.root.mkdir()
    (shop.root / "automaton.toml").write_text('approval = "prompt"\n')
    shop.task("login", "research")
    (shop.task_dir("login") / "SPEC.md").write_text(
        "# Login\n\nWho logs in: the shop's customers.\n\nHow: a password, or a link by "
        "e-mail.\n\n## Out of scope\n\nSingle sign-on.\n"
    )
    shop.advance("login", ["research:awaiting_approval"])
    shop.task("checkout", "design")
    shop.task("legacy-report", "research")
    (shop.task_dir("legacy-report") / store.STATE).write_text("implement\n")
    shop.task("garbled", "research")
    (shop.task_dir("garbled") / store.STATE).write_bytes(b"\xff\xfegarbage\x00\n")
    made = shop.tasks_dir / "hand-made"
    made.mkdir()
    (made / "SPEC.md").write_text("# Made by hand\n")
    api = AutomatonProject(folder / "api")
    api.root.mkdir()
    api.task("legacy-report", "implement")
    api.task("rate-limits", "research")
    (api.task_dir("rate-limits") / "SPEC.md").write_text("# Rate limits\n\n100 a minute.\n")
    api.advance("rate-limits", ["research:awaiting_approval"])
    return [shop.root, api.root]


def main() -> int:
    """Serve the demo and take the screenshots."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    os.environ.update(
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="automaton.person", GIT_CONFIG_VALUE_0=PERSON
    )
    from playwright.sync_api import sync_playwright

    from automaton_rules.board.projects import open_projects
    from automaton_rules.board.security import REGISTER
    from automaton_rules.board.server import make_server
    from automaton_rules.workflow import reviews

    folder = Path(tempfile.mkdtemp(prefix="board-shots-"))
    try:
        roots = demo(folder)
        server, sock, board, _url = make_server(open_projects(list(roots)), port=0)
        port = sock.getsockname()[1]
        site = f"http://localhost:{port}"
        threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
        while not server.started:
            time.sleep(0.02)
        shop = board.projects["0"].project
        reviews.request_changes(
            shop, "login", "Which customers: guests too?", by=PERSON, artifact="SPEC.md", line=3
        )
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            cdp = page.context.new_cdp_session(page)
            cdp.send("WebAuthn.enable")
            options = {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
            cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})
            page.goto(f"{site}/login?code={board.guard.issue(time.time(), REGISTER)}")
            page.fill("#label", "laptop")
            page.click("#register button")
            page.wait_for_selector(".note")
            page.screenshot(path=str(out / "board-passkeys.png"), full_page=True)
            page.goto(site + "/")
            page.wait_for_selector('[data-awaiting="login"] form.approve')
            page.screenshot(path=str(out / "board-index.png"), full_page=True)
            page.goto(f"{site}/p/0/artifact?task=login&file=SPEC.md")
            page.screenshot(path=str(out / "board-review.png"), full_page=True)
            page.goto(f"{site}/p/0/task?name=legacy-report")
            page.screenshot(path=str(out / "board-hand-edited.png"), full_page=True)
            browser.close()
        board.hub.close()
        server.should_exit = True
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
