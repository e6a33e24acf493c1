"""Payouts checked: each box's payout zone against what the settlement owes it, right, over or
under, with the chips that do not count named."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.chips.payout_check import PayoutCheck, PayoutVerdict, check_payouts
from station.chips.places import ChipPlace
from station.chips.recognise import ChipAlarm
from station.chips.registry import ChipRecord, ChipRegistry, ChipStatus
from station.money import Money

EUR = Money(2, "EUR")
A, B, C, F, U = (f"04A1B2C3D4E5F6{n:02X}" for n in range(1, 6))
REGISTRY = ChipRegistry.of("EUR", 2, (
    ChipRecord(A, 2500, ChipStatus.ACTIVE), ChipRecord(B, 2500, ChipStatus.ACTIVE),
    ChipRecord(C, 5000, ChipStatus.ACTIVE), ChipRecord(F, 10_000, ChipStatus.FLAGGED, "", "stolen"),
))


def zone(box: str) -> ChipPlace:
    return ChipPlace.payout(box)


def test_each_box_paid_right_over_or_under() -> None:
    checks = check_payouts({"3": 7500, "1": 5000, "S1": 2500},
                           {zone("3"): frozenset({C}), zone("1"): frozenset({A, B}), zone("S1"): frozenset({C})},
                           REGISTRY)
    assert [(c.box, c.owed, c.paid, c.verdict, c.difference) for c in checks] == [
        ("1", 5000, 5000, PayoutVerdict.RIGHT, 0),
        ("3", 7500, 5000, PayoutVerdict.UNDER, -2500),
        ("S1", 2500, 5000, PayoutVerdict.OVER, 2500),
    ]
    assert [c.text(EUR) for c in checks] == [
        "Box 1 paid 50.00, owed 50.00: right",
        "Box 3 paid 50.00, owed 75.00: under by 25.00",
        "Standing 1 paid 50.00, owed 25.00: over by 25.00",
    ]


def test_a_box_owed_nothing_with_chips_in_its_zone_is_paid_over_and_one_owed_with_none_under() -> None:
    checks = check_payouts({"2": 0, "4": 2500}, {zone("5"): frozenset({A})}, REGISTRY)
    assert [c.text(EUR) for c in checks] == [
        "Box 2 paid 0.00, owed 0.00: right",
        "Box 4 paid 0.00, owed 25.00: under by 25.00",
        "Box 5 paid 25.00, owed 0.00: over by 25.00",
    ]


def test_unknown_and_flagged_chips_in_a_zone_are_named_and_not_counted() -> None:
    (check,) = check_payouts({"3": 7500}, {zone("3"): frozenset({C, F, U})}, REGISTRY)
    assert check == PayoutCheck("3", 7500, 5000, (C,), (ChipAlarm(zone("3"), REGISTRY.standing(F)),
                                                        ChipAlarm(zone("3"), REGISTRY.standing(U))))
    assert check.text(EUR) == (f"Box 3 paid 50.00, owed 75.00: under by 25.00; not counted: {F} flagged, "
                               f"{U} not in the registry")
    assert check.alarms[0].text(EUR) == f"Box 3 payout zone: chip {F} is flagged (100.00; stolen)"


def test_spots_and_the_tray_are_not_payout_zones() -> None:
    stable = {ChipPlace.spot("3", "banker"): frozenset({A}), ChipPlace.tray(): frozenset({B})}
    assert check_payouts({}, stable, REGISTRY) == ()
    assert check_payouts({"3": 2500}, stable, REGISTRY)[0].paid == 0


@pytest.mark.parametrize("owed", [25.0, -1, True, "2500"])
def test_what_a_box_is_owed_is_a_whole_number_of_minor_units(owed: object) -> None:
    with pytest.raises(ValueError, match="what box 3 is owed is a whole number of minor units from 0"):
        check_payouts({"3": owed}, {}, REGISTRY)  # type: ignore[dict-item]


@given(st.integers(0, 50_000), st.frozensets(st.sampled_from((A, B, C, F, U))))
def test_the_difference_is_exact_and_the_verdict_follows_it(owed: int, chips: frozenset[str]) -> None:
    (check,) = check_payouts({"7": owed}, {zone("7"): chips}, REGISTRY)
    assert check.paid == sum(REGISTRY.standing(uid).value for uid in chips if uid in (A, B, C))
    assert check.paid - check.owed == check.difference
    assert (check.verdict is PayoutVerdict.RIGHT) == (check.difference == 0)
    assert (check.verdict is PayoutVerdict.OVER) == (check.difference > 0)
    assert len(check.alarms) == len(chips & {F, U})


def test_money_of_another_table_is_written_its_way() -> None:
    (check,) = check_payouts({"1": 150_000}, {zone("1"): frozenset({A})}, REGISTRY)
    assert check.text(Money(0, "JPY")) == "Box 1 paid 2,500, owed 150,000: under by 147,500"
