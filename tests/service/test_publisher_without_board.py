"""A table without a results display board: the publisher's worker sleeps until there is
something to show. Its roads were counted due though no board would ever take them, so from
the start-up's announcement on, the worker woke without waiting, round after round, holding
the interpreter: every other thread of the station (the core loop, the chip reader's clock,
the console's feed) then waited for it in steps of the interpreter's switch interval."""

from __future__ import annotations

import time

from station.core import outputs as out
from station.service.publisher import Publisher
from station.web import Snapshot, TableInfo


class CountingPublisher(Publisher):
    """The real publisher, counting how often its worker brings things up to date."""

    flushes = 0

    def _flush(self, force: bool = False) -> None:
        self.flushes += 1
        super()._flush(force)


class Page:
    def __init__(self) -> None:
        self.snapshots: list[Snapshot] = []

    def publish(self, snapshot: Snapshot) -> object:
        self.snapshots.append(snapshot)
        return None


def test_without_a_board_the_worker_sleeps_between_outputs() -> None:
    page = Page()
    publisher = CountingPublisher("baccarat", None, web=page, table_info=TableInfo("T", currency="EUR", decimals=2))
    publisher.start()  # announces: roads, board and page all to be brought up to date
    try:
        publisher.on_output(out.ShoeStarted(1, None, ()))
        assert publisher.wait_idle()
        time.sleep(0.5)  # longer than every interval of the publisher: whatever was held back is out
        assert publisher.wait_idle()
        settled = publisher.flushes
        time.sleep(0.5)
        assert publisher.wait_idle()
        # Idle, the worker wakes for nothing: one flush for the marker just queued, not thousands.
        assert publisher.flushes - settled <= 2, publisher.flushes - settled
        assert page.snapshots  # the page was still published to
    finally:
        publisher.stop()
