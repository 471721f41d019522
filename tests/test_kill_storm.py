"""Kill storm: hundreds of status.py processes SIGKILLed at random instants, none harmful.

Several workers walk their own tasks through create, transitions and approvals, each
command in a process of its own. Most runs are killed: at a random instant of their
life, or at a random instant after their first write. A killed command is run again
until one run is left alone, which must finish it. After every kill and at the end the
task's files must be whole: `.state` one known phase and a newline, no log line torn or
duplicated, the history chained, no leftover that a later command trips over.

The processes are forked from a server that has the command line loaded (see
storm_child.py), so a run costs milliseconds and the kills land in the command rather
than in interpreter start-up, which writes nothing; test_crash.py kills real
`python status.py` processes too.

AUTOMATON_KILLS (default 60, 200 with AUTOMATON_TESTS=full) sets how many kills,
AUTOMATON_KILL_WORKERS (default 4) how many workers, AUTOMATON_KILL_SEED the random
seed. Run with `-s` for the summary.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import storm_child
from helpers import Project, path_to, sized

from automaton_rules.core import machine, store

KILLS = int(os.environ.get("AUTOMATON_KILLS", sized(60, 200)))
WORKERS = int(os.environ.get("AUTOMATON_KILL_WORKERS", "4"))
SEED = int(os.environ.get("AUTOMATON_KILL_SEED", "20250601"))
KILL_CHANCE = 0.75
TARGETED_CHANCE = 0.6
FSYNC_DELAY = 0.004
# multiprocessing reaps other threads' children when it starts one (process._cleanup),
# racing their own reads of the exit code; every call on a child takes this lock.
PROCESSES = threading.Lock()
# A task's walk: created, then every step up to implement, approvals included.
WALK = ("create", *path_to("design:approved"), "implement")


@dataclass
class Tally:
    """What the storm did, for the assertions and the summary line."""

    kills: Counter[str] = field(default_factory=Counter)
    runs: int = 0
    tasks: int = 0
    leftovers: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def killed(self) -> int:
        """Every kill, wherever it landed."""
        return sum(self.kills.values())


def args_for(step: str, name: str) -> list[str]:
    """The command line of one step of the walk."""
    if step == "create":
        return ["--create-task", name]
    if step.endswith(machine.APPROVED):
        return ["--task", name, "--approve"]
    return ["--task", name, "--transition", step]


def done(folder: Path, step: str) -> bool:
    """Whether the step's effect is complete: the task exists, or `.state` reached it."""
    if step == "create":
        return (folder / store.STATE).exists()
    return (folder / store.STATE).read_bytes() == f"{step}\n".encode()


def footprint(tasks_dir: Path, folder: Path) -> tuple[object, ...]:
    """What a write leaves behind: log sizes, `.state` bytes, a temp file, staging folders."""

    def size(name: str) -> int:
        try:
            return (folder / name).stat().st_size
        except FileNotFoundError:
            return -1

    staging = sorted(p.name for p in tasks_dir.iterdir() if p.name.endswith(".creating"))
    state = (folder / store.STATE).read_bytes() if (folder / store.STATE).exists() else None
    return (
        size(store.HISTORY),
        size(store.APPROVALS),
        state,
        (folder / store.STATE_TMP).exists(),
        tuple(staging),
    )


def check_files(folder: Path) -> None:
    """The invariants that hold after any kill, even before the rerun."""
    raw = (folder / store.STATE).read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1, raw
    assert machine.is_state(raw.decode().strip()), raw
    lines = (folder / store.HISTORY).read_bytes().split(b"\n")
    assert lines[-1] == b"", "the history does not end with a whole line"
    entries = [json.loads(line) for line in lines[:-1]]
    assert entries[0]["prev"] is None
    for before, entry in zip(lines, entries[1:]):
        assert entry["prev"] == store.line_digest(before.decode()), "history chain broken"
    for earlier, later in zip(entries, entries[1:]):
        assert later["from"] == earlier["to"], "a history line is duplicated or missing"
    # .state is the last recorded state, or the one before it (killed before the rename).
    assert raw.decode().strip() in {entries[-1]["to"], entries[-1]["from"]}
    approvals = (folder / store.APPROVALS).read_bytes()
    assert approvals == b"" or approvals.endswith(b"\n"), "torn approval line"
    logged = [store.Approval.parse(line) for line in approvals.decode().splitlines()]
    assert all(a is not None for a in logged), logged
    recorded = [e["to"] for e in entries if e["command"] == "--approve"]
    states = [a.state for a in logged if a is not None]
    # A kill between the approval line and its history line leaves one line pending.
    assert states == recorded or states[:-1] == recorded, (states, recorded)
    assert len(states) == len(set(states)), f"duplicated approval line: {states}"


def run_step(
    ctx: Any, project: Project, step: str, name: str, rng: random.Random, tally: Tally
) -> None:
    """Run one step until a run is left alone, killing most runs at a random instant."""
    folder = project.task_dir(name)
    argv = [*args_for(step, name), "--project", str(project.root)]
    out_path = project.root.parent / f"out-{name}-{threading.get_ident()}.txt"
    full = 0.05
    while True:
        before = footprint(project.tasks, folder)
        complete_before = folder.is_dir() and done(folder, step)
        first_write = ctx.Event()
        proc = ctx.Process(
            target=storm_child.run_status_in_child,
            args=(argv, str(out_path), first_write, FSYNC_DELAY),
        )
        started = time.monotonic()
        with PROCESSES:
            proc.start()
        kill = rng.random() < KILL_CHANCE
        targeted = kill and rng.random() < TARGETED_CHANCE
        seen = False
        if targeted:
            seen = wait_for_first_write(proc, first_write)
            if seen:
                time.sleep(rng.uniform(0, 5 * FSYNC_DELAY))
        elif kill:
            time.sleep(rng.uniform(0, 1.1 * full))
        if kill and alive(proc):
            with PROCESSES:
                proc.kill()
        code = finish(proc)
        with tally.lock:
            tally.runs += 1
        if code == -signal.SIGKILL:
            after = footprint(project.tasks, folder)
            finished = folder.is_dir() and done(folder, step)
            where = "after" if finished and not complete_before else "before"
            if not finished and (seen or first_write.is_set() or after != before):
                where = "mid-write"
            with tally.lock:
                tally.kills[where] += 1
            if folder.is_dir():
                check_files(folder)
            continue
        full = 0.8 * full + 0.2 * (time.monotonic() - started)
        text = out_path.read_text(errors="replace")
        assert "Traceback" not in text, (step, name, text)
        if complete_before:
            # The killed run had finished every write: the rerun is refused, nothing changes.
            assert code == 1, (step, name, code, text)
            assert text.startswith("ERROR: "), text
        else:
            assert code == 0, (step, name, code, text)
        assert done(folder, step), (step, name)
        check_files(folder)
        return


def wait_for_first_write(proc: Any, first_write: Any, timeout: float = 30) -> bool:
    """Wait until the child reaches its first fsync; False if it ended without writing."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if first_write.wait(0.01):
            return True
        if not alive(proc):
            return first_write.is_set()
    return False


def alive(proc: Any) -> bool:
    """Whether the child still runs, asked under the lock every multiprocessing call takes."""
    with PROCESSES:
        return bool(proc.is_alive())


def finish(proc: Any, timeout: float = 60) -> int:
    """Wait for the child to end, and release its pipes at once; its exit code."""
    deadline = time.monotonic() + timeout
    while alive(proc):
        assert time.monotonic() < deadline, "a command hung"
        time.sleep(0.002)
    with PROCESSES:
        code = proc.exitcode
        proc.close()
    return int(code)


def worker(ctx: Any, project: Project, number: int, tally: Tally) -> None:
    """Walk tasks, step by step, until the storm has made its kills."""
    rng = random.Random(SEED + number)
    count = 0
    while True:
        name = f"storm-{number}-{count}"
        count += 1
        with tally.lock:
            tally.tasks += 1
        for step in WALK:
            with tally.lock:
                if tally.killed >= KILLS:
                    return
            current = project.task_dir(name)
            if step != "create":
                state = (current / store.STATE).read_text().strip()
                artifact = machine.required_artifact(state)
                if artifact and not (current / artifact).exists():
                    (current / artifact).write_text(f"# {artifact}\n")
            run_step(ctx, project, step, name, rng, tally)


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="needs fork and SIGKILL"
)
def test_kill_storm_leaves_every_task_whole(project: Project) -> None:
    project.tasks.mkdir(parents=True)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["storm_child"])
    tally = Tally()
    started = time.monotonic()
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = [pool.submit(worker, ctx, project, n, tally) for n in range(WORKERS)]
        for future in futures:
            future.result()
    duration = time.monotonic() - started

    assert tally.killed >= KILLS
    assert tally.kills["mid-write"] > 0, tally.kills
    names = sorted(p.name for p in project.tasks.iterdir() if not p.name.startswith("."))
    for name in names:
        folder = project.task_dir(name)
        check_files(folder)
        extra = {p.name for p in folder.iterdir()} - {
            store.STATE,
            store.HISTORY,
            store.APPROVALS,
            store.MUTEX,
            *machine.ARTIFACTS.values(),
            *(f"{store.APPROVED_COPY}{artifact}" for artifact in machine.ARTIFACTS.values()),
        }
        # A copy of an approved artifact killed mid-write is a leftover like .state.tmp.
        torn = {n for n in extra if n.startswith(store.APPROVED_COPY) and n.endswith(".tmp")}
        assert extra - torn <= {store.STATE_TMP}, (name, extra)
        tally.leftovers[store.STATE_TMP] += len(extra)
    staging = [p for p in project.tasks.iterdir() if p.name.startswith(".")]
    assert all(p.name.endswith(".creating") for p in staging), staging
    tally.leftovers["staging folder"] = len(staging)

    # Nothing left behind trips a later command: every task lists, validates and audits
    # clean (AR204-AR206 included), and moves on.
    listed = project.run("--list", "--json")
    assert listed.rc == 0, listed
    assert sorted(row["name"] for row in listed.json["tasks"]) == names
    assert {row["state"] for row in listed.json["tasks"]} <= {"new", *WALK}
    validated = project.run("--validate-folder")
    assert validated.rc == 0, validated
    audit = project.run("--audit", "--json")
    assert audit.rc == 0, audit.out
    assert audit.json["findings"] == []
    for name in names:
        folder = project.task_dir(name)
        state = (folder / store.STATE).read_text().strip()
        target = machine.legal_targets(state)[0] if machine.legal_targets(state) else None
        artifact = machine.required_artifact(state)
        if artifact:
            (folder / artifact).write_text(f"# {artifact}\n")
        if machine.is_awaiting(state):
            result = project.run("--task", name, "--approve")
        else:
            result = project.run("--task", name, "--transition", str(target))
        assert result.rc == 0, (name, state, result)

    print(
        f"\nkill storm: {tally.killed} kills ({tally.kills['before']} before any write, "
        f"{tally.kills['mid-write']} mid-write, {tally.kills['after']} after the last write) "
        f"in {tally.runs} runs over {len(names)} tasks, {WORKERS} workers, {duration:.1f}s; "
        f"left behind: {dict(tally.leftovers)}"
    )
