"""The dashboard, served in a thread of the test process."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest


class Board:
    """A dashboard served from a thread of the test process, on a free port of 127.0.0.1,
    with a session opened the way a person opens it: the printed address, then its cookie."""

    def __init__(
        self, roots: list[Path], *, approving: bool = True, person: str = "user", port: int = 0
    ):
        from automaton_rules.board.projects import open_projects
        from automaton_rules.board.server import make_server

        with pytest.MonkeyPatch.context() as patch:  # whom git names where it starts
            patch.setenv("GIT_CONFIG_VALUE_0", person)
            self.server, self.sock, self.board, self.url = make_server(
                open_projects(list(roots)), port=port, approving=approving
            )
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.site = f"http://localhost:{self.port}"  # the printed name: passkeys need one
        import threading

        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started, "the board did not start"
        answer = self.request("GET", "/login?code=" + self.board.guard.issue(time.time()))
        cookie = answer.headers["set-cookie"]
        self.cookie = cookie.split(";")[0]
        self.csrf = self.board.guard.csrf(self.cookie.split("=", 1)[1])

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        *,
        host: str | None = None,
    ) -> Any:
        """One request, every header as given (`host` None: the board's own)."""
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"127.0.0.1:{self.port}" if host is None else host)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        answer = conn.getresponse()
        answer.text = answer.read().decode("utf-8", errors="replace")
        conn.close()
        return answer

    def get(self, path: str, **headers: str) -> Any:
        """A page, with the session."""
        return self.request("GET", path, headers={"Cookie": self.cookie, **headers})

    def post(
        self, path: str, fields: dict[str, str], *, csrf: str | None = None, **headers: str
    ) -> Any:
        """A change, sent the way the board's own page sends it (override any header, or
        the CSRF token of another session)."""
        from urllib.parse import urlencode

        sent = {
            "Cookie": self.cookie,
            "Origin": self.base,
            "Content-Type": "application/x-www-form-urlencoded",
            **headers,
        }
        sent = {k: v for k, v in sent.items() if v}
        token = self.csrf if csrf is None else csrf
        return self.request("POST", path, urlencode({"csrf": token, **fields}).encode(), sent)

    def stop(self) -> None:
        self.board.hub.close()
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
