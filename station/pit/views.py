"""The picture protocol: each view whole once, then only what changed (docs/pit.md, version 2).

A floor of 1,000 tables changes a few tables at a time. Sending every viewer the whole board
five times a second cost the server its encoding and every screen a parse of 1,000 tiles it
mostly did not show. Here each *view* (the floor as its pits, one pit's tables, every table)
keeps what its viewers were last sent, and each picture gives it a *delta*: only the tiles,
pit summaries and directory entries that changed, numbered ``base`` → ``version``. Each delta
is encoded once per view and written to its viewers alike; a viewer of pit A is never sent
another pit's table (the server filters, not the page).

A view keeps its last :data:`RING` deltas, so a stream that fell behind (a slow kiosk) is sent
what it missed in one write; one further behind gets the view's whole picture, encoded once
per version. A page that sees a delta whose ``base`` is not the version it holds opens its
stream again, which always begins with a whole picture. Views are made when a first viewer
asks and dropped with the last, so a pit nobody watches costs nothing.

No asyncio and no clock here: :class:`Views` is driven by the service's picture loop, and
tests drive it with a board and any sequence of messages.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from station.pit.board import PitBoard, PitTable, pit_totals
from station.pit.overview import counts, directory_entry, pit_summary

#: Deltas a view keeps for viewers that fell behind; further behind, a whole picture.
RING = 256
#: The protocol's version (docs/pit.md; version 1 sent the whole board every time).
PROTOCOL = 2
#: A pit's name in a viewer's address is at most this long (``[floor] pit``'s own limit).
PIT_NAME_MAX = 40


@dataclass(frozen=True)
class ViewKey:
    """Which view: ``floor`` (the pits), ``pit`` (one pit's tables, ``pit`` its name), ``all``."""

    kind: str
    pit: str | None = None

    @classmethod
    def parse(cls, query: dict[str, str]) -> ViewKey:
        """The view an address asks for (``?pit=A``, ``?all=1``, nothing: the floor); a pit
        name too long to be one raises ValueError."""
        pit = query.get("pit", "")
        if len(pit) > PIT_NAME_MAX:
            raise ValueError(f"a pit's name is at most {PIT_NAME_MAX} characters")
        if pit:
            return cls("pit", pit)
        return cls("all") if query.get("all") not in (None, "", "0") else cls("floor")


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _array(encoded: Iterable[bytes]) -> bytes:
    return b"[" + b",".join(encoded) + b"]"


def sse(event: str, data: bytes) -> bytes:
    """One Server-Sent Event (JSON has no raw newline, so one ``data:`` line)."""
    return b"event: " + event.encode() + b"\ndata: " + data + b"\n\n"


@dataclass
class PitView:
    """One view's current picture, as encoded parts, and its recent deltas."""

    key: ViewKey
    version: int
    parts: dict[str, bytes] = field(default_factory=dict)
    """Tables (pit and all views: table id → tile) or pits (floor: pit → summary) as sent."""
    directory: dict[str, bytes] = field(default_factory=dict)
    """The floor's directory as sent: table id → entry."""
    order: list[str] = field(default_factory=list)
    head: bytes = b"{}"
    viewers: int = 0
    deltas: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=RING))
    """(base, the event) of the latest deltas, oldest first."""
    _whole: tuple[int, bytes] | None = None

    def _frame(self) -> bytes:
        return b'"v":%d,"view":%s,"pit":%s' % (PROTOCOL, _json(self.key.kind), _json(self.key.pit))

    def whole(self) -> bytes:
        """The view as it is now, one ``whole`` event (encoded once per version)."""
        if self._whole is None or self._whole[0] != self.version:
            if self.key.kind == "floor":
                body = b',"pits":%s,"directory":%s' % (_array(self.parts[p] for p in self.order),
                                                        _array(self.directory.values()))
            else:
                body = b',"tables":%s' % _array(self.parts[t] for t in self.order)
            data = b'{%s,"version":%d,"head":%s%s}' % (self._frame(), self.version, self.head, body)
            self._whole = (self.version, sse("whole", data))
        return self._whole[1]

    def since(self, seen: int) -> bytes:
        """What a viewer that holds version ``seen`` needs: the deltas after it, or the whole."""
        if seen == self.version:
            return b""
        missed = [event for base, event in self.deltas if base >= seen]
        if missed and self.deltas[-len(missed)][0] == seen:
            return b"".join(missed)
        return self.whole()

    def add_delta(self, version: int, body: bytes) -> None:
        data = b'{%s,"base":%d,"version":%d%s}' % (self._frame(), self.version, version, body)
        self.deltas.append((self.version, sse("delta", data)))
        self.version = version


class Views:
    """Every view with a viewer, kept up to date from ``board`` (see the module).

    ``head`` gives what every view's head shares (title, zone, hour, broker, pits,
    page_seconds); each view adds its own counts and pit totals."""

    def __init__(self, board: PitBoard, head: Callable[[], dict[str, Any]]) -> None:
        self.board = board
        self.shared_head = head
        self.views: dict[ViewKey, PitView] = {}
        self.number = 0
        """The picture number: every view's versions are drawn from it, so they only grow."""
        self._tiles: dict[str, tuple[int, bytes]] = {}

    # --- viewers -------------------------------------------------------------------------

    def subscribe(self, key: ViewKey) -> PitView:
        view = self.views.get(key)
        if view is None:
            view = self.views[key] = PitView(key, self.number)
            self._update(view, None, self.shared_head(), _Floor(self.board.shown()))
            view.deltas.clear()  # a new view's first picture is its whole, not a delta
            view.version = self.number
        view.viewers += 1
        return view

    def unsubscribe(self, view: PitView) -> None:
        view.viewers -= 1
        if view.viewers <= 0 and self.views.get(view.key) is view:
            del self.views[view.key]

    # --- pictures ------------------------------------------------------------------------

    def refresh(self, changed: set[str] | None) -> list[PitView]:
        """A new picture: ``changed`` the tables whose tiles changed since the last (None:
        any may have, as at the top of the hour). The views that changed, each with a delta."""
        self.number += 1
        head, floor = self.shared_head(), _Floor(self.board.shown())
        return [view for view in list(self.views.values()) if self._update(view, changed, head, floor)]

    def _tile(self, table: PitTable) -> bytes:
        cached = self._tiles.get(table.table)
        if cached is None or cached[0] != table.version:
            cached = self._tiles[table.table] = (table.version, _json(self.board.tile(table)))
        return cached[1]

    def _update(self, view: PitView, changed: set[str] | None, shared: dict[str, Any], floor: _Floor) -> bool:
        """Bring ``view`` to the board; whether it changed (with a delta numbered ``number``)."""
        if view.key.kind == "floor":
            members = floor.tables
            body = self._floor(view, changed, floor)
        else:
            members = floor.tables if view.key.kind == "all" else floor.by_pit.get(view.key.pit or "", [])
            body = self._tables_of(view, changed, members)
        shown = [t.shown or {} for t in members]
        pits = {s.get("pit", "") for s in shown}
        head = _json({**shared, "counts": counts(shown),
                      "totals": [row for row in pit_totals(shown) if row["pit"] in pits]})
        if head != view.head:
            view.head = head
            body = b',"head":%s' % head + body
        if not body:
            return False
        view.add_delta(self.number, body)
        return True

    def _order(self, view: PitView, order: list[str]) -> bytes:
        if order == view.order:
            return b""
        view.order = order
        return b',"order":%s' % _json(order)

    def _tables_of(self, view: PitView, changed: set[str] | None, members: list[PitTable]) -> bytes:
        """A pit's or every table's delta: changed tiles, tables gone, the order."""
        ids = {t.table for t in members}
        removed = [table for table in view.parts if table not in ids]
        for table in removed:
            del view.parts[table]
        tiles = []
        for t in members:
            if changed is None or t.table in changed or t.table not in view.parts:
                encoded = self._tile(t)
                if view.parts.get(t.table) != encoded:
                    view.parts[t.table] = encoded
                    tiles.append(encoded)
        body = b""
        if tiles:
            body += b',"tables":%s' % _array(tiles)
        if removed:
            body += b',"removed":%s' % _json(removed)
        return body + self._order(view, [t.table for t in members])

    def _floor(self, view: PitView, changed: set[str] | None, floor: _Floor) -> bytes:
        """The floor's delta: the pits whose summaries changed, the directory's changed
        entries, pits and tables gone. Every pit's summary is made again when any table
        changed (a table may have moved from one pit to another): 40 small sums, and only
        those that differ are sent."""
        pits_removed = [pit for pit in view.parts if pit not in floor.by_pit]
        for pit in pits_removed:
            del view.parts[pit]
        summaries = []
        if changed is None or changed or len(view.parts) != len(floor.by_pit):
            for pit, members in floor.by_pit.items():
                encoded = _json(pit_summary(pit, [t.shown or {} for t in members]))
                if view.parts.get(pit) != encoded:
                    view.parts[pit] = encoded
                    summaries.append(encoded)
        entries, ids = [], set()
        for t in floor.tables:
            ids.add(t.table)
            if changed is None or t.table in changed or t.table not in view.directory:
                encoded = _json(directory_entry(t.shown or {}))
                if view.directory.get(t.table) != encoded:
                    view.directory[t.table] = encoded
                    entries.append(encoded)
        gone = [table for table in view.directory if table not in ids]
        for table in gone:
            del view.directory[table]
        body = b""
        if summaries:
            body += b',"pits":%s' % _array(summaries)
        if pits_removed:
            body += b',"pits_removed":%s' % _json(pits_removed)
        if entries:
            body += b',"directory":%s' % _array(entries)
        if gone:
            body += b',"directory_removed":%s' % _json(gone)
        return body + self._order(view, list(floor.by_pit))


class _Floor:
    """The board's shown tables once per picture: in order, and grouped by pit (in order)."""

    def __init__(self, tables: list[PitTable]) -> None:
        self.tables = tables
        self.by_pit: dict[str, list[PitTable]] = {}
        for t in tables:
            self.by_pit.setdefault(t.pit, []).append(t)
