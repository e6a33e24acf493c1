"""Casino War wagers: which may go on the table (seed 002 section 5)."""

from __future__ import annotations

from typing import Any

import pytest

from station.games.layout import Acceptance
from station.games.table import Chips
from station.games.war.table import WarTable
from station.games.war.wagers import WagerKind, WarWager, accept_wager

WAR, TIE, GO = WagerKind.WAR, WagerKind.TIE, WagerKind.GO_TO_WAR


def table(**changes: Any) -> WarTable:
    options: dict[str, Any] = {"boxes": 7, "min_bet": 10, "max_bet": 500, "chips": Chips((5, 25, 100))}
    options.update(changes)
    return WarTable(**options)


def refused(result: Acceptance, rule: str, text: str) -> None:
    assert not result, "expected a refusal"
    assert result.rule == rule
    assert text in result.reason, result.reason


# --- Acceptance -----------------------------------------------------------------------------


def test_war_and_tie_wagers_accepted_on_a_box() -> None:
    t = table()
    placed: list[WarWager] = []
    for wager in (WarWager(1, "ann", WAR, 100), WarWager(1, "ann", TIE, 10), WarWager(1, "bob", WAR, 50)):
        assert accept_wager(wager, placed, t), wager
        placed.append(wager)
    assert accept_wager(WarWager(2, "cy", TIE, 10), [], t)  # a Tie Wager alone is allowed (5.1)


@pytest.mark.parametrize(
    ("wager", "rule", "text"),
    [
        (WarWager(8, "ann", WAR, 100), "3.1", "there is no box 8: this table has boxes 1 to 7"),
        (WarWager(1, "ann", WAR, -10), "5.1", "a wager must be a positive whole amount"),
        (
            WarWager(1, "ann", WAR, 10.0),  # type: ignore[arg-type]  # a float on purpose
            "5.1",
            "a wager must be a positive whole amount",
        ),
        (WarWager(1, "", WAR, 10), "5.1", "needs the player"),
        (WarWager(1, "ann", WAR, 12), "5.1", "Casino War Wager of 0.12 cannot be made of chips of 0.05"),
        (WarWager(1, "ann", WAR, 5), "5.7", "Casino War Wager of 0.05 on box 1 is below the table minimum of 0.10"),
        (WarWager(1, "ann", TIE, 5), "5.7", "Tie Wager of 0.05 on box 1 is below the table minimum of 0.10"),
        (WarWager(1, "ann", WAR, 600), "5.10", "over the table maximum of 5.00"),
        (WarWager(1, "ann", WAR, 15), "5.2",
         "could not be halved in chips of 0.05 on a surrender: use a multiple of 0.10"),
        (WarWager(1, "ann", GO, 10), "5.2", "placed only when a player chooses war"),
    ],
)
def test_bad_wagers_are_refused(wager: WarWager, rule: str, text: str) -> None:
    refused(accept_wager(wager, [], table()), rule, text)


def test_the_layouts_edges_are_boxes_one_to_seven_and_the_maximum_itself() -> None:
    box_0 = accept_wager(WarWager(0, "ann", WAR, 100), [], table())
    refused(box_0, "3.1", "there is no box 0: this table has boxes 1 to 7")
    assert accept_wager(WarWager(7, "ann", WAR, 100), [], table())  # box 7 of 7
    assert accept_wager(WarWager(1, "ann", WAR, 10), [], table())  # exactly the minimum
    assert accept_wager(WarWager(1, "ann", WAR, 500), [], table())  # exactly the maximum
    assert accept_wager(WarWager(1, "ann", WAR, 250), [WarWager(1, "ann", WAR, 250)], table())
    refused(accept_wager(WarWager(1, "ann", WAR, 260), [WarWager(1, "ann", WAR, 250)], table()), "5.10",
            "over the table maximum of 5.00: at most 2.50 more")
    assert accept_wager(WarWager(3, "cy", WAR, 100), [WarWager(3, "ann", WAR, 500)], table(box_max=600))
    assert accept_wager(WarWager(3, "ann", TIE, 50), [WarWager(3, "ann", WAR, 350)], table(player_max=400))


def test_players_per_box_default_three_and_configurable_lower() -> None:
    placed = [WarWager(2, name, WAR, 20) for name in ("ann", "bob", "cy")]
    refused(accept_wager(WarWager(2, "dee", WAR, 20), placed, table()), "5.9", "box 2 already has 3 players: at most 3")
    refused(accept_wager(WarWager(2, "cy", WAR, 20), placed[:2], table(players_per_box=2)), "5.9", "at most 2 may bet")
    assert accept_wager(WarWager(2, "ann", TIE, 20), placed, table())


def test_boxes_per_player() -> None:
    placed = [WarWager(1, "ann", WAR, 20)]
    refused(accept_wager(WarWager(2, "ann", WAR, 20), placed, table()), "5.8", "player ann may bet on at most 1 box")
    assert accept_wager(WarWager(2, "ann", WAR, 20), placed, table(max_boxes_per_player=2))
    # ... and the minimum still applies on each box (5.7).
    small = accept_wager(WarWager(2, "ann", WAR, 5), placed, table(max_boxes_per_player=2))
    refused(small, "5.7", "below the table minimum")


def test_box_maximum_and_player_maximum() -> None:
    placed = [WarWager(3, "ann", WAR, 300), WarWager(3, "ann", TIE, 50), WarWager(3, "bob", WAR, 200)]
    t = table(box_max=600, player_max=400)
    over = accept_wager(WarWager(3, "cy", WAR, 100), placed, t)
    refused(over, "5.10", "takes box 3 to 6.50, over the box maximum of 6.00")
    refused(
        accept_wager(WarWager(3, "ann", TIE, 100), placed[:2], t),
        "5.10",
        "takes player ann's wagers on box 3 to 4.50, over the player maximum of 4.00",
    )
    assert accept_wager(WarWager(3, "ann", TIE, 50), placed[:2], t)


def test_tie_wager_belongs_first_to_the_war_wager_holder() -> None:
    placed = [WarWager(4, "ann", WAR, 100)]
    refused(
        accept_wager(WarWager(4, "bob", TIE, 10), placed, table()),
        "5.11",
        "the Tie Wager on box 4 belongs first to ann, who holds the Casino War Wager there",
    )
    assert accept_wager(WarWager(4, "bob", TIE, 10), placed, table(), tie_declined={(4, "ann")})
    assert accept_wager(WarWager(4, "bob", TIE, 10), [*placed, WarWager(4, "ann", TIE, 10)], table())
    assert accept_wager(WarWager(4, "ann", TIE, 10), placed, table())
