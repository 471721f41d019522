"""The code a task changed, on the board: the commits whose `Task:` trailer names it, and
the diff of each; a commit of another task, or no commit at all, is refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the dashboard's extra: pip install '.[board]'")

from helpers import Board

from automaton_rules.testing import AutomatonProject


def git(root: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "Ann",
        "GIT_AUTHOR_EMAIL": "ann@example.com",
        "GIT_COMMITTER_NAME": "Ann",
        "GIT_COMMITTER_EMAIL": "ann@example.com",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> AutomatonProject:
    made = AutomatonProject(tmp_path / "shop")
    made.root.mkdir()
    made.task("login", "implement")
    made.task("signup", "implement")
    git(made.root, "init", "-q")
    (made.root / "app.py").write_text("def login():\n    return False\n")
    git(made.root, "add", "-A")
    git(made.root, "commit", "-qm", "Start")
    (made.root / "app.py").write_text("def login():\n    return check_password()\n")
    git(made.root, "commit", "-qam", "Log in with a password\n\nTask: login")
    (made.root / "signup.py").write_text("SIGNUP = True\n")
    git(made.root, "add", "signup.py")
    git(made.root, "commit", "-qm", "Sign up\n\nTask: signup")
    return made


def test_a_tasks_commits_and_their_diff(board: Board, project: AutomatonProject) -> None:
    assert 'href="/p/0/code?task=login"' in board.get("/p/0/task?name=login").text
    page = board.get("/p/0/code?task=login").text
    assert "Log in with a password" in page and "Sign up" not in page and "Start" not in page
    assert '<span class="d-del">-    return False</span>' in page
    assert '<span class="d-add">+    return check_password()</span>' in page
    assert f'data-project-root="{project.root}"' in page


def test_a_commit_of_another_task_or_a_bad_name_is_refused(
    board: Board, project: AutomatonProject
) -> None:
    other = git(project.root, "rev-parse", "HEAD")  # signup's
    page = board.get(f"/p/0/code?task=login&commit={other}").text
    assert "That commit does not name this task." in page and "SIGNUP" not in page
    answer = board.get("/p/0/code?task=login&commit=HEAD~1")
    assert answer.status == 400 and "40 hexadecimal digits" in answer.text
    assert board.get("/p/0/code?task=../x").status in (400, 404)
    assert board.request("GET", "/p/0/code?task=login").status == 403  # no session


def test_no_commit_or_no_repository_is_said_so(tmp_path: Path) -> None:
    made = AutomatonProject(tmp_path / "plain")
    made.root.mkdir()
    made.task("login", "implement")
    served = Board([made.root])
    try:
        page = served.get("/p/0/code?task=login").text
    finally:
        served.stop()
    assert "No git history to read" in page or "No commit names this task" in page
