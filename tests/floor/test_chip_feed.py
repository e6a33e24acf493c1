"""The floor feed of a table that knows its chips (docs/floor.md, docs/chips.md), derived from a
real journal of the shipped chip table (tests/meters/chip_play.py: past-posting, pinching, losing
chips left on a spot, wrong payments over and under, two accepted by a supervisor, a chip
flagged): each is an ``event`` naming its round, its place as code and in words, its chips and
amounts with the currency, and who; every message valid against the schemas, which refuse a
chip event that lacks what a floor supervisor needs. tests/floor/test_chip_feed_e2e.py sends
them through a real mosquitto from a running station."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from station.chip_inputs import ChipsOnPlace
from station.chips.registry import ChipStanding, ChipStatus
from station.config.options import journal_options
from station.core.chip_table import ChipRules
from station.core.options import CoreOptions
from station.event_codec import event_to_dict
from station.events import Actor, TrayCounted
from station.floor.derive import derive_all
from station.games.baccarat.table import BaccaratTable, Variant
from station.games.table import Chips
from station.journal import Journal, JournalReader
from station.journal.anchors import journal_id, journal_id_of

from ..meters.chip_play import play_chip_journal
from .helpers import schema_validators

CHIP_TYPES = ("chips_moved", "wrong_payment", "payment_accepted", "chip_status")


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    journal, _ = play_chip_journal(tmp_path_factory.mktemp("chips"))
    return feed_of(journal)


def feed_of(journal: Path, table: str = "BAC-05") -> list[dict[str, Any]]:
    with JournalReader(journal) as reader:
        ident = journal_id_of(reader)
        assert ident is not None
        return [m.payload for m in derive_all(reader.records(), journal_options(journal, journal), table=table,
                                              journal_id=ident)]


def chip_events(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in messages if m["kind"] == "event" and m["type"] == kind]


def errors(message: dict[str, Any]) -> list[str]:
    return [error.message for error in schema_validators()[message["kind"]].iter_errors(message)]


def test_every_message_of_a_chip_table_validates(messages: list[dict[str, Any]]) -> None:
    assert [m for m in messages if errors(m)] == []
    assert {t: len(chip_events(messages, t)) for t in CHIP_TYPES} == {
        "chips_moved": 3, "wrong_payment": 3, "payment_accepted": 2, "chip_status": 1}


def test_chips_moved_name_the_round_the_spot_the_chips_and_what_they_were_worth(
        messages: list[dict[str, Any]]) -> None:
    past, pinch, left = chip_events(messages, "chips_moved")
    assert {k: past[k] for k in ("found", "moved_round", "place", "place_words", "box", "region", "amount",
                                 "currency", "dealer")} == {
        "found": "past_posting", "moved_round": "1-1", "place": "spot:1:banker", "place_words": "Box 1 · Banker",
        "box": "1", "region": "banker", "amount": 500, "currency": "EUR", "dealer": "ann"}
    assert len(past["chips"]) == 1 and past["chips"][0] in past["detail"] and "past-posting" in past["detail"]
    assert past["read"] > 0 and past["at_ms"] == past["read"] * 100  # the read that showed it
    assert past["round_id"] == "1-1"  # the round on the table, as every event says it
    assert (pinch["found"], pinch["moved_round"], pinch["place_words"], pinch["amount"], pinch["dealer"]) == (
        "pinching", "1-2", "Box 2 · Player", 1000, "bob")
    assert (left["found"], left["moved_round"], left["place"], left["amount"], left["read"]) == (
        "left_on_losing_spot", "1-3", "spot:2:player", 1000, 0)


def test_a_wrong_payment_names_each_box_paid_wrong_and_what_was_paid_over_and_under(
        messages: list[dict[str, Any]]) -> None:
    under, over, both = chip_events(messages, "wrong_payment")
    assert (under["paid_round"], under["over"], under["under"], under["difference"], under["dealer"]) == (
        "1-1", 0, 900, -900, "ann")
    assert under["boxes"] == [{"place": "payout:1", "place_words": "Box 1 payout zone", "box": "1", "region": "",
                               "owed": 1900, "paid": 1000, "verdict": "under", "difference": -900,
                               "detail": "Box 1 paid 10.00, owed 19.00: under by 9.00"}]
    assert under["wrong"] == ["Box 1 paid 10.00, owed 19.00: under by 9.00"] and under["currency"] == "EUR"
    assert (over["paid_round"], over["over"], over["under"], over["dealer"]) == ("1-2", 500, 0, "bob")
    assert (both["over"], both["under"], both["difference"]) == (500, 900, -400)
    assert [(b["box"], b["verdict"], b["owed"], b["paid"]) for b in both["boxes"]] == [
        ("1", "under", 1900, 1000), ("2", "over", 0, 500)]


def test_an_accepted_payment_says_who_why_and_what_was_still_wrong(messages: list[dict[str, Any]]) -> None:
    first, last = chip_events(messages, "payment_accepted")
    assert {k: first[k] for k in ("paid_round", "over", "under", "difference", "note", "role", "who", "currency")} == {
        "paid_round": "1-1", "over": 0, "under": 900, "difference": -900, "note": "paid 9.00 in cash",
        "role": "supervisor", "who": "sam", "currency": "EUR"}
    assert [b["box"] for b in first["boxes"]] == ["1"]
    assert (last["paid_round"], last["over"], last["under"], len(last["boxes"])) == ("1-3", 500, 900, 2)
    assert chip_events(messages, "wrong_payment")[1]["paid_round"] not in {m["paid_round"] for m in (first, last)}


def test_a_chip_s_status_says_who_set_it_why_and_where_the_chip_lies(messages: list[dict[str, Any]]) -> None:
    [flagged] = chip_events(messages, "chip_status")
    assert {k: flagged[k] for k in ("status", "reason", "role", "who", "value", "places")} == {
        "status": "flagged", "reason": "reported stolen", "role": "supervisor", "who": "sam", "value": None,
        "places": []}  # not on the layout
    assert len(flagged["uid"]) == 16


@pytest.mark.parametrize("field", ["place_words", "moved_round", "amount", "currency", "chips"])
def test_the_schema_refuses_a_chips_moved_without_what_a_supervisor_needs(
        messages: list[dict[str, Any]], field: str) -> None:
    message = copy.deepcopy(chip_events(messages, "chips_moved")[0])
    del message[field]
    assert errors(message), field


def test_the_schema_refuses_amounts_that_are_not_whole_minor_units(messages: list[dict[str, Any]]) -> None:
    wrong = copy.deepcopy(chip_events(messages, "wrong_payment")[0])
    wrong["under"] = 9.5  # (9.0 is a whole number to JSON Schema)
    assert errors(wrong)
    wrong = copy.deepcopy(chip_events(messages, "wrong_payment")[0])
    wrong["boxes"][0]["verdict"] = "right"
    assert errors(wrong)
    moved = copy.deepcopy(chip_events(messages, "chips_moved")[0])
    moved["place"] = "Box 1 · Banker"
    assert errors(moved)


def test_a_tray_count_by_the_tray_antenna_says_so_in_the_feed(tmp_path: Path) -> None:
    """The floor's ``tray`` event says who counted (docs/tray.md): ``reader`` for an opener the
    tray antenna counted from the tray's read journaled before it, ``hand`` for a closer people
    counted; both valid against the schema."""
    sam = Actor("supervisor", "sam")
    path = tmp_path / "journal.sqlite3"
    tray = tuple(ChipStanding(f"E00401000000001{n}", ChipStatus.ACTIVE, value) for n, value in enumerate((1000, 500)))
    with Journal(path) as journal:
        journal.append("Software", {"version": "test", "journal_schema": 1})
        for event in (ChipsOnPlace("tray", tray, read=1, at_ms=100),
                      TrayCounted("opener", (), "dana", sam, counted_by="reader"),
                      TrayCounted("closer", ((500, 1), (1000, 1)), "dana", sam)):
            journal.append(event.kind, event_to_dict(event))
    with JournalReader(path) as reader:
        records = list(reader.records())
    options = CoreOptions(table=BaccaratTable(Variant.MINI, 7, 1000, 500_000, Chips((100, 500, 1000))),
                          chips=ChipRules())
    messages = [m.payload for m in derive_all(records, options, table="BAC-05", journal_id=journal_id(records[0].hash),
                                              currency="EUR")]
    trays = chip_events(messages, "tray")
    assert [(t["what"], t["chips"], t["value"], t["counted_by"]) for t in trays] == [
        ("opener", [[500, 1], [1000, 1]], 1500, "reader"), ("closer", [[500, 1], [1000, 1]], 1500, "hand")]
    assert [m for m in messages if errors(m)] == []
    assert errors({**trays[0], "counted_by": "scale"})  # the schema knows only the two
