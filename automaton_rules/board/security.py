"""Who may use the board: the person holding a login code printed on its terminal.

The board's secret (the key of its CSRF tokens) is made at start and kept in this
process's memory only. The address it prints carries a login code instead: good for one
use and for `CODE_MINUTES` minutes, never written to disk, to the environment or to a
command line, and traded at once for a session cookie by a redirect to a clean address.
So the link a browser's history keeps, or a terminal's scrollback shows, opens nothing
once used or old; a fresh one is printed on demand at the terminal (Enter). Every request
must name this machine as its `Host` (127.0.0.1 or localhost at the server's port), which
a DNS-rebinding page cannot; every request that changes something is a POST that also
carries the session's CSRF token and an `Origin` of the board itself. Pure checks, no web
framework: the application applies them, with the clock it read once for the request.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

LOCAL_NAMES = ("127.0.0.1", "localhost")
COOKIE = "automaton_board"
CODE_MINUTES = 10  # how long a printed login code opens a session
SESSION_HOURS = 12  # how long a session lasts: a browser left open does not stay logged in
LOGIN = "login"
REGISTER = "register"  # a login that may also register a passkey


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
        self.sessions: dict[str, float] = {}  # session -> when it ends
        self.codes: dict[str, tuple[float, str]] = {}  # login code -> (expires, purpose)
        self.spent: set[str] = set()  # codes used or expired, to say so
        self.registering: dict[str, float] = {}  # session -> until when it may add a passkey
        names = {*LOCAL_NAMES, host}
        self.hosts = frozenset(f"{name}:{port}" for name in names)
        self.origins = frozenset(f"http://{name}:{port}" for name in names)

    @property
    def cookie(self) -> str:
        """The session cookie's name; one per port, so two boards do not clash."""
        return f"{COOKIE}_{self.port}"

    def issue(self, now: float, purpose: str = LOGIN) -> str:
        """A fresh login code, good once and for `CODE_MINUTES` from `now`; one made to
        `REGISTER` also lets its session register one passkey in that time."""
        code = secrets.token_urlsafe(24)
        self.codes[code] = (now + CODE_MINUTES * 60, purpose)
        return code

    def url(self, code: str, host: str = "localhost") -> str:
        """The address to open with a login code: printed on the terminal only. `localhost`,
        not 127.0.0.1: a passkey is bound to a domain name, never to an address."""
        return f"http://{host}:{self.port}/login?code={code}"

    def check_host(self, host: str | None) -> None:
        """The `Host` names this machine at this port: a rebound DNS name never does."""
        if host not in self.hosts:
            raise Refused(
                400,
                "This board answers only requests addressed to 127.0.0.1 or "
                "localhost at its port (the Host header names another host).",
            )

    def open_session(self, code: str, now: float) -> tuple[str, str]:
        """Trade a login code for a new session id and the code's purpose, once; a used,
        old or wrong code opens none."""
        found = self.codes.pop(code, None)
        if found is None:
            if code in self.spent:
                raise Refused(
                    403,
                    "This login link has been used or has expired: each opens one session, "
                    f"once, within {CODE_MINUTES} minutes. Press Enter on the board's terminal "
                    "for a fresh one.",
                )
            raise Refused(403, "This is not a login link the board printed.")
        self.spent.add(code)
        expires, purpose = found
        if now > expires:
            raise Refused(
                403,
                f"This login link has expired (each is good for {CODE_MINUTES} minutes). "
                "Press Enter on the board's terminal for a fresh one.",
            )
        session = secrets.token_urlsafe(32)
        self.sessions[session] = now + SESSION_HOURS * 3600
        if purpose == REGISTER:
            self.registering[session] = expires
        return session, purpose

    def may_register(self, session: str, now: float) -> bool:
        """The session was opened with a registration link, still good, not yet used."""
        return now <= self.registering.get(session, -1.0)

    def check_session(self, session: str | None, now: float) -> str:
        """The request belongs to a session opened with a login code, not yet ended."""
        if not session or session not in self.sessions:
            raise Refused(
                403,
                "No session: open the address the board printed on the terminal that "
                "started it (it carries the board's secret).",
            )
        if now > self.sessions[session]:
            del self.sessions[session]
            raise Refused(
                403,
                f"This session has ended (each lasts {SESSION_HOURS} hours): press Enter on "
                "the board's terminal for a fresh login link.",
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


def is_loopback(host: str) -> bool:
    """`host` names this machine only: `localhost` or a loopback address."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
