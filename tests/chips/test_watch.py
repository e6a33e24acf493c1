"""After no more bets: a chip that comes to a spot is past-posting, a locked chip that goes is
pinching, each named with its value and the read's time; the payout zones and the tray are the
dealer's; losing chips left after the settlement are reported."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from station.chips.places import ChipPlace
from station.chips.registry import ChipRecord, ChipRegistry, ChipStatus
from station.chips.stable import StableChange
from station.chips.watch import BetLock, ChipFinding, FindingKind, losing_chips_left
from station.money import Money

EUR = Money(2, "EUR")
A, B, C, F, U = (f"04A1B2C3D4E5F6{n:02X}" for n in range(1, 6))
REGISTRY = ChipRegistry.of("EUR", 2, (
    ChipRecord(A, 2500, ChipStatus.ACTIVE), ChipRecord(B, 2500, ChipStatus.ACTIVE),
    ChipRecord(C, 10_000, ChipStatus.ACTIVE), ChipRecord(F, 50_000, ChipStatus.FLAGGED, "", "stolen"),
))
BANKER3, PLAYER3, PLAYER1 = ChipPlace.spot("3", "banker"), ChipPlace.spot("3", "player"), ChipPlace.spot("1", "player")
LOCK = BetLock.at({BANKER3: frozenset({A, B}), PLAYER1: frozenset(), ChipPlace.payout("3"): frozenset({C}),
                   ChipPlace.tray(): frozenset({C, F})})


def change(place: ChipPlace, before: set[str], after: set[str], round_: int = 41, at_ms: int = 1_715_000_123_456
           ) -> StableChange:
    return StableChange(place, frozenset(before), frozenset(after), round_, at_ms)


def test_the_lock_keeps_the_betting_spots_that_hold_chips() -> None:
    assert dict(LOCK.locked) == {BANKER3: {A, B}}
    assert LOCK.chips(BANKER3) == {A, B} and LOCK.chips(PLAYER1) == frozenset()


def test_a_chip_added_to_a_spot_after_no_more_bets_is_past_posting() -> None:
    (finding,) = LOCK.findings(change(BANKER3, {A, B}, {A, B, C}), REGISTRY)
    assert finding == ChipFinding(FindingKind.PAST_POSTING, BANKER3, (REGISTRY.standing(C),), 10_000, 41,
                                  1_715_000_123_456)
    assert finding.text(EUR) == (f"Box 3 \u00b7 Banker: 1 chip added after no more bets (past-posting), 100.00: "
                                 f"{C} 100.00")


def test_a_bet_put_on_an_empty_spot_is_past_posting_with_each_chip_s_standing() -> None:
    (finding,) = LOCK.findings(change(PLAYER3, set(), {C, F, U}), REGISTRY)
    assert finding.kind is FindingKind.PAST_POSTING and finding.amount == 10_000
    assert finding.text(EUR) == (f"Box 3 \u00b7 Player: 3 chips added after no more bets (past-posting), 100.00: "
                                 f"{C} 100.00, {F} flagged, {U} not in the registry")


def test_a_locked_chip_taken_from_a_spot_is_pinching() -> None:
    (finding,) = LOCK.findings(change(BANKER3, {A, B}, {A}, 44, 9000), REGISTRY)
    assert (finding.kind, finding.chips, finding.amount, finding.round, finding.at_ms) == (
        FindingKind.PINCHING, (REGISTRY.standing(B),), 2500, 44, 9000)
    assert finding.text(EUR) == f"Box 3 \u00b7 Banker: 1 chip taken after no more bets (pinching), 25.00: {B} 25.00"


def test_a_chip_swapped_for_another_is_both() -> None:
    found = LOCK.findings(change(BANKER3, {A, B}, {A, C}), REGISTRY)
    assert [(f.kind, [c.uid for c in f.chips], f.amount) for f in found] == [
        (FindingKind.PAST_POSTING, [C], 10_000), (FindingKind.PINCHING, [B], 2500)]


def test_each_chip_is_reported_once_when_it_moves() -> None:
    assert LOCK.findings(change(BANKER3, {A, B, C}, {A, B}), REGISTRY) == ()  # the past-posted chip taken again
    assert LOCK.findings(change(BANKER3, {A}, {A, B}), REGISTRY) == ()  # the pinched chip put back


def test_chips_moving_among_the_payout_zones_and_the_tray_are_no_finding() -> None:
    assert LOCK.findings(change(ChipPlace.tray(), {C, F}, {F}), REGISTRY) == ()
    assert LOCK.findings(change(ChipPlace.payout("3"), set(), {C}), REGISTRY) == ()
    assert LOCK.findings(change(ChipPlace.payout("3"), {C}, set()), REGISTRY) == ()


def test_the_whole_layout_against_the_lock() -> None:
    now = {BANKER3: frozenset({A}), PLAYER3: frozenset({C}), ChipPlace.tray(): frozenset({U})}
    found = LOCK.differences(now, 50, 5000, REGISTRY)
    assert [(f.kind, f.place, [c.uid for c in f.chips]) for f in found] == [
        (FindingKind.PINCHING, BANKER3, [B]), (FindingKind.PAST_POSTING, PLAYER3, [C])]
    assert {(f.round, f.at_ms) for f in found} == {(50, 5000)}
    assert LOCK.differences({BANKER3: frozenset({A, B})}, 50, 5000, REGISTRY) == ()


def test_losing_chips_left_on_a_losing_spot_after_the_settlement() -> None:
    now = {BANKER3: frozenset({A, B}), PLAYER3: frozenset(), PLAYER1: frozenset({C})}
    (finding,) = losing_chips_left(now, [PLAYER3, BANKER3, ChipPlace.payout("3")], 60, 7000, REGISTRY)
    assert finding == ChipFinding(FindingKind.LEFT_ON_LOSING, BANKER3, (REGISTRY.standing(A), REGISTRY.standing(B)),
                                  5000, 60, 7000)
    assert finding.text(EUR) == (f"Box 3 \u00b7 Banker: 2 chips left on a losing spot after the settlement, 50.00: "
                                 f"{A} 25.00, {B} 25.00")
    assert losing_chips_left(now, [PLAYER3], 60, 7000, REGISTRY) == ()


SETS = st.frozensets(st.sampled_from((A, B, C, F, U)), max_size=5)


@given(SETS, st.lists(SETS, min_size=1, max_size=8))
def test_what_is_reported_accounts_for_every_chip_that_differs_from_the_lock(locked: frozenset[str],
                                                                             later: list[frozenset[str]]) -> None:
    lock = BetLock.at({BANKER3: locked})
    before, added, taken = locked, set(), set()
    for n, now in enumerate(later):
        for finding in lock.findings(StableChange(BANKER3, before, now, n, n), REGISTRY):
            uids = {chip.uid for chip in finding.chips}
            assert uids, "a finding names its chips"
            if finding.kind is FindingKind.PAST_POSTING:
                assert uids.isdisjoint(locked) and uids <= now - before
                added |= uids
            else:
                assert uids <= locked and uids <= before - now
                taken |= uids
        before = now
    assert later[-1] - locked <= added and locked - later[-1] <= taken
    assert added <= set().union(*later) - locked and taken <= locked
