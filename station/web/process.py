"""The web scoreboard's own process: the HTTP server, fed pictures by the station over a socket.

Started by the station (:class:`station.web.feed.ScoreboardProcess`) as
``python -m station.web.process --feed-fd N ...`` with one end of a Unix socket pair. It
binds its port, says ``ready`` (or why not) on the socket, then serves until the station
says ``quit`` or the socket closes; it never outlives the station:

* its name in ``ps`` and ``top`` is ``station-scoreboard (web scoreboard of station PID, URL)``;
* it is in a process group of its own, so a terminal's Ctrl-C reaches only the station,
  which stops it in order;
* the parent-death signal ends it if the station dies without closing the socket, and the
  closed socket ends it otherwise;
* it steps back from the table (:data:`station.child_process.SCOREBOARD`: Linux's batch
  class at nice 10): a waking thread of the station is not kept waiting behind it, and it
  still gets a small share of a CPU when another program holds every one, so the pit's
  screens never freeze.

Frames on the feed (:mod:`station.child_process`: one byte of kind, a 4-byte big-endian
length, the payload), station to scoreboard: ``S`` a snapshot's JSON, ``Q`` quit. Scoreboard
to station: its hello, ``H`` with ``{"ready": url}`` or ``{"error": text, "errno": n}``, as
every child fed over a socket says it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys

from station.child_process import HEADER, QUIT, SCOREBOARD, die_with, hello_frame, ignore_signals_from_here, step_back

SNAPSHOT = b"S"
#: Largest snapshot the feed takes (a whole shoe's roads are about 15 KB).
MAX_FRAME = 8 * 1024 * 1024


def _tell(feed: socket.socket, message: dict[str, object]) -> None:
    feed.sendall(hello_frame(message))


async def serve(feed: socket.socket, host: str, port: int, max_connections: int) -> int:
    from station.web.guard import Limits
    from station.web.server import ScoreboardApp

    app = ScoreboardApp(host, port, Limits(max_connections=max_connections))
    try:
        await app.start()
    except OSError as exc:
        _tell(feed, {"error": exc.strerror or str(exc), "errno": exc.errno or 0})
        return 3
    import setproctitle

    setproctitle.setproctitle(f"station-scoreboard (web scoreboard of station {os.getppid()}, {app.url})")
    _tell(feed, {"ready": app.url})
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, done.set)
    feed.setblocking(False)
    reader, _writer = await asyncio.open_unix_connection(sock=feed, limit=MAX_FRAME)

    async def read_feed() -> None:
        while True:
            kind, size = HEADER.unpack(await reader.readexactly(HEADER.size))
            if size > MAX_FRAME:
                return
            data = await reader.readexactly(size)
            if kind == QUIT:
                return
            if kind == SNAPSHOT:
                app.publish(data)

    feeding = asyncio.create_task(read_feed())
    stopping = asyncio.create_task(done.wait())
    await asyncio.wait({feeding, stopping}, return_when=asyncio.FIRST_COMPLETED)
    for task in (feeding, stopping):
        task.cancel()
    app.close_now()  # every connection closes at once; the pages reconnect to the next scoreboard
    ignore_signals_from_here(loop, (signal.SIGTERM, signal.SIGINT))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m station.web.process")
    parser.add_argument("--feed-fd", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--max-connections", type=int, default=512)
    parser.add_argument("--station", type=int, default=0, help="the station's PID: end with it")
    args = parser.parse_args(argv)
    die_with(args.station)
    step_back(SCOREBOARD)
    feed = socket.socket(fileno=args.feed_fd)
    try:
        code = asyncio.run(serve(feed, args.host, args.port, args.max_connections))
    except (ConnectionError, asyncio.IncompleteReadError):
        code = 0
    sys.stdout.flush()
    sys.stderr.flush()
    # Nothing is left to tidy: the sockets are closed. Leaving without the interpreter's
    # teardown keeps the station's stop within its second.
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
