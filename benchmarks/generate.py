"""Build a benchmark project: many tasks across the workflow and a long git history.

Usage: python benchmarks/generate.py DIR [--tasks 10000] [--commits 20000] [--files 1000]
                                         [--shape clean|late-adopted]

Each task walks the workflow the way status.py would move it, one dated step at a time
(chained history, approval lines with the artifact's digest, each phase's artifact
written before the task leaves it); a tenth are decomposed into three sub-tasks. The
commits fall inside the tasks' edit phases, half of them naming their task in a `Task:`
trailer, so the audit sees a project that keeps its rules; a few violations of each kind
are planted (a commit during research, an artifact ahead of its phase) so the report
has work to do. The history is fed to `git fast-import` in one stream, not one
`git commit` per commit.

`--shape late-adopted` builds a project that took the tool up late instead: its task
folders were made by hand (artifacts, no history), and then three in five were adopted
with `--upgrade`, one in five kept a `.state` written by an older version, and the rest
were left as they were; after that, work went on in git without moving any task, every commit
naming its task in a `Task:` trailer. The audit reports each hand-made folder, each task
without a history, and each source file a commit changed while its task sat in a phase
that forbids editing: about 30,000 findings at the default size.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from automaton_rules.core import machine, store  # noqa: E402
from automaton_rules.support import clock  # noqa: E402

START = 1_700_000_000  # the history's first second
SPAN = 3600 * 24 * 300  # tasks start within these 300 days
ARTIFACT_TEXT = "# {name}\n\nbenchmark content\n"
PLANTED = 0.005  # the share of commits and tasks that break a rule on purpose

# Every state a task can be left in, but decomposition's (the tenth of tasks that are
# decomposed stop in decomposition:approved, with sub-tasks).
FINAL_STATES = [s for s in machine.STATES if machine.base_phase(s) != "decomposition"]

# The late-adopted shape: when its folders were adopted, just before the first commit, and
# the phases a hand-made folder's artifacts reach (decomposition needs sub-tasks).
ADOPTED = START - 3600 * 24
LATE_PHASES = [phase for phase in machine.ARTIFACTS if phase != "decomposition"]


def route_to(state: str) -> tuple[str, ...]:
    """The states a task passes through to reach `state`, `new` first."""
    return ("new", *machine.route_to(state))


@dataclass
class Walk:
    """One task's dated steps, and the intervals it spent in phases that allow edits."""

    name: str
    states: list[tuple[int, str]] = field(default_factory=list)

    def spans(self, state_test, until: int) -> Iterator[tuple[int, int]]:
        """The intervals spent in states `state_test` accepts."""
        ends = [moment for moment, _ in self.states[1:]] + [until]
        for (start, state), end in zip(self.states, ends):
            if state_test(state) and end > start:
                yield start, end


def write_task(folder: Path, name: str, state: str, created: int, rng: random.Random) -> Walk:
    """A task folder as status.py leaves it after walking to `state`."""
    folder.mkdir(parents=True)
    walk = Walk(name, [(created, "new")])
    entries = [
        {
            "time": clock.stamp(created),
            "from": None,
            "to": "new",
            "actor": "bench",
            "command": "--create-task",
        }
    ]
    approvals, artifacts = [], {}
    moment, route = created, route_to(state)
    for before, after in zip(route, route[1:]):
        moment += rng.randint(600, 3600 * 48)
        entry = {"time": clock.stamp(moment), "from": before, "to": after}
        artifact = machine.required_artifact(before)
        if artifact:
            artifacts.setdefault(artifact, ARTIFACT_TEXT.format(name=artifact).encode())
        if machine.is_approved(after):
            artifact = machine.required_artifact(before) or ""
            entry.update(
                actor="user",
                command="--approve",
                approver="user",
                artifact=artifact,
                artifact_sha256=hashlib.sha256(artifacts[artifact]).hexdigest(),
            )
            approvals.append(f"{after}|{entry['time']}|user")
        else:
            entry.update(actor="bench", command=f"--transition {after}")
        entries.append(entry)
        walk.states.append((moment, after))
    lines, prev = [], None
    for entry in entries:
        line = json.dumps({**entry, "prev": prev}, separators=(",", ":"))
        lines.append(line)
        prev = store.line_digest(line)
    files = {
        store.STATE: f"{state}\n".encode(),
        store.MUTEX: b"",
        store.HISTORY: "".join(f"{line}\n" for line in lines).encode(),
        store.APPROVALS: "".join(f"{line}\n" for line in approvals).encode(),
        **artifacts,
    }
    for filename, data in files.items():
        (folder / filename).write_bytes(data)
    return walk


def write_tasks(root: Path, count: int, rng: random.Random) -> list[Walk]:
    """`count` tasks over every state; every tenth one decomposed into three sub-tasks."""
    tasks = root / ".automaton" / "tasks"
    walks = []
    for number in range(count):
        name = f"task-{number:05d}"
        created = START + rng.randint(0, SPAN)
        if number % 10 == 0:
            parent = write_task(tasks / name, name, "decomposition:approved", created, rng)
            walks.append(parent)
            for sub in range(3):
                subname = f"{name}/{machine.SUBTASKS_DIR}/part-{sub}"
                walks.append(
                    write_task(
                        tasks / subname,
                        subname,
                        rng.choice(FINAL_STATES[1:-1]),
                        parent.states[-1][0] + 60,
                        rng,
                    )
                )
        else:
            walks.append(write_task(tasks / name, name, rng.choice(FINAL_STATES), created, rng))
    researching = [walk for walk in walks if walk.states[-1][1] == "research"]
    for walk in rng.sample(researching, min(len(researching), int(len(walks) * PLANTED) + 1)):
        path = tasks / walk.name / machine.ARTIFACTS["implement"]
        path.write_text(ARTIFACT_TEXT.format(name="IMPLEMENTATION.md"))
    return walks


def commit_plan(
    walks: list[Walk], commits: int, rng: random.Random
) -> list[tuple[int, str | None]]:
    """When each commit happens and which task it names: inside an edit phase, mostly."""
    until = START + SPAN + 3600 * 24 * 60
    edits = [(w.name, s) for w in walks for s in w.spans(machine.is_edit_phase, until)]
    research = [(w.name, s) for w in walks for s in w.spans(lambda x: x == "research", until)]
    plan = []
    for _ in range(commits):
        planted = rng.random() < PLANTED
        name, (start, end) = rng.choice(research if planted else edits)
        moment = rng.randint(start + 1, end - 1)
        plan.append((moment, name if planted or rng.random() < 0.5 else None))
    return sorted(plan, key=lambda item: item[0])


def fast_import_stream(
    plan: list[tuple[int, str | None]], files: int, rng: random.Random
) -> Iterator[bytes]:
    """Yield the fast-import stream: each commit touches one to three source files."""
    for number, (moment, task) in enumerate(plan, start=1):
        message = f"change {number}\n" + (f"\nTask: {task}\n" if task else "")
        data = message.encode()
        yield (
            (
                f"commit refs/heads/main\nmark :{number}\n"
                f"committer Bench <bench@example.com> {moment} +0000\n"
                f"data {len(data)}\n"
            ).encode()
            + data
            + b"\n"
        )
        if number > 1:
            yield f"from :{number - 1}\n".encode()
        for _ in range(rng.randint(1, 3)):
            path = f"src/module_{rng.randrange(files):04d}.py"
            body = f"VALUE = {number}\n".encode()
            yield f"M 100644 inline {path}\ndata {len(body)}\n".encode() + body + b"\n"
        yield b"\n"


def write_late_task(folder: Path, number: int, rng: random.Random) -> None:
    """A hand-made folder with the artifacts up to a phase: adopted with `--upgrade` (three
    in five), given a `.state` by an older version without a history, or left as it was
    (one in five each)."""
    folder.mkdir(parents=True)
    phase = rng.choice(LATE_PHASES)
    for step in route_to(phase):
        artifact = machine.ARTIFACTS.get(machine.base_phase(step))
        if artifact and not (folder / artifact).exists():
            (folder / artifact).write_text(ARTIFACT_TEXT.format(name=artifact))
    kind = number % 10
    if kind < 6:
        line = json.dumps(
            {
                "time": clock.stamp(ADOPTED + number),
                "from": None,
                "to": phase,
                "actor": "bench",
                "command": "--upgrade",
                "inferred_from": machine.ARTIFACTS[phase],
                "adopted_approvals": 0,
                "prev": None,
            },
            separators=(",", ":"),
        )
        (folder / store.HISTORY).write_text(f"{line}\n")
        (folder / store.APPROVALS).write_bytes(b"")
        (folder / store.MUTEX).write_bytes(b"")
    if kind < 8:
        (folder / store.STATE).write_text(f"{phase}\n")
    if 6 <= kind < 8:
        os.utime(folder / store.STATE, (ADOPTED, ADOPTED))


def late_adopted(
    root: Path, tasks: int, commits: int, rng: random.Random
) -> list[tuple[int, str | None]]:
    """The late-adopted project's task folders, and its commits: each at some moment after
    the adoption, naming a task picked at random."""
    folder = root / ".automaton" / "tasks"
    names = [f"task-{number:05d}" for number in range(tasks)]
    for number, name in enumerate(names):
        write_late_task(folder / name, number, rng)
    plan = [(START + rng.randint(0, SPAN), rng.choice(names)) for _ in range(commits)]
    return sorted(plan, key=lambda item: item[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=("clean", "late-adopted"), default="clean")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    root: Path = args.folder
    root.mkdir(parents=True, exist_ok=False)
    if args.shape == "late-adopted":
        plan = late_adopted(root, args.tasks, args.commits, rng)
    else:
        plan = commit_plan(write_tasks(root, args.tasks, rng), args.commits, rng)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    importer = subprocess.Popen(
        ["git", "-C", str(root), "fast-import", "--quiet"], stdin=subprocess.PIPE
    )
    assert importer.stdin is not None
    for chunk in fast_import_stream(plan, args.files, rng):
        importer.stdin.write(chunk)
    importer.stdin.close()
    if importer.wait() != 0:
        return 1
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main", "--", "."], check=True)
    subprocess.run(["git", "-C", str(root), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    print(
        f"{root}: {args.shape}, {args.tasks} tasks, {args.commits} commits over {args.files} files"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
