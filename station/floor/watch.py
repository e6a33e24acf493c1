"""``station floor watch``: the pit's and the technician's view of many tables at once.

Subscribes to ``<prefix>/+/#`` on the floor's broker and keeps, per table, what its messages
say: online or offline (the retained status and the last will), the state and expectation
(the retained state), the shoe and round, the last result and the faults. Each change gives
one line per table (or one JSON object with ``--json``); on a terminal the lines are redrawn
in place. Anchors can be written to a file as they come (``--anchors-out``), ready for
``station journal verify --anchors``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class WatchedTable:
    """What the feed has said about one table."""

    table: str
    status: str = "?"
    state: str = "?"
    expectation: str = ""
    shoe: int = 0
    round_id: str | None = None
    last_result: str = ""
    last_round_seq: int = 0
    faults: dict[str, str] = field(default_factory=dict)
    irregularity: str = ""
    journal_id: str = ""
    seq: int = 0
    rounds_seen: int = 0
    events_seen: int = 0
    gaps: int = 0
    anchor_seq: int = 0
    _next: dict[str, int] = field(default_factory=dict, repr=False)

    def line(self) -> str:
        faults = ", ".join(f"{d}: {r}" for d, r in sorted(self.faults.items())) or "-"
        words = [f"{self.table:<14}", f"{self.status:<8}", f"{self.state:<12}",
                 f"shoe {self.shoe:<3}", f"round {self.round_id or '-':<7}", f"last {self.last_result or '-':<24}",
                 f"faults {faults}"]
        if self.irregularity:
            words.append(f"IRREGULARITY {self.irregularity}")
        if self.gaps:
            words.append(f"GAPS {self.gaps}")
        return "  ".join(words).rstrip()

    def to_json(self) -> dict[str, Any]:
        body = asdict(self)
        body.pop("_next")
        return body


def _result_words(message: dict[str, Any]) -> str:
    """A round message in a few words: ``3-12 banker 7-5`` / ``3-12 void``."""
    if message.get("status") == "voided":
        return f"{message.get('round_id')} void"
    totals = message.get("totals") or {}
    if message.get("game") == "baccarat":
        score = f" {totals.get('banker', '?')}-{totals.get('player', '?')}" if totals else ""
        return f"{message.get('round_id')} {message.get('outcome')}{score}"
    return f"{message.get('round_id')} {message.get('outcome')}"


class FloorView:
    """Every table heard of, updated message by message."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix.rstrip("/")
        self.tables: dict[str, WatchedTable] = {}

    def split(self, topic: str) -> tuple[str, str] | None:
        """(table, kind) of a feed topic, or None for a topic outside the feed."""
        if not topic.startswith(self.prefix + "/"):
            return None
        rest = topic[len(self.prefix) + 1:].split("/")
        if len(rest) != 2:
            return None
        return rest[0], rest[1]

    def update(self, topic: str, payload: bytes | bytearray) -> WatchedTable | None:
        """Take one message; the table's view when it changed what the line says."""
        where = self.split(topic)
        if where is None:
            return None
        table, kind = where
        try:
            message = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(message, dict):
            return None
        return self.take(table, kind, message)

    def take(self, table: str, kind: str, message: dict[str, Any]) -> WatchedTable | None:
        """Take one message already parsed (the pit page parses each message once)."""
        view = self.tables.setdefault(table, WatchedTable(table))
        before = view.line()
        if message.get("journal_id") and message["journal_id"] != view.journal_id:
            view.journal_id = str(message["journal_id"])
            view._next = {}
        if kind == "status":
            view.status = str(message.get("status", "?"))
        elif kind == "state":
            view.state = str(message.get("state", "?"))
            view.expectation = str(message.get("expectation", ""))
            view.shoe = int(message.get("shoe") or 0)
            view.round_id = message.get("round_id")
            view.faults = dict(message.get("faulted") or {})
            irregularity = message.get("irregularity")
            view.irregularity = irregularity.get("reason", "") if isinstance(irregularity, dict) else ""
            view.seq = max(view.seq, int(message.get("seq") or 0))
            last = message.get("last_result")
            if isinstance(last, dict) and not view.last_result:
                view.last_result = f"{last.get('round_id')} {last.get('outcome')}"
        elif kind in ("round", "event"):
            self._count(view, kind, message)
            if kind == "round" and int(message.get("seq") or 0) >= view.last_round_seq:
                view.last_round_seq = int(message.get("seq") or 0)
                view.last_result = _result_words(message)
            elif kind == "event":
                self._event(view, message)
        elif kind == "anchor":
            view.anchor_seq = max(view.anchor_seq, int(message.get("seq") or 0))
        return view if view.line() != before or kind == "state" else None

    @staticmethod
    def _count(view: WatchedTable, kind: str, message: dict[str, Any]) -> None:
        """Count messages and gaps by ``n`` (a repeat, with an ``n`` already seen, is not counted)."""
        n = message.get("n")
        if not isinstance(n, int):
            return
        expected = view._next.get(kind)
        if expected is not None and n < expected:
            return  # a repeat
        if expected is not None and n > expected:
            view.gaps += n - expected
        view._next[kind] = n + 1
        if kind == "round":
            view.rounds_seen += 1
        else:
            view.events_seen += 1

    @staticmethod
    def _event(view: WatchedTable, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "device_fault":
            view.faults[str(message.get("device"))] = str(message.get("reason", ""))
        elif kind == "device_recovered":
            view.faults.pop(str(message.get("device")), None)
        elif kind == "irregularity":
            view.irregularity = str(message.get("reason", ""))
        elif kind == "decision":
            view.irregularity = ""
        elif kind == "shoe_start":
            view.shoe = int(message.get("shoe_number") or view.shoe)
