"""``station pit``: the pit's screens, served from the floor broker alone.

One process, one asyncio loop: the page and its event stream are the web scoreboard's server
(:class:`station.web.server.ScoreboardApp`, with its caps on connections, deadlines for slow
clients and dropping of stalled viewers) serving the pit's own files; the broker's messages
come from paho's network thread (:mod:`station.pit.listener`) and are handed to the loop,
where the board (:mod:`station.pit.board`) takes them one by one. Nothing here can reach a
table: no station's address is configured or known, only the broker's.

Pictures: every change is on the page within :data:`PICTURE_INTERVAL_S` (a change after a
quiet spell goes out at once; in a burst the next picture follows at that pace). Each viewer
watches a view (the floor, a pit, every table: :mod:`station.pit.views`) and is sent it whole
when it connects, then only the tiles that changed, encoded once per view
(:mod:`station.pit.stream`). The clock rolls the hour (rounds
this hour start again at the top of the hour in the pit's time zone) and pings systemd's
watchdog from the loop itself, so a wedged loop is restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
import time
from datetime import datetime
from typing import Any

import structlog

from station.host.systemd_notify import Notifier
from station.localtime import zone
from station.pit.board import PitBoard, pit_order
from station.pit.listener import FloorListener
from station.pit.overview import counts as overview_counts
from station.pit.settings import LoadedPitConfig
from station.pit.stream import PitApp
from station.pit.views import Views

log = structlog.get_logger("station.pit")

#: Least time between two pictures while tables change (at most 5 a second).
PICTURE_INTERVAL_S = 0.2
#: How often the clock looks at the hour, the watchdog and the unit's status line.
TICK_S = 1.0
#: The pit page's routes: each to a file of ``station/pit/static`` and its type.
PIT_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/pit.css": ("pit.css", "text/css; charset=utf-8"),
    "/pit.js": ("pit.js", "text/javascript; charset=utf-8"),
    "/pit-dom.js": ("pit-dom.js", "text/javascript; charset=utf-8"),
    "/pit-fit.js": ("pit-fit.js", "text/javascript; charset=utf-8"),
    "/pit-grid.js": ("pit-grid.js", "text/javascript; charset=utf-8"),
    "/pit-header.js": ("pit-header.js", "text/javascript; charset=utf-8"),
    "/pit-model.js": ("pit-model.js", "text/javascript; charset=utf-8"),
    "/pit-search.js": ("pit-search.js", "text/javascript; charset=utf-8"),
    "/pit-state.js": ("pit-state.js", "text/javascript; charset=utf-8"),
    "/pit-tiles.js": ("pit-tiles.js", "text/javascript; charset=utf-8"),
    "/pit-words.js": ("pit-words.js", "text/javascript; charset=utf-8"),
}


class PitUnavailable(Exception):
    """The page's address is held by another program (exit 69: a restart may help)."""


class PitService:
    """The page, the broker's listener and the board between them (see the module)."""

    def __init__(self, loaded: LoadedPitConfig, *, notifier: Notifier | None = None) -> None:
        self.loaded = loaded
        config = loaded.config
        self.page = config.pit
        self.broker = config.broker
        self.tz = zone(self.page.timezone)
        self.board = PitBoard(self.broker.topic_prefix, self.tz, pits=self.page.pits, now=time.time())
        self.notifier = notifier or Notifier()
        self.connected = False
        self.connection_note = "connecting"
        self.connection_since = time.time()
        self.pictures = 0
        self.views = Views(self.board, self.head)
        self._changed_tables: set[str] | None = set()
        """Tables whose tiles changed since the last picture (None: any may have)."""
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None

    # --- paho's thread: hand over, nothing more -------------------------------------------

    def _arrived(self, topic: str, payload: bytes, retained: bool) -> None:
        loop = self._loop
        if loop is not None:
            # A retained message was said some time ago: when, only the message can say.
            loop.call_soon_threadsafe(self._take, topic, payload, None if retained else time.time())

    def _connection(self, connected: bool, note: str) -> None:
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self._set_connection, connected, note)

    # --- the loop ------------------------------------------------------------------------

    def _take(self, topic: str, payload: bytes, received: float | None) -> None:
        refused = sum(self.board.refused.values())
        table = self.board.take(topic, payload, received)
        if table is not None:
            if self._changed_tables is not None:
                self._changed_tables.add(table)
            self._mark()
        elif sum(self.board.refused.values()) != refused:
            log.warning("pit_message_refused", topic=topic, refused=dict(self.board.refused))

    def _set_connection(self, connected: bool, note: str) -> None:
        if connected != self.connected:
            self.connection_since = time.time()
        self.connected, self.connection_note = connected, note
        self._mark()

    def _mark(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def _broker(self) -> dict[str, Any]:
        return {"connected": self.connected, "note": self.connection_note,
                "since": datetime.fromtimestamp(self.connection_since, self.tz).strftime("%H:%M:%S")}

    def head(self) -> dict[str, Any]:
        """What every view's head shares (docs/pit.md): the page's title, zone and pace, the
        hour the counts are for, the broker's link, the floor's pits."""
        pits = {t.pit for t in self.board.shown() if t.pit}
        return {"title": self.page.title, "timezone": self.page.timezone, "page_seconds": self.page.page_seconds,
                "hour": datetime.fromtimestamp(self.board.hour, self.tz).strftime("%H:%M"),
                "broker": self._broker(), "pits": sorted(pits, key=pit_order)}

    def picture(self, now: float) -> dict[str, Any]:
        """The whole board at ``now`` (``/snapshot``): every tile, the page's title and zone,
        the broker's link."""
        snapshot = self.board.snapshot(now)
        snapshot.update({"title": self.page.title, "timezone": self.page.timezone, "broker": self._broker()})
        return snapshot

    async def _pictures(self, app: PitApp) -> None:
        assert self._changed is not None
        sent_at = 0.0
        while True:
            await self._changed.wait()
            wait = sent_at + PICTURE_INTERVAL_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._changed.clear()
            changed, self._changed_tables = self._changed_tables, set()
            app.changed(self.views.refresh(changed))
            self.pictures += 1
            sent_at = time.monotonic()

    async def _clock(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            if self.board.tick(time.time()):
                self._changed_tables = None  # every tile's rounds this hour start again
                self._mark()
            self.notifier.watchdog()
            self.notifier.status(self.status_line())

    def status_line(self) -> str:
        counts = overview_counts([t.shown or {} for t in self.board.shown()])
        link = "broker connected" if self.connected else "NO BROKER"
        return (f"{self.url} {link}; {counts['tables']} tables, {counts['online']} online, "
                f"{counts['offline']} offline, {counts['alarms']} with an alarm")

    async def run(self) -> int:
        """Serve until SIGTERM or SIGINT (or :meth:`request_stop`); 0 when stopped."""
        from station.web.guard import Limits

        self._loop = asyncio.get_running_loop()
        self._changed, self._stop = asyncio.Event(), asyncio.Event()
        app = PitApp(self.page.bind, self.page.port, Limits(max_connections=self.page.max_connections),
                     views=self.views, snapshot=lambda: self.picture(time.time()), files=PIT_FILES)
        try:
            await app.start()
        except OSError as exc:
            reason = "another program holds it" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            raise PitUnavailable(f"pit page: cannot listen on {self.page.bind}:{self.page.port}: {reason}") from None
        self.url = app.url
        for signum in (signal.SIGTERM, signal.SIGINT):
            self._loop.add_signal_handler(signum, self._stop.set)
        listener = FloorListener(self.broker.options(), self.broker.session_id(), self.broker.topic_prefix,
                                 on_message=self._arrived, on_connection=self._connection).start()
        self._mark()
        tasks = [asyncio.create_task(self._pictures(app)), asyncio.create_task(self._clock())]
        log.info("pit_serving", url=self.url, broker=self.broker.url, prefix=self.broker.topic_prefix,
                 timezone=self.page.timezone, pits=self.page.pits)
        self.notifier.ready(f"serving {self.url}; connecting to {self.broker.url}")
        try:
            await self._stop.wait()
        finally:
            self.notifier.stopping()
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            listener.stop()
            await app.stop()
            log.info("pit_stopped", pictures=self.pictures, refused=dict(self.board.refused))
        return 0

    def request_stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
