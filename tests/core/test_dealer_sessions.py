"""Dealer sessions in the core: who deals each round, each change with both names, and the
incoming dealer's burn card with ``burn_on_dealer_change`` (docs/dealers.md).

Real core loop on a real journal (tests/core_table.py); recall replays that journal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from station.core import outputs as out
from station.core.dealer_steps import BURN_WORDS
from station.core.options import CoreOptions
from station.core.projection import Projection
from station.core.recall import describe, recall_rounds
from station.events import Actor, DealerSignedIn, DealerSignedOut
from station.journal import JournalReader

from ..core_table import Table

ANA, BEN = Actor("dealer", "ana"), Actor("dealer", "ben")
SUE = Actor("supervisor", "sue")


def sign_in(table: Table, name: str, actor: Actor | None = None, door: str = "control") -> Table:
    return table.post(DealerSignedIn(name, actor or Actor("dealer", name), door))


def play_banker_round(table: Table) -> None:
    """A round Banker wins, from betting to paid: 2S 4H | 3D 4C is Player 5, Banker 7."""
    table.bet("1", "p1", "banker", 2000)
    table.act("no_more_bets").cards("2S 4H 3D 4C")
    assert table.state == "paying", table.expectation
    table.act("next_round")


def test_every_round_carries_its_dealer_and_each_change_names_both(make_table: Any) -> None:
    table = make_table()
    table.start_shoe()
    play_banker_round(table)  # 1-1: nobody signed in
    sign_in(table, "ana")  # betting of 1-2, no card out: 1-2 is ana's
    first = table.last(out.DealerChanged)
    assert (first.dealer, first.relieved, first.round_id, first.burn, first.door) == ("ana", "", "1-2", False,
                                                                                      "control")
    table.bet("1", "p1", "banker", 2000)
    table.act("no_more_bets").cards("2S 4H")
    sign_in(table, "ben", SUE)  # cards of 1-2 are out: ana deals it to its end, ben has the next
    change = table.last(out.DealerChanged)
    assert (change.dealer, change.relieved, change.round_id) == ("ben", "ana", "")
    assert (change.role, change.who) == ("supervisor", "sue")
    table.cards("3D 4C").act("next_round")
    play_banker_round(table)  # 1-3: ben's
    settled = table.of(out.RoundSettled)
    assert [s.dealer for s in settled] == ["", "ana", "ben"]
    assert table.machine.dealer == "ben"
    rounds = recall_rounds(table.path, table.options)
    assert [r["dealer"] for r in rounds] == ["", "ana", "ben", "ben"]  # 1-4 is on the table, ben's
    assert "dealer       ben" in describe(rounds[2])


def test_signing_in_the_dealer_already_at_the_table_is_refused_and_changes_nothing(make_table: Any) -> None:
    table = make_table()
    sign_in(table, "ana")
    table.clear()
    sign_in(table, "ana")
    assert table.last(out.Refused).reason == "ana is already the dealer at this table"
    assert not table.of(out.DealerChanged)
    sign_in(table, " ")
    assert table.last(out.Refused).reason == "a dealer signs in by name"


def test_with_the_option_the_relieving_dealer_burns_one_card_before_their_first_round(make_table: Any) -> None:
    table = make_table(burn_on_dealer_change=True)
    sign_in(table, "ana")  # the first dealer relieves nobody: no burn
    table.start_shoe()
    assert not table.last(out.DealerChanged).burn
    play_banker_round(table)
    sign_in(table, "ben")
    assert table.last(out.DealerChanged).burn
    table.bet("1", "p1", "banker", 2000)
    assert table.expectation == "place your bets"
    table.act("no_more_bets")
    assert table.expectation == BURN_WORDS
    table.cards("KH")  # the burn card: face down, no position
    assert table.state == "dealing" and table.expectation != BURN_WORDS
    assert not [o for o in table.of(out.CardRevealed) if o.card.code == "KH"]
    table.cards("2S 4H 3D 4C")
    settled = table.last(out.RoundSettled)
    assert settled.dealer == "ben" and settled.outcome == "banker"
    table.act("next_round")
    play_banker_round(table)  # ben's second round: no burn
    rounds = recall_rounds(table.path, table.options)
    bens = [r for r in rounds if r["dealer"] == "ben"]
    assert bens[0]["dealer_burned"] == "KH" and bens[0]["burned"] == ["KH"]
    assert bens[1]["dealer_burned"] is None and bens[1]["burned"] == []
    assert "burned       KH" in describe(bens[0])


def test_without_the_option_nothing_is_burned(make_table: Any) -> None:
    table = make_table()
    sign_in(table, "ana")
    table.start_shoe()
    play_banker_round(table)
    sign_in(table, "ben")
    assert not table.last(out.DealerChanged).burn
    table.bet("1", "p1", "banker", 2000)
    table.act("no_more_bets")
    assert table.expectation != BURN_WORDS
    table.cards("2S 4H 3D 4C")
    assert table.last(out.RoundSettled).outcome == "banker"
    assert all(not r["burned"] and r["dealer_burned"] is None for r in recall_rounds(table.path, table.options))


def test_a_change_mid_round_burns_before_the_next_round_not_the_one_in_play(make_table: Any) -> None:
    table = make_table(burn_on_dealer_change=True)
    sign_in(table, "ana")
    table.start_shoe()
    table.bet("1", "p1", "banker", 2000)
    table.act("no_more_bets").cards("2S 4H")
    sign_in(table, "ben")
    assert table.expectation != BURN_WORDS  # ana's round goes on
    table.cards("3D 4C")
    assert table.last(out.RoundSettled).dealer == "ana"
    table.act("next_round").bet("1", "p1", "banker", 2000).act("no_more_bets")
    assert table.expectation == BURN_WORDS
    table.cards("9C 2S 4H 3D 4C")
    assert table.last(out.RoundSettled).dealer == "ben"
    assert recall_rounds(table.path, table.options)[1]["dealer_burned"] == "9C"


def test_replay_rebuilds_the_dealer_and_a_burn_still_due(make_table: Any) -> None:
    table = make_table(burn_on_dealer_change=True)
    sign_in(table, "ana")
    table.start_shoe()
    play_banker_round(table)
    sign_in(table, "ben")
    table.bet("1", "p1", "banker", 2000)
    live = table.machine.snapshot()
    assert live["dealer"] == "ben" and live["dealer_burn_due"]
    table.restart()
    assert table.machine.snapshot() == live
    table.act("no_more_bets")
    assert table.expectation == BURN_WORDS
    fresh = Projection(table.options)
    with JournalReader(table.path) as reader:
        fresh.replay(reader.records())
    assert fresh.machine.snapshot() == table.machine.snapshot()


def test_the_dealer_and_a_burn_due_carry_across_checkpoints(tmp_path: Path) -> None:
    """A checkpoint between a change of dealer and the new dealer's burn card resumes the very
    same stream: the dealer at the table, the burn owed, each round's dealer and burn card."""
    from station.cards import parse_card
    from station.core.checkpoints import CHECKPOINT
    from station.events import BetPlaced, CardDrawn, DealerAction, Event

    from .test_checkpoints import assert_every_checkpoint_resumes_the_stream, full_replay, run_live

    def cards(codes: str) -> list[Event]:
        return [CardDrawn("shoe", parse_card(code)) for code in codes.split()]

    def banker_round() -> list[Event]:
        return [BetPlaced("1", "p1", "banker", 2000), DealerAction("no_more_bets"), *cards("2S 4H 3D 4C"),
                DealerAction("next_round")]

    inputs: list[Event] = [
        DealerSignedIn("ana", ANA, "console"), DealerAction("shuffle_done"), DealerAction("confirm_cut"),
        *cards("2S 2C 2D"), *banker_round(), DealerSignedIn("ben", SUE, "control"),
        BetPlaced("1", "p1", "banker", 2000), DealerAction("no_more_bets"), *cards("KH 2S 4H 3D 4C"),
        DealerAction("next_round"), *banker_round(),
    ]
    path = tmp_path / "j.sqlite3"
    options = CoreOptions(decks=4, burn_on_dealer_change=True)
    run_live(path, options, inputs, every=1).close()
    assert assert_every_checkpoint_resumes_the_stream(path, options) >= 8
    records, outputs, final = full_replay(path, options)
    changed = next(r.seq for r, outs in zip(records, outputs, strict=True)
                   if any(isinstance(o, out.DealerChanged) and o.dealer == "ben" for o in outs))
    burned = next(r.seq for r, outs in zip(records, outputs, strict=True) if r.payload.get("card") == "KH")
    assert any(changed < r.seq < burned for r in records if r.kind == CHECKPOINT)
    settled = [o for outs in outputs for o in outs if isinstance(o, out.RoundSettled)]
    assert [s.dealer for s in settled] == ["ana", "ben", "ben"]
    assert final.machine.dealer == "ben" and not final.machine.dealer_burn_due


def test_a_dealer_who_signs_out_leaves_the_rounds_after_to_nobody(make_table: Any) -> None:
    table = make_table()
    table.start_shoe()
    sign_in(table, "ana", door="console")
    table.post(DealerSignedOut("ben", BEN, "console"))  # not the dealer
    assert "ben is not the dealer at this table (ana is)" in table.last(out.Refused).reason
    play_banker_round(table)  # 1-1: ana's
    table.post(DealerSignedOut("ana", ANA, "console"))
    change = table.last(out.DealerChanged)
    assert (change.dealer, change.relieved, change.door) == ("", "ana", "console")
    assert table.machine.dealer == ""
    play_banker_round(table)  # 1-2 opened before she left: still hers; 1-3 is nobody's
    play_banker_round(table)
    rounds = recall_rounds(table.path, table.options)
    assert [r["dealer"] for r in rounds] == ["ana", "ana", "", ""]
    table.post(DealerSignedOut("ana", ANA, "console"))
    assert "ana is not the dealer at this table" in table.last(out.Refused).reason
