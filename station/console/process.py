"""The console's own process: its HTTP server, fed by the station over a socket pair.

Started by the station (:class:`station.console.feed.ConsoleProcess`) as
``python -m station.console.process --feed-fd N --station PID``. It reads its settings from
the feed's first frame (the users' PIN hashes never appear on a command line), binds its
address, says ``ready`` (or why not), then serves until the station says quit or the socket
closes. Recall reads the journal here, read-only (:mod:`station.console.recall`). Like the
scoreboard's process it is in a process group of its own, dies with the station (parent-death
signal, and the end of the socket), serves below the table (:data:`station.child_process.CONSOLE`:
a table thread that wakes runs first; it starts at the station's priority, so a busy PC does not
keep it from coming up), and its name in ``ps`` says whose console it is.

Frames, both ways (:mod:`station.child_process`, as every child fed over a socket speaks):
one byte of kind, a 4-byte big-endian length, a JSON payload.
Station to console: ``C`` settings (first), ``V`` the table's picture, ``A`` an answer
``{"id": n, "reply": {...}}``, ``Q`` quit. Console to station: ``H``
hello (``{"ready": url}`` or ``{"error": text, "errno": n}``), ``R`` a request
``{"id": n, "who": name, "line": text}``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import os
import signal
import socket
import ssl
import sys
from typing import Any

from station.child_process import CONSOLE, HEADER, die_with, ignore_signals_from_here, step_back

MAX_FRAME = 8 * 1024 * 1024


def frame(kind: bytes, body: Any) -> bytes:
    data = json.dumps(body).encode() if not isinstance(body, bytes) else body
    return HEADER.pack(kind, len(data)) + data


class StationLink:
    """The console's side of the feed: requests out, answers back by number."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def read_frame(self) -> tuple[bytes, bytes]:
        kind, size = HEADER.unpack(await self.reader.readexactly(HEADER.size))
        if size > MAX_FRAME:
            raise ConnectionError("frame too large")
        return kind, await self.reader.readexactly(size)

    async def send(self, kind: bytes, body: Any) -> None:
        self.writer.write(frame(kind, body))
        await self.writer.drain()

    async def ask(self, kind: bytes, body: dict[str, Any]) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        try:
            await self.send(kind, {"id": ident, **body})
            return await future
        finally:
            self._waiting.pop(ident, None)

    def answered(self, data: bytes) -> None:
        answer = json.loads(data)
        future = self._waiting.get(int(answer.get("id", 0)))
        if future is not None and not future.done():
            future.set_result(answer.get("reply") or {"ok": False, "error": "no answer"})

    def fail_all(self) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the station went away"))


def _tls(settings: dict[str, Any]) -> ssl.SSLContext | None:
    if not settings.get("tls_cert"):
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(settings["tls_cert"], settings["tls_key"])
    return context


async def serve(feed: socket.socket) -> int:
    from station.console.recall import warm_recall
    from station.console.server import ConsoleApp
    from station.console.sessions import User
    from station.web.guard import Limits

    feed.setblocking(False)
    reader, writer = await asyncio.open_unix_connection(sock=feed, limit=MAX_FRAME)
    link = StationLink(reader, writer)
    kind, data = await link.read_frame()
    if kind != b"C":
        return 2
    settings = json.loads(data)
    loop = asyncio.get_running_loop()
    users = [User(u["name"], u["role"], u["pin_scrypt"]) for u in settings["users"]]

    async def ask(who: str, line: bytes) -> dict[str, Any]:
        return await link.ask(b"R", {"who": who, "line": line.decode()})

    async def tell(news: dict[str, Any]) -> None:
        await link.send(b"P", news)  # who signed in, or was refused: the station journals it

    async def recall(last: int, round_id: str) -> dict[str, Any]:
        from station.console.recall import recall_for_console

        # Read-only, from the journal, on a thread of this (idle-class) process: the station's
        # interpreter never spends a moment on it.
        return await loop.run_in_executor(None, recall_for_console, settings["recall"], last, round_id)

    try:
        # One address (a scanner, a broken script) may hold a quarter of the places at most:
        # the dealer's screen and a supervisor's tablet always find one.
        most = int(settings["max_connections"])
        limits = Limits(max_connections=most, max_per_address=max(1, most // 4), backlog=256)
        app = ConsoleApp(settings["host"], int(settings["port"]), users, ask, idle_s=float(settings["idle_s"]),
                         tls=_tls(settings), limits=limits, recall=recall, tell=tell,
                         timezone=settings["recall"]["timezone"])
        await app.start()
    except (OSError, ssl.SSLError) as exc:
        await link.send(b"H", {"error": getattr(exc, "strerror", None) or str(exc), "errno": exc.errno or 0})
        return 3
    # Started (its imports and its bind) at the station's priority, so a busy table PC does not
    # keep it from coming up; from here on it serves below the table.
    step_back(CONSOLE)
    import setproctitle

    setproctitle.setproctitle(f"station-console (dealer's console of station {os.getppid()}, {app.url})")
    await link.send(b"H", {"ready": app.url})
    # The first recall would otherwise pay for importing the table's rules and for the first
    # look at the journal's checkpoints: done now, on a thread, before anyone asks.
    warming = loop.run_in_executor(None, warm_recall, settings["recall"])
    done = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, done.set)

    async def read_feed() -> None:
        while True:
            kind, data = await link.read_frame()
            if kind == b"Q":
                return
            if kind == b"V":
                app.publish(data)
            elif kind == b"A":
                link.answered(data)

    feeding = asyncio.create_task(read_feed())
    stopping = asyncio.create_task(done.wait())
    try:
        await asyncio.wait({feeding, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        warming.cancel()
        link.fail_all()
        for task in (feeding, stopping):
            task.cancel()
        app.close_now()
        ignore_signals_from_here(loop, (signal.SIGTERM, signal.SIGINT))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m station.console.process")
    parser.add_argument("--feed-fd", type=int, required=True)
    parser.add_argument("--station", type=int, default=0, help="the station's PID: end with it")
    args = parser.parse_args(argv)
    die_with(args.station)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="station-console: %(message)s")
    logging.getLogger("aiohttp").setLevel(logging.ERROR)
    feed = socket.socket(fileno=args.feed_fd)
    try:
        code = asyncio.run(serve(feed))
    except (ConnectionError, asyncio.IncompleteReadError):
        code = 0
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
