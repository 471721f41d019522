"""The board as a Starlette application: its routes, each behind the board's guard.

Every request must name this machine as its host (`security.Guard.check_host`, applied to
each one before any route); every page needs the session opened with the printed secret;
every change is a POST with the session's CSRF token and the board's own `Origin`. Pages
are read in a worker thread, so the event streams of open pages never wait on a page.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from automaton_rules.board import actions, pages, passkeys, review, static, task_pages
from automaton_rules.board.live import Hub
from automaton_rules.board.projects import Watched
from automaton_rules.board.security import REGISTER, Guard, Refused
from automaton_rules.core import machine
from automaton_rules.core.policy import Policy
from automaton_rules.core.project import Task
from automaton_rules.report import plural
from automaton_rules.support.errors import AutomatonError, Refusal
from automaton_rules.workflow import reviews

MAX_BODY = 64 * 1024
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "style-src 'self' 'unsafe-inline'; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make form POSTs say Origin: null
    "Cache-Control": "no-store",
}


class Board:
    """What the server holds: the projects, the guard, the live hub, the options, and the
    person the session stands for (one for every project: docs/board.md, "Who")."""

    def __init__(
        self,
        projects: list[Watched],
        guard: Guard,
        *,
        person: str = "user",
        approving: bool = True,
        stale_minutes: float = 30,
    ) -> None:
        self.projects = {watched.pid: watched for watched in projects}
        self.guard = guard
        self.person = person
        self.hub = Hub(projects)
        self.approving = approving
        self.stale_minutes = stale_minutes
        self.ceremonies = passkeys.Ceremonies(f"http://{passkeys.RP_ID}:{guard.port}")
        self.notes: dict[str, str] = {}  # session -> what the last change did, shown once

    def frame(self, session: str, fragment: bool = False) -> pages.Frame:
        """The frame of this session's pages, with what its last change did (shown once,
        on the next whole page)."""
        csrf = self.guard.csrf(session)
        note = "" if fragment else self.notes.pop(session, "")
        return pages.Frame(self.person, csrf, self.stale_minutes, self.approving, note)

    def watched(self, pid: str) -> Watched:
        """A project by its number on the board."""
        found = self.projects.get(pid)
        if found is None:
            raise Refused(404, "The board serves no such project.")
        return found

    def generation(self) -> str:
        """Every project's generation: a page compares it to know it is current."""
        return self.hub.generation()


def _page(board: Board, request: Request, session: str, title: str, main: str) -> Response:
    """A whole page, or only its main part when the page's script asks to refresh it."""
    headers = {"X-Board-Generation": board.generation()}
    if request.headers.get("x-board-fragment") == "1":
        return HTMLResponse(main, headers=headers)
    frame = board.frame(session)
    return HTMLResponse(frame.page(title, main, board.generation()), headers=headers)


def _refusal(status: int, reason: str) -> Response:
    return HTMLResponse(pages.message("Refused", reason, status), status_code=status)


def _session(board: Board, request: Request) -> str:
    return board.guard.check_session(request.cookies.get(board.guard.cookie), time.time())


def _task(watched: Watched, name: str | None) -> Task:
    """A task named in a request: a valid name of a task folder inside the project."""
    if not name:
        raise Refused(400, "Which task? The request names none.")
    try:
        return watched.project.load(name, strict=False)
    except AutomatonError as exc:
        raise Refused(404, exc.message) from None


def login(board: Board, request: Request) -> Response:
    """The printed link: its one-time code opens a session, then a redirect to `/` takes
    the code out of the address bar (and so out of the page's entry in the history)."""
    code = request.query_params.get("code") or ""
    session, purpose = board.guard.open_session(code, time.time())
    answer = RedirectResponse("/passkeys" if purpose == REGISTER else "/", status_code=303)
    answer.set_cookie(board.guard.cookie, session, httponly=True, samesite="strict", path="/")
    return answer


def home(board: Board, request: Request) -> Response:
    """The board: every project."""
    session = _session(board, request)
    now = time.time()
    shown = [
        (w, [], "") if w.missing() else (w, w.current(), w.settings().approval)
        for w in board.projects.values()
    ]
    main = pages.board(board.frame(session, True), shown, now)
    return _page(board, request, session, "automaton-rules board", main)


def inbox(board: Board, request: Request) -> Response:
    """What needs the person: every task awaiting approval, in every project."""
    session = _session(board, request)
    shown = [
        (w, w.current(), w.settings().approval) for w in board.projects.values() if not w.missing()
    ]
    main = pages.inbox(board.frame(session, True), shown, time.time())
    return _page(board, request, session, "needs me", main)


def task(board: Board, request: Request) -> Response:
    """One task's page."""
    session = _session(board, request)
    watched = board.watched(request.path_params["pid"])
    found = _task(watched, request.query_params.get("name"))
    mode = watched.settings().approval
    main = task_pages.task_page(board.frame(session, True), watched, found, mode, time.time())
    return _page(board, request, session, f"{found.name} · {watched.root.name}", main)


def artifact(board: Board, request: Request) -> Response:
    """An artifact of a task, rendered; only a file in the task's own folder."""
    session = _session(board, request)
    watched = board.watched(request.path_params["pid"])
    found = _task(watched, request.query_params.get("task"))
    name = request.query_params.get("file") or ""
    if "/" in name or "\\" in name or name.startswith(".") or name not in found.files:
        raise Refused(404, f"Task '{found.name}' has no such file.")
    start, end = request.query_params.get("from"), request.query_params.get("to")
    compare = (start, end) if start and end else None
    main = review.artifact_page(board.frame(session, True), watched, found, name, compare)
    title = f"{found.name}: {name} · {watched.root.name}"
    return _page(board, request, session, title, main)


def code(board: Board, request: Request) -> Response:
    """The code a task changed: its commits, and the chosen one's diff."""
    from automaton_rules.board import commits

    session = _session(board, request)
    watched = board.watched(request.path_params["pid"])
    found = _task(watched, request.query_params.get("task"))
    chosen = request.query_params.get("commit")
    if chosen is not None and not commits.HASH.fullmatch(chosen):
        raise Refused(400, "A commit is named by its 40 hexadecimal digits.")
    main = commits.code_page(watched, found.name, chosen)
    return _page(board, request, session, f"code of {found.name} · {watched.root.name}", main)


def raw(board: Board, request: Request) -> Response:
    """An artifact's whole text, as plain text (a large one is cut on its page)."""
    _session(board, request)
    watched = board.watched(request.path_params["pid"])
    found = _task(watched, request.query_params.get("task"))
    name = request.query_params.get("file") or ""
    if "/" in name or "\\" in name or name.startswith(".") or name not in found.files:
        raise Refused(404, f"Task '{found.name}' has no such file.")
    body = found.read(name) or ""
    return Response(body, media_type="text/plain; charset=utf-8")


def workflow(board: Board, request: Request) -> Response:
    """The workflow diagram, with a task's path when one is named."""
    from automaton_rules.board.diagram import draw
    from automaton_rules.report.graph import workflow_graph

    session = _session(board, request)
    watched = board.watched(request.path_params["pid"])
    name = request.query_params.get("task")
    found = _task(watched, name) if name else None
    drawing, engine = watched.cached(("workflow", name), lambda: draw(workflow_graph(found)))
    main = task_pages.workflow_page(watched, drawing, found, engine)
    return _page(board, request, session, f"workflow · {watched.root.name}", main)


def audit(board: Board, request: Request) -> Response:
    """The audit's findings by category: run on request, kept until the files change."""
    session = _session(board, request)
    watched = board.watched(request.path_params["pid"])
    if request.query_params.get("run") == "1":
        actions.run_audit(watched)
    current = watched.audit is not None and watched.audit[0] == watched.generation
    section, ran = actions.audit_section(watched) if current else ("", None)
    main = task_pages.audit_page(watched, section, ran)
    return _page(board, request, session, f"audit · {watched.root.name}", main)


async def _form(board: Board, request: Request) -> tuple[str, dict[str, str]]:
    """A change's session and form fields, once every check has passed."""
    session = _session(board, request)
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "A change is sent as a form (application/x-www-form-urlencoded).")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, "The form is too large.")
    try:
        fields = {k: v[0] for k, v in parse_qs(body.decode("utf-8"), max_num_fields=20).items()}
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "The form cannot be read.") from None
    board.guard.check_change(session, request.headers.get("origin"), fields.get("csrf"))
    if not board.approving:
        raise Refused(
            403,
            "This board is read-only: it was not started at a terminal, so "
            "it cannot tell a person from an agent. Approve in the agent's chat "
            "or at a terminal.",
        )
    return session, fields


def _back(fields: dict[str, str], default: str) -> str:
    """Where to go after a change: a path of the board, never another site."""
    back = fields.get("back") or default
    return back if back.startswith("/") and not back.startswith("//") else default


def _binding(watched: Watched, name: str) -> tuple[Task, passkeys.Binding]:
    """The task at its gate, and what an approval of it now binds: its gate and the
    artifact's SHA-256 as it is on disk."""
    found = _task(watched, name)
    state = found.state or ""
    if not machine.is_awaiting(state):
        raise Refused(409, f"Task '{found.name}' is not awaiting approval (it is at '{state}').")
    artifact = machine.required_artifact(state) or ""
    digest = found.digest(artifact) or ""
    return found, passkeys.Binding(watched.pid, found.name, state, artifact, digest)


def _person_keys(board: Board, watched: Watched) -> list[passkeys.Passkey]:
    """The board's person's passkeys in a project: an approval needs one."""
    keys = passkeys.keys_of(watched.root, board.person)
    if not keys:
        raise Refused(
            403,
            f"No passkey is registered for {board.person} in {watched.root}: an approval "
            "from the board needs one. Type `passkey` and Enter on the board's terminal, "
            "open the link it prints, and register one (docs/board.md).",
        )
    return keys


def _approvable(watched: Watched, name: str) -> None:
    if Policy(watched.settings().approval).needs_signature:
        actions.refuse_signed(watched, name)


async def challenge(board: Board, request: Request) -> Response:
    """The WebAuthn options for approving a task now: a challenge bound to its gate."""
    session, fields = await _form(board, request)
    watched = board.watched(request.path_params["pid"])
    name = fields.get("task") or ""
    _approvable(watched, name)
    keys = _person_keys(board, watched)
    _found, binding = await run_in_threadpool(_binding, watched, name)
    options = board.ceremonies.approval_options(binding, keys, session, time.time())
    return Response(options, media_type="application/json")


async def approve(board: Board, request: Request) -> Response:
    """Approve a task at its gate as the board's person, with a passkey's assertion over
    a challenge bound to that gate and artifact (in `open` and `prompt` mode)."""
    session, fields = await _form(board, request)
    watched = board.watched(request.path_params["pid"])
    name = fields.get("task") or ""
    _approvable(watched, name)
    keys = _person_keys(board, watched)
    if not fields.get("assertion"):
        raise Refused(
            403,
            "Refused: an approval from the board needs your passkey (the page asks your "
            "authenticator when you click Approve; it needs the board's script).",
        )
    credential = passkeys.parse_credential(fields["assertion"])
    pending = board.ceremonies.take(credential, session, time.time())  # once, before all
    found, binding = await run_in_threadpool(_binding, watched, name)
    key = board.ceremonies.verify_approval(credential, pending, binding, keys)
    moved = await run_in_threadpool(
        actions.approve,
        watched,
        found.name,
        board.person,
        key.credential_id,
        passkeys.assertion_record(credential, pending),
    )
    _touched(watched, found.name)
    board.notes[session] = (
        f"{board.person} approved task '{found.name}' ({moved.target}) with the passkey "
        f"{key.label or key.credential_id[:12]}."
    )
    default = f"/p/{watched.pid}/task?name={found.name}"
    return RedirectResponse(_back(fields, default), status_code=303)


def passkeys_page(board: Board, request: Request) -> Response:
    """The registered passkeys of every project, and registering one (with a link)."""
    session = _session(board, request)
    may = board.approving and board.guard.may_register(session, time.time())
    listed = [(w, passkeys.read_keys(w.root)) for w in board.projects.values()]
    main = pages.passkeys_page(board.frame(session, True), listed, may)
    return _page(board, request, session, "passkeys", main)


async def register_options(board: Board, request: Request) -> Response:
    """The WebAuthn options for registering a passkey of the board's person."""
    session, _fields = await _form(board, request)
    _may_register(board, session)
    existing = [
        key for w in board.projects.values() for key in passkeys.keys_of(w.root, board.person)
    ]
    options = board.ceremonies.registration_options(board.person, session, existing, time.time())
    return Response(options, media_type="application/json")


async def register(board: Board, request: Request) -> Response:
    """Register the new passkey in every project the board serves."""
    from automaton_rules.support import clock

    session, fields = await _form(board, request)
    _may_register(board, session)
    credential = passkeys.parse_credential(fields.get("credential") or "")
    now = time.time()
    when = clock.stamp(now)
    key = board.ceremonies.register(
        board.person, session, credential, fields.get("label") or "", when, now
    )
    for watched in board.projects.values():
        await run_in_threadpool(passkeys.add_key, watched.root, key)
    board.guard.registering.pop(session, None)
    board.notes[session] = (
        f"Registered the passkey {key.label or key.credential_id[:12]} ({key.algorithm}) of "
        f"{board.person} in {passkeys.KEYS_FILE} of {plural(len(board.projects), 'project')}: "
        "commit it."
    )
    return RedirectResponse("/passkeys", status_code=303)


def _may_register(board: Board, session: str) -> None:
    if not board.guard.may_register(session, time.time()):
        raise Refused(
            403,
            "Refused: registering a passkey needs a registration link: type `passkey` and "
            "Enter on the board's terminal, and open the link it prints (good once, for 10 "
            "minutes).",
        )


async def changes(board: Board, request: Request) -> Response:
    """Ask for changes to a task's artifact, or to one of its lines."""
    session, fields = await _form(board, request)
    watched = board.watched(request.path_params["pid"])
    name = fields.get("task") or ""
    line = fields.get("line") or ""
    if line and not line.isdigit():
        raise Refused(400, "A line is a number.")
    made = await run_in_threadpool(
        actions.request_changes,
        watched,
        board.person,
        name,
        fields.get("comment") or "",
        fields.get("artifact") or None,
        int(line) if line else None,
        fields.get("suggestion") or "",
    )
    _touched(watched, name)
    board.notes[session] = (
        f"{board.person} requested changes to task '{name}' on {made.where()}: the agent is "
        "told at its next hook."
    )
    return RedirectResponse(f"/p/{watched.pid}/task?name={name}", status_code=303)


async def reply(board: Board, request: Request) -> Response:
    """Reply to a request for changes: the thread goes on."""
    return await _answer(board, request, reviews.REPLY)


async def resolve(board: Board, request: Request) -> Response:
    """Resolve a request for changes: the agent is no longer asked to revise it."""
    return await _answer(board, request, reviews.RESOLVE)


async def _answer(board: Board, request: Request, kind: str) -> Response:
    session, fields = await _form(board, request)
    watched = board.watched(request.path_params["pid"])
    name = fields.get("task") or ""
    await run_in_threadpool(
        lambda: reviews.answer(
            watched.project,
            name,
            fields.get("to") or "",
            by=board.person,
            comment=fields.get("comment") or "",
            kind=kind,
        )
    )
    _touched(watched, name)
    board.notes[session] = (
        f"{board.person} {'replied to' if kind == reviews.REPLY else 'resolved'} a request "
        f"for changes of task '{name}'."
    )
    back = f"/p/{watched.pid}/artifact?" + urlencode(
        {"task": name, "file": fields.get("file") or ""}
    )
    return RedirectResponse(back, status_code=303)


def _touched(watched: Watched, name: str) -> None:
    """The board changed a task itself: the page it shows next is current, whether or not
    the watcher has told it yet."""
    watched.changed([str(watched.project.task_dir(name) / ".state")])


def events(board: Board, request: Request) -> Response:
    """The open page's stream of changes."""
    _session(board, request)
    return StreamingResponse(
        board.hub.stream(),
        media_type="text/event-stream",
        headers={"X-Accel-Buffering": "no"},
    )


def script(board: Board, request: Request) -> Response:
    """The board's one script."""
    return Response(static.SCRIPT, media_type="text/javascript")


def style(board: Board, request: Request) -> Response:
    """The board's style sheet."""
    return Response(static.STYLE, media_type="text/css")


def _handler(board: Board, view: Any, asynchronous: bool = False) -> Any:
    """A route's endpoint: the view, its refusals and the workflow's as pages."""

    async def endpoint(request: Request) -> Response:
        try:
            if asynchronous:
                return await view(board, request)
            if view in (events, script, style):
                return view(board, request)
            return await run_in_threadpool(view, board, request)
        except Refused as exc:
            return _refusal(exc.status, exc.reason)
        except Refusal as exc:
            return _refusal(409, exc.message)
        except AutomatonError as exc:
            return _refusal(400, exc.message)

    return endpoint


def build(board: Board) -> Any:
    """The application, wrapped in the guard that checks every request's host."""
    routes = [
        Route("/", _handler(board, home)),
        Route("/login", _handler(board, login)),
        Route("/inbox", _handler(board, inbox)),
        Route("/events", _handler(board, events)),
        Route("/board.js", _handler(board, script)),
        Route("/board.css", _handler(board, style)),
        Route("/p/{pid}/task", _handler(board, task)),
        Route("/p/{pid}/artifact", _handler(board, artifact)),
        Route("/p/{pid}/workflow", _handler(board, workflow)),
        Route("/p/{pid}/audit", _handler(board, audit)),
        Route("/p/{pid}/approve", _handler(board, approve, True), methods=["POST"]),
        Route("/p/{pid}/challenge", _handler(board, challenge, True), methods=["POST"]),
        Route("/passkeys", _handler(board, passkeys_page)),
        Route("/passkeys/options", _handler(board, register_options, True), methods=["POST"]),
        Route("/passkeys/register", _handler(board, register, True), methods=["POST"]),
        Route("/p/{pid}/changes", _handler(board, changes, True), methods=["POST"]),
        Route("/p/{pid}/reply", _handler(board, reply, True), methods=["POST"]),
        Route("/p/{pid}/resolve", _handler(board, resolve, True), methods=["POST"]),
        Route("/p/{pid}/raw", _handler(board, raw)),
        Route("/p/{pid}/code", _handler(board, code)),
    ]
    app = Starlette(routes=routes, lifespan=_lifespan(board))
    return Secured(app, board.guard)


def _lifespan(board: Board) -> Any:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        import asyncio

        watcher = asyncio.create_task(board.hub.watch())
        for watched in board.projects.values():  # every card read once, before the first page
            await run_in_threadpool(watched.current)
        try:
            yield
        finally:
            board.hub.close()
            watcher.cancel()

    return lifespan


class Secured:
    """ASGI middleware: every HTTP request names this machine, and every answer carries
    the headers that keep the board's pages to themselves."""

    def __init__(self, app: Any, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        try:
            self.guard.check_host(host)
        except Refused as exc:
            await _refusal(exc.status, exc.reason)(scope, receive, _with_headers(send))
            return
        await self.app(scope, receive, _with_headers(send))


def _with_headers(send: Any) -> Any:
    extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]

    async def send_with_headers(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return send_with_headers
