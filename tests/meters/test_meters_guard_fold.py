"""The meters' fold and figures at the corners mutation testing found unguarded (tools/mutate.py,
``--guard meters``; docs/testing.md): the rounds remembered for corrections, a round dealt across
a dealer change, a part sealed early, what is sealed when, the checkpoint's layout of the
remembered rounds, open time when the clock goes back or a round ends in a pause, the rate's
minute and hour, the limits of a round, and the tray's win and hold. Outputs are written out
by hand and fed to the fold as the projection hands them (tests/meters/test_fold.py)."""

from __future__ import annotations

from typing import Any

from station.core import outputs as out
from station.core.day_outputs import TrayRecorded
from station.core.payout_steps import CORRECTABLE_ROUNDS
from station.core.rounds import RoundId
from station.games.layout import SettledBet
from station.meters.figures import Figures, RegionFigures
from station.meters.fold import MetersFold, Part
from station.meters.report import build_report

from .test_fold import TABLE, VIENNA, Feeder, bet, shoe_started

EVENING = "2026-03-25T20:00:00.000000Z"  # 21:00 in Vienna, gaming day 2026-03-25
DAY = "2026-03-25"


def at(minutes: float) -> str:
    """The journal time ``minutes`` after 2026-03-25 20:00 UTC (to the microsecond)."""
    micros = round(minutes * 60_000_000)
    seconds, micro = divmod(micros, 1_000_000)
    return f"2026-03-25T{20 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{micro:06d}Z"


def settled(round_id: RoundId, *bets: SettledBet, dealer: str = "",
            limits: tuple[int, int] = (0, 0)) -> out.RoundSettled:
    return out.RoundSettled(round_id, "baccarat", (), (), "banker", False, False, False, bets,
                            -sum(b.net for b in bets), dealer, limits=limits)


def signed_in(dealer: str, relieved: str = "") -> out.DealerChanged:
    return out.DealerChanged(dealer, relieved, "", False, "supervisor", "sam", "control")


def corrected(round_id: RoundId, stake: int, to: int) -> out.RoundCorrected:
    before, after = bet("player", stake, stake), bet("player", to, to)
    return out.RoundCorrected(round_id, "baccarat", ("1", "a", "player", stake), ("1", "a", "player", to),
                              (before,), (after,), -stake, -to, (), "keyed wrong", "supervisor", "sam")


def tray(entry: int, what: str, value: int) -> TrayRecorded:
    return TrayRecorded(1, entry, what, value, (), "", ("sam", "rob"))


def by_key(fold: MetersFold) -> dict[tuple[str, int, int], Figures]:
    return {part.key: part.figures for part in fold.every_part()}


# --- the rounds remembered, and where a correction goes ------------------------------------


def test_the_fold_remembers_exactly_the_rounds_a_correction_may_reach() -> None:
    """The table corrects the round being paid and the ``CORRECTABLE_ROUNDS`` settled before it,
    so the fold remembers where those were counted (a checkpoint's state lists them) and no
    more; a correction of the oldest of them goes to that round's part."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1), signed_in("ann"))
    feed.at(at(1), settled(RoundId(1, 1), bet("player", 1000, 1000), dealer="ann"))
    feed.at(at(2), signed_in("bob", "ann"))
    for n in range(2, CORRECTABLE_ROUNDS + 2):
        feed.at(at(2 + n / 10), settled(RoundId(1, n), bet("banker", 1000, -1000), dealer="bob"))
    remembered = [str(i) for *_, ids in feed.fold.state()["rounds"] for i in ids]
    assert remembered == [str(RoundId(1, n)) for n in range(1, CORRECTABLE_ROUNDS + 2)]
    feed.at(at(30), corrected(RoundId(1, 1), 1000, 2000))
    parts = by_key(feed.fold)
    assert (parts[(DAY, 1, 1)].corrections, parts[(DAY, 1, 1)].regions["player"]) == (1, RegionFigures(1, 2000, -2000))
    assert parts[(DAY, 2, 1)].corrections == 0
    feed.at(at(31), settled(RoundId(1, CORRECTABLE_ROUNDS + 2), dealer="bob"))  # 1-1 is out of reach now
    remembered = [str(i) for *_, ids in feed.fold.state()["rounds"] for i in ids]
    assert remembered == [str(RoundId(1, n)) for n in range(2, CORRECTABLE_ROUNDS + 3)]


def test_a_round_dealt_across_a_dealer_change_counts_in_the_session_of_its_dealer() -> None:
    """A round under way when one dealer relieves another is the relieved dealer's: it counts in
    their session; the next round is the new dealer's."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1), signed_in("ann"))
    feed.at(at(1), signed_in("bob", "ann"))  # 1-1 was under way, dealt by ann
    feed.at(at(2), settled(RoundId(1, 1), bet("player", 1000, 1000), dealer="ann"))
    feed.at(at(3), settled(RoundId(1, 2), bet("player", 2000, -2000), dealer="bob"))
    parts = by_key(feed.fold)
    assert (parts[(DAY, 1, 1)].rounds, parts[(DAY, 1, 1)].house) == (1, -1000)
    assert (parts[(DAY, 2, 1)].rounds, parts[(DAY, 2, 1)].house) == (1, 2000)


def _sealed_early(feed: Feeder, key: tuple[str, int, int]) -> tuple[list[Part], MetersFold]:
    """The fold's state as a checkpoint that had sealed the part ``key`` early would hold it:
    the part among the sealed, the rest restored."""
    state = feed.fold.state()
    sealed = [Part.from_json(p) for p in state["parts"] if Part.from_json(p).key == key]
    assert len(sealed) == 1
    state["parts"] = [p for p in state["parts"] if Part.from_json(p).key != key]
    return sealed, MetersFold.restore(state, VIENNA, "06:00")


def _corrected_after_sealing(script: list[tuple[str, list[out.Output]]], key: tuple[str, int, int]) -> None:
    whole = Feeder()
    for time, outputs in script:
        whole.at(time, *outputs)
    sealed, restored = _sealed_early(whole, key)
    resumed = Feeder(restored)
    resumed.seq = whole.seq
    for feed in (whole, resumed):
        feed.at(at(50), corrected(RoundId(1, 1), 1000, 3000))
    assert build_report([*sealed, *resumed.fold.every_part()], TABLE, day="all") == build_report(
        whole.fold.every_part(), TABLE, day="all")


def test_a_correction_of_a_round_whose_part_was_sealed_early_counts_under_its_part_s_key() -> None:
    """A part sealed too early is no error (figures of one key add up): a correction of a round
    whose part a checkpoint had sealed counts in a part of the same key and the same dealer
    session (the relieved dealer's here), and the report is the one of a fold that never
    sealed it."""
    _corrected_after_sealing([
        (at(0), [shoe_started(1)]),
        (at(1), [signed_in("ann")]),
        (at(2), [settled(RoundId(1, 1), bet("player", 1000, 1000), dealer="ann")]),
        (at(3), [signed_in("bob", "ann")]),
        (at(4), [settled(RoundId(1, 2), bet("player", 1000, -1000), dealer="bob")]),
    ], (DAY, 1, 1))


def test_a_correction_after_sealing_early_finds_an_older_session_among_the_open_parts() -> None:
    """The same when the round's session is neither the one signed in nor the one it relieved:
    it is found among the parts still open (ann's first session, which dealt in the next shoe
    too)."""
    _corrected_after_sealing([
        (at(0), [shoe_started(1)]),
        (at(1), [signed_in("ann")]),
        (at(2), [settled(RoundId(1, 1), bet("player", 1000, 1000), dealer="ann")]),
        (at(3), [out.ShoeEnded(1, 1)]),
        (at(4), [shoe_started(2)]),
        (at(5), [settled(RoundId(2, 1), bet("tie", 1000, -1000), dealer="ann")]),
        (at(6), [signed_in("bob", "ann")]),
        (at(7), [signed_in("ann", "bob")]),
        (at(8), [settled(RoundId(2, 2), bet("player", 1000, -1000), dealer="ann")]),
    ], (DAY, 1, 1))


# --- sealing, and the state a checkpoint holds -----------------------------------------------


def test_parts_are_sealed_a_gaming_day_at_a_time_but_for_those_a_correction_may_reach() -> None:
    """Sealing moves the parts of the gaming days before the one in play, except those of the
    rounds a correction may still reach; the day in play is never sealed, and a fold that has
    taken nothing has nothing to seal."""
    feed = Feeder()
    assert feed.fold.seal() == [] and feed.fold.sealed == []
    feed.at(at(0), shoe_started(1), signed_in("ann"))
    feed.at(at(1), settled(RoundId(1, 1), bet("player", 1000, 1000), dealer="ann"))
    feed.at(at(2), signed_in("bob", "ann"))
    feed.at(at(3), out.Refused("BetPlaced", "over the maximum"))
    feed.at("2026-03-26T05:30:00.000000Z", out.Refused("BetPlaced", "over the maximum"))  # 06:30: the next day
    moved = feed.fold.seal()
    assert [p.key for p in moved] == [(DAY, 2, 1)]
    assert sorted(feed.fold.parts) == [(DAY, 1, 1), ("2026-03-26", 2, 1)]
    assert feed.fold.every_part()[0].key == (DAY, 2, 1)


def test_a_checkpoint_writes_the_remembered_rounds_a_run_per_part_and_reads_them_back() -> None:
    """The remembered rounds are most of a checkpoint's size: a run of rounds of one part is
    written once with its key, ``[day, session, shoe, [round ids]]``, in the order settled."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1), signed_in("ann"))
    feed.at(at(1), settled(RoundId(1, 1), dealer="ann"))
    feed.at(at(2), settled(RoundId(1, 2), dealer="ann"))
    feed.at(at(3), signed_in("bob", "ann"))
    feed.at(at(4), settled(RoundId(1, 3), dealer="bob"))
    feed.at(at(5), settled(RoundId(1, 4), dealer="bob"))
    state = feed.fold.state()
    assert state["rounds"] == [[DAY, 1, 1, ["1-1", "1-2"]], [DAY, 2, 1, ["1-3", "1-4"]]]
    restored = MetersFold.restore(state, VIENNA, "06:00")
    assert list(restored.rounds.items()) == list(feed.fold.rounds.items())


# --- open time -----------------------------------------------------------------------------


def test_open_time_is_never_negative_when_the_clock_goes_back() -> None:
    feed = Feeder()
    feed.at(at(10), shoe_started(1))
    feed.at(at(9), settled(RoundId(1, 1)))  # the clock was set back a minute
    [part] = feed.fold.every_part()
    assert (part.figures.open_us, part.figures.rounds) == (0, 1)


def test_a_round_that_ends_in_a_pause_counts_the_open_time_before_the_pause() -> None:
    feed = Feeder()
    feed.at(at(0), shoe_started(1))
    feed.at(at(1), out.StateChanged("paused", "dealing"))
    feed.at(at(30), out.RoundVoided(RoundId(1, 1), "paused too long", ()))
    [part] = feed.fold.every_part()
    assert part.figures.open_us == 60_000_000


def test_a_rate_is_given_from_a_minute_of_open_time() -> None:
    """Rounds per hour need a minute of open time: one round a minute after the shoe started is
    60.0 an hour; a microsecond less is no rate."""
    for minutes, rate in ((1, 60.0), (1 - 1 / 60_000_000, None)):
        feed = Feeder()
        feed.at(at(0), shoe_started(1))
        feed.at(at(minutes), settled(RoundId(1, 1)))
        [part] = feed.fold.every_part()
        assert part.figures.report()["rounds_per_hour"] == rate, minutes


def test_rounds_per_hour_are_counted_against_an_hour_of_exactly_3_6e9_microseconds() -> None:
    """41 rounds in 4 hours of open time are exactly 10.25 an hour, which to one decimal is 10.2
    (a half goes to the even tenth, as Python rounds); an hour a microsecond longer would make
    it 10.3."""
    assert Figures(rounds=41, open_us=4 * 3_600_000_000).rounds_per_hour == 10.2
    assert Figures(rounds=60, open_us=3_600_000_000).rounds_per_hour == 60.0


# --- limits, the tray ----------------------------------------------------------------------


def test_a_round_is_counted_under_its_limits_and_under_none_when_they_are_unknown() -> None:
    """A round played under limits counts under ``"<min>-<max>"``; a round of a journal that did
    not say its limits ((0, 0)) counts under none."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1))
    feed.at(at(1), settled(RoundId(1, 1)))
    feed.at(at(2), out.RoundVoided(RoundId(1, 2), "device fault", ()))
    [part] = feed.fold.every_part()
    assert (part.figures.rounds, part.figures.rounds_by_limits) == (2, {})
    feed.at(at(3), settled(RoundId(1, 3), limits=(1000, 500_000)))
    feed.at(at(4), out.RoundVoided(RoundId(1, 4), "device fault", (), limits=(1000, 500_000)))
    [part] = feed.fold.every_part()
    assert part.figures.rounds_by_limits == {"1000-500000": 2}


def _inventory(*entries: TrayRecorded) -> dict[str, Any]:
    feed = Feeder()
    for n, entry in enumerate(entries):
        feed.at(at(n), entry)
    [part] = feed.fold.every_part()
    report: dict[str, Any] = part.figures.report()
    return {name: report[name] for name in ("drop", "win", "hold_percent", "variance")}


def test_the_tray_s_win_without_fills_or_credits_and_its_hold_to_two_decimals() -> None:
    """Win by inventory is closer - opener + credits - fills + drop: with no fill and no credit
    entered, none is counted. The hold is win / drop in percent, to two decimals."""
    assert _inventory(tray(1, "opener", 20_000), tray(2, "closer", 18_000), tray(3, "drop", 5000)) == {
        "drop": 5000, "win": 3000, "hold_percent": 60.0, "variance": 3000}
    assert _inventory(tray(1, "opener", 20_000), tray(2, "closer", 18_000), tray(3, "drop", 3000)) == {
        "drop": 3000, "win": 1000, "hold_percent": 33.33, "variance": 1000}
    assert _inventory(tray(1, "opener", 20_000), tray(2, "fill", 500), tray(3, "credit", 200),
                      tray(4, "closer", 19_000), tray(5, "drop", 7000))["win"] == 5700


# --- records the fold reads past -------------------------------------------------------------


def test_a_configuration_that_names_no_usable_zone_or_day_start_changes_nothing() -> None:
    """A ``Configuration`` record without a table section, or whose zone or day start is not
    text (a damaged or foreign record), leaves the gaming days as they were counted."""
    payloads: list[dict[str, Any]] = [{"station": {}}, {"table": "not a section"},
                                      {"table": {"timezone": 5, "gaming_day_start": "06:00"}},
                                      {"table": {"timezone": "UTC", "gaming_day_start": None}}]
    for payload in payloads:
        feed = Feeder()
        feed.at("2026-03-25T04:30:00.000000Z", kind="Configuration", payload=payload)
        feed.at("2026-03-25T04:31:00.000000Z", out.Refused("BetPlaced", "x"))  # 05:31 in Vienna: day 03-24
        assert [p.day for p in feed.fold.every_part()] == ["2026-03-24"], payload


def test_the_progressive_s_money_adds_up_where_play_is() -> None:
    """The progressive (docs/progressive.md): what the rounds' wagers gave the meter, each
    jackpot signed off with what it paid and what the casino topped up, each reset with what it
    took away (below 0: what it added). A meter that moved without a wager (the table's start,
    another table of the pool) gave nothing here."""
    feed = Feeder()
    feed.at(at(0), shoe_started(1), out.ProgressiveMeter("pool", 100_000, "start"))
    [part] = feed.fold.every_part()
    assert part.figures.progressive == {}
    feed.at(at(1), out.ProgressiveMeter("pool", 100_150, "round", 150, "1-1"),
            out.ProgressiveMeter("pool", 100_400, "linked"))
    feed.at(at(2), out.ProgressiveMeter("pool", 100_650, "round", 250, "1-2"))
    feed.at(at(3), out.ProgressivePaid("1-2", "pool", (), 110_000, 9350, 100_000, "supervisor", "sam"))
    feed.at(at(4), out.ProgressivePaid("1-3", "pool", (), 500, 0, 99_500, "supervisor", "sam"))
    feed.at(at(5), out.ProgressiveWasReset("pool", 99_500, 100_000, "seed restored", "supervisor", "sam"))
    [part] = feed.fold.every_part()
    assert part.figures.progressive == {"contributed": 400, "jackpots": 2, "paid": 110_500, "topped": 9350,
                                        "resets": 1, "removed": -500}
