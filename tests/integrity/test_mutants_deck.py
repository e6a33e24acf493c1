"""Corners of the deck check that mutation testing (tools/mutate.py, docs/testing.md) found
unguarded: each test here fails on a mutant that survived the rest of the tests.

The shuffler's count goes into a real core loop on a real journal; what the table says of it
(``DeckChecked``) comes out."""

from __future__ import annotations

from typing import Any

from station.cards import FULL_DECK
from station.core import outputs as out
from station.events import DeckCheck


def count(decks: int, change: dict[str, int] | None = None) -> tuple[tuple[str, int], ...]:
    """Every card code with ``decks`` copies, or the copies ``change`` gives (0 kept as 0)."""
    counts = {c.code: decks for c in FULL_DECK} | (change or {})
    return tuple(counts.items())


def test_a_complete_set_is_said_to_be_complete(make_table: Any) -> None:
    table = make_table(decks=8)
    table.post(DeckCheck("shuffler", 8, count(8)))
    checked = table.last(out.DeckChecked)
    assert checked.passed and checked.detail == "complete: 416 cards, 8 decks"


def test_a_card_counted_zero_times_is_short_by_every_copy(make_table: Any) -> None:
    table = make_table(decks=8)
    table.post(DeckCheck("shuffler", 8, count(8, {"7H": 0})))
    checked = table.last(out.DeckChecked)
    assert checked.short == (("7H", 8),) and checked.counted == 408
    assert checked.detail == "408 cards counted, 416 expected; short 7Hx8; by rank 7: 24 of 32"


def test_the_words_name_a_shuffler_set_for_other_decks_than_the_table(make_table: Any) -> None:
    """A shuffler counting against 6 decks on an 8-deck table: the words say so; one set for
    the table's 8 decks (or saying nothing of its decks) is not named."""
    table = make_table(decks=8)
    table.post(DeckCheck("shuffler", 6, count(6)))
    detail = table.last(out.DeckChecked).detail
    assert detail.endswith("; the shuffler counts against 6 decks, the table has 8")
    for decks in (8, 0):
        table.post(DeckCheck("shuffler", decks, count(8, {"AS": 7})))
        detail = table.last(out.DeckChecked).detail
        assert detail == "415 cards counted, 416 expected; short AS; by rank A: 31 of 32"


def test_the_words_give_the_copies_of_each_card_short_or_over(make_table: Any) -> None:
    """One copy is named alone, more with their number (cards in the deck's order)."""
    table = make_table(decks=8)
    table.post(DeckCheck("shuffler", 8, count(8, {"AS": 7, "7H": 6, "KD": 10, "QC": 9})))
    detail = table.last(out.DeckChecked).detail
    assert detail == ("416 cards counted, 416 expected; short 7Hx2 AS; over KDx2 QC; "
                      "by rank A: 31 of 32, 7: 30 of 32, Q: 33 of 32, K: 34 of 32")


def test_a_count_judged_without_the_shuffler_s_decks_names_none() -> None:
    from station.games.deck_check import judge_counts

    verdict = judge_counts(count(8, {"AS": 7}), 8)
    assert verdict.reported_decks == 0
    assert verdict.words() == "415 cards counted, 416 expected; short AS; by rank A: 31 of 32"
