"""Build a benchmark project: many tasks across the workflow and a long git history.

Usage: python benchmarks/generate.py DIR [--tasks 10000] [--commits 20000] [--files 1000]

Tasks are written the way status.py writes them (chained history, approval lines,
the artifacts their state presumes); a tenth of them get sub-tasks. The history is
fed to `git fast-import` in one stream, not one `git commit` per commit.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from automaton_rules import machine, store  # noqa: E402

START = 1_700_000_000  # the history's first second
STATES = [s for s in machine.STATES if s != "decomposition:approved"]


def _stamp(moment: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(moment, timezone.utc).strftime(store.TIME_FORMAT)


def write_task(folder: Path, state: str, created: int, rng: random.Random) -> None:
    """A task folder as status.py leaves it in `state`."""
    folder.mkdir(parents=True)
    (folder / store.STATE).write_text(f"{state}\n")
    (folder / store.MUTEX).write_text("")
    entries = [
        {
            "time": _stamp(created),
            "from": None,
            "to": "new",
            "actor": "bench",
            "command": "--create-task",
        }
    ]
    approvals = []
    previous, moment = "new", created
    if state != "new":
        moment += rng.randint(60, 3600)
        entries.append(
            {
                "time": _stamp(moment),
                "from": previous,
                "to": state,
                "actor": "bench",
                "command": f"--transition {state}",
            }
        )
    if machine.is_approved(state):
        approvals.append(f"{state}|{_stamp(moment)}|user")
    lines, prev = [], None
    for entry in entries:
        line = json.dumps({**entry, "prev": prev}, separators=(",", ":"))
        lines.append(line)
        prev = store.line_digest(line)
    (folder / store.HISTORY).write_text("".join(f"{line}\n" for line in lines))
    (folder / store.APPROVALS).write_text("".join(f"{line}\n" for line in approvals))
    for artifact in machine.expected_artifacts(state):
        (folder / artifact).write_text(f"# {artifact}\n\nbenchmark content\n")


def write_tasks(root: Path, count: int, rng: random.Random) -> list[str]:
    tasks = root / ".automaton" / "tasks"
    names = []
    for number in range(count):
        name = f"task-{number:05d}"
        created = START + rng.randint(0, 3600 * 24 * 300)
        if number % 10 == 0:
            write_task(tasks / name, "decomposition:approved", created, rng)
            for sub in range(3):
                state = rng.choice(STATES)
                write_task(tasks / name / "subtasks" / f"part-{sub}", state, created + 60, rng)
        else:
            write_task(tasks / name, rng.choice(STATES), created, rng)
        names.append(name)
    return names


def fast_import_stream(commits: int, files: int, names: list[str], rng: random.Random):
    """Yield the fast-import stream: each commit touches one to three source files."""
    for number in range(1, commits + 1):
        moment = START + number * (3600 * 24 * 300 // commits)
        message = f"change {number}\n"
        if rng.random() < 0.5:
            message += f"\nTask: {rng.choice(names)}\n"
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    root: Path = args.folder
    root.mkdir(parents=True, exist_ok=False)
    names = write_tasks(root, args.tasks, rng)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    importer = subprocess.Popen(
        ["git", "-C", str(root), "fast-import", "--quiet"], stdin=subprocess.PIPE
    )
    assert importer.stdin is not None
    for chunk in fast_import_stream(args.commits, args.files, names, rng):
        importer.stdin.write(chunk)
    importer.stdin.close()
    if importer.wait() != 0:
        return 1
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main", "--", "."], check=True)
    subprocess.run(["git", "-C", str(root), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    print(f"{root}: {args.tasks} tasks, {args.commits} commits over {args.files} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
