"""Bets from chips: each spot's active chips added up, the chips that must not count raised as
alarms naming the place and the chip, and the proposal set beside the keyed bets."""

from __future__ import annotations

from station.chips.places import ChipPlace
from station.chips.recognise import (
    BetProposal,
    ChipAlarm,
    SpotBet,
    SpotComparison,
    chip_alarms,
    compare_bets,
    counted_value,
    keyed_per_spot,
    propose_bets,
)
from station.chips.registry import ChipRecord, ChipRegistry, ChipStanding, ChipStatus
from station.events import BetPlaced
from station.money import Money

EUR = Money(2, "EUR")
A, B, C, F, R, U = (f"04A1B2C3D4E5F6{n:02X}" for n in range(1, 7))
REGISTRY = ChipRegistry.of("EUR", 2, (
    ChipRecord(A, 2500, ChipStatus.ACTIVE, "Series A"),
    ChipRecord(B, 2500, ChipStatus.ACTIVE, "Series A"),
    ChipRecord(C, 10_000, ChipStatus.ACTIVE, "Series A"),
    ChipRecord(F, 50_000, ChipStatus.FLAGGED, "Series A", "reported stolen"),
    ChipRecord(R, 500, ChipStatus.RETIRED, "Series 0", "worn"),
))
BANKER3, PLAYER3, TIE1 = ChipPlace.spot("3", "banker"), ChipPlace.spot("3", "player"), ChipPlace.spot("1", "tie")


def test_each_spot_s_bet_is_its_active_chips_in_the_layout_s_order() -> None:
    proposal = propose_bets({BANKER3: frozenset({A, B, C}), TIE1: frozenset({A}), PLAYER3: frozenset()}, REGISTRY)
    assert proposal == BetProposal((SpotBet(TIE1, 2500, (A,)), SpotBet(BANKER3, 15_000, (A, B, C))), ())
    assert proposal.amounts() == {TIE1: 2500, BANKER3: 15_000}


def test_unknown_flagged_and_retired_chips_are_alarms_not_counted() -> None:
    proposal = propose_bets({BANKER3: frozenset({A, F, R, U}), PLAYER3: frozenset({U})}, REGISTRY)
    assert proposal.bets == (SpotBet(BANKER3, 2500, (A,)),)
    assert proposal.alarms == (
        ChipAlarm(BANKER3, ChipStanding(F, ChipStatus.FLAGGED, 50_000, "Series A", "reported stolen")),
        ChipAlarm(BANKER3, ChipStanding(R, ChipStatus.RETIRED, 500, "Series 0", "worn")),
        ChipAlarm(BANKER3, ChipStanding(U, ChipStatus.UNKNOWN)),
        ChipAlarm(PLAYER3, ChipStanding(U, ChipStatus.UNKNOWN)),
    )
    assert [alarm.text(EUR) for alarm in proposal.alarms] == [
        f"Box 3 \u00b7 Banker: chip {F} is flagged (500.00; Series A; reported stolen)",
        f"Box 3 \u00b7 Banker: chip {R} is retired (5.00; Series 0; worn)",
        f"Box 3 \u00b7 Banker: chip {U} is not in the registry",
        f"Box 3 \u00b7 Player: chip {U} is not in the registry",
    ]


def test_payout_zones_and_the_tray_are_no_bets() -> None:
    proposal = propose_bets({ChipPlace.payout("3"): frozenset({A, U}), ChipPlace.tray(): frozenset({C, F})}, REGISTRY)
    assert proposal == BetProposal((), ())


def test_alarms_and_values_of_any_place() -> None:
    zone = ChipPlace.payout("S1")
    assert chip_alarms(zone, [U, A, F], REGISTRY) == (
        ChipAlarm(zone, REGISTRY.standing(F)), ChipAlarm(zone, REGISTRY.standing(U)))
    assert ChipAlarm(zone, REGISTRY.standing(U)).text(EUR) == f"Standing 1 payout zone: chip {U} is not in the registry"
    assert counted_value([A, B, C, F, R, U], REGISTRY) == 15_000
    assert counted_value([], REGISTRY) == 0


def test_the_proposal_beside_the_keyed_bets_spot_by_spot() -> None:
    proposal = propose_bets({BANKER3: frozenset({A, B}), PLAYER3: frozenset({C}), TIE1: frozenset({F})}, REGISTRY)
    keyed = [BetPlaced("3", "ann", "banker", 2500), BetPlaced("3", "bob", "banker", 2500),  # two players, one spot
             BetPlaced("3", "ann", "player", 5000), BetPlaced("2", "cy", "tie", 1000)]
    assert keyed_per_spot(keyed) == {BANKER3: 5000, PLAYER3: 5000, ChipPlace.spot("2", "tie"): 1000}
    comparison = compare_bets(proposal, keyed)
    assert comparison == (
        SpotComparison(ChipPlace.spot("2", "tie"), 0, 1000),
        SpotComparison(BANKER3, 5000, 5000),
        SpotComparison(PLAYER3, 10_000, 5000),
    )  # the tie of box 1 holds only a flagged chip: no amount on either side, so not compared
    assert [c.agrees for c in comparison] == [False, True, False]
    assert [c.difference for c in comparison] == [-1000, 0, 5000]
    assert [c.text(EUR) for c in comparison] == [
        "Box 2 \u00b7 Tie: chips 0.00, keyed 10.00",
        "Box 3 \u00b7 Banker: chips 50.00, keyed 50.00, agreed",
        "Box 3 \u00b7 Player: chips 100.00, keyed 50.00",
    ]


def test_side_bets_are_spots_like_any_region() -> None:
    dragon = ChipPlace.spot("5", "dragon_bonus_player")
    proposal = propose_bets({dragon: frozenset({A})}, REGISTRY)
    (comparison,) = compare_bets(proposal, [BetPlaced("5", "ann", "dragon_bonus_player", 2500)])
    assert comparison.text(EUR) == "Box 5 \u00b7 Dragon Bonus Player: chips 25.00, keyed 25.00, agreed"
