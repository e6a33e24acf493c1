"""Dealing styles, the cut card and last round, batch and continuous shufflers."""

from __future__ import annotations

from typing import Any

import pytest

from station.cards import FULL_DECK
from station.core import outputs as out
from station.core.options import CoreOptionError, CoreOptions
from station.events import CardsReturned, CutCardSeen, DeckCheck, ShufflerState, ShufflerStatus


def counted(table: Any, device: str = "shuffler") -> Any:
    """The shuffler's count of a complete set, as the station asks it before a set goes into play."""
    decks = table.options.decks
    return table.post(DeckCheck(device, decks, tuple((c.code, decks) for c in FULL_DECK)))


@pytest.mark.parametrize("style", ["B", "D"])
def test_squeeze_styles_publish_nothing_before_each_reveal(make_table: Any, style: str) -> None:
    table = make_table(dealing_style=style)
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")
    table.clear()
    table.cards("2H 3H 4D KD")  # Player 6 stands, Banker 3 draws
    assert table.state == "revealing"
    assert not table.of(out.CardRevealed) and not table.of(out.RoundResult)
    assert "squeeze" in table.expectation
    table.act("reveal")
    assert [o.card.code for o in table.of(out.CardRevealed)] == ["2H", "3H", "4D", "KD"]
    # Nobody bets on Banker: the dealer squeezes and turns the Banker's cards.
    assert table.expectation == "deal Banker third card to the dealer" and not table.of(out.RoundResult)
    table.cards("7S")
    assert table.state == "revealing" and len(table.of(out.CardRevealed)) == 4
    table.act("reveal")
    assert table.of(out.CardRevealed)[-1].card.code == "7S"
    assert table.last(out.RoundResult).outcome == "player"
    assert table.state == "paying"


def test_style_c_turns_everything_at_the_end(make_table: Any) -> None:
    table = make_table(dealing_style="C")
    table.start_shoe().bet("1", "ann", "player", 1000).act("no_more_bets")
    table.clear()
    table.cards("2H 3H 4D KD 7C")
    assert table.state == "revealing" and not table.of(out.CardRevealed)
    table.cards("5S")
    table.decide("dummy")
    assert [c.code for c in table.machine.round.dummy] == ["5S"]
    table.act("reveal")
    assert [o.card.code for o in table.of(out.CardRevealed)] == ["2H", "3H", "4D", "KD", "7C"]
    assert table.last(out.RoundSettled).outcome == "player"


def test_style_a_refuses_reveal(table: Any) -> None:
    table.start_shoe().act("no_more_bets", "reveal")
    assert "cannot reveal now" in table.last(out.Refused).reason


def test_continuous_shuffler_with_squeeze_is_refused() -> None:
    with pytest.raises(CoreOptionError, match="not allowed with a continuous shuffler"):
        CoreOptions(equipment="continuous", dealing_style="B")


def play(table: Any, cards: str = "9H 2H KD 3D") -> Any:
    """One round (Player natural) from betting to the next round."""
    return table.act("no_more_bets").cards(cards)


def test_cut_card_mid_round_then_one_more_round(table: Any) -> None:
    table.start_shoe()
    play(table, "9H 2H")
    table.post(CutCardSeen("shoe"))
    table.cards("KD 3D").act("next_round")
    assert table.expectation == "cut card out: last round: place your bets"
    play(table).act("next_round")
    assert table.state == "shuffling"
    ended = table.last(out.ShoeEnded)
    assert (ended.shoe, ended.rounds) == (1, 2)
    assert table.expectation == "shoe finished: shuffle the cards, then press shuffle done"


def test_cut_card_in_place_of_the_first_card_makes_that_round_the_last(table: Any) -> None:
    table.start_shoe()
    play(table).act("next_round")
    table.act("no_more_bets").post(CutCardSeen("shoe"))
    assert table.expectation == "deal Player first card"
    assert table.machine.shoe.last_round
    table.cards("9H 2H KD 3D").act("next_round")
    assert table.state == "shuffling" and table.last(out.ShoeEnded).rounds == 2


def test_rounds_after_the_cut_are_configurable(make_table: Any) -> None:
    table = make_table(rounds_after_cut=2)
    table.start_shoe()
    play(table, "9H 2H").post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
    play(table).act("next_round")
    assert table.state == "betting" and table.machine.shoe.last_round
    play(table).act("next_round")
    assert table.last(out.ShoeEnded).rounds == 3


def test_no_round_after_the_cut_card_when_configured_so(make_table: Any) -> None:
    table = make_table(rounds_after_cut=0)
    table.start_shoe().bet("1", "ann", "player", 1000)
    table.post(CutCardSeen("shoe"))
    assert table.state == "paying"
    assert table.last(out.RoundVoided).returned[0].stake == 1000
    table.act("next_round")
    assert table.state == "shuffling"


def test_second_shoe_numbers_its_rounds_afresh(table: Any) -> None:
    table.start_shoe()
    play(table, "9H 2H").post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
    play(table).act("next_round")
    assert table.machine.shoe_results and table.state == "shuffling"
    table.start_shoe()
    assert table.machine.round.round_id == "2-1" and table.machine.shoe_results == []
    assert len(table.machine.shoe.composition) == 8 * 52 - 3


def test_batch_shuffler_alternates_the_coloured_sets(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.act("shuffle_done")
    assert "batch shuffler reports" in table.last(out.Refused).reason
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    assert table.state == "shuffling" and table.last(out.DeckCheckWanted).set_colour == "red"
    counted(table)
    assert table.state == "cutting" and table.machine.shoe.set_in_shoe == "red"
    table.post(ShufflerStatus("shuffler", ShufflerState.SHUFFLING, 10, "blue"))
    table.act("confirm_cut").cards("2S 2C 2D")
    assert table.last(out.ShoeStarted).set_colour == "red"
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "blue"))
    counted(table)
    assert table.machine.shoe.ready_set == "blue" and table.state == "betting"
    play(table, "9H 2H").post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
    play(table).act("next_round")
    # The blue set was ready: the next shoe goes straight to the cut.
    assert table.state == "cutting"
    assert (table.machine.shoe.set_in_shoe, table.machine.shoe.set_in_shuffler) == ("blue", "red")
    assert table.expectation.startswith("cut the cards")


def test_batch_shuffler_waits_for_the_other_colour(make_table: Any) -> None:
    table = make_table(equipment="batch")
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    counted(table).act("confirm_cut").cards("2S 2C 2D")
    play(table, "9H 2H").post(CutCardSeen("shoe")).cards("KD 3D").act("next_round")
    play(table).act("next_round")
    assert table.state == "shuffling"
    assert table.expectation == "shoe finished: waiting for the shuffler: blue set"
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "red"))
    assert table.state == "shuffling" and "waiting for the blue set" in table.last(out.Refused).reason
    table.post(ShufflerStatus("shuffler", ShufflerState.DONE, 100, "blue"))
    counted(table)
    assert table.state == "cutting"


def test_shuffler_jam_mid_round_is_a_device_fault(make_table: Any) -> None:
    table = make_table(equipment="continuous")
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    counted(table, "csm").act("no_more_bets").cards("2H")
    table.post(ShufflerStatus("csm", ShufflerState.JAM, detail="card jam"))
    assert table.last(out.IrregularityRaised).reason == "device_fault"
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    assert table.last(out.DeviceBack).device == "csm"
    table.decide("resume")
    assert table.state == "dealing"


def test_continuous_shuffler_has_no_cut_burn_or_shoe_end(make_table: Any) -> None:
    table = make_table(equipment="continuous", decks=4)
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    counted(table, "csm")
    assert table.state == "betting"
    started = table.last(out.ShoeStarted)
    assert started.exposed is None and started.burned == ()
    play(table).act("next_round")
    assert len(table.machine.shoe.composition) == 4 * 52 - 4
    table.post(CardsReturned("csm", 4))
    assert len(table.machine.shoe.composition) == 4 * 52
    table.post(CutCardSeen("csm"))
    assert table.last(out.Refused).reason == "no cut card is expected now"
    for _ in range(20):  # far more cards than one set would allow without returns
        play(table, "9H 9D 9C 9S").act("next_round").post(CardsReturned("csm", 4))
    assert table.state == "betting" and table.machine.round.round_id == "1-22"


def test_cards_returned_count_mismatch_is_reported(make_table: Any) -> None:
    table = make_table(equipment="continuous")
    table.post(ShufflerStatus("csm", ShufflerState.READY))
    counted(table, "csm")
    play(table).act("next_round").post(CardsReturned("csm", 5))
    alarm = table.last(out.AlertRaised)
    assert alarm.code == "cards_returned_mismatch" and "counted 5 cards back; 4 were dealt" in alarm.detail
    assert table.last(out.IrregularityRaised).reason == "cards_returned_mismatch"


def first_round(table: Any, equipment: str) -> Any:
    """Bring any equipment mode to its first round's betting."""
    if equipment == "continuous":
        return counted(table.post(ShufflerStatus("csm", ShufflerState.READY)), "csm")
    if equipment == "batch":
        table.post(ShufflerStatus("csm", ShufflerState.DONE, 100, "red"))
        return counted(table, "csm").act("confirm_cut").cards("2S 2C 2D")
    return table.start_shoe()


ALLOWED = [(e, s) for e in ("manual", "batch", "continuous") for s in "ABCD"
           if not (e == "continuous" and s in "BD")]  # refused at construction, tested above


@pytest.mark.parametrize("equipment, style", ALLOWED)
def test_every_equipment_mode_with_every_allowed_style(make_table: Any, equipment: str, style: str) -> None:
    table = make_table(equipment=equipment, dealing_style=style)
    first_round(table, equipment).bet("1", "ann", "player", 1000).act("no_more_bets")
    table.clear()
    table.cards("2H 3H 4D KD 7C" if style in ("A", "C") else "2H 3H 4D KD")
    if style != "A":
        assert not table.of(out.CardRevealed) and table.state == "revealing"
        table.act("reveal")
        if style in ("B", "D"):
            table.cards("7C").act("reveal")
    assert [o.card.code for o in table.of(out.CardRevealed)] == ["2H", "3H", "4D", "KD", "7C"]
    settled = table.last(out.RoundSettled)
    assert (settled.outcome, settled.bets[0].net) == ("player", 1000)
    assert table.of(out.RoundResult)[0].round_id == "1-1"
    table.act("next_round")
    assert table.state == "betting"
