"""Measure status.py's speed as paired ratios, and print a Markdown table.

Usage: python benchmarks/run.py [--tasks 10000] [--commits 20000] [--files 1000] [--runs 7]
                                [--only hooks|late-adopted|sandbox|board]

Builds three projects with benchmarks/generate.py: the clean shape (N tasks and C commits,
then 2N and 2C) and the late-adopted shape (N tasks made by hand and C commits naming them,
about 3N findings). Then it times each command against its baseline in the same run on the
same machine: the edit-time hooks and `--task` against `python -c pass`, the audit (text and JSON)
against `git log --name-only` plus `python -c pass`, all in rounds (each command once per
round, in turn). Medians of --runs runs; peak memory from rusage, and status.py's own peak
without its git child. `--only hooks` builds one project and times only the edit-time
hooks and `--task`, in a few seconds; `--only late-adopted` builds and times only the late-adopted
shape. `--only board` times the dashboard on the clean shape (benchmarks/board.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATUS = [sys.executable, str(ROOT / "status.py")]
HOOK = [str(Path(sys.executable).parent / "automaton-hook"), "--harness", "claude"]
TASK = "task-00001"


def timed(command: list[str], cwd: Path, stdin: str | None = None) -> tuple[float, int]:
    """Wall time of one run, and the peak resident memory (KiB) of the process."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,"
        " input=sys.stdin.buffer.read())\n"
        "print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", wrapper, *command],
        cwd=cwd,
        input=(stdin or "").encode(),
        capture_output=True,
        check=True,
    )
    seconds, peak = proc.stdout.split()
    return float(seconds), int(peak)


def own_peak(command: list[str], cwd: Path) -> int:
    """Peak resident memory (KiB) of status.py's own process, without the git it runs.

    The rusage of children is the largest child's, and `git log` over a long history
    is larger than status.py; so status.py runs here under runpy and reports its own.
    Its folder goes first on the module path, as when it is run as a script, so the
    package measured is the one beside it.
    """
    script, args = command[1], command[2:]
    probe = (
        "import atexit, os, resource, runpy, sys\n"
        "out = sys.argv.pop(1)\n"
        "def report():\n"
        "    with open(out, 'w') as handle:\n"
        "        handle.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
        "atexit.register(report)\n"
        "sys.argv = sys.argv[1:]\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as out:
        subprocess.run(
            [sys.executable, "-c", probe, out.name, script, *args],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return int(out.read() or 0)


def median(samples: list[tuple[float, int]]) -> tuple[float, int]:
    """The median time and the largest peak of one command's samples."""
    return statistics.median(t for t, _ in samples), max(p for _, p in samples)


def rounds(
    commands: dict[str, tuple[list[str], str | None, int]], cwd: Path
) -> dict[str, tuple[float, int]]:
    """Run every command once per round, in turn, so each sits next to its baseline in time.

    One unmeasured run of each comes first: building the doubled project pushes the first
    one's files out of the page cache, and a cold first round would weigh on one median.
    """
    for command, stdin, _ in commands.values():
        timed(command, cwd, stdin)
    samples: dict[str, list[tuple[float, int]]] = {name: [] for name in commands}
    for index in range(max(runs for _, _, runs in commands.values())):
        for name, (command, stdin, runs) in commands.items():
            if index < runs:
                samples[name].append(timed(command, cwd, stdin))
    return {name: median(found) for name, found in samples.items()}


def build(folder: Path, tasks: int, commits: int, files: int, shape: str = "clean") -> Path:
    """Build one benchmark project of `shape` with benchmarks/generate.py."""
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "generate.py"),
            str(folder),
            "--tasks",
            str(tasks),
            "--commits",
            str(commits),
            "--files",
            str(files),
            "--shape",
            shape,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return folder


def _edit(project: Path) -> str:
    return json.dumps(
        {
            "cwd": str(project),
            "tool_name": "Edit",
            "tool_input": {"file_path": str(project / "src" / "module_0001.py")},
        }
    )


def _shell(project: Path, command: str) -> str:
    return json.dumps(
        {"cwd": str(project), "tool_name": "Bash", "tool_input": {"command": command}}
    )


def _hook_commands(project: Path, runs: int) -> dict[str, tuple[list[str], str | None, int]]:
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], None, runs),
        "--can-edit --task": ([*STATUS, "--can-edit", "--task", TASK], None, runs),
        "--scope-check": (
            [*STATUS, "--scope-check", "--file", "src/module_0001.py"],
            None,
            runs,
        ),
        "automaton-hook (one edit)": (HOOK, _edit(project), runs),
        # A plain read is answered by the pre-scan and rewritten into the sandbox like every
        # line; a write is parsed with tree-sitter.
        "automaton-hook (shell read)": (HOOK, _shell(project, "git status --short"), runs),
        "automaton-hook (shell write)": (
            HOOK,
            _shell(project, "cd src && sed -i 's/x/y/' module_0001.py > /tmp/log"),
            runs,
        ),
        # A line only running decides: the answer is the line rewritten into the sandbox.
        "automaton-hook (sandboxed line)": (HOOK, _shell(project, "python3 -c 'print(1)'"), runs),
        # The view agents call most: the task, its records and its folder's validation.
        "--task": ([*STATUS, "--task", TASK], None, runs),
    }


def measure_hooks(project: Path, runs: int) -> dict[str, tuple[float, int]]:
    """The edit-time hooks and their baseline, in rounds."""
    return rounds(_hook_commands(project, runs), project)


GIT_LOG = ["git", "log", "--name-only", "--format=%H %ct"]
AUDIT = [*STATUS, "--audit", "--format", "json"]
AUDIT_TEXT = [*STATUS, "--audit"]


def measure(project: Path, runs: int) -> dict[str, tuple[float, int]]:
    """Every figure on the project, the baselines measured in the same rounds."""
    audit_runs = max(3, runs // 2)
    return rounds(
        {
            **_hook_commands(project, runs),
            "--list": ([*STATUS, "--list"], None, runs),
            "git log --name-only": (GIT_LOG, None, audit_runs),
            "--audit": (AUDIT, None, audit_runs),
            "--audit (text)": (AUDIT_TEXT, None, audit_runs),
        },
        project,
    )


def measure_late(project: Path, runs: int) -> dict[str, tuple[float, int]]:
    """The audit of the late-adopted project, text and JSON, beside its baselines."""
    audit_runs = max(3, runs // 2)
    return rounds(
        {
            "python -c pass": ([sys.executable, "-c", "pass"], None, audit_runs),
            "git log --name-only": (GIT_LOG, None, audit_runs),
            "--audit": (AUDIT, None, audit_runs),
            "--audit (text)": (AUDIT_TEXT, None, audit_runs),
        },
        project,
    )


def warm_bytecode() -> None:
    """Compile the package first, as an installed copy is: with PYTHONDONTWRITEBYTECODE set
    or a fresh checkout, every call would otherwise recompile what it imports."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "automaton_rules")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--only",
        choices=("hooks", "late-adopted", "sandbox", "board"),
        help="time only the edit-time hooks, the late-adopted project's audit, what the "
        "shell sandbox costs a command, or the board",
    )
    args = parser.parse_args()
    warm_bytecode()
    if args.only == "hooks":
        return hooks_only(args.tasks, args.commits, args.files, args.runs)
    if args.only == "sandbox":
        return sandbox_only(args.runs)
    if args.only == "board":
        return board_only(args.tasks, args.commits, args.files, args.runs)
    with tempfile.TemporaryDirectory(prefix="automaton-bench-") as tmp:
        started = time.perf_counter()
        late = build(Path(tmp) / "late", args.tasks, args.commits, args.files, "late-adopted")
        if args.only == "late-adopted":
            one = two = None
        else:
            small = build(Path(tmp) / "n", args.tasks, args.commits, args.files)
            large = build(Path(tmp) / "2n", 2 * args.tasks, 2 * args.commits, args.files)
            one = measure(small, args.runs)
            two = rounds(
                {"--audit": (AUDIT, None, 3), "git log --name-only": (GIT_LOG, None, 3)}, large
            )
        adopted = measure_late(late, args.runs)
        memory = {"late": max(own_peak(AUDIT, late), own_peak(AUDIT_TEXT, late))}
        if one is not None:
            memory.update(small=own_peak(AUDIT, small), large=own_peak(AUDIT, large))
        elapsed = time.perf_counter() - started
    rows = late_rows(adopted, memory["late"])
    if one is not None and two is not None:
        rows = [*clean_rows(one, two, memory["small"]), *rows]
    print(
        f"Projects: {args.tasks} tasks, {args.commits} commits, {args.files} files; "
        f"medians of {args.runs} runs; {elapsed:.0f} s in all.\n"
    )
    print("| measure | ratio | target | met |\n| --- | --- | --- | --- |")
    for name, ratio, target in rows:
        limit = float(target.split("≤ ")[1].split(" ")[0])
        print(f"| {name} | {ratio:.2f} | {target} | {'yes' if ratio <= limit else 'NO'} |")
    print("\n| command | median seconds | peak memory, with children (MB) |\n| --- | --- | --- |")
    for suffix, found in (("", one), (" (2N, 2C)", two), (" (late-adopted)", adopted)):
        for name, (seconds, peak) in (found or {}).items():
            print(f"| {name}{suffix} | {seconds:.3f} | {peak / 1024:.0f} |")
    own = f"late-adopted: {memory['late'] / 1024:.0f} MB"
    if one is not None:
        own = f"{memory['small'] / 1024:.0f} MB (2N, 2C: {memory['large'] / 1024:.0f} MB; {own})"
    print(f"\nstatus.py --audit's own peak memory: {own}.")
    return 0


AUDIT_TARGET = "× (git log --name-only + python -c pass)"


def clean_rows(
    one: dict[str, tuple[float, int]], two: dict[str, tuple[float, int]], memory: int
) -> list[tuple[str, float, str]]:
    """The clean project's ratios: the hooks, the audit, doubling, and memory."""
    base = one["python -c pass"][0]
    audit_base = one["git log --name-only"][0] + base
    return [
        *((name, one[name][0] / base, f"≤ {limit} × python -c pass") for name, limit in TARGETS),
        ("--audit", one["--audit"][0] / audit_base, f"≤ 3.0 {AUDIT_TARGET}"),
        ("--audit (text)", one["--audit (text)"][0] / audit_base, f"≤ 3.0 {AUDIT_TARGET}"),
        (
            "--audit, 2N tasks and 2C commits",
            two["--audit"][0] / one["--audit"][0],
            "≤ 2.2 × the --audit time",
        ),
        ("--audit peak memory (MB)", memory / 1024, "≤ 150 MB"),
    ]


def late_rows(late: dict[str, tuple[float, int]], memory: int) -> list[tuple[str, float, str]]:
    """The late-adopted project's ratios: the audit in JSON and in text, and memory."""
    audit_base = late["git log --name-only"][0] + late["python -c pass"][0]
    return [
        ("--audit, late-adopted", late["--audit"][0] / audit_base, f"≤ 2.5 {AUDIT_TARGET}"),
        (
            "--audit (text), late-adopted",
            late["--audit (text)"][0] / audit_base,
            f"≤ 2.5 {AUDIT_TARGET}",
        ),
        ("--audit peak memory, late-adopted (MB)", memory / 1024, "≤ 150 MB"),
    ]


EDIT_TIME = (
    "--can-edit --task",
    "--scope-check",
    "automaton-hook (one edit)",
    "automaton-hook (shell read)",
    "automaton-hook (shell write)",
    "automaton-hook (sandboxed line)",
)
# Each command of the hooks table and its target, as a multiple of `python -c pass`.
TARGETS = (*((name, 2.0) for name in EDIT_TIME), ("--task", 3.0))


def _sandboxed_true(project: Path) -> dict[str, tuple[list[str], str | None, int]]:
    """`bash -c true` plain and inside each mechanism that works here, with the boundary
    of the project's current state (its tasks in research: the project read-only)."""
    from automaton_rules.core.config import load_config
    from automaton_rules.core.project import find_project
    from automaton_rules.guards.sandbox import boundary, mechanisms

    found = find_project(project)
    limits = boundary.compute(found, load_config(found.root), cwd=project)
    true = ["bash", "-c", "true"]
    commands = {"python -c pass": [sys.executable, "-c", "pass"], "bash -c true": true}
    for record in mechanisms.TABLE:
        mechanism = record.found(None)
        if mechanism is not None:
            commands[f"{mechanism.name}: bash -c true"] = mechanism.argv(limits, true)
            online = boundary.Boundary(
                *(
                    True if f == "internet" else getattr(limits, f)
                    for f in boundary.Boundary._fields
                )
            )
            commands[f"{mechanism.name}, network on"] = mechanism.argv(online, true)
    return {name: (command, None, 0) for name, command in commands.items()}


def sandbox_only(runs: int) -> int:
    """`--only sandbox`: what running a command inside the sandbox costs, over the plain
    command, as a multiple of `python -c pass` (target: at most 1.5)."""
    with tempfile.TemporaryDirectory(prefix="automaton-bench-") as tmp:
        project = build(Path(tmp) / "n", 100, 100, 100)
        commands = {
            name: (cmd, stdin, runs) for name, (cmd, stdin, _) in _sandboxed_true(project).items()
        }
        found = rounds(commands, project)
    base, plain = found["python -c pass"][0], found["bash -c true"][0]
    print(f"Medians of {runs} runs; overhead = sandboxed - plain `bash -c true`.\n")
    print("| command | median seconds | overhead / python -c pass | met (≤ 1.5) |")
    print("| --- | --- | --- | --- |")
    for name, (seconds, _) in found.items():
        if name in ("python -c pass", "bash -c true"):
            print(f"| {name} | {seconds:.4f} |  |  |")
            continue
        ratio = (seconds - plain) / base
        print(f"| {name} | {seconds:.4f} | {ratio:.2f} | {'yes' if ratio <= 1.5 else 'NO'} |")
    return 0


def hooks_only(tasks: int, commits: int, files: int, runs: int) -> int:
    """`--only hooks`: one project, the edit-time hooks (file edits and shell lines) and
    `--task` against `python -c pass`."""
    with tempfile.TemporaryDirectory(prefix="automaton-bench-") as tmp:
        one = measure_hooks(build(Path(tmp) / "n", tasks, commits, files), runs)
    base = one["python -c pass"][0]
    print(f"Project: {tasks} tasks, {commits} commits, {files} files; medians of {runs} runs.\n")
    limits = dict(TARGETS)
    print("| command | median seconds | ratio to python -c pass | target | met |")
    print("| --- | --- | --- | --- | --- |")
    for name, (seconds, _) in one.items():
        ratio = seconds / base
        if name not in limits:
            print(f"| {name} | {seconds:.3f} | {ratio:.2f} |  |  |")
            continue
        met = "yes" if ratio <= limits[name] else "NO"
        print(f"| {name} | {seconds:.3f} | {ratio:.2f} | ≤ {limits[name]} | {met} |")
    return 0


def board_only(tasks: int, commits: int, files: int, runs: int) -> int:
    """The dashboard on the clean shape: served, live, memory (benchmarks/board.py)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import board

    with tempfile.TemporaryDirectory(prefix="automaton-bench-") as tmp:
        project = build(Path(tmp) / "n", tasks, commits, files)
        rows = board.measure(project, runs)
    print(f"Dashboard on a project of {tasks} tasks; {runs} runs.\n")
    print("| measure | value |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
