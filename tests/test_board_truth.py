"""The truth on every card and page: a `.state` edited by hand, garbled or missing is shown
as such and never as a phase; a project deleted while served is said missing; every page
names its project, so two projects' tasks of one name are never confused.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the dashboard's extra: pip install '.[board]'")

from helpers import Board

from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject


@pytest.fixture
def project(tmp_path: Path) -> AutomatonProject:
    made = AutomatonProject(tmp_path / "shop")
    made.root.mkdir()
    made.task("edited", "research")
    (made.task_dir("edited") / store.STATE).write_text("implement\n")  # history: research
    made.task("gated", "research")
    (made.task_dir("gated") / store.STATE).write_text("design:awaiting_approval\n")
    made.task("garbled", "research")
    (made.task_dir("garbled") / store.STATE).write_bytes(b"\xff\xfegarbage\x00\n")
    folder = made.tasks_dir / "hand-made"
    folder.mkdir()
    (folder / "SPEC.md").write_text("# Made by hand\n")
    made.task("real", "implement")
    return made


def column(page: str, phase: str) -> str:
    start = page.index(f'data-phase="{phase}"')
    return page[start : page.index("</details>", start)]


def test_a_hand_edited_state_is_shown_as_such_never_as_its_phase(board: Board) -> None:
    page = board.get("/").text
    edited = column(page, "hand-edited .state")
    assert 'data-task="edited"' in edited and 'data-task="gated"' in edited
    assert "(its history: research)" in edited
    assert 'data-task="edited"' not in column(page, "implement")
    assert 'data-task="real"' in column(page, "implement")
    assert 'data-awaiting="gated"' not in page  # a gate written by hand is no gate
    task = board.get("/p/0/task?name=edited").text
    assert 'data-truth="hand-edited .state"' in task
    assert "<b>hand-edited .state.</b>" in task
    assert "its history's last move is to <code>research</code>" in task
    assert "implement phase for" not in task
    gated = board.get("/p/0/task?name=gated").text
    assert 'action="/p/0/approve"' not in gated and 'name="comment"' not in gated


def test_a_garbled_state_is_unreadable_and_shown_escaped(board: Board) -> None:
    page = board.get("/").text
    assert 'data-task="garbled"' in column(page, "unreadable .state")
    assert 'data-task="garbled"' not in column(page, "untracked (no .state)")
    task = board.get("/p/0/task?name=garbled")
    assert task.status == 200
    assert "<b>unreadable .state.</b>" in task.text
    assert "garbage\\x00" in task.text  # the NUL shown escaped, never sent raw
    assert "\x00" not in task.text and "\x00" not in page


def test_an_untracked_folder_is_titled_right(board: Board) -> None:
    page = board.get("/").text
    assert 'data-task="hand-made"' in column(page, "untracked (no .state)")
    task = board.get("/p/0/task?name=hand-made").text
    assert "None" not in task
    assert "<h2>hand-<wbr>made <code>no .state</code></h2>" in task
    assert "--task hand-made --upgrade" in task


def test_a_project_deleted_while_served_is_said_missing(tmp_path: Path) -> None:
    kept = AutomatonProject(tmp_path / "kept")
    kept.root.mkdir()
    kept.task("login", "research")
    gone = AutomatonProject(tmp_path / "gone")
    gone.root.mkdir()
    gone.task("login", "research")
    served = Board([kept.root, gone.root])
    try:
        assert 'data-project="1"' in served.get("/").text
        shutil.rmtree(gone.root)
        deadline = time.monotonic() + 10
        while "This project is missing" not in (page := served.get("/").text):
            assert time.monotonic() < deadline, "the board did not notice the project went"
            time.sleep(0.05)
        missing = page[page.index('data-project="1"') :]
        assert "0 tasks" not in missing and f"{gone.root}" in missing
        assert (
            'data-task="login"'
            in page[page.index('data-project="0"') : page.index('data-project="1"')]
        )
    finally:
        served.stop()


def test_every_page_names_its_project(tmp_path: Path) -> None:
    roots = []
    for name in ("shop", "api"):
        made = AutomatonProject(tmp_path / name)
        made.root.mkdir()
        made.task("legacy-report", "research")
        (made.task_dir("legacy-report") / "SPEC.md").write_text(f"# {name}\n")
        roots.append(made.root)
    served = Board(roots)
    try:
        for pid, root in enumerate(roots):
            for path in (
                f"/p/{pid}/task?name=legacy-report",
                f"/p/{pid}/artifact?task=legacy-report&file=SPEC.md",
                f"/p/{pid}/workflow?task=legacy-report",
                f"/p/{pid}/audit",
            ):
                page = served.get(path).text
                crumbs = page[page.index('<nav class="crumbs"') :]
                crumbs = crumbs[: crumbs.index("</nav>")]
                assert f'data-project-root="{root}"' in crumbs, path
                assert f">{root}</a>" in crumbs, path
                assert f"· {root.name}</title>" in page, path
    finally:
        served.stop()
