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
* **A supervisor's turn on the dealer's screen** has a cookie and a CSRF token of its own
  (:mod:`station.console.sessions`): while it lasts the dealer's cookie cannot act (a change or
  a sign-out with it is refused, 403; a read is answered 409, which the page asks again), and
  once it ends its cookie is given the dealer's cookie back but never acts as the dealer (a
  change sent with it is refused, 409, :data:`TURN_ENDED`).
* **What a request carries** is checked before anything acts on it
  (:mod:`station.console.inputs`): a body of at most 16 KB, nested at most four deep (measured
  as it arrives, before any parser sees it), strict JSON with no key twice (the control
  socket's rules, :mod:`station.strict_json`); query parameters in their ranges. Anything else
  is refused, 400 (413 for a body too long), and counts against the address.
* **No traceback from a request.** A handler that fails is one line in the log and a 500,
  which counts against the address like a refusal.
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
picture than ``N``); ``GET /api/recall?last=N`` (1 to 50) or ``?round=ID``; ``/healthz``.
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

from station.config.pins import decoy, verify_pin
from station.console.inputs import MAX_BODY, Refusal, json_body, recall_query, view_since
from station.console.sessions import Key, SessionBook, User
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
#: Answers that count as a refusal of the address that asked (a shut-out's count): a request
#: that made a handler fail (500) too, so a sender who finds a fault cannot repeat it at will.
#: Not 409: the answer an honest page gets for a poll that was on its way when a supervisor's
#: turn began on the screen, and for a tap that reached the console after the turn ended.
REFUSALS = frozenset({400, 401, 403, 404, 405, 413, 415, 429, 500})
#: The refusal of a change sent with an ended turn's cookie (it was meant as the supervisor's).
TURN_ENDED = ("the supervisor's turn has ended and the screen is the dealer's again: nothing was done "
              "(the dealer may do it, or a supervisor sign in again)")

#: Sends a request line to the station for a user; resolves to the station's reply.
Ask = Callable[[str, bytes], Awaitable[dict[str, Any]]]
#: Recall of the journal's rounds: (last N, or one round id) -> rounds as the console shows them.
Recall = Callable[[int, str], Awaitable[dict[str, Any]]]
#: Tells the station who signed in ({"signed_in": name}) or was refused ({"refused": name,
#: "reason": why}): a dealer signing in takes the table; a refusal is journaled (docs/dealers.md).
Tell = Callable[[dict[str, Any]], Awaitable[None]]


#: Seconds between two looks for sessions idle past their time.
SWEEP_S = 5.0

class _ConsoleCounters(GuardCounters):
    """The guard's counters and the server's own."""

    def __init__(self) -> None:
        super().__init__()
        self.commands = 0
        self.failed = 0


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
                 shutout: ShutoutRules | None = None, timezone: str = "UTC") -> None:
        """``timezone``: the table's, in which the page's clock runs before anyone signs in too."""
        self.host, self.port = host, port
        self.timezone = timezone
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
        self._sweeper: asyncio.Task[None] | None = None
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
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        self.source_filter = SourceFilter(self._server.sockets[0])
        self.shutout.on_change = self.source_filter.drop_from

    def publish(self, data: bytes) -> None:
        self.hub.publish(data)

    async def _sweep(self) -> None:
        """Every few seconds: idle sessions end, and the station hears of each dealer who left."""
        while True:
            await asyncio.sleep(SWEEP_S)
            self.book.sweep()
            await self._tell_who_left()

    async def _tell_who_left(self) -> None:
        for name in self.book.left_the_table():
            await self._told({"signed_out": name})

    def close_now(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
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
        except Refusal as refusal:
            response = self._refuse(refusal.status, refusal.error)
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=f"{exc.reason.lower()}\n", headers=SAFE_HEADERS)
        except Exception as exc:  # any fault of a handler: one line in the log, never a traceback
            self.counters.failed += 1
            log.error("console %s %s failed: %s: %r (%d so far)", request.method, request.raw_path[:64],
                      type(exc).__name__, str(exc)[:200], self.counters.failed)
            response = self._refuse(500, "the console could not answer this request")
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

    def _key(self, request: web.Request) -> Key:
        """What the request's cookie opens now (a session, a supervisor's turn, ...)."""
        return self.book.look_up(request.cookies.get(COOKIE))

    def _foreign(self, request: web.Request) -> str:
        """Why a request with a body is not from this console's own page ("" when it is)."""
        if request.content_type != "application/json":
            return "requests must be application/json"
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            return "a request from another site"
        return ""

    def _csrf_ok(self, request: web.Request, key: Key) -> bool:
        token = request.headers.get("X-CSRF-Token", "")
        return bool(key.csrf) and hmac.compare_digest(token.encode(), key.csrf.encode())

    def _covered(self, status: int) -> web.Response:
        """The dealer's cookie while a supervisor's turn is on the screen: it may not act (403);
        a read is answered 409, which the page asks again with the turn's own cookie."""
        if status == 403:
            self.book.counters.covered_refused += 1
        return self._refuse(status, "a supervisor is acting on this screen with a sign-in of their own: the "
                                    "dealer's session acts again when the supervisor's turn ends")

    def _set_cookie(self, response: web.Response, ident: str) -> None:
        response.set_cookie(COOKIE, ident, httponly=True, samesite="Strict", secure=self.tls is not None, path="/")

    def _answer(self, key: Key, body: dict[str, Any], status: int = 200) -> web.Response:
        """``body`` as JSON; to an ended turn's cookie, with the dealer's cookie set again (the
        screen is the dealer's), as the body describes it."""
        response = self._json(body, status)
        if key.standing == "ended" and key.session is not None:
            self._set_cookie(response, key.session.ident)
        return response

    def _described(self, key: Key) -> dict[str, Any]:
        """The screen as the cookie sees it, with the token its changes must carry: a turn's
        own, or (to an ended turn's cookie too) the dealer's session's."""
        session = key.session
        if session is None or key.standing not in ("own", "turn", "ended"):
            return {"signed_in": False, "idle_s": self.book.idle_s, "timezone": self.timezone}
        csrf = key.turn.csrf if key.standing == "turn" and key.turn is not None else session.csrf
        return {"signed_in": True, "csrf": csrf, "idle_s": self.book.idle_s, **session.describe()}

    # --- handlers ------------------------------------------------------------------------

    async def _file(self, request: web.Request) -> web.Response:
        name, content_type = STATIC_FILES[request.path]
        return web.Response(body=self._static[name], headers={**SAFE_HEADERS, "Content-Type": content_type})

    async def _health(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n", headers=SAFE_HEADERS)

    async def _session(self, request: web.Request) -> web.Response:
        key = self._key(request)
        if key.standing == "covered":
            return self._covered(409)
        return self._answer(key, self._described(key))

    async def _sign_in(self, request: web.Request) -> web.Response:
        foreign = self._foreign(request)
        if foreign:
            return self._refuse(403, foreign)
        body = await json_body(request)
        name, pin = body.get("name"), body.get("pin")
        if not isinstance(name, str) or not isinstance(pin, str) or not name or len(name) > 64 or len(pin) > 64:
            return self._refuse(400, "give your name and PIN")
        key = self._key(request)
        if key.standing == "covered":
            return self._covered(403)
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
        key = self._key(request)  # again: the PIN took a while, and a turn may have begun or ended
        if key.standing == "covered":
            return self._covered(403)
        signed = self.book.sign_in(user, key.session)
        log.info("console sign-in: %s %s%s", user.role, user.name,
                 " (a turn on a dealer's screen)" if signed.turn is not None else "")
        if signed.turn is None:  # signed in on a screen of their own (not a supervisor's turn)
            await self._told({"signed_in": user.name})
        response = self._json({"ok": True, **self._described(signed)})
        owner = signed.turn or signed.session
        assert owner is not None  # a sign-in is a session or a turn
        self._set_cookie(response, owner.ident)
        return response

    async def _told(self, news: dict[str, Any]) -> None:
        if self.tell is not None:
            with contextlib.suppress(ConnectionError, OSError):
                await self.tell(news)

    async def _sign_out(self, request: web.Request) -> web.Response:
        foreign = self._foreign(request)
        if foreign:
            return self._refuse(403, foreign)
        key = self._key(request)
        if key.standing == "none":
            return self._json({"ok": True, "signed_in": False})
        if key.standing == "covered":
            return self._covered(403)
        if not self._csrf_ok(request, key):
            self.book.counters.csrf_refused += 1
            return self._refuse(403, "this screen's token is missing: reload the page")
        await json_body(request)
        if key.standing == "ended":  # the turn ended before this reached us: the dealer stays signed in
            return self._answer(key, {"ok": True, "message": TURN_ENDED, **self._described(key)})
        ended = self.book.sign_out(key)
        await self._tell_who_left()
        after = self._key(request)  # a turn's cookie is an ended turn's now: the dealer's session again
        response = self._answer(after, {"ok": True, **self._described(after)})
        if ended == "session":
            response.del_cookie(COOKIE, path="/")
        return response

    async def _command(self, request: web.Request) -> web.Response:
        foreign = self._foreign(request)
        if foreign:
            return self._refuse(403, foreign)
        key = self._key(request)
        if key.standing == "none":
            self.book.counters.no_session += 1
            return self._refuse(401, "not signed in (or signed out after a while without a tap): sign in")
        if key.standing == "covered":
            return self._covered(403)
        if key.standing == "ended":  # meant as the supervisor's: never carried out as the dealer
            self.book.counters.ended_turn_refused += 1
            return self._answer(key, {"ok": False, "error": TURN_ENDED, "session": self._described(key)}, 409)
        if not self._csrf_ok(request, key):
            self.book.counters.csrf_refused += 1
            return self._refuse(403, "this screen's token is missing: reload the page")
        body = await json_body(request)
        if set(body) - {"command", "args"}:
            return self._refuse(400, "a command is {command, args}")
        acting, session = key.acting, key.session
        assert acting is not None and session is not None  # an own session or a live turn
        self.book.tapped(session)
        line = json.dumps({"command": body.get("command"), "args": body.get("args") or {}}).encode() + b"\n"
        self.counters.commands += 1
        try:
            reply = await asyncio.wait_for(self.ask(acting.name, line), ANSWER_WAIT_S)
        except (TimeoutError, ConnectionError):
            return self._refuse(503, "the station did not answer: see whether it is running")
        if reply.get("ok") and key.turn is not None:
            self.book.decided(key.turn)
        after = self._key(request)  # the turn's cookie leads back to the dealer's session once it ended
        return self._answer(after, {**reply, "session": self._described(after)})

    async def _view(self, request: web.Request) -> web.StreamResponse:
        key = self._key(request)
        if key.standing == "none":
            return self._refuse(401, "not signed in")
        if key.standing == "covered":
            return self._covered(409)
        seen = view_since(request)
        await self.hub.wait(seen, VIEW_WAIT_S)
        key = self._key(request)  # it may have ended meanwhile, or a turn begun or ended
        if key.standing == "none":
            return self._refuse(401, "not signed in")
        if key.standing == "covered":
            return self._covered(409)
        body = b'{"version": %d, "session": %s, "view": %s}' % (
            self.hub.version, json.dumps(self._described(key)).encode(), self.hub.json)
        response = web.Response(body=body, headers={**SAFE_HEADERS, "Content-Type": "application/json"})
        if key.standing == "ended" and key.session is not None:
            self._set_cookie(response, key.session.ident)
        return response

    async def _recall(self, request: web.Request) -> web.Response:
        key = self._key(request)
        if key.standing == "none":
            return self._refuse(401, "not signed in")
        if key.standing == "covered":
            return self._covered(409)
        last, round_id = recall_query(request)
        if self.recall is None:
            return self._refuse(503, "recall is not available")
        assert key.session is not None
        self.book.tapped(key.session)
        return self._answer(key, await self.recall(last, round_id))


__all__ = ["ConsoleApp", "Limits"]
