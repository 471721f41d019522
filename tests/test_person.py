"""Who did what: history lines and approvals name a person, never the OS login.

The person is git's `automaton.person`, else `user.email`, read in the project's folder;
with neither, `user`. Each test sets git's configuration through its environment
(GIT_CONFIG_COUNT...), as a person's own `git config --global` would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from automaton_rules.core import store
from automaton_rules.guards.hooks import adapter as harness
from automaton_rules.support import person
from automaton_rules.testing import AutomatonProject


def use_git_settings(monkeypatch: pytest.MonkeyPatch, home: Path, **values: str) -> None:
    """Exactly these git settings, and none from the machine's files."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "none"))
    monkeypatch.setenv("GIT_CONFIG_COUNT", str(len(values)))
    for index, (key, value) in enumerate(values.items()):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{index}", key.replace("_", "."))
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{index}", value)


def test_the_setting_wins_over_the_email(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_git_settings(monkeypatch, tmp_path, automaton_person="alice", user_email="a@example.com")
    assert person.identity(tmp_path) == "alice"


def test_the_email_stands_in_without_the_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_git_settings(monkeypatch, tmp_path, user_email="bob+work@example.com")
    assert person.identity(tmp_path) == "bob+work@example.com"


def test_without_either_it_is_user_never_the_login(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_git_settings(monkeypatch, tmp_path)
    assert person.identity(tmp_path) == "user"
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    made.task("login", "new")
    first = json.loads((made.task_dir("login") / store.HISTORY).read_text().splitlines()[0])
    assert first["actor"] == "user"  # not the OS login, whatever it is here


@pytest.mark.parametrize("bad", ["Alice Smith", "a|b", "x" * 200, "-dash"])
def test_a_value_a_log_line_cannot_hold_counts_as_unset(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bad: str
) -> None:
    use_git_settings(monkeypatch, tmp_path, automaton_person=bad, user_email="c@example.com")
    assert person.identity(tmp_path) == "c@example.com"


def test_moves_and_approvals_record_the_person(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_git_settings(monkeypatch, tmp_path, user_email="dave@example.com")
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    made.task("login", "research:awaiting_approval")
    assert made.run("--task", "login", "--approve").exit_code == 0
    lines = (made.task_dir("login") / store.HISTORY).read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert {entry["actor"] for entry in entries} == {"dave@example.com"}
    assert entries[-1]["approver"] == "dave@example.com"
    approvals = (made.task_dir("login") / store.APPROVALS).read_text()
    assert approvals.strip().endswith("|dave@example.com")
    stats = made.run("--stats", "--task", "login")
    assert "research by dave@example.com via cli" in stats.out


def test_an_approval_typed_in_the_chat_records_the_person(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_git_settings(monkeypatch, tmp_path, automaton_person="erin")
    made = AutomatonProject(tmp_path / "p")
    made.root.mkdir()
    (made.root / "automaton.toml").write_text('approval = "prompt"\n')
    made.task("login", "research:awaiting_approval")
    event = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "approve login",
        "cwd": str(made.root),
    }
    out, _err, code = harness.answer(event, "claude", {})
    assert code == 0 and "approved task 'login'" in out
    last = json.loads((made.task_dir("login") / store.HISTORY).read_text().splitlines()[-1])
    assert (last["approver"], last["via"]) == ("erin", "prompt")
