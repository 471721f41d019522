"""The task's metadata files: atomic .state, whole log lines, the digest chain, the lock,
and task files that must be regular files (links, pipes and devices are refused or missing).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import ROOT, Project, path_to, status_py
from hypothesis import given
from hypothesis import strategies as st

from automaton_rules.core import machine, store
from automaton_rules.support import clock
from automaton_rules.support.errors import AutomatonError, Refusal

TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def history_chain_ok(task_dir: Path) -> list[dict]:
    """Assert the digest chain of .state.history and return the parsed entries."""
    raw = (task_dir / store.HISTORY).read_bytes().decode()
    assert raw.endswith("\n")
    lines = raw.splitlines()
    entries = [json.loads(line) for line in lines]
    assert entries, "empty history"
    assert entries[0]["prev"] is None
    for before, entry in zip(lines, entries[1:]):
        assert entry["prev"] == hashlib.sha256(before.encode()).hexdigest()
    return entries


# --- write_state ------------------------------------------------------------------------


def test_write_state_writes_one_line_and_leaves_no_tmp(tmp_path: Path) -> None:
    store.write_state(tmp_path, "research")
    assert (tmp_path / ".state").read_bytes() == b"research\n"
    store.write_state(tmp_path, "research:awaiting_approval")
    assert (tmp_path / ".state").read_bytes() == b"research:awaiting_approval\n"
    assert not (tmp_path / ".state.tmp").exists()


def test_write_state_failed_rename_leaves_old_state_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.write_state(tmp_path, "research")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        store.write_state(tmp_path, "implement")
    assert (tmp_path / ".state").read_bytes() == b"research\n"
    assert store.read_state(tmp_path) == "research"


def test_write_state_failed_tmp_write_leaves_old_state_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.write_state(tmp_path, "design")
    real_write = os.write

    def short_write(fd: int, data: bytes) -> int:
        real_write(fd, data[:3])
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, "write", short_write)
    with pytest.raises(OSError):
        store.write_state(tmp_path, "design:awaiting_approval")
    monkeypatch.undo()
    assert (tmp_path / ".state").read_bytes() == b"design\n"


def test_transition_with_failing_rename_keeps_state_and_exits_2(
    project, task_in, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = task_in("research")
    project.write(name, "SPEC.md")
    history_before = (project.task_dir(name) / store.HISTORY).read_bytes()

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    result = project.run("--task", name, "--transition", "research:awaiting_approval")
    monkeypatch.undo()
    assert result.rc == 2
    assert "Traceback" not in result.err + result.out
    assert project.state(name) == "research\n"
    # A command that reports failure changed nothing: no journal line for the next
    # command to roll forward, no temporary file left behind.
    assert (project.task_dir(name) / store.HISTORY).read_bytes() == history_before
    assert not (project.task_dir(name) / store.STATE_TMP).exists()
    assert project.run("--task", name).rc == 0
    assert project.state(name) == "research\n"


# --- append_line ------------------------------------------------------------------------


def test_append_line_creates_the_file(tmp_path: Path) -> None:
    log = tmp_path / "log"
    store.append_line(log, "one")
    store.append_line(log, "two")
    assert log.read_bytes() == b"one\ntwo\n"


def test_append_line_after_a_torn_last_line_starts_a_new_line(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_bytes(b"first\nhalf-writ")
    store.append_line(log, "whole")
    assert log.read_bytes() == b"first\nhalf-writ\nwhole\n"


def test_append_line_to_empty_file_adds_no_blank_line(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_bytes(b"")
    store.append_line(log, "x")
    assert log.read_bytes() == b"x\n"


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "trailing\n"])
def test_append_line_refuses_line_breaks(tmp_path: Path, bad: str) -> None:
    log = tmp_path / "log"
    log.write_bytes(b"keep\n")
    with pytest.raises(ValueError):
        store.append_line(log, bad)
    assert log.read_bytes() == b"keep\n"


def test_append_line_is_one_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log"
    log.write_bytes(b"no newline")
    real_write = os.write
    calls: list[bytes] = []

    def spy(fd: int, data: bytes) -> int:
        calls.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    store.append_line(log, "line")
    monkeypatch.undo()
    assert calls == [b"\nline\n"]


def test_approval_after_torn_line_is_parsed(tmp_path: Path) -> None:
    (tmp_path / store.APPROVALS).write_bytes(b"research:appro")
    approval = store.Approval("design:approved", "2026-01-01T00:00:00Z", "user")
    store.append_approval(tmp_path, approval)
    assert store.read_approvals(tmp_path) == [None, approval]
    lines = (tmp_path / store.APPROVALS).read_text().splitlines()
    assert lines[-1] == "design:approved|2026-01-01T00:00:00Z|user"


def _hammer(path: str, worker: int, count: int) -> None:
    for i in range(count):
        store.append_line(Path(path), f"w{worker}-{i:04d}-" + "x" * 3000)


def test_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    log = tmp_path / "log"
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_hammer, args=(str(log), w, 100)) for w in range(4)]
    for proc in workers:
        proc.start()
    for proc in workers:
        proc.join(30)
        assert proc.exitcode == 0
    text = log.read_text()
    assert text.endswith("\n")
    # Unlocked appenders may leave an empty line (readers skip them); never a torn one.
    lines = [line for line in text.split("\n") if line]
    assert len(lines) == 400
    pattern = re.compile(r"w[0-3]-\d{4}-x{3000}")
    assert all(pattern.fullmatch(line) for line in lines)
    assert len(set(lines)) == 400


# --- read_state -------------------------------------------------------------------------


def test_read_state_missing_is_none(tmp_path: Path) -> None:
    assert store.read_state(tmp_path) is None


@pytest.mark.parametrize(
    "content,expected",
    [
        (b"", ""),
        (b"research\n", "research"),
        (b"implement\r\n", "implement"),
        (b"  design:approved \t\r\n", "design:approved"),
        (b"new", "new"),
    ],
)
def test_read_state_strips_whitespace(tmp_path: Path, content: bytes, expected: str) -> None:
    (tmp_path / ".state").write_bytes(content)
    assert store.read_state(tmp_path) == expected


def test_read_state_huge_file_is_capped(tmp_path: Path) -> None:
    (tmp_path / ".state").write_bytes(b"a" * 5_000_000)
    state = store.read_state(tmp_path)
    assert state is not None
    assert len(state) <= store.MAX_STATE_BYTES + 1
    assert not machine.is_state(state)


def test_read_state_binary_does_not_raise(tmp_path: Path) -> None:
    (tmp_path / ".state").write_bytes(b"\x00\xff\xfe\x80research\x00")
    state = store.read_state(tmp_path)
    assert isinstance(state, str)
    assert not machine.is_state(state)


def test_read_state_directory(tmp_path: Path) -> None:
    (tmp_path / ".state").mkdir()
    with pytest.raises(AutomatonError) as caught:
        store.read_state(tmp_path)
    assert caught.value.exit_code == 2
    assert caught.value.message.endswith(".state: not a regular file")


def test_state_that_is_a_link_is_refused_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("implement\n")
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (task_dir / ".state").symlink_to(outside)
    with pytest.raises(AutomatonError) as caught:
        store.read_state(task_dir)
    assert caught.value.message.endswith(".state: a symbolic link")


def test_writes_never_follow_links_out_of_the_task_folder(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (task_dir / ".state.tmp").symlink_to(precious)
    store.write_state(task_dir, "research")
    assert precious.read_text() == "keep me\n"
    assert (task_dir / ".state").read_text() == "research\n"
    assert not (task_dir / ".state").is_symlink()
    (task_dir / ".state.history").symlink_to(precious)
    with pytest.raises(OSError):
        store.append_line(task_dir / ".state.history", "{}")
    assert precious.read_text() == "keep me\n"


def test_crlf_state_is_accepted_by_the_cli(project, task_in) -> None:
    name = task_in("research")
    (project.task_dir(name) / ".state").write_bytes(b"research\r\n")
    result = project.run("--task", name)
    assert result.rc == 0, result
    assert "Phase: research (from .state)" in result.out


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n",
        b"a" * 1_000_000,
        b"\x00\xff\xfe\x80\x81",
        b"research\nimplement\n",
        b"Research\n",
    ],
    ids=["empty", "blank", "huge", "binary", "two-lines", "upper-case"],
)
def test_corrupt_state_is_exit_2_without_traceback(project, task_in, content: bytes) -> None:
    name = task_in("research")
    (project.task_dir(name) / ".state").write_bytes(content)
    for args in (("--task", name), ("--task", name, "--transition", "research:awaiting_approval")):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        assert "Unknown phase" in result.err
        assert "Traceback" not in result.err
        assert len(result.err) < 500  # a huge .state is never echoed whole
    assert (project.task_dir(name) / ".state").read_bytes() == content


# --- history ----------------------------------------------------------------------------


def test_history_digest_chain(project, task_in) -> None:
    name = task_in("implement")
    entries = history_chain_ok(project.task_dir(name))
    expected = ["new", *path_to("implement")]
    assert [e["to"] for e in entries] == expected
    assert [e["from"] for e in entries] == [None, *expected[:-1]]
    for entry in entries:
        assert TIME_RE.fullmatch(entry["time"])
        assert set(entry) >= {"time", "from", "to", "actor", "command", "prev"}
    assert entries[0]["command"] == "--create-task"
    assert entries[1]["command"] == "--transition research"
    approvals = [e for e in entries if e["command"] == "--approve"]
    assert [e["to"] for e in approvals] == [
        "research:approved",
        "design:approved",
        "test_design:approved",
    ]
    spec = (project.task_dir(name) / "SPEC.md").read_bytes()
    assert approvals[0]["artifact"] == "SPEC.md"
    assert approvals[0]["artifact_sha256"] == hashlib.sha256(spec).hexdigest()


def test_append_history_chains_to_the_previous_line(tmp_path: Path) -> None:
    first = store.append_history(tmp_path, {"from": None, "to": "new"})
    second = store.append_history(tmp_path, {"from": "new", "to": "research"})
    lines = (tmp_path / store.HISTORY).read_text().splitlines()
    assert first["prev"] is None
    assert second["prev"] == hashlib.sha256(lines[0].encode()).hexdigest()
    assert json.loads(lines[1]) == second
    assert store.line_digest(lines[0]) == hashlib.sha256(lines[0].encode()).hexdigest()


def test_history_chain_detects_a_hand_edit(project, task_in) -> None:
    name = task_in("design")
    task_dir = project.task_dir(name)
    history_chain_ok(task_dir)
    lines = (task_dir / store.HISTORY).read_text().splitlines()
    lines[1] = lines[1].replace('"actor":"', '"actor":"mallory-')
    (task_dir / store.HISTORY).write_text("\n".join(lines) + "\n")
    with pytest.raises(AssertionError):
        history_chain_ok(task_dir)


# --- create_task_dir --------------------------------------------------------------------


def _creation_entry() -> dict:
    return {
        "time": clock.stamp(time.time()),
        "from": None,
        "to": "new",
        "actor": "t",
        "command": "c",
    }


def test_create_task_dir_appears_in_one_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    final = tmp_path / "tasks" / "my-task"
    seen: list[tuple[bool, set[str], bytes]] = []
    real_rename = os.rename

    def spy(src: os.PathLike, dst: os.PathLike) -> None:
        src = Path(src)
        seen.append(
            (Path(dst).exists(), {p.name for p in src.iterdir()}, (src / ".state").read_bytes())
        )
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", spy)
    store.create_task_dir(final, "my-task", "new", _creation_entry(), "tasks/")
    monkeypatch.undo()
    files = {".state", ".state.approvals", ".state.history", ".state.mutex"}
    assert seen == [(False, files, b"new\n")]
    assert (final / ".state").read_bytes() == b"new\n"
    assert (final / ".state.approvals").read_bytes() == b""
    assert len(history_chain_ok(final)) == 1
    assert sorted(p.name for p in final.parent.iterdir()) == ["my-task"]


def test_create_task_dir_failure_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    final = tmp_path / "tasks" / "my-task"

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "append_history", broken)
    with pytest.raises(AutomatonError) as info:
        store.create_task_dir(final, "my-task", "new", _creation_entry(), "tasks/")
    assert info.value.exit_code == 2
    assert not final.exists()
    assert list(final.parent.iterdir()) == []


@pytest.mark.parametrize("kind", ["empty-dir", "hand-made", "file", "symlink"])
def test_create_task_dir_refuses_existing(tmp_path: Path, kind: str) -> None:
    final = tmp_path / "tasks" / "my-task"
    final.parent.mkdir(parents=True)
    if kind == "empty-dir":
        final.mkdir()
    elif kind == "hand-made":
        final.mkdir()
        (final / "SPEC.md").write_text("spec\n")
    elif kind == "file":
        final.write_text("x")
    else:
        (tmp_path / "elsewhere").mkdir()
        final.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(Refusal) as info:
        store.create_task_dir(final, "my-task", "new", _creation_entry(), "tasks/")
    assert info.value.code == "task-exists"
    assert info.value.exit_code == 1
    if kind in ("empty-dir", "hand-made"):
        assert sorted(p.name for p in final.iterdir()) == (
            ["SPEC.md"] if kind == "hand-made" else []
        )
    assert not (tmp_path / "elsewhere" / ".state").exists()
    assert [p.name for p in final.parent.iterdir()] == ["my-task"]


def test_create_task_twice_is_refused(project) -> None:
    project.create("twice")
    before = (project.task_dir("twice") / store.HISTORY).read_bytes()
    result = project.run("--create-task", "twice")
    assert result.rc == 1
    assert "already exists" in result.err
    assert (project.task_dir("twice") / store.HISTORY).read_bytes() == before


# --- the lock ---------------------------------------------------------------------------


def test_lock_is_exclusive(tmp_path: Path) -> None:
    with store.locked(tmp_path):
        start = time.monotonic()
        with pytest.raises(AutomatonError) as info, store.locked(tmp_path, timeout=0.2):
            pass
        assert time.monotonic() - start >= 0.15
    assert info.value.code == "locked"
    with store.locked(tmp_path, timeout=0.2):
        pass  # released: free again


def _script_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_command_waits_for_the_lock(project, task_in) -> None:
    name = task_in("new")
    task_dir = project.task_dir(name)
    with store.locked(task_dir):
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "status.py"), "--task", name, "--transition", "research"],
            cwd=project.root,
            env=_script_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(0.8)
        assert proc.poll() is None, "the command did not wait for the lock"
        assert project.state(name) == "new\n"
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert project.state(name) == "research\n"


DRIVER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import typer, filelock  # noqa: F401  (pay the imports before the start signal)
    from automaton_rules import workflow  # noqa: F401
    from automaton_rules.cli import commands, entry as cli  # noqa: F401
    Path(sys.argv[1]).touch()
    go = Path(sys.argv[2])
    deadline = time.monotonic() + 60
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.0005)
    sys.exit(cli.main(sys.argv[3:]))
    """
)


def race(tmp_path: Path, commands: list[list[str]]) -> list[tuple[int, str]]:
    """Start every command, wait until all are imported, then release them at once."""
    sync = tmp_path / "race"
    sync.mkdir()
    driver = sync / "driver.py"
    driver.write_text(DRIVER)
    go = sync / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, str(driver), str(sync / f"ready{i}"), str(go), *args],
            env=_script_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, args in enumerate(commands)
    ]
    deadline = time.monotonic() + 60
    while not all((sync / f"ready{i}").exists() for i in range(len(procs))):
        assert time.monotonic() < deadline, "race participants did not start"
        time.sleep(0.005)
    go.touch()
    results = []
    for proc in procs:
        _out, err = proc.communicate(timeout=60)
        results.append((proc.returncode, err))
    return results


def test_racing_transitions_exactly_one_wins(project, task_in, tmp_path: Path) -> None:
    name = task_in("new")
    args = ["--task", name, "--transition", "research", "--project", str(project.root)]
    results = race(tmp_path, [args] * 8)
    codes = sorted(rc for rc, _ in results)
    assert codes == [0] + [1] * 7, results
    for rc, err in results:
        if rc == 1:
            assert "Cannot transition from 'research' to 'research'" in err
    assert project.state(name) == "research\n"
    entries = history_chain_ok(project.task_dir(name))
    assert [e["to"] for e in entries] == ["new", "research"]


def test_racing_transitions_to_different_targets(project, task_in, tmp_path: Path) -> None:
    name = task_in("research:approved")
    targets = ["design", "implement", "decomposition", "design"] * 2
    commands = [
        ["--task", name, "--transition", t, "--project", str(project.root)] for t in targets
    ]
    results = race(tmp_path, commands)
    winners = [t for t, (rc, _) in zip(targets, results) if rc == 0]
    assert len(winners) == 1, results
    assert sorted(rc for rc, _ in results) == [0] + [1] * 7
    assert project.state(name) == f"{winners[0]}\n"
    entries = history_chain_ok(project.task_dir(name))
    assert len(entries) == 1 + len(path_to("research:approved")) + 1
    assert (entries[-1]["from"], entries[-1]["to"]) == ("research:approved", winners[0])


def test_racing_create_task_exactly_one_wins(project, tmp_path: Path) -> None:
    args = ["--create-task", "raced-task", "--project", str(project.root)]
    results = race(tmp_path, [args] * 8)
    assert sorted(rc for rc, _ in results) == [0] + [1] * 7, results
    for rc, err in results:
        if rc == 1:
            assert "already exists" in err
    assert sorted(p.name for p in project.tasks.iterdir()) == ["raced-task"]
    task_dir = project.task_dir("raced-task")
    assert (task_dir / ".state").read_bytes() == b"new\n"
    assert (task_dir / ".state.approvals").read_bytes() == b""
    assert len(history_chain_ok(task_dir)) == 1


def test_racing_approvals_exactly_one_line(project, task_in, tmp_path: Path) -> None:
    name = task_in("research:awaiting_approval")
    args = ["--task", name, "--approve", "--project", str(project.root)]
    results = race(tmp_path, [args] * 8)
    assert sorted(rc for rc, _ in results) == [0] + [1] * 7, results
    assert project.state(name) == "research:approved\n"
    approvals = project.approvals(name)
    assert len(approvals) == 1
    assert approvals[0].startswith("research:approved|")
    entries = history_chain_ok(project.task_dir(name))
    assert [e["to"] for e in entries].count("research:approved") == 1
    assert entries[-1]["command"] == "--approve"


def test_racing_commands_on_different_tasks_all_succeed(project, task_in, tmp_path: Path) -> None:
    """Locks are per task: transitions, approvals and creations of other tasks never block
    or refuse one another."""
    movers = [task_in("new", name=f"mover-{n}") for n in range(3)]
    gates = [task_in("research:awaiting_approval", name=f"gate-{n}") for n in range(3)]
    root = ["--project", str(project.root)]
    commands = (
        [["--task", name, "--transition", "research", *root] for name in movers]
        + [["--task", name, "--approve", *root] for name in gates]
        + [["--create-task", f"fresh-{n}", *root] for n in range(2)]
    )
    results = race(tmp_path, commands)
    assert [rc for rc, _ in results] == [0] * len(commands), results
    for name in movers:
        assert project.state(name) == "research\n"
        assert [e["to"] for e in history_chain_ok(project.task_dir(name))] == ["new", "research"]
    for name in gates:
        assert project.state(name) == "research:approved\n"
        assert len(project.approvals(name)) == 1
    for n in range(2):
        assert project.state(f"fresh-{n}") == "new\n"


def _loads_or_empty(line: str) -> dict:
    try:
        entry = json.loads(line)
    except ValueError:
        return {}
    return entry if isinstance(entry, dict) else {}


@given(
    st.lists(
        st.one_of(
            st.text(),
            st.dictionaries(st.text(), st.text()).map(json.dumps),
            st.builds(
                lambda a, b: a + b,
                st.dictionaries(st.text(), st.integers()).map(json.dumps),
                st.text(max_size=3),
            ),
        ),
        max_size=6,
    )
)
def test_history_entries_read_exactly_as_json_loads_reads_each_line(lines: list[str]) -> None:
    """The fast history reader must agree with json.loads line by line, whatever a line holds."""
    assert store.parse_history(lines) == [_loads_or_empty(line) for line in lines]


def test_read_bytes_reads_whole_files_and_stops_at_the_limit(tmp_path: Path) -> None:
    for size in (0, 1, 4096, 65536, 65537, 200_000):
        path = tmp_path / f"f{size}"
        data = os.urandom(size)
        path.write_bytes(data)
        assert store.read_bytes(path) == data
        for limit in (0, 1, 4097, 65537):
            assert store.read_bytes(path, limit) == data[:limit]


@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)))
def test_timestamps_read_back_as_written(moment: datetime) -> None:
    """Every timestamp the store writes reads back as the same second, in UTC."""
    text = moment.replace(tzinfo=timezone.utc).strftime(clock.TIME_FORMAT)
    expected = datetime.strptime(text, clock.TIME_FORMAT).replace(tzinfo=timezone.utc)
    assert clock.parse_time(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "2024-13-01T00:00:00Z",
        "2024-02-30T00:00:00Z",
        "2024-01-01T00:00:00",
        "2024-1-1T0:0:0Z",
        "2024-01-01 00:00:00Z",
        "２０２４-01-01T00:00:00Z",
        "2024-01-01T00:00:00Z\n",
    ],
)
def test_malformed_timestamps_read_as_none(text: str) -> None:
    assert clock.parse_time(text) is None


@given(
    st.one_of(
        st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)).map(
            lambda m: m.strftime(clock.TIME_FORMAT)
        ),
        st.from_regex(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z"),
        st.text(max_size=25),
    )
)
def test_timestamp_agrees_with_parse_time(text: str) -> None:
    """The audit's quick timestamps are exactly the parsed times, invalid dates included."""
    parsed = clock.parse_time(text)
    assert clock.timestamp(text) == (parsed.timestamp() if parsed is not None else None)


# ---------------------------------------------------- task files must be regular files


def test_state_symlink_is_refused(project: Project, tmp_path: Path) -> None:
    project.create("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("research\n")
    state = project.task_dir("x") / ".state"
    state.unlink()
    state.symlink_to(outside)
    for args in (("--task", "x"), ("--task", "x", "--transition", "research")):
        result = project.run(*args)
        assert result.rc == 2, (args, result)
        assert result.err == f"ERROR: Cannot read {state}: a symbolic link\n"
    assert outside.read_text() == "research\n"
    assert state.is_symlink()


def test_planted_state_tmp_link_is_not_followed(project: Project, tmp_path: Path) -> None:
    project.create("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    tmp = project.task_dir("x") / ".state.tmp"
    tmp.symlink_to(outside)
    result = project.run("--task", "x", "--transition", "research")
    assert result.rc == 0, result
    assert outside.read_text() == "precious\n"
    state = project.task_dir("x") / ".state"
    assert not state.is_symlink()
    assert state.read_text() == "research\n"
    assert not tmp.exists() and not tmp.is_symlink()


def test_history_symlink_changes_nothing(project: Project, tmp_path: Path) -> None:
    project.create("x")
    folder = project.task_dir("x")
    outside = tmp_path / "outside.txt"
    original = (folder / ".state.history").read_bytes()
    outside.write_bytes(original)
    (folder / ".state.history").unlink()
    (folder / ".state.history").symlink_to(outside)
    result = project.run("--task", "x", "--transition", "research")
    assert result.rc == 2
    assert outside.read_bytes() == original
    assert project.state("x") == "new\n"
    assert result.err.startswith("ERROR: ")
    assert result.err.rstrip().endswith(".state.history: a symbolic link")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
def test_fifo_artifact_does_not_hang_and_counts_as_missing(project: Project, task_in) -> None:
    name = task_in("research")
    os.mkfifo(project.task_dir(name) / "SPEC.md")
    proc = status_py("--task", name, "--transition", "research:awaiting_approval", cwd=project.root)
    assert proc.returncode == 1, proc
    assert "Required artifact 'SPEC.md' is missing or empty" in proc.stderr
    assert project.state(name) == "research\n"


def test_artifact_linked_to_dev_zero_counts_as_missing(project: Project, task_in) -> None:
    name = task_in("research")
    (project.task_dir(name) / "SPEC.md").symlink_to("/dev/zero")
    proc = status_py("--task", name, "--transition", "research:awaiting_approval", cwd=project.root)
    assert proc.returncode == 1, proc
    assert "Required artifact 'SPEC.md' is missing or empty" in proc.stderr
    assert project.state(name) == "research\n"


@pytest.mark.parametrize("spent", [0, store.BUILTIN_BUDGET], ids=["own", "openssl"])
@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 1 << 16, (1 << 16) + 7])
def test_the_digests_are_hashlibs(
    tmp_path: Path, size: int, spent: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """store.sha256 hashes a command's first mebibyte with the interpreter's own SHA-256,
    the rest with hashlib's; every digest the task files record is hashlib's either way."""
    monkeypatch.setattr(store, "_HASHED", [spent])
    data = os.urandom(size)
    assert store.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert store.bytes_digest(data) == hashlib.sha256(data).hexdigest()
    (tmp_path / "blob").write_bytes(data)
    assert store.file_digest(tmp_path / "blob") == hashlib.sha256(data).hexdigest()
    text = data.decode("latin-1")
    assert store.line_digest(text) == hashlib.sha256(text.encode()).hexdigest()


def test_the_interpreters_own_sha256_hashes_only_the_first_mebibyte(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store, "_HASHED", [0])
    own = type(store.sha256(b"x"))
    assert store._HASHED == [1]
    assert type(store.sha256(more=store.BUILTIN_BUDGET)) is type(hashlib.sha256())
    assert store._HASHED == [1]  # what went to OpenSSL is not counted against the budget
    if store._builtin_sha256() is not None:
        assert own is not type(hashlib.sha256())
