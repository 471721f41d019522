"""The agent ends its turn while its task awaits approval: the Stop hook waits for the
person's decision, and its wait ends on an approval from the board, on a request for
changes, or on its time limit (then the agent stops, as it did before)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import Board, launcher_folder, status_env, write_config

from automaton_rules.core import store
from automaton_rules.guards.hooks import harnesses
from automaton_rules.testing import AutomatonProject

# The tests that approve or ask for changes from the board need the dashboard's extra; the
# others test the hook alone, which never imports it (issue 31: all were skipped without).
needs_board = pytest.mark.skipif(
    importlib.util.find_spec("starlette") is None,
    reason="the dashboard's extra: pip install '.[board]'",
)


def gated(tmp_path: Path, wait: float) -> AutomatonProject:
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    write_config(made, f"stop-wait-seconds = {wait}\n")
    made.task("login", "research")
    (made.task_dir("login") / "SPEC.md").write_text("# Spec\nwho logs in\n")
    made.advance("login", ["research:awaiting_approval"])
    return made


def stop_hook(made: AutomatonProject, harness: str = "claude", **fields: object):
    """automaton-hook on the harness's stop event, started, not yet answered."""
    event = {"Stop": "Stop", "gemini": "AfterAgent", "cursor": "stop"}
    name = event.get(harness, "Stop")
    payload = {"hook_event_name": name, "cwd": str(made.root), "session_id": "s1", **fields}
    proc = subprocess.Popen(
        [sys.executable, "-m", "automaton_rules.guards.hooks.adapter", "--harness", harness],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=status_env(),
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(payload))
    proc.stdin.close()
    return proc


def finished(proc: subprocess.Popen, timeout: float = 30) -> tuple[str, int]:
    assert proc.stdout is not None
    out = proc.stdout.read()
    return out.strip(), proc.wait(timeout)


def waiting(proc: subprocess.Popen) -> None:
    """Give the hook the time to start watching; it must still be waiting then."""
    time.sleep(1.0)
    assert proc.poll() is None, "the hook did not wait for a decision"


@needs_board
def test_the_wait_ends_on_an_approval_from_the_board(tmp_path: Path) -> None:
    made = gated(tmp_path, 60)
    softkey = pytest.importorskip("softkey", reason="needs webauthn's cbor2: '.[board]'")
    served = Board([made.root], person="dana@example.com")
    try:
        key = softkey.SoftKey()
        assert softkey.register(served, key).status == 303
        proc = stop_hook(made)
        waiting(proc)
        started = time.monotonic()
        assert softkey.approve(served, key, "login").status == 303
        out, code = finished(proc)
        assert time.monotonic() - started < 20
    finally:
        served.stop()
    answer = json.loads(out)
    assert (answer["decision"], code) == ("block", 0)
    assert "dana@example.com approved task 'login'" in answer["reason"]
    assert "via board-passkey" in answer["reason"]
    assert "Continue:" in answer["reason"]


@needs_board
def test_the_wait_ends_on_changes_requested(tmp_path: Path) -> None:
    made = gated(tmp_path, 60)
    served = Board([made.root], person="erin@example.com")
    try:
        proc = stop_hook(made)
        waiting(proc)
        fields = {"task": "login", "artifact": "SPEC.md", "line": "2", "comment": "Who else?"}
        assert served.post("/p/0/changes", fields).status == 303
        out, code = finished(proc)
    finally:
        served.stop()
    answer = json.loads(out)
    assert (answer["decision"], code) == ("block", 0)
    assert "requested changes to task 'login'" in answer["reason"]
    assert "on SPEC.md, line 2 (erin@example.com): Who else?" in answer["reason"]
    assert (made.task_dir("login") / store.STATE).read_text() == "research:awaiting_approval\n"


def test_the_wait_ends_on_its_time_limit_and_the_agent_stops(tmp_path: Path) -> None:
    made = gated(tmp_path, 1)
    started = time.monotonic()
    out, code = finished(stop_hook(made))
    assert (out, code) == ("", 0)
    assert time.monotonic() - started >= 1


def test_no_task_at_a_gate_lets_the_agent_stop_at_once(tmp_path: Path) -> None:
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    write_config(made, "stop-wait-seconds = 60\n")
    made.task("login", "design")
    started = time.monotonic()
    assert finished(stop_hook(made)) == ("", 0)
    assert time.monotonic() - started < 20


def test_an_unanswered_request_is_told_at_once_but_only_once(tmp_path: Path) -> None:
    from automaton_rules.workflow import reviews

    made = gated(tmp_path, 1)
    reviews.request_changes(made.project, "login", "Say who.", by="fay@example.com")
    out, _code = finished(stop_hook(made))
    assert "Say who." in json.loads(out)["reason"]
    # Told already: carrying on because of this hook, it is not told again; it waits.
    assert finished(stop_hook(made, stop_hook_active=True)) == ("", 0)


@pytest.mark.parametrize(
    ("harness", "key"), [("gemini", "reason"), ("cursor", "followup_message"), ("codex", "reason")]
)
def test_each_harness_gets_the_decision_in_its_own_words(
    tmp_path: Path, harness: str, key: str
) -> None:
    from automaton_rules.workflow import reviews

    made = gated(tmp_path, 1)
    reviews.request_changes(made.project, "login", "Shorter.", by="gil@example.com")
    out, code = finished(stop_hook(made, harness))
    answer = json.loads(out)
    assert code == 0 and "Shorter." in answer[key]
    if harness == "gemini":
        assert answer["decision"] == "deny"  # AfterAgent: the reason is the next prompt


def test_a_cursor_agent_the_user_aborted_is_not_kept(tmp_path: Path) -> None:
    made = gated(tmp_path, 60)
    out, code = finished(stop_hook(made, "cursor", status="aborted"))
    assert (json.loads(out), code) == ({}, 0)


@pytest.mark.parametrize(
    ("launcher", "said"), [(True, "is not installed"), (False, "no readable .automaton/hook.sh")]
)
def test_a_stop_hook_that_cannot_run_lets_the_agent_stop(
    tmp_path: Path, launcher: bool, said: str
) -> None:
    """Not installed, or its launcher missing, the portable command exits 2, which on Stop
    would make the agent carry on: the installed Stop hooks let it stop instead."""
    ours = harnesses.get("claude").hooks()
    command = ours["hooks"]["Stop"][0]["hooks"][0]["command"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run(
        ["sh", "-c", command], input="{}", capture_output=True, text=True, env=env,
        cwd=launcher_folder() if launcher else tmp_path, check=False,
    )  # fmt: skip
    assert proc.returncode == 0
    assert said in proc.stderr
    assert os.environ.get("PATH")  # the test's own environment is untouched


@needs_board
def test_the_board_shows_an_agent_waiting_while_its_stop_hook_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: nothing showed that an agent was waiting on a decision, which the Stop
    hook knows. While it waits the card says so; once the wait ends, it does not."""
    from automaton_rules.support import waiting as waits

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    made = gated(tmp_path, 60)
    served = Board([made.root], person="dana@example.com")
    badge = '<span class="badge review">agent waiting for your decision</span>'
    try:
        assert badge not in served.get("/").text
        proc = stop_hook(made)
        waiting(proc)
        assert waits.waiting(made.root.resolve(), time.time()) == {"login"}
        page = served.get("/").text
        lane = page[page.index('data-awaiting="login"') :]
        assert badge in lane[: lane.index("</li>")]
        proc.kill()
        proc.wait(30)
        assert badge not in served.get("/").text  # a hook that is gone waits no more
        assert list(waits.folder().iterdir()) == []  # and its file is gone once read
    finally:
        served.stop()


def test_a_finished_wait_leaves_no_waiting_agent(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    made = gated(tmp_path, 1)
    out, code = finished(stop_hook(made))
    assert (out, code) == ("", 0)
    from automaton_rules.support import waiting as waits

    assert waits.waiting(made.root.resolve(), time.time()) == set()
    assert list(waits.folder().iterdir()) == []
