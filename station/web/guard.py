"""The guard in front of every connection of the station's web servers (scoreboard, pit page,
dealer's console): how many connections are served, and which are closed before a byte of
them is read.

:func:`serve_guarded` binds the listening socket and puts a :class:`Guard` around aiohttp's
protocol for each connection. The guard closes a connection unread when its address is shut
out (:mod:`station.web.shutout`), answers ``503`` past ``max_connections`` or past one
address's share, and closes a connection whose request's headers have not arrived within
``header_timeout``. The servers' own docstrings say what each does with it.
"""

from __future__ import annotations

import asyncio
import collections
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from station.web.shutout import Shutout, peer_address

#: The answer past the cap or an address's share, written before a byte of the request is read.
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Retry-After: 5\r\nConnection: close\r\nContent-Length: 27\r\n\r\n"
    b"server busy: try again soon"
)


@dataclass(frozen=True)
class Limits:
    """How much the server takes on (docs/web-scoreboard.md, "A server that cannot hurt the table")."""

    max_connections: int = 512
    #: At most this many of them from one address (0: no such cap), so that one program
    #: cannot take every place from the screens; more are answered 503 like those past the cap.
    max_per_address: int = 0
    backlog: int = 1024
    header_timeout: float = 5.0
    write_timeout: float = 5.0
    max_buffered: int = 256 * 1024
    keepalive: float = 15.0
    retry_ms: int = 1000
    stream_sndbuf: int = 64 * 1024



class GuardCounters:
    """What the guard counts for a server: connections open (in all and by address), those
    answered busy, those closed for a request too slow. Each server adds its own counts."""

    def __init__(self) -> None:
        self.connections = 0
        self.by_address: collections.Counter[str | None] = collections.Counter()
        self.refused = 0
        self.slow_closed = 0
        self.requests = 0


class Guard(asyncio.Protocol):
    """Wraps aiohttp's protocol for one connection: closes it unread when its address is shut
    out (the app's ``shutout``, if it keeps one), refuses it past the cap or past its address's
    share (telling the app's ``on_busy``, if it has one, which address), and closes it if its
    request has not arrived in time (aiohttp itself waits as long as bytes trickle in)."""

    def __init__(self, make_inner: Callable[[], asyncio.Protocol], app: Any) -> None:
        self._make_inner = make_inner
        self.inner: asyncio.Protocol | None = None  # made only for a connection let in
        self.app = app
        self.transport: asyncio.Transport | None = None
        self.address: str | None = None
        self.admitted = False
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.address = peer_address(transport.get_extra_info("peername"))
        app = self.app
        shutout: Shutout | None = getattr(app, "shutout", None)
        if shutout is not None and shutout.is_shut(self.address):
            shutout.closed += 1  # not a byte read: the flood costs an accept and a close
            transport.abort()
            return
        limits, counters = app.limits, app.counters
        if (counters.connections >= limits.max_connections or app.hub.stopping
                or 0 < limits.max_per_address <= counters.by_address[self.address]):
            counters.refused += 1
            on_busy: Callable[[str | None], None] | None = getattr(app, "on_busy", None)
            if on_busy is not None:  # before the answer: whoever reads it finds the refusal counted
                on_busy(self.address)
            transport.write(BUSY)
            transport.close()
            return
        self.admitted = True
        counters.connections += 1
        counters.by_address[self.address] += 1
        app.guards[transport] = self
        self.timer = asyncio.get_running_loop().call_later(app.limits.header_timeout, self._too_slow)
        self.inner = self._make_inner()
        self.inner.connection_made(transport)

    def request_arrived(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _too_slow(self) -> None:
        self.timer = None
        if self.transport is not None and not self.transport.is_closing():
            self.app.counters.slow_closed += 1
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self.admitted and self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.admitted and self.inner is not None else None

    def pause_writing(self) -> None:
        if self.admitted and self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.admitted and self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.admitted:
            return
        self.admitted = False
        self.request_arrived()
        counters = self.app.counters
        counters.connections -= 1
        counters.by_address[self.address] -= 1
        if counters.by_address[self.address] <= 0:
            del counters.by_address[self.address]
        if self.transport is not None:
            self.app.guards.pop(self.transport, None)
        if self.inner is not None:
            self.inner.connection_lost(exc)


async def serve_guarded(app: web.Application, guarded: Any, host: str, port: int,
                        tls: ssl.SSLContext | None = None) -> tuple[web.AppRunner, asyncio.Server, tuple[str, int]]:
    """Serve ``app`` on ``host:port`` with every connection behind a :class:`Guard` (the cap on
    connections and the deadline for a request's headers, read from ``guarded``: its
    ``limits``, ``counters``, ``guards`` and ``hub``), over TLS when ``tls`` is given. Returns
    the runner, the server and the address bound; raises ``OSError`` when it cannot bind."""
    limits = guarded.limits
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=0.2,
                           keepalive_timeout=limits.header_timeout)
    await runner.setup()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        await runner.cleanup()
        raise
    factory = runner.server
    assert factory is not None
    server = await asyncio.get_running_loop().create_server(
        lambda: Guard(factory, guarded), sock=sock, backlog=limits.backlog, ssl=tls,
    )
    return runner, server, sock.getsockname()[:2]


__all__ = ["BUSY", "Guard", "GuardCounters", "Limits", "serve_guarded"]
