"""The web scoreboard's HTTP server: one page and one event stream, for a pit's worth of screens.

It runs on asyncio with aiohttp (docs/dependencies.md says why), in a process of its own when
the station serves it (:mod:`station.web.process`), so nothing a browser or a scanner does
reaches the core loop's interpreter. What it guards against, and how:

* **Many screens at once.** The listening socket's backlog is 1024 (at least 128 is asked
  for): 200 screens reconnecting together after a restart are all accepted at once. At most
  ``max_connections`` connections are served; one more is answered ``503 Service
  Unavailable`` with ``Retry-After`` and closed, before a byte of its request is read.
* **Slow or silent clients.** A request's line and headers must arrive within
  ``header_timeout`` seconds of the connection, or it is closed. Every response but the event
  stream closes its connection, so no idle keep-alive connection holds a place.
* **Stalled viewers.** An event stream whose client stops reading is closed once an event has
  waited ``write_timeout`` seconds to go out, or once more than ``max_buffered`` bytes wait for
  it; a viewer that falls behind skips to the newest picture (each is whole).
* **Work per picture, not per viewer.** Each picture arrives as JSON and is framed as a
  Server-Sent Event once; every stream writes the same bytes.

Routes: ``/`` the page, ``/scoreboard.css`` and ``/scoreboard.js`` its files, ``/events`` the
event stream, ``/snapshot`` the current snapshot as JSON (``null`` before the first publish),
``/healthz`` a plain ``ok``. Anything else is 404; only GET and HEAD are served. Nothing is
read from a path in the request: the files are the package's own.

:class:`ScoreboardServer` runs the same server on a thread of the calling process (tests,
tools); the station uses :class:`station.web.feed.ScoreboardProcess`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
from collections.abc import Mapping
from importlib import resources
from typing import Any

from aiohttp import web

from station.web.guard import Guard, GuardCounters, Limits, serve_guarded
from station.web.snapshot import Snapshot, encode_snapshot

log = logging.getLogger(__name__)

STATIC_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/scoreboard.css": ("scoreboard.css", "text/css; charset=utf-8"),
    "/scoreboard.js": ("scoreboard.js", "text/javascript; charset=utf-8"),
}
#: Security headers on every answer: the page loads only its own files and cannot be framed.
SAFE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
def _load_static(package: str, files: Mapping[str, tuple[str, str]]) -> dict[str, bytes]:
    folder = resources.files(package) / "static"
    return {name: (folder / name).read_bytes() for name, _ in set(files.values())}


class Hub:
    """The current picture, framed once, and a wake-up for every stream (on the server's loop)."""

    def __init__(self) -> None:
        self.version = 0
        self.json: bytes | None = None
        self.event = b""
        self.streams = 0
        self.stopping = False
        self._changed = asyncio.Event()

    def publish(self, data: bytes) -> int:
        self.version += 1
        self.json = data
        self.event = b"id: %d\nevent: snapshot\ndata: %s\n\n" % (self.version, data)
        self._wake()
        return self.version

    def stop(self) -> None:
        self.stopping = True
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait(self, seen: int, timeout: float) -> None:
        """Until a picture newer than ``seen`` (or the stop), at most ``timeout`` seconds."""
        if self.version != seen or self.stopping:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)


class _Counters(GuardCounters):
    def __init__(self) -> None:
        super().__init__()
        self.stalled_closed = 0


class ScoreboardApp:
    """The server on the running asyncio loop: ``await start()``, ``publish(json)``, ``await stop()``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, limits: Limits | None = None, *,
                 files: Mapping[str, tuple[str, str]] = STATIC_FILES, package: str = "station.web") -> None:
        """``files`` maps each route to a file of ``<package>/static`` and its type: the
        scoreboard's by default; the pit page (:mod:`station.pit`) serves its own page on the
        same server."""
        self.host = host
        self.port = port
        self.limits = limits or Limits()
        self.hub = Hub()
        self.counters = _Counters()
        self.guards: dict[asyncio.Transport, Guard] = {}
        self._files = dict(files)
        self._static = _load_static(package, self._files)
        self._runner: web.AppRunner | None = None
        self._server: asyncio.Server | None = None
        self.address: tuple[str, int] = (host, port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], handler_args={"max_field_size": 8190})
        app.router.add_get("/events", self._events)
        app.router.add_get("/snapshot", self._snapshot)
        app.router.add_get("/healthz", self._health)
        for path in self._files:
            app.router.add_get(path, self._file)
        self._runner, self._server, self.address = await serve_guarded(app, self, self.host, self.port)

    def publish(self, data: bytes) -> int:
        return self.hub.publish(data)

    def close_now(self) -> None:
        """Stop serving at once: the listening socket and every connection are closed."""
        self.hub.stop()
        if self._server is not None:
            self._server.close()
        for transport in list(self.guards):
            transport.abort()

    async def stop(self) -> None:
        """Close the listening socket and every connection now; pages will reconnect."""
        self.hub.stop()
        if self._server is not None:
            self._server.close()
        for transport in list(self.guards):
            transport.abort()
        if self._runner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._runner.cleanup(), 0.5)
        self._runner = None
        self._server = None

    # --- handlers ----------------------------------------------------------------------------

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
            response.force_close()  # one request per connection: no idle keep-alive holds a place
        return response

    async def _file(self, request: web.Request) -> web.Response:
        name, content_type = self._files[request.path]
        return web.Response(body=self._static[name], headers={**SAFE_HEADERS, "Content-Type": content_type})

    async def _snapshot(self, request: web.Request) -> web.Response:
        return web.Response(body=self.hub.json or b"null",
                            headers={**SAFE_HEADERS, "Content-Type": "application/json"})

    async def _health(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n", headers=SAFE_HEADERS)

    def _stream_response(self, request: web.Request) -> web.StreamResponse:
        """An event stream's response: its own connection, no Nagle delay, and a send buffer of
        ``stream_sndbuf`` (a stalled viewer is noticed by what waits in it)."""
        response = web.StreamResponse(headers={**SAFE_HEADERS, "Content-Type": "text/event-stream"})
        response.force_close()
        transport = request.transport
        sock = transport.get_extra_info("socket") if transport is not None else None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.stream_sndbuf)
        return response

    async def _events(self, request: web.Request) -> web.StreamResponse:
        hub, limits = self.hub, self.limits
        response = self._stream_response(request)
        transport = request.transport
        hub.streams += 1
        try:
            await response.prepare(request)
            if not await self._write(response, transport, b"retry: %d\n\n" % limits.retry_ms):
                return response
            seen = 0
            while not hub.stopping:
                if hub.version != seen and hub.json is not None:
                    seen = hub.version
                    data = hub.event
                else:
                    await hub.wait(seen, limits.keepalive)
                    if hub.stopping:
                        break
                    if hub.version != seen:
                        continue
                    data = b": keepalive\n\n"  # keeps proxies and idle-connection timers from closing us
                if not await self._write(response, transport, data):
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            hub.streams -= 1
        return response

    async def _write(self, response: web.StreamResponse, transport: Any, data: bytes) -> bool:
        """Write one event; a client that does not take it in time is dropped."""
        if transport is None or transport.is_closing():
            return False
        if transport.get_write_buffer_size() > self.limits.max_buffered:
            self._drop_stalled(transport)
            return False
        try:
            await asyncio.wait_for(response.write(data), self.limits.write_timeout)
        except TimeoutError:
            self._drop_stalled(transport)
            return False
        except (ConnectionError, RuntimeError):
            return False
        return True

    def _drop_stalled(self, transport: Any) -> None:
        self.counters.stalled_closed += 1
        log.info("scoreboard viewer stalled: closed")
        transport.abort()


class ScoreboardServer:
    """The scoreboard server on a thread of this process, with its own asyncio loop.

    ``port=0`` picks a free port (see :attr:`url`). ``publish`` can be called before
    ``start``; the latest snapshot is what a page gets first when it connects.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, keepalive: float = 15.0,
                 retry_ms: int = 1000, limits: Limits | None = None) -> None:
        base = limits or Limits()
        self.limits = Limits(**{**base.__dict__, "keepalive": keepalive, "retry_ms": retry_ms})
        self.host = host
        self.port = port
        self._app: ScoreboardApp | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pending: bytes | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        if self._app is None:
            raise RuntimeError("the scoreboard server is not running")
        return self._app.url

    @property
    def running(self) -> bool:
        return self._app is not None

    @property
    def app(self) -> ScoreboardApp:
        if self._app is None:
            raise RuntimeError("the scoreboard server is not running")
        return self._app

    def start(self) -> ScoreboardServer:
        if self._app is not None:
            raise RuntimeError("the scoreboard server is already running")
        loop = asyncio.new_event_loop()
        app = ScoreboardApp(self.host, self.port, self.limits)
        started: list[BaseException | None] = []
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(app.start())
            except BaseException as exc:
                started.append(exc)
                ready.set()
                loop.close()
                return
            started.append(None)
            ready.set()
            loop.run_forever()
            loop.run_until_complete(app.stop())
            loop.close()

        thread = threading.Thread(target=run, name="scoreboard-http", daemon=True)
        thread.start()
        ready.wait()
        if started[0] is not None:
            thread.join()
            raise started[0]
        self._app, self._loop, self._thread = app, loop, thread
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is not None:
            loop.call_soon_threadsafe(app.publish, pending)
        log.info("scoreboard serving at %s", app.url)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close every event stream and the listening socket; pages will try to reconnect."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        self._app = self._loop = self._thread = None

    def publish(self, snapshot: Snapshot | Mapping[str, Any]) -> int:
        """Send ``snapshot`` to every open page now; returns its sequence number (0 before start).

        The snapshot is turned into JSON here, in the caller's thread, so the caller may go on
        changing its scoreboard afterwards without changing what was published.
        """
        data = encode_snapshot(snapshot)
        return self.publish_json(data)

    def publish_json(self, data: bytes) -> int:
        app, loop = self._app, self._loop
        if app is None or loop is None:
            with self._lock:
                self._pending = data
            return 0
        future = asyncio.run_coroutine_threadsafe(_publish(app, data), loop)
        return future.result(5)

    def current(self) -> dict[str, Any] | None:
        """The latest published snapshot as the pages receive it."""
        if self._app is None:
            with self._lock:
                pending = self._pending
            return json.loads(pending) if pending is not None else None
        data = self._app.hub.json
        return json.loads(data) if data is not None else None

    @property
    def open_streams(self) -> int:
        return self._app.hub.streams if self._app is not None else 0

    def __enter__(self) -> ScoreboardServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def _publish(app: ScoreboardApp, data: bytes) -> int:
    return app.publish(data)
