"""Hostile input, the items of issue 6 not covered elsewhere: every case ends in exit 0, 1
or 2 with one clear message, no traceback, and no file written outside the tasks folder.

Covered elsewhere: empty, binary, huge, two-line and CRLF `.state` (test_store.py); names
with `..`, `/` and spaces (test_status.py); malformed and mistyped configuration
(test_config.py); plugins that fail to import, raise or return garbage
(test_engine.py, test_plugin_failures.py); links and pipes as task files (test_store.py).
Arbitrary bytes and arguments: test_fuzz.py. Hook events the adapter cannot read whole
(issue 19) are at the end, run through the hook command a harness runs.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    ROOT,
    STATUS_PY,
    Project,
    denied,
    empty_project,
    entries_below,
    hook_command,
    run,
    walk,
)

from automaton_rules.core import store
from automaton_rules.engine.plugins import PluginTimeout, time_limit
from automaton_rules.guards.hooks.harnesses import NAMES as HARNESSES
from automaton_rules.testing import AutomatonProject


def one_error(text: str) -> str:
    """The single ERROR line a failed command prints."""
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR: "), text
    assert "Traceback" not in text
    return lines[0]


# --------------------------------------------------------------- .state contents

ODD_STATE_FILES = {
    "bom": b"\xef\xbb\xbfresearch\n",
    "nul-inside": b"rese\x00arch\n",
    "nul-after": b"research\x00\n",
    "a-path": b"/etc/passwd\n",
    "a-relative-path": b"../../research\n",
    "same-line-twice": b"research\nresearch\n",
    "utf-16": "research\n".encode("utf-16"),
}


@pytest.mark.parametrize("content", ODD_STATE_FILES.values(), ids=ODD_STATE_FILES.keys())
def test_hostile_state_is_exit_2_and_changes_nothing(
    project: Project, task_in, content: bytes
) -> None:
    name = task_in("research")
    project.write(name, "SPEC.md")
    (project.task_dir(name) / store.STATE).write_bytes(content)
    before = entries_below(project.root)
    for args in (
        ("--task", name),
        ("--task", name, "--transition", "research:awaiting_approval"),
        ("--task", name, "--approve"),
        ("--can-edit", "--task", name),
        ("--validate-folder", "--task", name),
    ):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        assert "Unknown phase '" in one_error(result.err)
        assert len(result.err) < 300
    listed = project.run("--list")
    assert listed.rc == 2
    assert f"{name}: Unknown phase '" in one_error(listed.err)
    assert entries_below(project.root) == before


# -------------------------------------------------------------------- task names

BAD_NAMES = [
    "..",
    "../../etc",
    "a/../../b",
    "/etc/passwd",
    "a b",
    " a",
    "café",
    "задача",
    "a\u0301",
    "ａｂｃ",
    "a" * 65,
    "a" * 300,
    "a;touch pwned",
    "$(touch pwned)",
    "`touch pwned`",
    "a|touch pwned",
    "a&&touch pwned",
    "a>pwned",
    "*",
    "~",
    "a'b",
    'a"b',
    "a\\b",
    "a\nb",
    "a\x00b",
    "a/b/c",
    "p/",
    "/p",
]


@pytest.mark.parametrize("bad", BAD_NAMES, ids=ascii)
def test_hostile_task_names_are_refused_before_any_path_is_built(
    project: Project, task_in, bad: str
) -> None:
    task_in("decomposition:approved", name="p")
    before = entries_below(project.root.parent)
    for args in (
        ("--create-task", bad),
        ("--task", bad),
        ("--task", bad, "--transition", "research"),
        ("--task", bad, "--approve"),
        ("--validate-folder", "--task", bad),
        ("--can-edit", "--task", bad),
        ("--same-session", "--task", bad),
        ("--task", "p", "--follow-up", "--name", bad),
    ):
        result = project.run(*args)
        assert result.rc in (1, 2), (args, result)
        message = one_error(result.err)
        if "--follow-up" not in args:
            assert result.rc == 2 and "Invalid task name" in message, (args, message)
        assert "\n" not in message and "\x00" not in message
    assert entries_below(project.root.parent) == before
    assert not list(project.root.parent.rglob("pwned"))


def test_longest_name_is_accepted(project: Project) -> None:
    name = "a" * 64
    project.create(name)
    assert project.state(name) == "new\n"
    assert project.run("--create-task", f"{name}/{'b' * 64}").rc == 1  # parent not decomposed


def test_shell_metacharacters_through_the_real_script(project: Project) -> None:
    """The name reaches no shell: nothing named pwned appears, wherever the command runs."""
    for bad in ("$(touch pwned)", "a;touch pwned", "`touch pwned`"):
        result = project.script("--create-task", bad, "--project", str(project.root))
        assert result.rc == 2, result
        assert "Invalid task name" in one_error(result.err)
    assert not list(project.root.parent.rglob("pwned"))


# --------------------------------------------------- task folders linked outside


@pytest.fixture
def linked(project: Project, task_in, tmp_path: Path) -> tuple[Project, Path]:
    """A project whose task folder `linked` and sub-task `p/s` are links to folders outside."""
    elsewhere = tmp_path / "elsewhere"
    for folder in (elsewhere / "top", elsewhere / "sub"):
        folder.mkdir(parents=True)
        (folder / store.STATE).write_text("research\n")
        (folder / "SPEC.md").write_text("# spec\n")
    task_in("decomposition:approved", name="p")
    project.tasks.joinpath("linked").symlink_to(elsewhere / "top", target_is_directory=True)
    (project.task_dir("p") / "subtasks").mkdir()
    (project.task_dir("p") / "subtasks" / "s").symlink_to(elsewhere / "sub")
    return project, elsewhere


@pytest.mark.parametrize("name", ["linked", "p/s"])
def test_task_folder_linked_outside_is_refused_and_never_written(
    linked: tuple[Project, Path], name: str
) -> None:
    project, elsewhere = linked
    before = entries_below(elsewhere)
    for args in (
        ("--task", name),
        ("--task", name, "--transition", "research:awaiting_approval"),
        ("--task", name, "--approve"),
        ("--validate-folder", "--task", name),
        ("--can-edit", "--task", name),
        ("--same-session", "--task", name),
    ):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        assert f"Task folder of '{name}' points outside" in one_error(result.err)
    result = project.run("--create-task", name)
    assert result.rc in (1, 2), result
    one_error(result.err)
    assert entries_below(elsewhere) == before


def test_whole_project_commands_name_the_linked_folders_and_write_nothing_outside(
    linked: tuple[Project, Path],
) -> None:
    project, elsewhere = linked
    before = entries_below(elsewhere)
    for args in (("--list",), ("--validate-folder",), ("--audit",), ("--upgrade",)):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        text = result.out + result.err
        assert "Traceback" not in text
        assert "'linked' points outside" in text and "'p/s' points outside" in text, text
    assert entries_below(elsewhere) == before


def test_a_link_that_stays_inside_the_tasks_folder_is_followed(project: Project) -> None:
    project.create("real")
    project.tasks.joinpath("alias").symlink_to(project.task_dir("real"))
    result = project.run("--task", "alias", "--transition", "research")
    assert result.rc == 0, result
    assert project.state("real") == "research\n"


# ---------------------------------------------------------------- unreadable files

UNREADABLE = [store.STATE, store.HISTORY, store.APPROVALS]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="running as root: chmod 000 does not deny reads (see the simulated test below)",
)
@pytest.mark.parametrize("filename", [*UNREADABLE, "", "automaton.toml"])
def test_chmod_000_is_exit_2_naming_the_file(project: Project, task_in, filename: str) -> None:
    name = task_in("research:awaiting_approval")
    target = project.root / filename if filename == "automaton.toml" else None
    if target is not None:
        target.write_text("plugins = []\n")
    else:
        target = project.task_dir(name) / filename
    before = entries_below(project.root)
    target.chmod(0)
    try:
        for args in (("--task", name), ("--task", name, "--approve"), ("--audit",)):
            result = project.run(*args)
            assert result.rc == 2, (args, result)
            text = result.out + result.err
            assert "Traceback" not in text
            assert "Permission denied" in text, (args, text)
    finally:
        target.chmod(0o755 if target.is_dir() else 0o644)
    assert entries_below(project.root) == before


@pytest.mark.parametrize("filename", UNREADABLE)
def test_permission_denied_is_exit_2_naming_the_file(
    project: Project, task_in, filename: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What chmod 000 does for a user who is not root, simulated so root runs it too."""
    name = task_in("research:awaiting_approval")
    denied = project.task_dir(name) / filename
    real_open = os.open

    def guarded_open(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if Path(os.fsdecode(path)) == denied:  # type: ignore[arg-type]
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    before = entries_below(project.root)
    monkeypatch.setattr(os, "open", guarded_open)
    for args in (("--task", name, "--approve"), ("--audit",)):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        text = result.out + result.err
        assert "Traceback" not in text
        assert f"Cannot read {denied}: Permission denied" in text, (args, text)
    monkeypatch.undo()
    assert entries_below(project.root) == before


# ------------------------------------------------------------------ hanging plugins

HANGS = {
    "at-import": "import time\ntime.sleep(3600)\n",
    "in-register": (
        "import time\nfrom automaton_rules import hookimpl\n"
        "@hookimpl\ndef register_rules(register):\n    time.sleep(3600)\n"
    ),
    "in-rule": (
        "import time\nfrom automaton_rules import hookimpl, rule\n"
        "@rule('HANG1', summary='hangs', category='Hanging',"
        " when=('audit', 'validate', 'transition'))\n"
        "def hangs(task):\n    time.sleep(3600)\n    yield from ()\n"
        "@hookimpl\ndef register_rules(register):\n    register(hangs)\n"
    ),
    "busy-and-deaf": (
        "from automaton_rules import hookimpl, rule\n"
        "@rule('HANG1', summary='hangs', category='Hanging',"
        " when=('audit', 'validate', 'transition'))\n"
        "def hangs(task):\n"
        "    while True:\n"
        "        try:\n"
        "            sum(range(1000))\n"
        "        except Exception:\n"
        "            pass\n"
        "    yield from ()\n"
        "@hookimpl\ndef register_rules(register):\n    register(hangs)\n"
    ),
}


@pytest.mark.parametrize("source", HANGS.values(), ids=HANGS.keys())
def test_a_hanging_plugin_is_stopped_and_reported(project: Project, task_in, source: str) -> None:
    name = task_in("research")
    project.write(name, "SPEC.md")
    (project.root / "hanging.py").write_text(source)
    (project.root / "automaton.toml").write_text(
        'plugins = ["hanging.py"]\nplugin-timeout-seconds = 0.3\n'
    )
    for args in (
        ("--task", name, "--transition", "research:awaiting_approval"),
        ("--validate-folder",),
        ("--audit",),
    ):
        started = time.monotonic()
        result = project.run(*args)
        assert time.monotonic() - started < 10
        assert result.rc == 2, (args, result)
        text = result.out + result.err
        assert "Traceback" not in text
        stopped = ("did not finish within 0.3 seconds", "ran out of its budget of 0.3 seconds")
        assert "hanging.py" in text and any(said in text for said in stopped), text
    assert project.state(name) == "research\n"  # a broken rule refuses the move
    (project.root / "automaton.toml").unlink()
    result = project.run("--task", name, "--transition", "research:awaiting_approval")
    assert result.rc == 0, result  # the lock was given back


def test_a_hanging_plugin_ends_the_real_command(project: Project, task_in) -> None:
    name = task_in("research")
    project.write(name, "SPEC.md")
    (project.root / "hanging.py").write_text(HANGS["in-rule"])
    (project.root / "automaton.toml").write_text(
        'plugins = ["hanging.py"]\nplugin-timeout-seconds = 0.5\n'
    )
    target = "research:awaiting_approval"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(STATUS_PY), "--task", name, "--transition", target],
        cwd=project.root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=30,
    )
    assert time.monotonic() - started < 20
    assert proc.returncode == 2, proc
    # a rule's limit is its budget for the whole run (issue 30)
    assert "ran out of its budget of 0.5 seconds for the whole run" in one_error(proc.stderr)
    assert project.state(name) == "research\n"


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_the_time_limit_leaves_the_callers_own_alarm_in_place() -> None:
    """pytest-timeout and the like keep their alarm: a shorter one is left alone, a longer
    one comes back with the time left of it."""
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 100)
        with pytest.raises(PluginTimeout), time_limit(0.05):
            time.sleep(5)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 90 < left <= 100
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with time_limit(10):
            time.sleep(0.2)
        assert fired == [signal.SIGALRM]  # the caller's alarm rang, not a PluginTimeout
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_plugin_timeout_must_be_a_positive_number(project: Project) -> None:
    project.create("x")
    for value in ("0", "-1", '"soon"', "true"):
        (project.root / "automaton.toml").write_text(f"plugin-timeout-seconds = {value}\n")
        result = project.run("--list")
        assert result.rc == 2
        assert "Key 'plugin-timeout-seconds'" in one_error(result.err)
        assert "must be a number of seconds above 0 and at most 86400" in result.err


# --------------------------------------------------------------------- found in review


def test_a_history_nested_too_deep_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    root = empty_project(tmp_path)
    walk(root, "deep", "research")
    history = root / ".automaton" / "tasks" / "deep" / store.HISTORY
    with history.open("a") as out:
        out.write("[" * 100_000 + "\n")
    assert store.parse_history(["[" * 100_000]) == [{}]
    code, text = run(root, "--audit", "--format", "json")
    assert code == 1, text
    report = json.loads(text)
    assert report["errors"] == []
    assert "AR205" in {f["code"] for f in report["findings"]}
    code, text = run(root, "--task", "deep")  # a history that vouches for nothing
    assert code == 2 and "Internal error" not in text
    assert "the last line of .state.history names no state" in text


@pytest.mark.parametrize("flag", ["--can-edit", "--scope-check"])
def test_edit_hooks_answer_a_symlink_loop_with_an_error_not_a_traceback(
    tmp_path: Path, flag: str
) -> None:
    root = empty_project(tmp_path)
    walk(root, "coding", "implement")
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    proc = subprocess.run(
        [sys.executable, str(STATUS_PY), flag, "--file", "loop1", "--project", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode in (1, 2)
    if proc.returncode == 2:
        assert proc.stderr.startswith("ERROR: ")


def test_a_task_folder_linked_to_itself_is_one_task_s_error(tmp_path: Path) -> None:
    root = empty_project(tmp_path)
    walk(root, "honest", "research")
    (root / ".automaton" / "tasks" / "looping").symlink_to(
        root / ".automaton" / "tasks" / "looping"
    )
    audited = AutomatonProject(root).run("--audit", "--format", "json")
    report = json.loads(audited.out)
    assert audited.exit_code == 2
    assert "looping" in json.dumps(report["errors"])
    assert audited.err.startswith("ERROR: task looping: ")  # in the log beside the report
    assert report["summary"]["tasks"] == 1  # the honest task is still audited
    _code, text = run(root, "--list")
    assert "honest" in text and "looping" in text and "Traceback" not in text


@pytest.mark.parametrize("value", ["1e20", "inf", "86401"])
def test_plugin_timeout_is_at_most_a_day(tmp_path: Path, value: str) -> None:
    root = empty_project(tmp_path)
    (root / "automaton.toml").write_text(f"plugin-timeout-seconds = {value}\n")
    code, text = run(root, "--audit")
    assert code == 2
    assert "Key 'plugin-timeout-seconds'" in text and "at most 86400" in text


# ------------------------------------------ hook events the adapter cannot read (issue 19)


def ill_formed(project: Project) -> dict[str, tuple[str, str]]:
    """Each ill-formed event, and the reason it is refused."""
    cwd = str(project.root)
    bash = {"hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Bash"}
    return {
        "empty": ("", "the hook received no input"),
        "blank": ("  \n", "the hook received no input"),
        "no tool name": (
            json.dumps({"hook_event_name": "PreToolUse", "cwd": cwd, "tool_input": {}}),
            "the hook input names no tool (no tool_name)",
        ),
        "tool name null": (
            json.dumps({**bash, "tool_name": None, "tool_input": {"command": "ls"}}),
            "the hook input names no tool (tool_name is null)",
        ),
        "no tool input": (
            json.dumps(bash),
            "the input of tool 'Bash' is not an object (no tool_input)",
        ),
        "tool input a string": (
            json.dumps({**bash, "tool_input": "rm -rf src"}),
            "the input of tool 'Bash' is not an object (tool_input is a string)",
        ),
        "command a list": (
            json.dumps({**bash, "tool_input": {"command": ["rm", "-rf", "src"]}}),
            "the shell command (command) is a list, not text",
        ),
        "command null": (
            json.dumps({**bash, "tool_input": {"command": None}}),
            "the shell command (command) is null, not text",
        ),
        "command a number": (
            json.dumps({**bash, "tool_input": {"command": 7}}),
            "the shell command (command) is a number, not text",
        ),
        "no command": (
            json.dumps({**bash, "tool_input": {"description": "x"}}),
            "the shell tool's input has no command",
        ),
        "unknown event with a tool": (
            json.dumps({**bash, "hook_event_name": "PreToolRun", "tool_input": {"command": "ls"}}),
            "the event 'PreToolRun' carries a tool, and is not one it answers",
        ),
        "not an object": ("[1, 2]", "the hook input is not a JSON object"),
        "not json": ("{not json", "the hook input is not JSON"),
    }


@pytest.mark.parametrize("harness", HARNESSES)
def test_ill_formed_input_is_denied_with_its_reason(
    project: Project, task_in, harness: str
) -> None:
    """Every ill-formed event gets the harness's own deny answer, through the hook command
    the harness runs, in every phase: an event the adapter cannot read it cannot check."""
    for phase in ("research", "implement"):  # a task in research, then one in implement too
        task_in(phase, name=f"t-{phase}")
        for case, (payload, reason) in ill_formed(project).items():
            said = denied(harness, hook_command(harness, payload))
            assert said is not None, (harness, phase, case)
            assert said.startswith(
                f"DENIED: automaton-rules could not check this action ({reason}"
            ), (harness, case, said)


def test_an_unknown_event_without_a_tool_passes(project: Project, task_in) -> None:
    """An event the adapter does not answer and that carries no tool changes nothing."""
    task_in("research")
    payload = json.dumps({"hook_event_name": "Notification", "cwd": str(project.root)})
    for harness in HARNESSES:
        assert denied(harness, hook_command(harness, payload)) is None, harness
