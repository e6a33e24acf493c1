"""A progressive shared by tables (docs/progressive.md, "Tables sharing a meter"): ledgers that
hear each other's messages late, twice, out of order or not at all until the end show the
same meter once they have heard the same; contributions made while a table was unheard are
never lost; with jackpots and resets made one at a time, every minor unit of the pool is paid,
shown or taken away. Hypothesis drives the tables as the floor broker could."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from station.core.progressive import ProgressiveLedger, ProgressiveSettings

SEED = 100_000
TABLES = ("BAC-01", "BAC-02", "BAC-03")

Step = tuple[str, int, int, int]
steps = st.lists(st.tuples(st.sampled_from(("wager", "send", "jackpot", "reset")), st.integers(0, 2),
                           st.integers(0, 2), st.integers(1, 5000)), max_size=60)


def pool() -> dict[str, ProgressiveLedger]:
    return {t: ProgressiveLedger.starting(ProgressiveSettings("p", SEED, 1500, member=t)) for t in TABLES}


def message(ledger: ProgressiveLedger) -> tuple[str, int, dict[str, Any] | None]:
    return ledger.member, ledger.contributed, None if ledger.rebase is None else dict(ledger.rebase)


def everyone_hears_everyone(tables: dict[str, ProgressiveLedger]) -> None:
    for sender in tables.values():
        for receiver in tables.values():
            receiver.hear(*message(sender))


def jackpot(ledger: ProgressiveLedger) -> None:
    ledger.pending = {"round_id": "1-1", "awards": ledger.value_awards([{"percent": 100}])}
    ledger.pay()


def run(tables: dict[str, ProgressiveLedger], plan: list[Step], *, serialised: bool) -> list[Any]:
    """Plays ``plan``; a message sent is delivered at once or kept for later (``in_flight``)."""
    in_flight: list[tuple[str, tuple[str, int, dict[str, Any] | None]]] = []
    for what, a, b, amount in plan:
        table = tables[TABLES[a]]
        if what == "wager":
            table.wager(amount, 1500)
        elif what == "send":
            in_flight.append((TABLES[b], message(table)))
            if amount % 3:  # two in three delivered now, in whatever order they were sent
                receiver, sent = in_flight.pop(amount % len(in_flight))
                tables[receiver].hear(*sent)
        else:
            if serialised:  # one rebase at a time: the table has heard everything first
                everyone_hears_everyone(tables)
            if what == "jackpot":
                jackpot(table)
            else:
                table.reset(amount * 10)
    return in_flight


@settings(max_examples=300, deadline=None)
@given(steps)
def test_tables_that_heard_the_same_show_the_same_meter_whatever_the_order(plan: list[Step]) -> None:
    tables = pool()
    late = run(tables, plan, serialised=False)
    for receiver, sent in reversed(late):  # the stragglers, last sent first
        tables[receiver].hear(*sent)
    everyone_hears_everyone(tables)
    meters = {t.meter for t in tables.values()}
    assert len(meters) == 1
    everyone_hears_everyone(tables)  # a repeat changes nothing
    assert {t.meter for t in tables.values()} == meters


@settings(max_examples=300, deadline=None)
@given(steps)
def test_one_rebase_at_a_time_every_unit_of_the_pool_is_accounted_for(plan: list[Step]) -> None:
    tables = pool()
    run(tables, plan, serialised=True)
    everyone_hears_everyone(tables)
    meter = tables[TABLES[0]].meter
    into = SEED + sum(t.seeded - SEED for t in tables.values()) + sum(t.contributed for t in tables.values())
    out = meter + sum(t.paid for t in tables.values()) + sum(t.removed for t in tables.values())
    assert into == out


def test_a_contribution_the_jackpot_did_not_know_of_stays_in_the_meter() -> None:
    tables = pool()
    one, two = tables["BAC-01"], tables["BAC-02"]
    one.wager(10_000, 1500)
    two.hear(*message(one))  # 1,500 heard
    one.wager(10_000, 1500)  # 1,500 more, BAC-02 offline from the broker
    assert two.meter == SEED + 1500
    jackpot(two)  # pays what its sign showed
    assert two.paid == SEED + 1500 and two.meter == SEED
    two.hear(*message(one))
    one.hear(*message(two))
    assert one.meter == two.meter == SEED + 1500  # the late 1,500 carried into the next meter


def test_a_table_alone_balances_after_every_step() -> None:
    table = pool()["BAC-01"]
    for amount in (500, 333, 20_000):
        table.wager(amount, 1500)
        assert table.balanced()
    jackpot(table)
    assert table.balanced() and table.meter == SEED
    table.reset(SEED + 7)
    assert table.balanced() and table.meter == SEED + 7 and table.removed == 0
