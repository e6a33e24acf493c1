"""Live web scoreboard for tables that show results on an HDMI screen instead of an LED board.

:class:`ScoreboardServer` serves a static page (no CDN, no build step) and pushes each
:class:`Snapshot` to it by Server-Sent Events. docs/web-scoreboard.md explains the design.
"""

from station.web.server import ScoreboardServer
from station.web.snapshot import (
    TABLE_STATES,
    Limit,
    Snapshot,
    SnapshotError,
    TableInfo,
    check_state,
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
    "round_result_dict",
]
