"""The anchor clock: the journal's head, said outside the journal now and then.

The journal writer knows its tip (the core loop tells :meth:`AnchorClock.on_commit` the seq
and hash of the last record of every commit). An *anchor* ``{table, journal_id, seq, head}``
is made every ``anchor_records`` records and every ``anchor_seconds`` while records come, at
every shoe end, when the station starts and when it stops. Each one is logged at info
(``journal_anchor``: under systemd it goes to journald, and from there to wherever the casino
ships its logs), kept for ``station ctl status``, and, with the floor feed on, published
retained to ``<prefix>/<table>/anchor``. With a key, each carries a ``mac`` (HMAC-SHA256,
:func:`station.journal.anchors.sign`).

The head comes from the writer's memory, not from reading the file, so an anchor says what the
station wrote even if the file was changed behind its back. The loop's thread only notes the
tip and, when an anchor is due, queues it; the anchor is signed, logged and handed over on
this clock's own thread.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import structlog

from station.floor.derive import PAYLOAD_VERSION
from station.journal.anchors import sign

log = structlog.get_logger("station.floor")

Sink = Callable[[dict[str, Any]], None]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class AnchorClock:
    """Makes the anchors of one journal; see the module's description."""

    def __init__(self, *, table: str, journal_id: str, tip: tuple[int, str], every_records: int,
                 every_seconds: float, key: bytes | None = None, sink: Sink | None = None,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], str] = _now) -> None:
        self.table = table
        self.journal_id = journal_id
        self.every_records = every_records
        self.every_seconds = every_seconds
        self._key = key
        self._sink = sink
        self._clock = clock
        self._wall = wall
        self._tip = tip
        self._next_seq = tip[0] + every_records
        self._anchored_seq = -1
        self._anchored_at = clock()
        self._due: deque[tuple[str, int, str]] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.latest: dict[str, Any] | None = None
        self.count = 0

    # --- the core loop's thread --------------------------------------------------------

    def on_commit(self, _seconds: float, _count: int, seq: int, digest: str) -> None:
        self._tip = (seq, digest)
        if seq >= self._next_seq:
            self._next_seq = seq + self.every_records
            self._due.append(("records", seq, digest))
            self._wake.set()

    def shoe_ended(self) -> None:
        seq, digest = self._tip
        self._due.append(("shoe_end", seq, digest))
        self._wake.set()

    # --- its own thread ----------------------------------------------------------------

    def start(self) -> AnchorClock:
        self._make("start", *self._tip)
        self._thread = threading.Thread(target=self._run, name="journal-anchors", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> dict[str, Any] | None:
        """The last anchor, at stop (after the core loop has stopped committing)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        self._drain()
        return self._make("stop", *self._tip)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            self._drain()
            seq, digest = self._tip
            if seq > self._anchored_seq and self._clock() - self._anchored_at >= self.every_seconds:
                self._make("interval", seq, digest)

    def _drain(self) -> None:
        while self._due:
            reason, seq, digest = self._due.popleft()
            self._make(reason, seq, digest)

    def _make(self, reason: str, seq: int, digest: str) -> dict[str, Any] | None:
        if seq < 1:
            return None
        with self._lock:
            anchor: dict[str, Any] = {"v": PAYLOAD_VERSION, "kind": "anchor", "table": self.table,
                                      "journal_id": self.journal_id, "seq": seq, "head": digest,
                                      "time": self._wall(), "reason": reason}
            if self._key is not None:
                anchor["mac"] = sign(self._key, anchor)
            self.latest = anchor
            self.count += 1
            self._anchored_seq = max(self._anchored_seq, seq)
            self._anchored_at = self._clock()
        log.info("journal_anchor", table=self.table, journal_id=self.journal_id, seq=seq, head=digest,
                 reason=reason, **({"mac": anchor["mac"]} if "mac" in anchor else {}))
        if self._sink is not None:
            try:
                self._sink(anchor)
            except Exception:
                log.exception("journal_anchor_not_handed_over")
        return anchor
