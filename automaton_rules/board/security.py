"""Who may use the board: the person holding the secret printed when it started.

The secret is made at start, kept in this process's memory and printed once, in the URL
on the terminal that started the server (as Jupyter does); never written to disk, to the
environment or to a command line. Opening that URL trades it for a session cookie. Every
request must name this machine as its `Host` (127.0.0.1 or localhost at the server's
port), which a DNS-rebinding page cannot; every request that changes something is a POST
that also carries the session's CSRF token and an `Origin` of the board itself. Pure
checks, no web framework: the application applies them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

LOCAL_NAMES = ("127.0.0.1", "localhost")
COOKIE = "automaton_board"


class Refused(Exception):
    """A request the board does not serve: the status to answer and why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Guard:
    """The secret, the sessions opened with it, and the host and origins allowed."""

    def __init__(self, port: int, host: str = "127.0.0.1", secret: str | None = None) -> None:
        self.port = port
        self.secret = secret or secrets.token_urlsafe(32)
        self.sessions: set[str] = set()
        names = {*LOCAL_NAMES, host}
        self.hosts = frozenset(f"{name}:{port}" for name in names)
        self.origins = frozenset(f"http://{name}:{port}" for name in names)

    @property
    def cookie(self) -> str:
        """The session cookie's name; one per port, so two boards do not clash."""
        return f"{COOKIE}_{self.port}"

    def url(self, host: str = "127.0.0.1") -> str:
        """The address to open, with the secret: printed once, at start."""
        return f"http://{host}:{self.port}/?token={self.secret}"

    def check_host(self, host: str | None) -> None:
        """The `Host` names this machine at this port: a rebound DNS name never does."""
        if host not in self.hosts:
            raise Refused(
                400,
                "This board answers only requests addressed to 127.0.0.1 or "
                "localhost at its port (the Host header names another host).",
            )

    def open_session(self, token: str) -> str:
        """Trade the secret for a new session id; a wrong secret opens none."""
        if not hmac.compare_digest(token.encode(), self.secret.encode()):
            raise Refused(403, "This is not the address the board printed when it started.")
        session = secrets.token_urlsafe(32)
        self.sessions.add(session)
        return session

    def check_session(self, session: str | None) -> str:
        """The request belongs to a session opened with the secret."""
        if not session or session not in self.sessions:
            raise Refused(
                403,
                "No session: open the address the board printed on the terminal that "
                "started it (it carries the board's secret).",
            )
        return session

    def csrf(self, session: str) -> str:
        """The session's CSRF token: its forms carry it, and no other page can know it."""
        digest = hmac.new(self.secret.encode(), f"csrf:{session}".encode(), hashlib.sha256)
        return digest.hexdigest()

    def check_change(self, session: str, origin: str | None, token: str | None) -> None:
        """A request that changes something comes from the board's own page."""
        if origin not in self.origins:
            raise Refused(
                403,
                "Refused: the request does not come from the board's own page "
                "(its Origin is missing or foreign).",
            )
        if not token or not hmac.compare_digest(token, self.csrf(session)):
            raise Refused(
                403,
                "Refused: the form's CSRF token is missing or wrong; reload "
                "the page and try again.",
            )
