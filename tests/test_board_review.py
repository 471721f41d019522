"""Review where the lead reads: the artifact page holds the decision (Approve, confirmed
in words that name the open requests, and Request changes), comments on lines as threads
with replies and resolving, the diff between any two revisions, and a message after each
decision. Every refused request is made and refused.
"""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the dashboard's extra: pip install '.[board]'")
pytest.importorskip("webauthn", reason="the dashboard's extra: pip install '.[board]'")

import softkey
from helpers import Board, current_state, run_hook, write_config

from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject

PERSON = "lead@example.com"
PAGE = "/p/0/artifact?task=login&file=SPEC.md"
FIRST = "# Login\n\nWho logs in.\n\nHow they log in.\n"


def refused(answer: Any, status: int, words: str = "") -> None:
    assert answer.status == status, (answer.status, answer.text[:400])
    assert 'class="refusal"' in answer.text and words in answer.text


@pytest.fixture
def project(tmp_path: Path) -> AutomatonProject:
    made = AutomatonProject(tmp_path / "shop")
    made.root.mkdir()
    write_config(made, 'approval = "prompt"\n')
    made.task("login", "research")
    (made.task_dir("login") / "SPEC.md").write_text(FIRST)
    made.advance("login", ["research:awaiting_approval"])
    return made


@pytest.fixture
def board(project: AutomatonProject) -> Any:
    served = Board([project.root], person=PERSON)
    yield served
    served.stop()


@pytest.fixture
def key(board: Board) -> softkey.SoftKey:
    made = softkey.SoftKey()
    assert softkey.register(board, made).status == 303
    return made


def ask(board: Board, comment: str, line: str = "3") -> Any:
    fields = {"task": "login", "artifact": "SPEC.md", "line": line, "comment": comment}
    return board.post("/p/0/changes", fields)


def thread_id(project: AutomatonProject) -> str:
    lines = (project.task_dir("login") / store.REVIEWS).read_text().splitlines()
    return str(json.loads(lines[0])["id"])


def test_the_artifact_page_names_its_project_and_holds_the_decision(
    board: Board, project: AutomatonProject, key: softkey.SoftKey
) -> None:
    page = board.get(PAGE).text
    assert f'data-project-root="{project.root}"' in page
    assert 'class="decision header-actions"' in page
    header = page[page.index("header-actions") : page.index('<div class="markdown">')]
    assert 'action="/p/0/approve"' in header and 'href="#ask"' in header
    assert 'value="/p/0/task?name=login"' in header  # back to the task after deciding
    confirm = unescape(header.split('data-confirm="', 1)[1].split('"', 1)[0])
    assert confirm.startswith(f"Approve task 'login' at research:awaiting_approval as {PERSON}?")
    assert "No request for changes is open." in confirm
    assert 'id="ask"' in page and 'name="comment"' in page


def test_the_confirmation_names_the_open_requests(
    board: Board, project: AutomatonProject, key: softkey.SoftKey
) -> None:
    assert ask(board, "Name the users.").status == 303
    page = board.get(PAGE).text
    confirm = unescape(page.split('data-confirm="', 1)[1].split('"', 1)[0])
    assert "1 open request(s) for changes will stay unanswered:" in confirm
    assert "- SPEC.md, line 3: Name the users." in confirm
    assert "The text is unchanged since the last request for changes." in confirm


def test_a_request_for_changes_lands_on_the_task_with_a_message(
    board: Board, project: AutomatonProject
) -> None:
    answer = ask(board, "Name the users.")
    assert answer.status == 303 and answer.headers["location"] == "/p/0/task?name=login"
    page = board.get(answer.headers["location"]).text
    assert f"{PERSON} requested changes to task &#x27;login&#x27; on SPEC.md, line 3" in page
    assert "told at its next hook" in page
    assert 'class="note"' not in board.get(answer.headers["location"]).text  # once


def test_an_approval_from_the_artifact_page_lands_on_the_task_with_who_did_it(
    board: Board, project: AutomatonProject, key: softkey.SoftKey
) -> None:
    answer = softkey.approve(board, key, "login", back="/p/0/task?name=login")
    assert answer.status == 303 and answer.headers["location"] == "/p/0/task?name=login"
    page = board.get(answer.headers["location"]).text
    assert f"{PERSON} approved task &#x27;login&#x27; (research:approved)" in page
    assert current_state(project, "login") == "research:approved"


def test_a_comment_on_a_line_marks_the_line_and_opens_a_thread(
    board: Board, project: AutomatonProject
) -> None:
    assert ask(board, "Name the users.").status == 303
    page = board.get(PAGE).text
    assert '<p data-line="3" id="L3" class="commented">Who logs in.</p>' in page
    assert '<p data-line="5" id="L5">How they log in.</p>' in page
    thread = page[page.index('class="threads"') :]
    assert 'href="#L3">line 3</a>' in thread and "Name the users." in thread
    assert '<span class="badge">open</span>' in thread
    assert 'action="/p/0/reply"' in thread and 'action="/p/0/resolve"' in thread


def test_replies_and_resolving_make_a_thread(board: Board, project: AutomatonProject) -> None:
    assert ask(board, "Name the users.").status == 303
    to = thread_id(project)
    fields = {"task": "login", "to": to, "file": "SPEC.md"}
    answer = board.post("/p/0/reply", {**fields, "comment": "Admins and guests, say."})
    assert answer.status == 303 and answer.headers["location"] == PAGE
    page = board.get(PAGE).text
    assert f"<b>{PERSON}</b>" in page and "Admins and guests, say." in page
    assert f"{PERSON} replied to a request for changes" in page
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "go", "cwd": str(project.root)}
    told = json.loads(run_hook("claude", event).stdout)["hookSpecificOutput"]
    assert "Name the users." in told["additionalContext"]  # open: the agent is told
    assert board.post("/p/0/resolve", fields).status == 303
    page = board.get(PAGE).text
    assert '<span class="badge">resolved</span>' in page
    assert 'action="/p/0/resolve"' not in page  # resolved once
    hook = run_hook("claude", event)
    assert "Name the users." not in hook.stdout  # resolved: no longer asked of the agent


def test_refused_replies(board: Board, project: AutomatonProject) -> None:
    assert ask(board, "Name the users.").status == 303
    to = thread_id(project)
    fields = {"task": "login", "to": to, "file": "SPEC.md", "comment": "ok"}
    refused(board.post("/p/0/reply", {**fields, "to": "nope"}), 400, "no request for changes")
    refused(board.post("/p/0/reply", {**fields, "comment": "  "}), 400, "needs a comment")
    refused(board.post("/p/0/reply", fields, Origin="http://evil.example"), 403)
    refused(board.post("/p/0/resolve", fields, csrf="0" * 64), 403)
    refused(board.post("/p/0/reply", {**fields, "task": "nope"}), 400)
    lines = (project.task_dir("login") / store.REVIEWS).read_text().splitlines()
    assert len(lines) == 1


def test_revisions_compare_the_text_commented_on_with_the_agents_revision(
    board: Board, project: AutomatonProject
) -> None:
    assert ask(board, "Name the users.").status == 303
    (project.task_dir("login") / "SPEC.md").write_text(FIRST.replace("Who", "Admins"))
    digest = json.loads((project.task_dir("login") / store.REVISIONS).read_text().splitlines()[0])[
        "sha256"
    ]
    page = board.get(PAGE).text
    assert '<section class="revisions">' in page
    assert f'<option value="{digest}" selected>commented on at' in page
    assert '<span class="badge">revised since</span>' in page
    compared = board.get(f"{PAGE}&from={digest}&to=now").text
    assert '<span class="d-del">-Who logs in.</span>' in compared
    assert '<span class="d-add">+Admins logs in.</span>' in compared
    same = board.get(f"{PAGE}&from=now&to=now").text
    assert "The two are the same." in same
    assert "No such revision" in board.get(f"{PAGE}&from=nope&to=now").text


def test_a_large_artifact_is_cut_with_a_link_to_the_whole_file(
    board: Board, project: AutomatonProject
) -> None:
    from automaton_rules.board.review import MAX_SHOWN

    big = "# Big\n\n" + ("word " * 20 + "\n\n") * (MAX_SHOWN // 100 + 10)
    (project.task_dir("login") / "SPEC.md").write_text(big)
    page = board.get(PAGE)
    assert page.status == 200
    assert len(page.text) < 3 * MAX_SHOWN
    assert 'href="/p/0/raw?task=login&amp;file=SPEC.md">The whole file</a>' in page.text
    whole = board.get("/p/0/raw?task=login&file=SPEC.md")
    assert whole.status == 200 and whole.text == big
    assert whole.headers["content-type"].startswith("text/plain")
    refused(board.get("/p/0/raw?task=login&file=.state"), 404)
    refused(board.request("GET", "/p/0/raw?task=login&file=SPEC.md"), 403)  # no session


def test_a_task_being_revised_and_one_revised_say_so(
    board: Board, project: AutomatonProject
) -> None:
    import time

    assert ask(board, "Name the users.").status == 303
    page = board.get("/").text
    lane = page[page.index('data-awaiting="login"') :]
    assert '<span class="badge review">agent revising</span>' in lane[: lane.index("</li>")]
    (project.task_dir("login") / "SPEC.md").write_text(FIRST.replace("Who", "Admins"))
    deadline = time.monotonic() + 10
    while "revised: review again" not in (page := board.get("/").text):
        assert time.monotonic() < deadline, "the board did not see the revision"
        time.sleep(0.05)
    inbox = board.get("/inbox").text
    assert "Needs me (1)" in inbox and 'data-awaiting="login"' in inbox
    assert f">{project.root}</a>" in inbox and "revised: review again" in inbox


def test_the_inbox_lists_what_waits_in_every_project_and_needs_the_session(
    tmp_path: Path,
) -> None:
    roots = []
    for name in ("shop", "api"):
        made = AutomatonProject(tmp_path / name)
        made.root.mkdir()
        made.task("login", "research:awaiting_approval")
        made.task("build", "implement")
        roots.append(made.root)
    served = Board(roots)
    try:
        home = served.get("/").text
        assert 'id="filter"' in home and 'href="/inbox">needs me (2)</a>' in home
        assert home.count('<details open class="fold">') == 2  # each project folds
        inbox = served.get("/inbox").text
        assert "Needs me (2)" in inbox
        for root in roots:
            assert f">{root}</a>" in inbox
        assert 'data-awaiting="build"' not in inbox
        refused(served.request("GET", "/inbox"), 403)
    finally:
        served.stop()


def test_a_suggested_edit_is_shown_in_its_thread_and_told_to_the_agent(
    board: Board, project: AutomatonProject
) -> None:
    fields = {
        "task": "login",
        "artifact": "SPEC.md",
        "line": "3",
        "comment": "Name them.",
        "suggestion": "Who logs in: admins\nand <b>guests</b>.",
    }
    assert board.post("/p/0/changes", fields).status == 303
    page = board.get(PAGE).text
    assert (
        '<pre class="suggestion">Who logs in: admins\nand &lt;b&gt;guests&lt;/b&gt;.</pre>' in page
    )
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "go", "cwd": str(project.root)}
    told = json.loads(run_hook("claude", event).stdout)["hookSpecificOutput"]
    context = told["additionalContext"]
    assert "- on SPEC.md, line 3 (lead@example.com): Name them." in context
    assert (
        "  suggested text for SPEC.md, line 3:\n    Who logs in: admins\n    and <b>guests</b>."
        in context
    )
    recorded = json.loads((project.task_dir("login") / store.REVIEWS).read_text().splitlines()[0])
    assert recorded["suggestion"] == fields["suggestion"]
