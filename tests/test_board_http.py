"""The dashboard over HTTP: every page, every refusal, hostile input, many open pages.

One board serves the module's project from a thread; each test talks to it as a browser
(or an attacker) would, with `http.client`, every header under the test's control.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the dashboard's extra: pip install '.[board]'")

from helpers import Board, current_state, run_hook, status_env, write_config

from automaton_rules.core import store
from automaton_rules.testing import AutomatonProject

HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


@pytest.fixture(scope="module")
def http_project(tmp_path_factory: pytest.TempPathFactory) -> AutomatonProject:
    root = tmp_path_factory.mktemp("board") / "proj"
    root.mkdir()
    made = AutomatonProject(root)
    made.task("login", "research")
    (made.task_dir("login") / "SPEC.md").write_text(f"# Login\n\n{HOSTILE}\n\nline five\n")
    made.advance("login", ["research:awaiting_approval"])
    made.task("signup", "design")
    made.task("report", "implement")
    (made.task_dir("report") / 'notes"><b>xxx<i>.md').write_text(HOSTILE)
    return made


def server_argv(root: Path, *more: str) -> list[str]:
    """The board's own server on a free port, serving `root`, as `automaton-board` runs it."""
    import sys

    module = ["-m", "automaton_rules.board.server"]
    return [sys.executable, *module, "--project", str(root), "--port", "0", *more]


@pytest.fixture(scope="module")
def board(http_project: AutomatonProject) -> Any:
    served = Board([http_project.root], person="alice@example.com")
    yield served
    served.stop()


def refused(answer: Any, status: int) -> None:
    assert answer.status == status, (answer.status, answer.text[:300])
    assert 'class="refusal"' in answer.text


# ------------------------------------------------------------------------ the pages


def test_the_board_shows_every_task_by_phase_and_collapses_empty_phases(board: Board) -> None:
    page = board.get("/").text
    assert 'data-task="login"' in page and 'data-task="signup"' in page
    for phase in ("research", "design", "implement"):
        assert f'data-phase="{phase}"' in page
    assert 'data-phase="bug_find"' not in page  # an empty phase has no column
    assert "No task in: new, decomposition, test_design, bug_find" in page
    assert 'signed in as <b id="person">alice@example.com</b>' in page


def test_the_awaiting_lane_says_how_long_and_how_to_approve(board: Board) -> None:
    page = board.get("/").text
    lane = page[page.index('data-lane="0"') : page.index('<div class="board">')]
    assert 'data-awaiting="login"' in lane
    assert "waiting " in lane
    assert 'href="/passkeys">register a passkey</a>' in lane  # none registered here
    assert "type <code>approve login</code> in the agent's chat" in lane


def test_every_page_answers_with_the_session(board: Board) -> None:
    for path in (
        "/",
        "/p/0/task?name=login",
        "/p/0/task?name=report",
        "/p/0/artifact?task=login&file=SPEC.md",
        "/p/0/workflow",
        "/p/0/workflow?task=login",
        "/p/0/audit",
        "/board.js",
        "/board.css",
    ):
        answer = board.get(path)
        assert answer.status == 200, (path, answer.text[:300])
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY"


def test_the_task_page_shows_state_timeline_history_and_artifacts(board: Board) -> None:
    page = board.get("/p/0/task?name=login").text
    assert 'data-state="research:awaiting_approval"' in page
    assert "<h3>Timeline</h3>" in page and "<h3>History</h3>" in page
    assert 'href="/p/0/artifact?task=login&amp;file=SPEC.md"' in page
    assert 'name="comment"' in page  # a task at its gate can be sent back
    assert ".state.history" not in page  # records are not listed as files


def test_a_fragment_is_the_main_part_only(board: Board) -> None:
    answer = board.get("/", **{"X-Board-Fragment": "1"})
    assert answer.status == 200
    assert not answer.text.startswith("<!DOCTYPE")
    assert 'data-project="0"' in answer.text
    assert answer.headers["x-board-generation"]


def test_the_audit_runs_on_request_and_is_kept_until_the_files_change(
    board: Board, http_project: AutomatonProject
) -> None:
    assert "Run the audit" in board.get("/p/0/audit").text
    ran = board.get("/p/0/audit?run=1").text
    assert "Out-of-order Artifacts" in ran
    assert "Run the audit" not in board.get("/p/0/audit").text  # kept
    (http_project.task_dir("signup") / "DESIGN.md").write_text("touched\n")
    deadline = time.monotonic() + 10
    while "Run the audit" not in board.get("/p/0/audit").text:  # the watcher saw it
        assert time.monotonic() < deadline, "the kept audit outlived a change of the files"
        time.sleep(0.05)


def test_the_workflow_is_drawn_with_the_tasks_path(board: Board) -> None:
    page = board.get("/p/0/workflow?task=login").text
    assert "<svg" in page
    assert "research:awaiting_approval" in page


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "path", ["/", "/p/0/task?name=login", "/p/0/artifact?task=login&file=SPEC.md", "/events"]
)
def test_no_session_is_refused(board: Board, path: str) -> None:
    refused(board.request("GET", path), 403)
    refused(
        board.request("GET", path, headers={"Cookie": f"{board.board.guard.cookie}=forged"}), 403
    )


def test_a_wrong_login_code_opens_no_session(board: Board) -> None:
    for path in ("/login?code=not-a-code", "/login", "/?token=" + board.board.guard.secret):
        answer = board.request("GET", path)
        refused(answer, 403)
        assert "set-cookie" not in answer.headers


def test_the_printed_link_opens_a_session_and_lands_on_a_clean_address(board: Board) -> None:
    code = board.board.guard.issue(time.time())
    answer = board.request("GET", "/login?code=" + code)
    assert answer.status == 303
    assert answer.headers["location"] == "/"  # the code leaves the address bar
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert code not in cookie and board.board.guard.secret not in cookie
    assert answer.headers["referrer-policy"] == "same-origin"
    opened = board.request("GET", "/", headers={"Cookie": cookie.split(";")[0]})
    assert opened.status == 200


def test_a_login_link_opens_one_session_only(board: Board) -> None:
    code = board.board.guard.issue(time.time())
    assert board.request("GET", "/login?code=" + code).status == 303
    again = board.request("GET", "/login?code=" + code)  # from the browser's history
    refused(again, 403)
    assert "set-cookie" not in again.headers
    assert "used or has expired" in again.text


def test_a_login_link_older_than_its_minutes_has_expired(board: Board) -> None:
    from automaton_rules.board.security import CODE_MINUTES

    code = board.board.guard.issue(time.time() - CODE_MINUTES * 60 - 1)
    answer = board.request("GET", "/login?code=" + code)
    refused(answer, 403)
    assert "set-cookie" not in answer.headers
    assert "expired" in answer.text
    refused(board.request("GET", "/login?code=" + code), 403)


def test_a_session_ends_after_its_hours(board: Board) -> None:
    """Issue 29: a login lasted as long as the browser kept its cookie. A session opened
    more than SESSION_HOURS ago is refused, and says how to log in again."""
    from automaton_rules.board.security import SESSION_HOURS

    then = time.time() - SESSION_HOURS * 3600 - 1
    old, _ = board.board.guard.open_session(board.board.guard.issue(then), then)
    cookie = f"{board.board.guard.cookie}={old}"
    answer = board.get("/", Cookie=cookie)
    refused(answer, 403)
    assert "This session has ended" in answer.text and "press Enter" in answer.text
    refused(board.get("/", Cookie=cookie), 403)  # and it stays ended
    assert board.get("/").status == 200  # a session of today still works


def test_enter_at_the_terminal_prints_a_fresh_link_each_time(board: Board) -> None:
    import io
    import re

    from automaton_rules.board.server import print_fresh_links

    out = io.StringIO()
    print_fresh_links(board.board, ["\n", "\n"], out)
    codes = re.findall(rf"Open http://localhost:{board.port}/login\?code=(\S+)", out.getvalue())
    assert len(codes) == 2 and codes[0] != codes[1]
    assert board.request("GET", "/login?code=" + codes[1]).status == 303


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::", "example.com"])
def test_a_host_beyond_this_machine_is_refused_without_the_flag(
    http_project: AutomatonProject, host: str
) -> None:
    import subprocess

    proc = subprocess.run(
        server_argv(http_project.root, "--host", host),
        capture_output=True,
        text=True,
        env=status_env(),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"ERROR: --host {host} listens beyond this machine")
    assert "--allow-remote" in proc.stderr and proc.stderr.count("\n") == 1


def test_status_py_serve_refuses_a_host_beyond_this_machine_too(
    http_project: AutomatonProject,
) -> None:
    import subprocess
    import sys

    command = ["status.py", "--serve", "--project", str(http_project.root), "--host", "0.0.0.0"]
    proc = subprocess.run(
        [sys.executable, *command, "--port", "0"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        env=status_env(),
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith("ERROR: --host 0.0.0.0 listens beyond this machine")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "127.0.0.2", "::1"])
def test_a_loopback_host_needs_no_flag(host: str) -> None:
    from automaton_rules.board.security import is_loopback

    assert is_loopback(host)


@pytest.mark.parametrize(
    "host", ["evil.example:80", "attacker.test", "127.0.0.1", "localhost:1", ""]
)
def test_a_foreign_host_is_refused_even_with_a_session(board: Board, host: str) -> None:
    answer = board.request("GET", "/", headers={"Cookie": board.cookie}, host=host)
    refused(answer, 400)
    answer = board.request("GET", "/board.js", host=host)
    refused(answer, 400)


def test_localhost_is_a_local_host(board: Board) -> None:
    answer = board.request(
        "GET", "/", headers={"Cookie": board.cookie}, host=f"localhost:{board.port}"
    )
    assert answer.status == 200


def test_an_approval_without_the_session_is_refused(
    board: Board, http_project: AutomatonProject
) -> None:
    refused(board.post("/p/0/approve", {"task": "login"}, Cookie=""), 403)
    assert current_state(http_project, "login") == "research:awaiting_approval"


@pytest.mark.parametrize(
    "origin", ["", "http://evil.example", "http://127.0.0.1:1", "null", "https://127.0.0.1"]
)
def test_a_wrong_origin_is_refused(
    board: Board, http_project: AutomatonProject, origin: str
) -> None:
    refused(board.post("/p/0/approve", {"task": "login"}, Origin=origin), 403)
    assert current_state(http_project, "login") == "research:awaiting_approval"


def test_a_missing_or_wrong_csrf_token_is_refused(
    board: Board, http_project: AutomatonProject
) -> None:
    from urllib.parse import urlencode

    headers = {
        "Cookie": board.cookie,
        "Origin": board.base,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    for fields in ({"task": "login"}, {"task": "login", "csrf": "0" * 64}):
        body = urlencode(fields).encode()
        refused(board.request("POST", "/p/0/approve", body, headers), 403)
    assert current_state(http_project, "login") == "research:awaiting_approval"


def test_a_change_is_never_a_get(board: Board, http_project: AutomatonProject) -> None:
    answer = board.get(f"/p/0/approve?task=login&csrf={board.csrf}")
    assert answer.status == 405
    assert current_state(http_project, "login") == "research:awaiting_approval"


@pytest.mark.parametrize(
    "query",
    [
        "task=login&file=../../../../etc/passwd",
        "task=login&file=..%2F..%2Fautomaton.toml",
        "task=login&file=.state",
        "task=login&file=.state.history",
        "task=login&file=/etc/passwd",
        "task=../login&file=SPEC.md",
        "task=login/../../x&file=SPEC.md",
        "task=%2Fetc&file=passwd",
        "task=login&file=subtasks",
        "task=login&file=",
    ],
)
def test_a_path_that_walks_out_of_the_task_is_refused(board: Board, query: str) -> None:
    answer = board.get(f"/p/0/artifact?{query}")
    assert answer.status in (400, 404), answer.status
    assert "root:" not in answer.text


def test_an_unknown_project_or_task_is_refused(board: Board) -> None:
    refused(board.get("/p/9/task?name=login"), 404)
    refused(board.get("/p/0/task?name=nope"), 404)
    refused(board.get("/p/0/task"), 400)


def test_hostile_text_in_artifacts_file_names_and_comments_is_shown_never_run(
    board: Board,
) -> None:
    pages = [
        board.get("/p/0/artifact?task=login&file=SPEC.md").text,
        board.get("/p/0/task?name=report").text,
    ]
    for page in pages:
        assert "<script>alert" not in page
        assert "<img src=x" not in page
        assert 'onerror="alert' not in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in pages[0]
    assert "notes&quot;&gt;&lt;b&gt;xxx&lt;i&gt;.md" in pages[1]


# ------------------------------------------------------------------ hostile requests


def raw(board: Board, data: bytes) -> bytes:
    """Send bytes as they are; what comes back before the server closes (or 2 s)."""
    with socket.create_connection(("127.0.0.1", board.port), timeout=5) as conn:
        conn.sendall(data)
        conn.settimeout(2)
        got = b""
        try:
            while chunk := conn.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return got


@pytest.mark.parametrize(
    "data",
    [
        b"\x00\xff\xfe garbage\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",  # no Host at all
        b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"y" * 100000 + b"\r\n\r\n",
        b"POST /p/0/approve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n",
        b"POST /p/0/approve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nab",
        b"GET /p/0/task?name=%ff%fe%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /%%%% HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
        b"BREW /pot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    ],
)
def test_the_server_survives_malformed_requests(board: Board, data: bytes) -> None:
    answer = raw(board, data.replace(b"Host: 127.0.0.1", f"Host: 127.0.0.1:{board.port}".encode()))
    assert b"Traceback" not in answer
    assert board.get("/").status == 200


def test_odd_forms_are_refused(board: Board, http_project: AutomatonProject) -> None:
    headers = {"Cookie": board.cookie, "Origin": board.base}
    for kind, body, status in (
        ("application/json", b'{"task":"login"}', 415),
        ("application/x-www-form-urlencoded", b"task=" + b"x" * 70000, 413),
        ("application/x-www-form-urlencoded", b"\xff\xfe=\xff", 400),
    ):
        answer = board.request("POST", "/p/0/approve", body, {**headers, "Content-Type": kind})
        refused(answer, status)
    refused(board.post("/p/0/changes", {"task": "login", "comment": "x", "line": "2x"}), 400)
    refused(board.post("/p/0/changes", {"task": "login", "comment": "  "}), 400)
    refused(board.post("/p/0/changes", {"task": "login", "comment": "x", "line": "999"}), 400)
    assert current_state(http_project, "login") == "research:awaiting_approval"


# ------------------------------------------------------------ many pages at once


def read_event(conn: socket.socket, event: str, timeout: float) -> bytes:
    """Read a stream until it carries `event`; the bytes read."""
    conn.settimeout(timeout)
    got = b""
    while f"event: {event}".encode() not in got:
        chunk = conn.recv(65536)
        assert chunk, got
        got += chunk
    return got


def test_fifty_open_pages_each_see_a_change(board: Board, http_project: AutomatonProject) -> None:
    request = (
        f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{board.port}\r\nCookie: {board.cookie}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()
    pages = []
    try:
        for _ in range(50):
            conn = socket.create_connection(("127.0.0.1", board.port), timeout=10)
            conn.sendall(request)
            pages.append(conn)
        for conn in pages:
            read_event(conn, "hello", 20)
        (http_project.task_dir("report") / "IMPLEMENTATION.md").write_text("progress\n")
        for conn in pages:
            got = read_event(conn, "change", 20)
            body = got[got.index(b"event: change") :].split(b"data: ", 1)[1].split(b"\n", 1)[0]
            assert "report" in json.loads(body)["tasks"]
    finally:
        for conn in pages:
            conn.close()
    assert board.get("/").status == 200


# ------------------------------------------------------------------ approving


def test_an_approval_from_the_board_is_recorded_via_board_passkey_with_the_person(
    tmp_path: Path,
) -> None:
    import softkey

    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    write_config(made, 'approval = "prompt"\n')
    made.task("login", "research:awaiting_approval")
    served = Board([made.root], person="bob@example.com")
    try:
        refused(served.post("/p/0/approve", {"task": "login", "back": "/"}), 403)  # no passkey
        key = softkey.SoftKey()
        assert softkey.register(served, key).status == 303
        answer = softkey.approve(served, key, "login", back="/")
        assert answer.status == 303, answer.text
        assert answer.headers["location"] == "/"
    finally:
        served.stop()
    assert current_state(made, "login") == "research:approved"
    last = json.loads((made.task_dir("login") / store.HISTORY).read_text().splitlines()[-1])
    assert (last["via"], last["approver"], last["command"], last["passkey"]) == (
        "board-passkey",
        "bob@example.com",
        "--approve",
        key.id,
    )
    assert (
        (made.task_dir("login") / store.APPROVALS)
        .read_text()
        .splitlines()[-1]
        .endswith("|bob@example.com|board-passkey")
    )
    audit = made.run("--audit", "--select", "AR2")
    assert "AR210" not in audit.out  # in prompt mode a board approval stands


def test_signed_mode_shows_the_command_and_signs_nothing(tmp_path: Path) -> None:
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    write_config(made, 'approval = "signed"\n')
    made.task("login", "research:awaiting_approval")
    served = Board([made.root])
    try:
        page = served.get("/").text
        assert "--task login --approve --project" in page and "--approver ID" in page
        assert 'action="/p/0/approve"' not in page
        refused(served.post("/p/0/approve", {"task": "login"}), 403)
    finally:
        served.stop()
    assert current_state(made, "login") == "research:awaiting_approval"


def test_a_board_not_started_at_a_terminal_only_shows(tmp_path: Path) -> None:
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    made.task("login", "research:awaiting_approval")
    served = Board([made.root], approving=False)
    try:
        assert "read-only" in served.get("/").text
        refused(served.post("/p/0/approve", {"task": "login"}), 403)
        refused(served.post("/p/0/changes", {"task": "login", "comment": "no"}), 403)
    finally:
        served.stop()
    assert current_state(made, "login") == "research:awaiting_approval"
    assert not (made.task_dir("login") / store.REVIEWS).exists()


def test_requested_changes_reach_the_agent_at_its_next_hook(tmp_path: Path) -> None:

    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    made.task("login", "research")
    (made.task_dir("login") / "SPEC.md").write_text("# Spec\nline two\nline three\n")
    made.advance("login", ["research:awaiting_approval"])
    served = Board([made.root], person="carol@example.com")
    try:
        answer = served.post(
            "/p/0/changes",
            {"task": "login", "artifact": "SPEC.md", "line": "2", "comment": "Name the users."},
        )
        assert answer.status == 303, answer.text
        page = served.get("/p/0/task?name=login").text
        assert "Name the users." in page and "open" in page
    finally:
        served.stop()
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "go on", "cwd": str(made.root)}
    hook = run_hook("claude", event)
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "requested changes to task 'login'" in context
    assert "on SPEC.md, line 2 (carol@example.com): Name the users." in context
    assert current_state(made, "login") == "research:awaiting_approval"
    # Revised: the request is answered, and the agent is no longer told.
    (made.task_dir("login") / "SPEC.md").write_text("# Spec\nusers: admins\nline three\n")
    from automaton_rules.guards.hooks import adapter as harness

    assert harness.answer(event, "claude", {}) == ("", "", 0)


def test_an_approved_artifact_changed_since_shows_the_diff(tmp_path: Path) -> None:
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    made.task("login", "research")
    (made.task_dir("login") / "SPEC.md").write_text("# Spec\nadmins log in\n")
    made.advance("login", ["research:awaiting_approval", "research:approved"])
    (made.task_dir("login") / "SPEC.md").write_text("# Spec\neveryone logs in\n")
    served = Board([made.root])
    try:
        task = served.get("/p/0/task?name=login").text
        page = served.get("/p/0/artifact?task=login&file=SPEC.md").text
    finally:
        served.stop()
    assert "changed since its approval" in task
    assert "Changed since its approval" in page
    assert '<span class="d-del">-admins log in</span>' in page
    assert '<span class="d-add">+everyone logs in</span>' in page


def test_ctrl_c_stops_the_server_cleanly_and_the_secret_is_only_printed(
    http_project: AutomatonProject,
) -> None:
    import os
    import re
    import signal
    import subprocess

    proc = subprocess.Popen(
        server_argv(http_project.root),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=status_env(),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        address = proc.stdout.readline()
        assert "read-only" in first  # started with no terminal
        found = re.search(r"Open http://localhost:(\d+)/login\?code=(\S+)", address)
        assert found is not None, address
        secret = found.group(2)
        for name in ("cmdline", "environ"):
            assert secret.encode() not in Path(f"/proc/{proc.pid}/{name}").read_bytes()
        port = found.group(1)
        login = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
        login.sendall(
            f"GET /login?code={secret} HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n".encode()
        )
        answer = login.recv(4096).decode()
        login.close()
        cookie = re.search(r"set-cookie: ([^;]+)", answer, re.IGNORECASE)
        assert cookie is not None, answer
        stream = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
        stream.sendall(
            f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie.group(1)}"
            "\r\n\r\n".encode()
        )
        read_event(stream, "hello", 10)  # a page is open while the server stops
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        stream.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Board stopped." in out
    assert secret not in out + err  # printed once, at start, and never again
    assert "Traceback" not in err


def test_allow_remote_listens_with_a_warning(http_project: AutomatonProject) -> None:
    import os
    import signal
    import subprocess

    proc = subprocess.Popen(
        server_argv(http_project.root, "--host", "0.0.0.0", "--allow-remote"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=status_env(),
    )
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        address = proc.stdout.readline()
        port = address.split("localhost:", 1)[1].split("/", 1)[0]
        with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as conn:
            conn.sendall(f"GET /board.js HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n".encode())
            assert conn.recv(4096).startswith(b"HTTP/1.1 200")  # it serves
        os.kill(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert err.startswith("WARNING: listening on 0.0.0.0, beyond this machine")


def test_one_person_for_every_project_the_one_where_the_board_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    roots = []
    for name, email in (("shop", "repo-a@example.com"), ("api", "repo-b@example.com")):
        made = AutomatonProject(tmp_path / name)
        made.root.mkdir()
        write_config(made, 'approval = "open"\n')
        made.task("login", "research:awaiting_approval")
        subprocess.run(["git", "init", "-q", str(made.root)], check=True)
        subprocess.run(
            ["git", "-C", str(made.root), "config", "automaton.person", email], check=True
        )
        roots.append(made)
    started = tmp_path / "lead"
    started.mkdir()
    monkeypatch.chdir(started)
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.email")  # the lead's own, not a repo's
    served = Board([m.root for m in roots], person="lead@example.com")
    try:
        assert 'signed in as <b id="person">lead@example.com</b>' in served.get("/").text
        for pid in ("0", "1"):
            assert (
                'signed in as <b id="person">lead@example.com</b>'
                in served.get(f"/p/{pid}/task?name=login").text
            )
        refused(served.post("/p/1/changes", {"task": "login", "comment": " "}), 400)
        assert served.post("/p/1/changes", {"task": "login", "comment": "Why?"}).status == 303
    finally:
        served.stop()
    reviews = (roots[1].task_dir("login") / store.REVIEWS).read_text()
    assert '"by":"lead@example.com"' in reviews
