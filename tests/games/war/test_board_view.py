"""What the Casino War board says of each box: a box whose players decided apart (one went to
war, another surrendered) shows the war's outcome and that some of it surrendered, never a
plain "WAR WIN" as if all of it had gone."""

from __future__ import annotations

from station.cards import Card, parse_card
from station.games.war.board import war_round_view


def _dealt(*pairs: tuple[str, str]) -> list[tuple[str, Card]]:
    return [(position, parse_card(code)) for position, code in pairs]


def test_a_box_split_between_war_and_surrender_says_both() -> None:
    dealt = _dealt(("box 1", "9S"), ("box 2", "7H"), ("box 3", "7D"), ("dealer", "7C"),
                   ("war box 2", "KS"), ("war dealer", "4D"))
    view = war_round_view(5, dealt, surrendered=["2", "3"])  # box 2: one to war, one surrendered; box 3: all
    assert view is not None
    boxes = {b.box: b.to_dict() for b in view.boxes}
    assert boxes[1]["outcome"] == "win" and not boxes[1]["some_surrendered"]
    assert boxes[2]["outcome"] == "war-win" and boxes[2]["some_surrendered"] and boxes[2]["war_card"] == "KS"
    assert boxes[3]["outcome"] == "surrender" and not boxes[3]["some_surrendered"]
