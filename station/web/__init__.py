"""Live web scoreboard for tables that show results on an HDMI screen instead of an LED board.

:class:`~station.web.snapshot.Snapshot` is what the page shows at one moment. The station
feeds each new one to the scoreboard's own process (:class:`~station.web.feed.ScoreboardProcess`),
which serves the static page (no CDN, no build step) and pushes it by Server-Sent Events
(:mod:`station.web.server`). docs/web-scoreboard.md explains the design.

The HTTP server (and its framework, aiohttp) is imported only where it runs: importing this
package, the snapshot or the feed does not import it, so the station's own process never
loads it (``ScoreboardServer`` below is looked up on first use).
"""

from typing import Any

from station.web.snapshot import (
    TABLE_STATES,
    Limit,
    Snapshot,
    SnapshotError,
    TableInfo,
    check_state,
    encode_snapshot,
    round_result_dict,
)

__all__ = [
    "TABLE_STATES",
    "Limit",
    "ScoreboardServer",
    "Snapshot",
    "SnapshotError",
    "TableInfo",
    "check_state",
    "encode_snapshot",
    "round_result_dict",
]


def __getattr__(name: str) -> Any:
    if name == "ScoreboardServer":
        from station.web.server import ScoreboardServer

        return ScoreboardServer
    raise AttributeError(f"module 'station.web' has no attribute {name!r}")
