"""The chip registry as a value: a chip's standing, the supervisor's changes and a chip maker's
import applied as values (so a journal can replay them), and the hash that names a registry."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.chips.registry import (
    ChipRecord,
    ChipRegistry,
    ChipStanding,
    ChipStatus,
    RegistryChange,
    RegistryChangeRefused,
    RegistryImport,
    amount_text,
)

A, B, C, D = (f"04A1B2C3D4E5F6{n:02X}" for n in range(1, 5))


def registry(*records: ChipRecord) -> ChipRegistry:
    return ChipRegistry.of("EUR", 2, records or (
        ChipRecord(A, 2500, ChipStatus.ACTIVE, "Series A"),
        ChipRecord(B, 10_000, ChipStatus.FLAGGED, "Series A", "reported stolen"),
        ChipRecord(C, 500, ChipStatus.RETIRED, "", "worn"),
    ))


def test_a_lookup_says_a_chip_s_standing() -> None:
    chips = registry()
    assert chips.standing(A) == ChipStanding(A, ChipStatus.ACTIVE, 2500, "Series A")
    assert chips.standing(A).counts
    assert chips.standing(B) == ChipStanding(B, ChipStatus.FLAGGED, 10_000, "Series A", "reported stolen")
    assert chips.standing(C) == ChipStanding(C, ChipStatus.RETIRED, 500, "", "worn")
    assert chips.standing(D) == ChipStanding(D, ChipStatus.UNKNOWN)
    assert [chips.standing(uid).counts for uid in (B, C, D)] == [False, False, False]
    assert [chips.standing(uid).status_words() for uid in (A, B, C, D)] == [
        "active", "flagged", "retired", "not in the registry"]
    assert A in chips and D not in chips and len(chips) == 3
    assert chips.record(D) is None
    assert chips.counts() == {ChipStatus.ACTIVE: 1, ChipStatus.FLAGGED: 1, ChipStatus.RETIRED: 1}


def test_a_registry_is_the_same_in_whatever_order_it_is_built() -> None:
    records = registry().records
    assert ChipRegistry.of("EUR", 2, reversed(records)) == registry()
    with pytest.raises(ValueError, match=f"chip {A} is given twice"):
        ChipRegistry.of("EUR", 2, (*records, records[0]))
    with pytest.raises(ValueError, match="build it with of"):
        ChipRegistry("EUR", 2, tuple(reversed(records)))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: ChipRecord("04a1b2c3d4e5f601", 1, ChipStatus.ACTIVE), "malformed UID '04a1b2c3d4e5f601'"),
    (lambda: ChipRecord(A, 0, ChipStatus.ACTIVE), "a value must be above 0, got 0"),
    (lambda: ChipRecord(A, 25.0, ChipStatus.ACTIVE), "integer of minor units, not 25.0"),  # type: ignore[arg-type]
    (lambda: ChipRecord(A, True, ChipStatus.ACTIVE), "integer of minor units, not True"),
    (lambda: ChipRecord(A, 1, ChipStatus.UNKNOWN), "active, flagged or retired"),
    (lambda: ChipRecord(A, 1, ChipStatus.ACTIVE, "A\nB"), "has a control character"),
    (lambda: ChipRecord(A, 1, ChipStatus.ACTIVE, " A"), "begins or ends with a space"),
    (lambda: ChipRegistry("eur", 2), "3-letter ISO 4217 code"),
    (lambda: ChipRegistry("EUR", 5), "minor digits are 0 to 4"),
    (lambda: RegistryChange(A, ChipStatus.FLAGGED, ""), "says why"),
    (lambda: RegistryChange(A, ChipStatus.UNKNOWN, "why"), "active, flagged or retired"),
    (lambda: RegistryChange("XYZ", ChipStatus.FLAGGED, "why"), "malformed UID"),
])
def test_what_cannot_be_a_chip_or_a_change_is_refused(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


def test_a_status_given_as_text_is_the_status() -> None:
    assert ChipRecord(A, 1, "flagged").status is ChipStatus.FLAGGED  # type: ignore[arg-type]
    assert RegistryChange(A, "retired", "why").status is ChipStatus.RETIRED  # type: ignore[arg-type]


# --- a supervisor's changes ---------------------------------------------------------------------------


def test_a_supervisor_flags_retires_and_puts_back_a_chip_each_change_a_new_registry() -> None:
    before = registry()
    flagged = before.apply(RegistryChange(A, ChipStatus.FLAGGED, "seen on the stolen list"))
    assert flagged.standing(A) == ChipStanding(A, ChipStatus.FLAGGED, 2500, "Series A", "seen on the stolen list")
    assert before.standing(A).status is ChipStatus.ACTIVE  # a value: the old one is as it was
    back = flagged.apply(RegistryChange(A, ChipStatus.ACTIVE, "found in the count room"))
    assert back.standing(A).counts and back.standing(A).note == "found in the count room"
    retired = back.apply(RegistryChange(B, ChipStatus.RETIRED, "destroyed"))
    assert retired.standing(B).status is ChipStatus.RETIRED


@pytest.mark.parametrize(("change", "message"), [
    (RegistryChange(D, ChipStatus.FLAGGED, "why"), f"chip {D} is not in the registry"),
    (RegistryChange(A, ChipStatus.ACTIVE, "why"), f"chip {A} is already active"),
    (RegistryChange(B, ChipStatus.FLAGGED, "why"), f"chip {B} is already flagged"),
    (RegistryChange(C, ChipStatus.ACTIVE, "why"), f"chip {C} is retired: it cannot be made active"),
    (RegistryChange(C, ChipStatus.FLAGGED, "why"), f"chip {C} is retired: it cannot be made flagged"),
])
def test_a_change_that_cannot_be_made_is_refused_with_why(change: RegistryChange, message: str) -> None:
    with pytest.raises(RegistryChangeRefused, match=f"^{message}$"):
        registry().apply(change)


@given(st.lists(st.tuples(st.sampled_from((A, B, C, D)), st.sampled_from(
    (ChipStatus.ACTIVE, ChipStatus.FLAGGED, ChipStatus.RETIRED)), st.sampled_from(("a", "b"))), max_size=12))
def test_the_changes_journaled_replay_to_the_same_registry(steps: list[tuple[str, ChipStatus, str]]) -> None:
    live, journal = registry(), []
    for uid, status, reason in steps:
        change = RegistryChange(uid, status, reason)
        try:
            live = live.apply(change)
        except RegistryChangeRefused:
            continue  # refused at the door: never journaled
        journal.append(change)
    replayed = registry()
    for change in journal:
        replayed = replayed.apply(change)
    assert replayed == live and replayed.sha256() == live.sha256()
    assert replayed.standing(C).status is ChipStatus.RETIRED  # retired for good
    assert {record.value for record in replayed.records} == {2500, 10_000, 500}  # a change never revalues


# --- a chip maker's import ---------------------------------------------------------------------------


def test_an_import_adds_new_chips_and_never_puts_back_a_chip_a_supervisor_took_out() -> None:
    before = registry(ChipRecord(A, 2500, ChipStatus.FLAGGED, "", "stolen"), ChipRecord(B, 10_000, ChipStatus.ACTIVE))
    delivery = ChipRegistry.of("EUR", 2, (
        ChipRecord(A, 2500, ChipStatus.ACTIVE, "Series A"),  # the file says active: stays flagged, gets its set
        ChipRecord(B, 10_000, ChipStatus.RETIRED, "Series A", "recalled"),  # the maker retires it
        ChipRecord(C, 500, ChipStatus.ACTIVE, "Series B"),  # a new chip
    ))
    after = before.apply(RegistryImport(delivery, "delivery-2024-05.csv"))
    assert after.records == (
        ChipRecord(A, 2500, ChipStatus.FLAGGED, "Series A", "stolen"),
        ChipRecord(B, 10_000, ChipStatus.RETIRED, "Series A", "recalled"),
        ChipRecord(C, 500, ChipStatus.ACTIVE, "Series B"),
    )
    assert after.apply(RegistryImport(delivery)) == after  # the same file again changes nothing


def test_an_import_that_gives_a_chip_another_value_is_refused_whole() -> None:
    delivery = ChipRegistry.of("EUR", 2, (ChipRecord(A, 5000, ChipStatus.ACTIVE),
                                          ChipRecord(D, 100, ChipStatus.ACTIVE)))
    with pytest.raises(RegistryChangeRefused, match=(
            rf"^a chip keeps its value for life; the file gives 1 chip\(s\) another: "
            rf"{A} \(25.00 here, 50.00 in the file\)$")):
        registry().apply(RegistryImport(delivery))


def test_an_import_names_at_most_five_revalued_chips() -> None:
    uids = [f"04A1B2C3D4E5F7{n:02X}" for n in range(7)]
    held = ChipRegistry.of("EUR", 2, (ChipRecord(uid, 100, ChipStatus.ACTIVE) for uid in uids))
    delivery = ChipRegistry.of("EUR", 2, (ChipRecord(uid, 200, ChipStatus.ACTIVE) for uid in uids))
    with pytest.raises(RegistryChangeRefused, match=r"gives 7 chip\(s\) another: .* and 2 more$"):
        held.apply(RegistryImport(delivery))


def test_an_import_of_another_currency_is_refused() -> None:
    with pytest.raises(RegistryChangeRefused, match=r"the file's chips are in USD \(2 digits\), the registry's in EUR"):
        registry().apply(RegistryImport(ChipRegistry.of("USD", 2, ())))


# --- the canonical form and its hash -------------------------------------------------------------------


def test_the_canonical_text_and_its_hash() -> None:
    chips = registry(ChipRecord(B, 10_000, ChipStatus.FLAGGED, "Series A, 2024", 'said "stolen"'),
                     ChipRecord(A, 123_456_789, ChipStatus.ACTIVE))
    text = chips.canonical_text()
    assert text == ("uid,value,currency,status,set,note\n"
                    f"{A},1234567.89,EUR,active,,\n"
                    f'{B},100.00,EUR,flagged,"Series A, 2024","said ""stolen"""\n')
    assert chips.sha256() == hashlib.sha256(text.encode()).hexdigest()
    assert ChipRegistry.of("EUR", 2, ()).canonical_text() == "uid,value,currency,status,set,note\n"


def test_any_change_changes_the_hash_and_equal_registries_share_it() -> None:
    chips = registry()
    assert ChipRegistry.of("EUR", 2, reversed(chips.records)).sha256() == chips.sha256()
    changed = chips.apply(RegistryChange(A, ChipStatus.FLAGGED, "why"))
    assert changed.sha256() != chips.sha256()
    assert changed.apply(RegistryChange(A, ChipStatus.ACTIVE, "why")).sha256() != chips.sha256()  # the note differs


@pytest.mark.parametrize(("amount", "digits", "text"), [(2500, 2, "25.00"), (5, 2, "0.05"), (1000, 0, "1000"),
                                                         (1_234_567, 3, "1234.567"), (1, 4, "0.0001")])
def test_a_value_is_written_with_exactly_the_currency_s_decimals(amount: int, digits: int, text: str) -> None:
    assert amount_text(amount, digits) == text
