"""Rounds this hour, counted by the feed's numbers rather than by the messages heard.

Every round message carries ``n``, its number among the journal's rounds (1, 2, 3, ... with
no gap). So the rounds a table dealt in the current clock hour are the ``n`` of its newest
round less the ``n`` of its last round before the hour began: exact even when the page missed
a message (a gap counts, since the round was dealt) or heard one twice (a repeat has an
``n`` already seen). A round counts in the hour of its journal time, whatever the moment it
arrives (a backlog after an outage lands in the right hour). Only rounds missed across the
top of the hour are uncertain: when they were dealt cannot be known, and they count in the new
hour (the broker's persistent session makes such a gap rare).

What cannot be known is said: when the first round the page hears of a table in this hour is
not the journal's first (the page started, or first heard the table, mid-hour), the rounds
before it are unknown, and the count is marked partial, *since* that round's time. A new
journal (the table's configuration changed) starts ``n`` again at 1: the rounds of the old
one in this hour are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo


def hour_start(now: float, tz: ZoneInfo) -> float:
    """The epoch second the local clock hour containing ``now`` began (a 30-minute zone's
    hours begin at :30 UTC; on a daylight-saving change each local hour is its own)."""
    local = datetime.fromtimestamp(now, tz)
    return local.replace(minute=0, second=0, microsecond=0).timestamp()


@dataclass
class HourCount:
    """One table's rounds in the hour that began at ``start`` (epoch seconds)."""

    start: float
    base: tuple[str, int] | None = None
    """(journal id, n) of the table's last round before the hour (n 0: none in that journal)."""
    last: tuple[str, int] | None = None
    """(journal id, n) of the newest round heard."""
    closed: int = 0
    """Rounds of earlier journals within this hour."""
    since: float | None = None
    """When the count is partial: the journal time (epoch) it counts from."""

    def add(self, journal_id: str, n: int, at: float) -> bool:
        """Take a round numbered ``n`` of ``journal_id`` with journal time ``at``; whether the
        count (or what it is counted from) changed. Repeats and older rounds change nothing."""
        last = self.last
        if last is not None and journal_id == last[0] and n <= last[1]:
            return False
        if at < self.start:
            # Before the hour (a late one, or the table's last of the previous hour): counting starts after it.
            self.base = self.last = (journal_id, n)
            self.closed, self.since = 0, None
            return True
        if last is None or self.base is None:
            self.base = (journal_id, n - 1)
            if n > 1:
                self.since = at
        elif journal_id != last[0]:
            if self.base[0] == last[0]:
                self.closed += last[1] - self.base[1]
            self.base = (journal_id, n - 1)
            if n > 1 and self.since is None:
                self.since = at
        self.last = (journal_id, n)
        return True

    def roll(self, start: float) -> None:
        """A new hour: its count starts from the newest round heard, and is whole."""
        self.start = start
        self.base = self.last
        self.closed, self.since = 0, None

    @property
    def count(self) -> int:
        if self.last is None or self.base is None:
            return self.closed
        current = self.last[1] - self.base[1] if self.base[0] == self.last[0] else 0
        return self.closed + current
