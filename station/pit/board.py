"""What the pit page knows of every table, from the floor feed's messages alone.

The page reads only the broker: each station publishes its table (docs/floor.md), and this
board keeps, per table, what its messages say. The common part (online or not, the state,
shoe and round, the faults and the irregularity) is :class:`station.floor.watch.FloorView`'s,
the same reading ``station floor watch`` prints; the board adds what a pit manager looks for
on a tile:

* where the table stands: ``pit`` and ``number`` from its retained status ([floor] pit and
  number), the page's order;
* the last result as the players saw it (winner, points, natural and pairs; a void round);
* rounds this hour (:mod:`station.pit.hour`);
* every open alarm in one list, worst first: the station offline (its last will, or an
  orderly stop), the round stopped (the irregularity), integrity alarms and alerts until a
  supervisor acknowledges them, device faults, a pause;
* the dealer, once the feed carries one (``dealer`` in a state or round message: dealer
  sessions are not on the feed yet; the tile keeps a line for it and shows a dash meanwhile).

A message that is not the feed's (not JSON, another version, a table or kind that does not
match its topic) is refused: counted by reason, never shown. No clock of its own: the caller
says what time it is, so the board is the same for the same messages.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from station.floor.watch import FloorView, WatchedTable
from station.localtime import parse_journal_time
from station.pit.hour import HourCount, hour_start
from station.pit.overview import counts

#: The payload version the board reads (docs/floor.md: a consumer refuses one it does not know).
PAYLOAD_VERSION = 1
#: The message kinds the page takes (anchors are for auditors, not screens).
KINDS = ("status", "state", "round", "event")
#: Alarm levels, worst first: red, amber, grey.
LEVELS = ("alarm", "warning", "closed")


def _epoch(journal_time: object) -> float | None:
    if not isinstance(journal_time, str) or not journal_time:
        return None
    try:
        return parse_journal_time(journal_time).timestamp()
    except ValueError:
        return None


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def pit_order(pit: str) -> tuple[Any, ...]:
    """How pits are ordered on every view: as people count ("Pit 2" before "Pit 10", "A"
    before "b" before "C"), the tables without a pit last."""
    parts = tuple((0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
                  for part in re.split(r"(\d+)", pit) if part)
    return (pit == "", parts, pit)


def _words(code: str) -> str:
    return code.replace("_", " ").strip()


def _limit_pair(limits: dict[str, Any]) -> tuple[int, int] | None:
    low, high = limits.get("min_bet"), limits.get("max_bet")
    return (low, high) if isinstance(low, int) and isinstance(high, int) else None


def _money_of(tile: PitTable, message: dict[str, Any]) -> None:
    """What a retained state says of the table's money: limits, tray, ratings, currency."""
    if isinstance(message.get("limits"), dict):
        tile.limits = _limit_pair(message["limits"]) or tile.limits
    if "tray" in message:
        tray = message["tray"]
        tile.tray = dict(tray) if isinstance(tray, dict) else None
    if isinstance(message.get("rated"), list):
        tile.rated = {str(card) for card in message["rated"]}
    tile.currency = str(message.get("currency") or "")
    digits = message.get("minor_digits")
    tile.digits = digits if isinstance(digits, int) and not isinstance(digits, bool) else tile.digits


def money_of_tile(tile: PitTable) -> dict[str, Any]:
    """The money a tile shows (docs/pit.md): open or closed by the tray, limits, drop, win (by
    inventory once reconciled, else the rounds' result so far), hold, average bet this hour,
    players rated; amounts in minor units with the digits to write them."""
    tray = tile.tray
    drop = tray["drop"] if tray else None
    win = (tray["win"] if tray["win"] is not None else tray["house"]) if tray else None
    return {
        "open": None if tray is None else bool(tray["open"]),
        "limits": list(tile.limits) if tile.limits else None,
        "drop": drop, "win": win, "win_by": None if tray is None else ("inventory" if tray["win"] is not None
                                                                        else "rounds"),
        "hold_percent": round(win * 100 / drop, 1) if drop and win is not None else None,
        "house": tray["house"] if tray else None, "variance": tray["variance"] if tray else None,
        "average_bet": tile.hour_stakes // tile.hour_bets if tile.hour_bets else None,
        "rated": len(tile.rated), "currency": tile.currency, "digits": tile.digits,
    }


def _dealer(message: dict[str, Any]) -> str | None:
    """The dealer a message names (``"dealer": "Ana"`` or ``{"name": "Ana", ...}``), or None."""
    dealer = message.get("dealer")
    if isinstance(dealer, dict):
        dealer = dealer.get("name")
    return dealer if isinstance(dealer, str) and dealer else None


def _result(message: dict[str, Any]) -> dict[str, Any]:
    """A round message as its tile shows it."""
    given = message.get("totals")
    totals: dict[str, Any] = given if isinstance(given, dict) else {}
    voided = message.get("status") == "voided"
    return {
        "round_id": str(message.get("round_id") or ""), "game": str(message.get("game") or ""),
        "outcome": "void" if voided else str(message.get("outcome") or ""),
        "banker": totals.get("banker"), "player": totals.get("player"),
        "natural": bool(message.get("natural")), "player_pair": bool(message.get("player_pair")),
        "banker_pair": bool(message.get("banker_pair")), "time": str(message.get("time") or ""),
    }


def _state_result(last: dict[str, Any], game: str) -> dict[str, Any]:
    """The retained state's ``last_result`` (what a page that started late knows first)."""
    return {
        "round_id": str(last.get("round_id") or ""), "game": game, "outcome": str(last.get("outcome") or ""),
        "banker": last.get("banker_total"), "player": last.get("player_total"),
        "natural": bool(last.get("natural")), "player_pair": bool(last.get("player_pair")),
        "banker_pair": bool(last.get("banker_pair")), "time": "",
    }


@dataclass
class PitTable:
    """The board's own part of one table (the rest is its :class:`WatchedTable`)."""

    table: str
    hour: HourCount
    pit: str = ""
    number: int = 0
    game: str = ""
    status_reason: str = ""
    status_time: str = ""
    offline_since: str = ""
    software: str = ""
    paused_by: dict[str, Any] | None = None
    irregularity_detail: str = ""
    last: dict[str, Any] | None = None
    last_at: tuple[str, int] = ("", 0)
    """(journal id, seq) of the message the last result came from: a newer one replaces it."""
    dealer: str | None = None
    alerts: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    limits: tuple[int, int] | None = None
    """The table minimum and maximum in force (docs/limits.md)."""
    tray: dict[str, Any] | None = None
    """The chip tray's last opening as the retained state says it (docs/tray.md)."""
    rated: set[str] = field(default_factory=set)
    """The cards of the players rated now (docs/ratings.md)."""
    currency: str = ""
    digits: int = 2
    hour_stakes: int = 0
    hour_bets: int = 0
    """Stakes and bets of the rounds heard this hour: the average bet."""
    shown: dict[str, Any] | None = None
    """What the tile shows (without its version), to tell a change from a message that changes nothing."""
    version: int = 0


class PitBoard:
    """Every table heard of on ``<prefix>/+/…``, in the pit's time zone ``tz``; ``pits``
    (when given) keeps the page to those pits' tables."""

    def __init__(self, prefix: str, tz: ZoneInfo, *, pits: tuple[str, ...] | list[str] = (), now: float) -> None:
        self.floor = FloorView(prefix)
        self.tz = tz
        self.pits = tuple(pits)
        self.hour = hour_start(now, tz)
        self.tables: dict[str, PitTable] = {}
        self.refused: Counter[str] = Counter()
        self.version = 0

    # --- taking messages ---------------------------------------------------------------

    def take(self, topic: str, payload: bytes | bytearray, received: float | None = None) -> str | None:
        """Take one message: the table's id when what its tile shows changed, else None.
        ``received`` is when it came, for a message published just now (not a retained one,
        which may be old): an offline status says since when. A message that is not the
        feed's is counted in :attr:`refused` by reason."""
        where = self.floor.split(topic)
        if where is None or where[1] not in KINDS:
            return None
        table, kind = where
        try:
            message = json.loads(payload)
        except (ValueError, UnicodeDecodeError):
            message = None
        problem = self._problem(table, kind, message)
        if problem is not None:
            self.refused[problem] += 1
            return None
        assert isinstance(message, dict)
        tile = self.tables.get(table)
        if tile is None:
            tile = self.tables[table] = PitTable(table, HourCount(self.hour))
        self.floor.take(table, kind, message)
        if kind == "status":
            self._status(tile, message, received)
        else:
            getattr(self, f"_{kind}")(tile, message)
        # Most messages change nothing a person sees (a card dealt: the table still "dealing"):
        # only a tile that looks different is drawn again.
        shown = self._tile(tile)
        if shown == tile.shown:
            return None
        tile.shown = shown
        tile.version += 1
        self.version += 1
        return table

    @staticmethod
    def _problem(table: str, kind: str, message: object) -> str | None:
        """Why a message is not the feed's, or None."""
        if message is None:
            return "not JSON"
        if not isinstance(message, dict):
            return "not a JSON object"
        if message.get("v") != PAYLOAD_VERSION:
            return f"payload version {message.get('v')!r}"
        if message.get("kind") != kind or message.get("table") != table:
            return "kind or table differs from the topic"
        return None

    def _status(self, tile: PitTable, message: dict[str, Any], received: float | None) -> None:
        tile.status_reason = str(message.get("reason") or "")
        # An orderly stop is said when it happens; the last will was written at the connection,
        # so its moment is when the broker sent it on (known only when it came live).
        if message.get("status") == "offline" and tile.status_reason == "stopped":
            tile.offline_since = str(message.get("time") or "")
        elif message.get("status") == "offline":
            tile.offline_since = _iso(received) if received is not None else ""
        else:
            tile.offline_since = ""
        tile.status_time = str(message.get("time") or "")
        tile.software = str(message.get("software") or "")
        pit, number = message.get("pit"), message.get("number")
        tile.pit = pit if isinstance(pit, str) else ""
        tile.number = number if isinstance(number, int) and not isinstance(number, bool) else 0

    def _state(self, tile: PitTable, message: dict[str, Any]) -> None:
        tile.game = str(message.get("game") or tile.game)
        paused = message.get("paused_by")
        tile.paused_by = paused if isinstance(paused, dict) and paused else None
        irregularity = message.get("irregularity")
        tile.irregularity_detail = str(irregularity.get("detail", "")) if isinstance(irregularity, dict) else ""
        tile.dealer = _dealer(message) or tile.dealer
        _money_of(tile, message)
        last, at = message.get("last_result"), (str(message.get("journal_id") or ""), int(message.get("seq") or 0))
        if isinstance(last, dict) and self._newer(tile, at, strictly=True) and (
                tile.last is None or tile.last["round_id"] != last.get("round_id")):
            tile.last, tile.last_at = _state_result(last, tile.game), at

    @staticmethod
    def _newer(tile: PitTable, at: tuple[str, int], *, strictly: bool) -> bool:
        """Whether a message at (journal id, seq) is newer than the tile's last result's
        (any message of another journal is: the table's journal was replaced)."""
        if at[0] != tile.last_at[0]:
            return True
        return at[1] > tile.last_at[1] if strictly else at[1] >= tile.last_at[1]

    def _round(self, tile: PitTable, message: dict[str, Any]) -> None:
        n, at = message.get("n"), _epoch(message.get("time"))
        journal_id = str(message.get("journal_id") or "")
        if isinstance(n, int) and at is not None and tile.hour.add(journal_id, n, at) and at >= tile.hour.start:
            bets = [bet for bet in message.get("bets") or () if isinstance(bet, dict)]
            tile.hour_stakes += sum(int(bet.get("stake") or bet.get("amount") or 0) for bet in bets)
            tile.hour_bets += len(bets)
        if isinstance(message.get("limits"), dict):
            tile.limits = _limit_pair(message["limits"]) or tile.limits
        where = (journal_id, int(message.get("seq") or 0))
        if self._newer(tile, where, strictly=False):
            tile.last, tile.last_at = _result(message), where
            tile.game = tile.last["game"] or tile.game
        tile.dealer = _dealer(message) or tile.dealer

    def _event(self, tile: PitTable, message: dict[str, Any]) -> None:
        """Alerts open until acknowledged; the irregularity's words. (Faults and the
        irregularity itself are the FloorView's.)"""
        kind = message.get("type")
        journal_id = str(message.get("journal_id") or "")
        if kind == "integrity_alert" and isinstance(message.get("ident"), int):
            tile.alerts[(journal_id, message["ident"])] = {
                "code": str(message.get("code") or ""), "severity": str(message.get("severity") or "alert"),
                "detail": str(message.get("detail") or ""), "time": str(message.get("time") or ""),
                "stopped": bool(message.get("stopped"))}
        elif kind == "alert_acknowledged" and isinstance(message.get("ident"), int):
            tile.alerts.pop((journal_id, message["ident"]), None)
        elif kind == "irregularity":
            tile.irregularity_detail = str(message.get("detail") or "")
        elif kind == "limits_applied" and isinstance(message.get("limits"), dict):
            tile.limits = _limit_pair(message["limits"]) or tile.limits
        elif kind == "rating_started":
            tile.rated.add(str(message.get("card") or ""))
        elif kind == "rating":
            tile.rated.discard(str(message.get("card") or ""))

    # --- the clock -----------------------------------------------------------------------

    def tick(self, now: float) -> bool:
        """Roll the hour when the pit's clock has passed into the next one; whether it did."""
        start = hour_start(now, self.tz)
        if start == self.hour:
            return False
        self.hour = start
        for tile in self.tables.values():
            tile.hour.roll(start)
            tile.hour_stakes = tile.hour_bets = 0
            tile.shown = self._tile(tile)
            tile.version += 1
        self.version += 1
        return True

    # --- the picture -----------------------------------------------------------------------

    def alarms(self, tile: PitTable, watched: WatchedTable) -> list[dict[str, str]]:
        """What the tile shows in colour, worst first: level, a short label, the detail."""
        found: list[dict[str, str]] = []
        if watched.status == "offline":
            lost = tile.status_reason != "stopped"
            found.append({"level": "alarm" if lost else "closed", "code": "offline",
                          "label": "LINK LOST" if lost else "SHUT DOWN", "since": tile.offline_since,
                          "detail": "connection lost: the station or its link died" if lost else "station stopped"})
        elif watched.status == "?":
            found.append({"level": "warning", "code": "no_status", "label": "NO STATUS", "since": "",
                          "detail": "the station has not said it is online"})
        # A round stopped by an integrity alarm shows as that alarm (the state says "irregularity").
        stopped_by_alarm = watched.irregularity == "integrity_alarm" and any(
            a["stopped"] and a["severity"] == "alarm" for a in tile.alerts.values())
        if watched.irregularity and not stopped_by_alarm:
            found.append({"level": "alarm", "code": "irregularity", "label": _words(watched.irregularity).upper(),
                          "since": "", "detail": tile.irregularity_detail})
        for alert in sorted(tile.alerts.values(), key=lambda a: (a["severity"] != "alarm", a["time"])):
            alarm = alert["severity"] == "alarm"
            found.append({"level": "alarm" if alarm else "warning", "code": f"integrity_{alert['code']}",
                          "label": _words(alert["code"]).upper(),
                          "since": alert["time"], "detail": alert["detail"]})
        for device, reason in sorted(watched.faults.items()):
            found.append({"level": "alarm", "code": f"fault_{device}", "label": f"{device.upper()} FAULT",
                          "since": "", "detail": reason})
        if tile.paused_by is not None or watched.state == "paused":
            who = (tile.paused_by or {}).get("who") or (tile.paused_by or {}).get("role") or ""
            found.append({"level": "warning", "code": "paused", "label": "PAUSED", "since": "",
                          "detail": f"by {who}" if who else ""})
        order = {level: index for index, level in enumerate(LEVELS)}
        return sorted(found, key=lambda a: order[a["level"]])

    def tile(self, tile: PitTable) -> dict[str, Any]:
        """One tile of the picture, with its version (a page draws again only what changed)."""
        return {**(tile.shown or self._tile(tile)), "version": tile.version}

    def _tile(self, tile: PitTable) -> dict[str, Any]:
        watched = self.floor.tables[tile.table]
        since = tile.hour.since
        return {
            "table": tile.table, "pit": tile.pit, "number": tile.number,
            "status": watched.status if watched.status in ("online", "offline") else "unknown",
            "status_reason": tile.status_reason, "status_time": tile.status_time,
            "game": tile.game, "state": watched.state if watched.state != "?" else "",
            "shoe": watched.shoe, "round_id": watched.round_id, "last": tile.last, "dealer": tile.dealer,
            "hour_rounds": tile.hour.count,
            "hour_since": None if since is None else datetime.fromtimestamp(since, self.tz).strftime("%H:%M"),
            "alarms": self.alarms(tile, watched), "gaps": watched.gaps,
            **money_of_tile(tile),
        }

    def shown(self) -> list[PitTable]:
        """The tables the page shows, by pit (tables without one last), number, then id."""
        tiles = [t for t in self.tables.values() if not self.pits or t.pit in self.pits]
        return sorted(tiles, key=lambda t: (pit_order(t.pit), t.number == 0, t.number, t.table))

    def snapshot(self, now: float) -> dict[str, Any]:
        tiles = [self.tile(t) for t in self.shown()]
        hour = datetime.fromtimestamp(self.hour, self.tz)
        return {
            "v": 1, "version": self.version, "hour": hour.strftime("%H:%M"),
            "time": datetime.fromtimestamp(now, self.tz).isoformat(timespec="seconds"),
            "tables": tiles,
            "counts": counts(tiles),
            "pits": sorted({t["pit"] for t in tiles if t["pit"]}, key=pit_order),
            "pit_totals": pit_totals(tiles),
        }


def pit_totals(tiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each pit's tables open and in all, its drop and win added up, and its hold: the pit's
    total row (tables in one currency; a pit of several would need a rate, and shows none)."""
    totals: dict[str, dict[str, Any]] = {}
    for t in tiles:
        pit = totals.setdefault(t["pit"], {"pit": t["pit"], "tables": 0, "open": 0, "drop": 0, "win": 0,
                                           "currencies": set(), "digits": t["digits"]})
        pit["tables"] += 1
        pit["open"] += t["status"] == "online" and t["open"] is not False  # dealing, its tray not closed
        pit["drop"] += t["drop"] or 0
        pit["win"] += t["win"] or 0
        pit["currencies"].add(t["currency"])
    rows = []
    for pit in sorted(totals.values(), key=lambda p: pit_order(p["pit"])):
        one = len(pit.pop("currencies")) == 1
        rows.append({**pit, "drop": pit["drop"] if one else None, "win": pit["win"] if one else None,
                     "hold_percent": round(pit["win"] * 100 / pit["drop"], 1) if one and pit["drop"] else None})
    return rows
