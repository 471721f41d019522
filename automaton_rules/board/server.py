"""`automaton-board` and `status.py --serve`: start the dashboard on this machine.

The projects are found once, at start (`--project`, as many as wanted; none: the one
above the current folder), and never again. The server listens on 127.0.0.1, and on an
address beyond this machine only with `--allow-remote` and a warning; it prints a login
link good once and for minutes (a fresh one each time Enter is pressed), and stops cleanly
on Ctrl-C. The person it acts for is read once, where it starts (support/person.py), the
same for every project it serves. Approving and asking for changes need the server to
have been started at a terminal: an agent's shell tool has none, so a board an agent
starts only shows.
"""

from __future__ import annotations

import sys
from pathlib import Path

from automaton_rules.support.console import Script, UsageError
from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

DEFAULT_PORT = 8765
USAGE = """\
usage: automaton-board [--project DIR]... [--port N] [--host ADDR [--allow-remote]] [OPTION]...

Serves a live dashboard of one or many projects' tasks on this machine: tasks by phase,
those awaiting approval with how long they have waited, each task's timeline and
artifacts, the workflow diagram and the audit. Approve or request changes from the page
(approval = "open" or "prompt"; signed mode shows the command to run). It prints the
address to open, with a login code that only the person at this terminal sees: good for
one use, within 10 minutes; press Enter for a fresh one, or type `passkey` and Enter for
one that registers a passkey (approvals from the board need one).

  --project DIR      a project to serve (repeat for more); default: the one above here
  --port N           the port (default 8765; 0 picks a free one)
  --host ADDR        where to listen (default 127.0.0.1, this machine only)
  --allow-remote     let --host name an address beyond this machine (a warning says
                     who could then reach the board)
  --stale-minutes M  notify when an active task shows no activity for M minutes
                     (default 30; 0: never)
  --read-only        show only: approving and requesting changes are refused

Also started as `status.py --serve`. Needs pip install 'automaton-rules[board]'.
See docs/board.md.
"""
SCRIPT = Script(
    "automaton-board",
    USAGE,
    valued=("--port", "--host", "--stale-minutes"),
    switches=("--read-only", "--allow-remote"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Console script `automaton-board`."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        projects, rest = _projects(args)
    except UsageError as exc:
        sys.stderr.write(f"ERROR: automaton-board: {exc}\n{USAGE.splitlines()[0]}\n")
        return 2
    return SCRIPT.run(rest, lambda options, _words: _start(options, projects))


def _projects(args: list[str]) -> tuple[list[Path | None], list[str]]:
    """Every `--project DIR` (they repeat), and the other arguments."""
    projects: list[Path | None] = []
    rest: list[str] = []
    items = list(args)
    while items:
        item = items.pop(0)
        if item == "--project":
            if not items:
                raise UsageError("--project needs a value")
            projects.append(Path(items.pop(0)))
        elif item.startswith("--project="):
            projects.append(Path(item.partition("=")[2]))
        else:
            rest.append(item)
    return projects, rest


def _number(options: dict[str, Any], key: str, default: float, whole: bool = False) -> float:
    raw = options.get(key)
    if raw is None:
        return default
    try:
        value = int(str(raw)) if whole else float(str(raw))
    except ValueError:
        raise AutomatonError("usage", f"--{key} must be a number, not {raw!r}") from None
    if value < 0 or (whole and value > 65535):
        raise AutomatonError("usage", f"--{key} is out of range: {raw!r}")
    return value


def _start(options: dict[str, Any], roots: list[Path | None]) -> int:
    """Check everything, then serve until Ctrl-C; errors are one ERROR line, exit 2."""
    try:
        port = int(_number(options, "port", DEFAULT_PORT, whole=True))
        stale = _number(options, "stale-minutes", 30)
        host = str(options.get("host") or "127.0.0.1")
        _check_host(host, bool(options.get("allow-remote")))
        _need_libraries()
        from automaton_rules.board.projects import open_projects

        projects = open_projects(roots)
        approving = not options.get("read-only") and _at_terminal()
        return serve(projects, port=port, host=host, approving=approving, stale_minutes=stale)
    except AutomatonError as exc:
        sys.stderr.write(f"ERROR: {exc.message}\n")
        return 2


def _check_host(host: str, allowed: bool) -> None:
    """A host beyond this machine only when asked for in so many words, and then said."""
    from automaton_rules.board.security import is_loopback

    if is_loopback(host):
        return
    if not allowed:
        raise AutomatonError(
            "usage",
            f"--host {host} listens beyond this machine: anyone who can reach {host} could "
            "try the board's login. Pass --allow-remote as well to do it anyway.",
        )
    sys.stderr.write(
        f"WARNING: listening on {host}, beyond this machine: every host that reaches it can "
        "try the board. Only the Host 127.0.0.1 or localhost is served, so open it through "
        "an SSH tunnel (ssh -L).\n"
    )


def _need_libraries() -> None:
    import importlib.util

    missing = [
        name
        for name in ("starlette", "uvicorn", "watchfiles", "markdown_it", "webauthn")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise AutomatonError(
            "board-not-installed",
            f"The dashboard needs {', '.join(missing)}: pip install 'automaton-rules[board]'",
        )


def _at_terminal() -> bool:
    """A person started this: both ends of it are a terminal."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def bind(host: str, port: int) -> Any:
    """The listening socket, bound now, so the printed address names the real port."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise AutomatonError(
            "port-unavailable",
            f"Cannot listen on {host}:{port}: {exc.strerror or exc}. Pass --port N "
            "(0 picks a free port).",
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def make_server(
    projects: list[Any],
    *,
    port: int = DEFAULT_PORT,
    host: str = "127.0.0.1",
    approving: bool = True,
    stale_minutes: float = 30,
) -> tuple[Any, Any, Any, str]:
    """(uvicorn server, its bound socket, the board, the login link to print)."""
    import time

    import uvicorn

    from automaton_rules.board.app import Board, build
    from automaton_rules.board.security import Guard
    from automaton_rules.support.person import identity

    sock = bind(host, port)
    guard = Guard(sock.getsockname()[1], host)
    person = identity()  # where the board starts: its person's, not each repository's
    board = Board(projects, guard, person=person, approving=approving, stale_minutes=stale_minutes)
    config = uvicorn.Config(
        build(board),
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
        h11_max_incomplete_event_size=64 * 1024,
    )
    return _server(config, board), sock, board, guard.url(guard.issue(time.time()))


def serve(
    projects: list[Any],
    *,
    port: int = DEFAULT_PORT,
    host: str = "127.0.0.1",
    approving: bool = True,
    stale_minutes: float = 30,
) -> int:
    """Serve the board until interrupted, having printed its address once."""
    server, sock, board, url = make_server(
        projects, port=port, host=host, approving=approving, stale_minutes=stale_minutes
    )
    _print_address(board, url)
    if approving:
        _offer_links(board, sys.stdin)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    sys.stdout.write("Board stopped.\n")
    return 0


def _print_address(board: Any, url: str) -> None:
    names = ", ".join(str(w.root) for w in board.projects.values())
    mode = "" if board.approving else " (read-only: not started at a terminal)"
    sys.stdout.write(
        f"automaton-rules board{mode} of {names}, for {board.person}\nOpen {url}\n"
        "The link logs in once, within 10 minutes: do not share it. Enter prints a fresh "
        "one, `passkey` and Enter one that registers your passkey; Ctrl-C stops.\n"
    )
    sys.stdout.flush()


def print_fresh_links(board: Any, lines: Any, out: Any) -> None:
    """Each line read at the terminal: Enter, a fresh login link; `passkey`, a link that
    also registers a passkey. Printed on the terminal only."""
    import time

    from automaton_rules.board.security import LOGIN, REGISTER

    for line in lines:
        purpose = REGISTER if line.strip() == "passkey" else LOGIN
        url = board.guard.url(board.guard.issue(time.time(), purpose))
        what = "to register a passkey of " + board.person if purpose == REGISTER else "to log in"
        out.write(f"Open {url} {what} (once, within 10 minutes)\n")
        out.flush()


def _offer_links(board: Any, stdin: Any) -> None:
    """Read the terminal in the background for requests of a fresh login link."""
    import threading

    thread = threading.Thread(
        target=print_fresh_links, args=(board, stdin, sys.stdout), daemon=True
    )
    thread.start()


def _server(config: Any, board: Any) -> Any:
    """uvicorn's server, ending the open pages' event streams as soon as it is told to
    stop, so Ctrl-C does not wait on them."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            board.hub.close()
            super().handle_exit(sig, frame)

    return Server(config)


if __name__ == "__main__":
    sys.exit(main())
