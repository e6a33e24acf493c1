"""The snapshot the core loop publishes for every other thread, and the one door to the machine.

Status, the console's threads and the metrics' server read where the table stands in
:attr:`CoreLoop.published` (station/core/snapshot.py), never in the machine the loop changes
under them; a part that needs more reads it with :meth:`CoreLoop.inspect` on the loop's
thread, and any other thread is refused.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from station.core.snapshot import IrregularityShown
from station.events import Actor, AlertAcknowledged, BetPlaced, DealerSignedIn, DeviceFault, IntegrityAlert

SUPERVISOR = Actor("supervisor", "sam")


def agrees(table: Any) -> None:
    """The published snapshot says what the machine says."""
    snap, machine = table.loop.published, table.machine
    assert snap.seq == table.loop.projection.seq
    assert (snap.state, snap.expecting) == (machine.state, machine.announced_expectation)
    assert (snap.shoe, snap.rounds_in_shoe, snap.dealer) == (machine.shoe.number, machine.shoe.rounds, machine.dealer)
    assert snap.round_id == (machine.round.round_id if machine.round is not None else None)
    assert dict(snap.faulted) == machine.faulted
    assert list(snap.open_alerts) == machine.open_alerts() and dict(snap.alert_counts) == machine.alert_counts
    assert (snap.confirm_payouts, snap.payout_option) == (machine.confirm_payouts, machine.payout_option)


def test_the_snapshot_follows_every_batch_of_a_round(table: Any) -> None:
    agrees(table)
    assert table.loop.published.state == "shuffling" and table.loop.published.round_id is None
    table.post(DealerSignedIn("dana", Actor("dealer", "dana"), "console"))
    table.start_shoe()
    agrees(table)
    assert table.loop.published.round_id == "1-1" and table.loop.published.round_number == 1
    table.post(BetPlaced("1", "p1", "banker", 2000))
    table.act("no_more_bets").cards("9S 2H KD 6C")  # a natural nine: settled
    agrees(table)
    assert table.loop.published.dealer == "dana"
    before = table.loop.published
    table.act("next_round")
    agrees(table)
    assert before.round_id == "1-1" and table.loop.published.round_id != "1-1"
    assert before.state != table.loop.published.state  # a new tuple: the one read earlier never changed


def test_an_irregularity_a_fault_and_an_alert_are_in_the_snapshot_until_they_end(table: Any) -> None:
    table.start_shoe()
    table.post(BetPlaced("1", "p1", "banker", 2000))
    table.act("no_more_bets").cards("9S")
    table.post(DeviceFault("shoe", "link lost", "link"))  # mid-round: the round waits for a person
    agrees(table)
    shown = table.loop.published.irregularity
    assert isinstance(shown, IrregularityShown) and shown.decisions and table.loop.published.faulted
    table.post(IntegrityAlert("composition", "alert", "a card the shoe cannot hold", "test:1", 1, ""))
    agrees(table)
    assert [a.ident for a in table.loop.published.open_alerts] == [1]
    table.post(AlertAcknowledged(1, SUPERVISOR, "seen"))
    agrees(table)
    assert table.loop.published.open_alerts == () and dict(table.loop.published.alert_counts)


def test_the_machine_is_read_on_the_loop_s_thread_only(table: Any) -> None:
    assert table.loop.inspect(lambda machine: machine.state) == "shuffling"  # the thread that opened it
    refused: list[BaseException] = []

    def elsewhere() -> None:
        try:
            table.loop.inspect(lambda machine: machine.state)
        except RuntimeError as exc:
            refused.append(exc)

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join()
    assert len(refused) == 1 and "read loop.published" in str(refused[0])
    assert table.loop.published.state == "shuffling"  # what another thread reads instead


def test_a_restarted_loop_publishes_where_the_journal_left_the_table(table: Any) -> None:
    table.start_shoe()
    table.post(BetPlaced("1", "p1", "player", 1000))
    before = table.loop.published
    table.restart()
    after = table.loop.published
    assert after == before
    agrees(table)


def test_a_snapshot_cannot_be_changed() -> None:
    from station.core.snapshot import TableSnapshot

    snap = TableSnapshot(1, "betting", "bets", 1, 0, None, "", None, (), (), (), True, "", None)
    with pytest.raises(AttributeError):
        snap.state = "dealing"  # type: ignore[misc]
