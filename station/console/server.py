"""The console's HTTP server: the page, sign-in, the table's picture, and the door to the table.

It runs on asyncio with aiohttp in the console's own process (:mod:`station.console.process`),
so nothing a browser or a scanner sends shares the core loop's interpreter. What it guards:

* **No change without a session.** Every change is ``POST /api/command`` with the session's
  cookie (``HttpOnly``, ``SameSite=Strict``, ``Secure`` under TLS) and its CSRF token in the
  ``X-CSRF-Token`` header; without either it is refused here and never reaches the station.
  Requests that carry a body must be ``application/json`` and, when the browser names an
  ``Origin``, come from this console's own: a form on another site cannot post here.
* **PINs.** Checked here against the salted scrypt hashes of ``[[control.users]]``, at most
  five wrong per name and minute (:mod:`station.console.sessions`); scrypt runs on a worker
  thread so a sign-in never holds up other screens.
* **The door.** What a signed-in person asks goes to the station as a control request line,
  with the name of who asks (the supervisor during their turn, else the signed-in user), and
  the station answers it through the control socket's own checks
  (:meth:`station.service.control.ControlServer.serve_line`). This server decides nothing
  about the table.
* **Floods.** At most ``max_connections`` connections at once (more are answered 503 before a
  byte is read) and a deadline for each request's headers: the scoreboard's guard. An address
  refused ``after`` times within ``window_s`` (:class:`~station.web.shutout.ShutoutRules`:
  20 within 10 s) is shut out for ``shut_s`` (30 s): the kernel drops its packets from then
  on (:class:`~station.web.source_filter.SourceFilter` on the listening socket), so a
  scanner's next attempts never become connections and cost this process nothing; its open
  connections are closed. Where the kernel cannot filter, its connections are closed as they
  are accepted, unread.

Routes: ``/`` the page and its two files; ``GET /api/session``; ``POST /api/sign-in``,
``/api/sign-out``, ``/api/command``; ``GET /api/view?since=N`` (waits up to 20 s for a newer
picture than ``N``); ``GET /api/recall?last=N`` or ``?round=ID``; ``/healthz``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from station.console.pins import decoy, verify_pin
from station.console.sessions import ConsoleSession, SessionBook, User
from station.web.guard import Guard, GuardCounters, Limits, serve_guarded
from station.web.server import SAFE_HEADERS
from station.web.shutout import Shutout, ShutoutRules
from station.web.source_filter import SourceFilter

log = logging.getLogger("station.console")

COOKIE = "station_console"
STATIC_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/console.css": ("console.css", "text/css; charset=utf-8"),
    "/console.js": ("console.js", "text/javascript; charset=utf-8"),
}
#: Longest a view request waits for a newer picture.
VIEW_WAIT_S = 20.0
#: Longest a command waits for the station's answer (the station itself answers within 2 s).
ANSWER_WAIT_S = 8.0
MAX_BODY = 16 * 1024
#: Answers that count as a refusal of the address that asked (a shut-out's count).
REFUSALS = frozenset({400, 401, 403, 404, 405, 413, 415, 429})

#: Sends a request line to the station for a user; resolves to the station's reply.
Ask = Callable[[str, bytes], Awaitable[dict[str, Any]]]
#: Recall of the journal's rounds: (last N, or one round id) -> rounds as the console shows them.
Recall = Callable[[int, str], Awaitable[dict[str, Any]]]
#: Tells the station who signed in ({"signed_in": name}) or was refused ({"refused": name,
#: "reason": why}): a dealer signing in takes the table; a refusal is journaled (docs/dealers.md).
Tell = Callable[[dict[str, Any]], Awaitable[None]]


class _ConsoleCounters(GuardCounters):
    """The guard's counters and the server's own."""

    def __init__(self) -> None:
        super().__init__()
        self.commands = 0


class _Hub:
    """The newest picture of the table as the station sent it (JSON bytes) and a wake-up."""

    def __init__(self) -> None:
        self.version = 0
        self.json = b"null"
        self.stopping = False
        self._changed = asyncio.Event()

    def publish(self, data: bytes) -> None:
        self.version += 1
        self.json = data
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def stop(self) -> None:
        self.stopping = True
        self._changed.set()

    async def wait(self, seen: int, timeout: float) -> None:
        if self.version != seen or self.stopping:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)


def _load_static() -> dict[str, bytes]:
    folder = resources.files("station.console") / "static"
    return {name: (folder / name).read_bytes() for name, _ in STATIC_FILES.values()}


class ConsoleApp:
    """The console's server on the running asyncio loop: ``await start()``, ``publish(json)``."""

    def __init__(self, host: str, port: int, users: list[User], ask: Ask, *, idle_s: float = 600.0,
                 tls: ssl.SSLContext | None = None, limits: Limits | None = None, recall: Recall | None = None,
                 clock: Callable[[], float] = time.monotonic, tell: Tell | None = None,
                 shutout: ShutoutRules | None = None) -> None:
        self.host, self.port = host, port
        self.users = {u.name: u for u in users if u.pin_scrypt}
        self.ask = ask
        self.recall = recall
        self.tell = tell
        self.tls = tls
        self.limits = limits or Limits()
        self.book = SessionBook(idle_s, clock)
        self.hub = _Hub()
        self.counters = _ConsoleCounters()
        self.guards: dict[asyncio.Transport, Guard] = {}
        self.shutout = Shutout(shutout, clock)
        self.source_filter: SourceFilter | None = None  # on the listening socket once started
        self._expiry: asyncio.TimerHandle | None = None
        self._static = _load_static()
        self._runner: web.AppRunner | None = None
        self._server: asyncio.Server | None = None
        self.address: tuple[str, int] = (host, port)

    @property
    def url(self) -> str:
        host, port = self.address
        host = f"[{host}]" if ":" in host else host
        return f"{'https' if self.tls else 'http'}://{host}:{port}/"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=MAX_BODY)
        for path in STATIC_FILES:
            app.router.add_get(path, self._file)
        app.router.add_get("/healthz", self._health)
        app.router.add_get("/api/session", self._session)
        app.router.add_get("/api/view", self._view)
        app.router.add_get("/api/recall", self._recall)
        app.router.add_post("/api/sign-in", self._sign_in)
        app.router.add_post("/api/sign-out", self._sign_out)
        app.router.add_post("/api/command", self._command)
        self._runner, self._server, self.address = await serve_guarded(app, self, self.host, self.port, self.tls)
        self.source_filter = SourceFilter(self._server.sockets[0])
        self.shutout.on_change = self.source_filter.drop_from

    def publish(self, data: bytes) -> None:
        self.hub.publish(data)

    def close_now(self) -> None:
        self.hub.stop()
        if self._expiry is not None:
            self._expiry.cancel()
        if self._server is not None:
            self._server.close()
        for transport in list(self.guards):
            transport.abort()

    # --- plumbing ------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.counters.requests += 1
        transport = request.transport
        guard = self.guards.get(transport) if isinstance(transport, asyncio.Transport) else None
        if guard is not None:
            guard.request_arrived()
        try:
            response: web.StreamResponse = await handler(request)
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=f"{exc.reason.lower()}\n", headers=SAFE_HEADERS)
        if not response.prepared:
            response.force_close()
        if response.status in REFUSALS and request.remote is not None:
            self._refused(request.remote, request.transport)
        return response

    def _refused(self, address: str, answering: asyncio.BaseTransport | None) -> None:
        """One more refusal of ``address``; at the one that shuts it out, it is logged and its
        other open connections are closed (the one being answered closes after its answer)."""
        if not self.shutout.refused(address):
            return
        rules = self.shutout.rules
        log.warning("console shut out %s for %g s: %d refused requests within %g s (%d addresses shut out so far)",
                    address, rules.shut_s, rules.after, rules.window_s, self.shutout.shut_outs)
        for transport, guard in list(self.guards.items()):
            if guard.address == address and transport is not answering:
                transport.close()
        if self._expiry is None:
            self._expiry = asyncio.get_running_loop().call_later(rules.shut_s, self._expire)

    def on_busy(self, address: str | None) -> None:
        """The guard answered ``address`` 503 (the cap, or its address's share): a refusal too,
        so a flood that fills its share is shut out as soon as one that is answered."""
        if address is not None:
            self._refused(address, None)

    def _expire(self) -> None:
        """Let in the addresses whose shut-out is over (the kernel drops the others' packets,
        so no connection of theirs would come to end it), and wait for the next."""
        self._expiry = None
        wait = self.shutout.expire()
        if wait is not None:
            self._expiry = asyncio.get_running_loop().call_later(max(wait, 0.01), self._expire)

    def _json(self, body: Any, status: int = 200) -> web.Response:
        return web.Response(status=status, body=json.dumps(body).encode(),
                            headers={**SAFE_HEADERS, "Content-Type": "application/json"})

    def _refuse(self, status: int, error: str) -> web.Response:
        return self._json({"ok": False, "error": error}, status)

    def _session_of(self, request: web.Request) -> ConsoleSession | None:
        return self.book.find(request.cookies.get(COOKIE))

    def _foreign(self, request: web.Request) -> str:
        """Why a request with a body is not from this console's own page ("" when it is)."""
        if request.content_type != "application/json":
            return "requests must be application/json"
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            return "a request from another site"
        return ""

    async def _body(self, request: web.Request) -> dict[str, Any] | None:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return None
        return body if isinstance(body, dict) else None

    def _csrf_ok(self, request: web.Request, session: ConsoleSession) -> bool:
        token = request.headers.get("X-CSRF-Token", "")
        return hmac.compare_digest(token.encode(), session.csrf.encode())

    def _set_cookie(self, response: web.Response, session: ConsoleSession) -> None:
        response.set_cookie(COOKIE, session.ident, httponly=True, samesite="Strict", secure=self.tls is not None,
                            path="/")

    def _described(self, session: ConsoleSession | None) -> dict[str, Any]:
        if session is None:
            return {"signed_in": False, "idle_s": self.book.idle_s}
        return {"signed_in": True, "csrf": session.csrf, "idle_s": self.book.idle_s, **session.describe()}

    # --- handlers ------------------------------------------------------------------------

    async def _file(self, request: web.Request) -> web.Response:
        name, content_type = STATIC_FILES[request.path]
        return web.Response(body=self._static[name], headers={**SAFE_HEADERS, "Content-Type": content_type})

    async def _health(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n", headers=SAFE_HEADERS)

    async def _session(self, request: web.Request) -> web.Response:
        return self._json(self._described(self._session_of(request)))

    async def _sign_in(self, request: web.Request) -> web.Response:
        foreign = self._foreign(request)
        if foreign:
            return self._refuse(403, foreign)
        body = await self._body(request)
        name = body.get("name") if body else None
        pin = body.get("pin") if body else None
        if not isinstance(name, str) or not isinstance(pin, str) or not name or len(name) > 64 or len(pin) > 64:
            return self._refuse(400, "give your name and PIN")
        name = name.strip()
        wait = self.book.wait_s(name)
        if wait > 0:
            self.book.counters.waits += 1
            log.warning("console sign-in refused: %d wrong PINs for %r within a minute; %d waits so far",
                        len(self.book.failures.get(name, ())), name[:32], self.book.counters.waits)
            await self._told({"refused": name, "reason": "too many wrong PINs: waiting"})
            return self._refuse(429, f"too many wrong PINs for {name}: wait {int(wait) + 1} s")
        user = self.users.get(name)
        stored = user.pin_scrypt if user is not None else decoy()
        matches = await asyncio.get_running_loop().run_in_executor(None, verify_pin, pin, stored)
        if user is None or not matches:
            self.book.failed(name)
            log.warning("console sign-in failed for %r (%d wrong PINs so far)", name[:32],
                        self.book.counters.wrong_pins)
            await self._told({"refused": name, "reason": "wrong name or PIN"})
            return self._refuse(401, "wrong name or PIN")
        session = self.book.sign_in(user, self._session_of(request))
        log.info("console sign-in: %s %s", user.role, user.name)
        if session.user is user:  # signed in on a screen of their own (not a supervisor's turn)
            await self._told({"signed_in": user.name})
        response = self._json({"ok": True, **self._described(session)})
        self._set_cookie(response, session)
        return response

    async def _told(self, news: dict[str, Any]) -> None:
        if self.tell is not None:
            with contextlib.suppress(ConnectionError, OSError):
                await self.tell(news)

    async def _sign_out(self, request: web.Request) -> web.Response:
        session = self._session_of(request)
        if session is None:
            return self._json({"ok": True, "signed_in": False})
        if not self._csrf_ok(request, session):
            self.book.counters.csrf_refused += 1
            return self._refuse(403, "this screen's token is missing: reload the page")
        ended = self.book.sign_out(session)
        response = self._json({"ok": True, **self._described(session if ended == "supervisor" else None)})
        if ended == "session":
            response.del_cookie(COOKIE, path="/")
        return response

    async def _command(self, request: web.Request) -> web.Response:
        foreign = self._foreign(request)
        if foreign:
            return self._refuse(403, foreign)
        session = self._session_of(request)
        if session is None:
            self.book.counters.no_session += 1
            return self._refuse(401, "not signed in (or signed out after a while without a tap): sign in")
        if not self._csrf_ok(request, session):
            self.book.counters.csrf_refused += 1
            return self._refuse(403, "this screen's token is missing: reload the page")
        body = await self._body(request)
        if body is None or set(body) - {"command", "args"}:
            return self._refuse(400, "a command is {command, args}")
        self.book.tapped(session)
        acting = session.acting
        line = json.dumps({"command": body.get("command"), "args": body.get("args") or {}}).encode() + b"\n"
        self.counters.commands += 1
        try:
            reply = await asyncio.wait_for(self.ask(acting.name, line), ANSWER_WAIT_S)
        except (TimeoutError, ConnectionError):
            return self._refuse(503, "the station did not answer: see whether it is running")
        if reply.get("ok") and session.supervisor is not None and acting is session.supervisor:
            self.book.decided(session)
        return self._json({**reply, "session": self._described(session)})

    async def _view(self, request: web.Request) -> web.StreamResponse:
        session = self._session_of(request)
        if session is None:
            return self._refuse(401, "not signed in")
        try:
            seen = int(request.query.get("since", "0"))
        except ValueError:
            seen = 0
        await self.hub.wait(seen, VIEW_WAIT_S)
        session = self._session_of(request)  # it may have ended meanwhile
        if session is None:
            return self._refuse(401, "not signed in")
        body = b'{"version": %d, "session": %s, "view": %s}' % (
            self.hub.version, json.dumps(self._described(session)).encode(), self.hub.json)
        return web.Response(body=body, headers={**SAFE_HEADERS, "Content-Type": "application/json"})

    async def _recall(self, request: web.Request) -> web.Response:
        session = self._session_of(request)
        if session is None:
            return self._refuse(401, "not signed in")
        if self.recall is None:
            return self._refuse(503, "recall is not available")
        round_id = request.query.get("round", "").strip()[:16]
        try:
            last = int(request.query.get("last", "10"))
        except ValueError:
            return self._refuse(400, "last: a number of rounds")
        self.book.tapped(session)
        return self._json(await self.recall(max(1, min(last, 50)), round_id))


__all__ = ["ConsoleApp", "Limits"]
