"""The dashboard's figures: a large board served, a change reaching an open page, memory.

Run by `python benchmarks/run.py --only board [--tasks 10000]`. It builds the clean
benchmark project, starts `automaton-board` on it as a person would (a subprocess, on a
free port), and measures over HTTP:

- the board of every task, served (`GET /`): the first time (every task read) and then
  the median of --runs (the cards kept, nothing changed);
- a change reaching an open page: an event stream is open, one task is moved by
  status.py's own code (no interpreter start in the figure), and the time runs from the
  moment the move is on disk to the moment the page holds its new main part (the event
  received, then the fragment fetched), median of --runs moves;
- the server's resident memory after all that (from /proc), and its CPU while idle for
  10 seconds with a page open;
- the start-up: the time from starting the process to the address printed and to the
  first board served (every task's card is read at start), and the import of the board's
  libraries alone.
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start(project: Path) -> tuple[subprocess.Popen[str], int, str, float, float]:
    """The board on a free port: (process, port, session cookie, seconds to the address,
    the moment the process was started)."""
    began = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "automaton_rules.board.server",
            "--project",
            str(project),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    url = ""
    while "/login?code=" not in url:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the board did not start")
        url = line if "/login?code=" in line else url
    started = time.perf_counter() - began
    found = re.search(r"http://localhost:(\d+)/login\?code=(\S+)", url)
    assert found is not None
    port = int(found.group(1))
    answer = get(port, f"/login?code={found.group(2)}", "")
    cookie = answer.getheader("set-cookie", "").split(";")[0]
    return proc, port, cookie, started, began


def get(port: int, path: str, cookie: str, **headers: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path, headers={"Cookie": cookie, **headers})
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return answer


def served(port: int, cookie: str) -> float:
    began = time.perf_counter()
    answer = get(port, "/", cookie)
    assert answer.status == 200, answer.status
    return time.perf_counter() - began


def change_reaches_page(project: Path, port: int, cookie: str, runs: int) -> list[float]:
    """Seconds from a move on disk to the page's new main part, for `runs` moves."""
    from automaton_rules.core.project import Project
    from automaton_rules.engine.runner import Engine
    from automaton_rules.workflow import transition

    stream = socket.create_connection(("127.0.0.1", port), timeout=30)
    stream.sendall(
        f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n".encode()
    )
    read_until(stream, b"event: hello")
    proj = Project(project)
    engine = Engine.create(())
    names = sorted(
        p.name
        for p in proj.tasks_dir.iterdir()
        if (p / ".state").read_text().strip() == "implement"
    )[:runs]
    samples = []
    for name in names:
        (proj.task_dir(name) / "IMPLEMENTATION.md").write_text("done\n")
        read_until(stream, b"event: change")  # the artifact's own event, not timed
        time.sleep(0.2)
        transition(proj, name, "bug_find", engine=engine)  # on disk when this returns
        moved = time.perf_counter()
        read_until(stream, b"event: change")
        answer = get(port, "/", cookie, **{"X-Board-Fragment": "1"})
        assert answer.status == 200
        samples.append(time.perf_counter() - moved)
    stream.close()
    return samples


def read_until(conn: socket.socket, marker: bytes) -> None:
    got = b""
    while marker not in got:
        chunk = conn.recv(65536)
        if not chunk:
            raise RuntimeError("the stream closed")
        got += chunk


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def import_seconds() -> float:
    code = "import starlette.applications, uvicorn, watchfiles, markdown_it"
    best = []
    for _ in range(5):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        bare = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        best.append((bare - began) - (time.perf_counter() - bare))
    return statistics.median(best)


def measure(project: Path, runs: int) -> list[tuple[str, str]]:
    """The figures, as (what, value) rows."""
    proc, port, cookie, started, began = start(project)
    try:
        first = served(port, cookie)
        ready = time.perf_counter() - began
        again = statistics.median(served(port, cookie) for _ in range(runs))
        reached = change_reaches_page(project, port, cookie, runs)
        after_change = served(port, cookie)
        memory = resident_mb(proc.pid)
        idle_from = cpu_seconds(proc.pid)
        stream = socket.create_connection(("127.0.0.1", port), timeout=30)
        stream.sendall(
            f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n".encode()
        )
        time.sleep(10)
        idle = cpu_seconds(proc.pid) - idle_from
        stream.close()
    finally:
        proc.terminate()
        proc.wait(20)
    return [
        ("start-up, process start to the printed address", f"{started:.2f} s"),
        ("importing starlette, uvicorn, watchfiles, markdown-it-py", f"{import_seconds():.3f} s"),
        ("process start to the first board served (every task read at start)", f"{ready:.2f} s"),
        ("board served, first request", f"{first:.3f} s"),
        (f"board served, median of {runs} (nothing changed)", f"{again:.3f} s"),
        ("board served after one task changed", f"{after_change:.3f} s"),
        (
            f"a change reaching an open page, median of {len(reached)}",
            f"{statistics.median(reached):.3f} s (max {max(reached):.3f} s)",
        ),
        ("server resident memory", f"{memory:.0f} MB"),
        ("server CPU while idle with a page open, 10 s", f"{idle:.3f} s"),
    ]
