"""The floor as its pits: one summary per pit and a directory of tables, from the tiles.

A floor of 1,000 tables cannot be read as 1,000 tiles: the floor's view (docs/pit.md) shows
one tile per pit, which is what a floor manager looks at first (how many tables are open,
which need a person now, what the pit has dropped and won), and a directory to find one table
by its name. Both are computed here from the board's tiles, so they say exactly what the
tables' tiles say; the picture protocol (:mod:`station.pit.views`) sends a pit's summary
again only when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Alarm levels, worst first; ``ok`` is a table with nothing open.
LEVEL_ORDER = ("alarm", "warning", "closed", "ok")


def worst_level(tile: dict[str, Any]) -> str:
    """The worst level among a tile's alarms (``ok`` when it has none)."""
    levels = {alarm["level"] for alarm in tile["alarms"]}
    return next((level for level in LEVEL_ORDER if level in levels), "ok")


def directory_entry(tile: dict[str, Any]) -> dict[str, Any]:
    """What the floor's directory says of one table: enough to find it and to go to its pit."""
    last = tile.get("last") or {}
    return {"table": tile["table"], "pit": tile["pit"], "number": tile["number"], "status": tile["status"],
            "level": worst_level(tile), "round": str(last.get("round_id") or "")}


def _need(tile: dict[str, Any]) -> dict[str, str] | None:
    """Why a table needs a person now (its worst alarm, an offline or closed station), or None."""
    if not tile["alarms"]:
        return None
    worst = tile["alarms"][0]  # the board sorts them worst first
    return {"table": tile["table"], "level": worst["level"], "label": worst["label"]}


def pit_summary(pit: str, tiles: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One pit's tile on the floor's view (the fields are listed in docs/pit.md)."""
    members = list(tiles)
    levels = [worst_level(t) for t in members]
    order = {level: index for index, level in enumerate(LEVEL_ORDER)}
    needs = sorted((n for n in map(_need, members) if n is not None),
                   key=lambda n: order[n["level"]])  # stable: the pit's order within a level
    currencies = {t["currency"] for t in members}
    one = len(currencies) == 1
    drop = sum(t["drop"] or 0 for t in members)
    win = sum(t["win"] or 0 for t in members)
    return {
        "pit": pit, "tables": len(members),
        "online": sum(t["status"] == "online" for t in members),
        "offline": sum(t["status"] == "offline" for t in members),
        "open": sum(t["status"] == "online" and t["open"] is not False for t in members),
        "closed": sum(t["open"] is False for t in members),
        "alarms": levels.count("alarm"), "warnings": levels.count("warning"),
        "hour_rounds": sum(t["hour_rounds"] for t in members),
        "partial": any(t["hour_since"] is not None for t in members),
        "needs": needs,
        "kept": any(t["open"] is not None for t in members),
        "drop": drop if one else None, "win": win if one else None,
        "hold_percent": round(win * 100 / drop, 1) if one and drop else None,
        "currency": next(iter(currencies)) if one else None,
        "digits": members[0]["digits"] if members else 2,
    }


def counts(tiles: Iterable[dict[str, Any]]) -> dict[str, int]:
    """The header's counts of a view: tables, online, offline, with a red alarm."""
    members = list(tiles)
    return {"tables": len(members), "online": sum(t["status"] == "online" for t in members),
            "offline": sum(t["status"] == "offline" for t in members),
            "alarms": sum(worst_level(t) == "alarm" for t in members)}
