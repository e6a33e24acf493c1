"""The roads on hand-worked histories (each worked out on squared paper; see docs/roads.md)."""

from __future__ import annotations

import random

import pytest

from station.cards import FULL_DECK, Card, Rank, Suit
from station.games.baccarat.rules import Outcome, play_round, result_of
from station.roads.cells import BLUE, RED, BeadPlateCell
from station.roads.results import ResultRecord, RoadsInputError, as_record
from station.roads.rules import build_roads, derived_colour
from station.roads.scoreboard import Scoreboard


def big_positions(text: str) -> list[tuple[int, int]]:
    return [(c.col, c.row) for c in build_roads(text).big_road]


def colours(text: str, road: str) -> list[str]:
    return [c.colour for c in build_roads(text).derived(road)]


# ---- Bead Plate -------------------------------------------------------------------------------


def test_bead_plate_fills_down_then_across_with_every_result() -> None:
    roads = build_roads("BPTBBPPTB")
    assert [(c.col, c.row, c.result) for c in roads.bead_plate] == [
        (0, 0, "B"), (0, 1, "P"), (0, 2, "T"), (0, 3, "B"), (0, 4, "B"), (0, 5, "P"),
        (1, 0, "P"), (1, 1, "T"), (1, 2, "B"),
    ]


def test_bead_plate_carries_pairs_naturals_and_totals_from_real_rounds() -> None:
    c = lambda code: Card(Rank(code[0]), Suit(code[1]))  # noqa: E731
    # Player 8-8 (pair, 6, draws), Banker 4-5 natural 9: banker wins on a natural.
    natural_banker = result_of([c("8S"), c("8H")], [c("4D"), c("5C")])
    # Player 2-3 draws a K: 5; Banker Q-Q pair (0) draws on a Player third card of 0: 7.
    banker_pair = result_of([c("2S"), c("3H"), c("KD")], [c("QD"), c("QC"), c("7S")])
    roads = build_roads([natural_banker, banker_pair])
    first, second = roads.bead_plate
    def bead(cell: BeadPlateCell) -> tuple[object, ...]:
        return (cell.result, cell.player_pair, cell.banker_pair, cell.natural, cell.total)

    assert bead(first) == ("B", True, False, True, 9)
    assert bead(second) == ("B", False, True, False, 7)
    assert roads.stats.naturals == 1 and roads.stats.player_pairs == 1 and roads.stats.banker_pairs == 1


def test_bead_plate_marks_a_dragon_7_and_a_panda_8_from_the_cards() -> None:
    """EZ Baccarat's marks: the Banker wins with a three-card 7 (Dragon 7), the Player with a
    three-card 8 (Panda 8); a two-card 7 or 8, a three-card 8 that loses or a tie are not."""
    c = lambda code: Card(Rank(code[0]), Suit(code[1]))  # noqa: E731
    # Player 2-3 draws a K: 5; Banker Q-Q (0) draws a 7 on a Player third card of 0: 7.
    dragon = result_of([c("2S"), c("3H"), c("KD")], [c("QD"), c("QC"), c("7S")])
    # Player 2-3 draws a 3: 8; Banker K-6 stands on a Player third card of 3: 6.
    panda = result_of([c("2S"), c("3H"), c("3D")], [c("KS"), c("6C")])
    two_card_seven = result_of([c("2S"), c("4H")], [c("4D"), c("3C")])  # Banker 7 to 6 of two cards
    # Player 2-3 draws a 3: 8; Banker 2-2 (4) draws a 5 on a Player third card of 3: 9.
    losing_eight = result_of([c("2S"), c("3H"), c("3D")], [c("2C"), c("2H"), c("5S")])
    assert (dragon.dragon_7, dragon.panda_8, panda.dragon_7, panda.panda_8) == (True, False, False, True)
    assert not any(r.dragon_7 or r.panda_8 for r in (two_card_seven, losing_eight))
    history = [dragon, panda, two_card_seven, losing_eight, dragon]
    roads = build_roads(history)
    assert [(b.result, b.dragon_7, b.panda_8) for b in roads.bead_plate] == [
        ("B", True, False), ("P", False, True), ("B", False, False), ("B", False, False), ("B", True, False)]
    assert roads.bead_plate[0].banker_pair and roads.bead_plate[0].total == 7
    assert (roads.stats.dragon_7s, roads.stats.panda_8s) == (2, 1)
    data = roads.to_dict()
    assert (data["bead_plate"][0]["dragon_7"], data["bead_plate"][1]["panda_8"]) == (True, True)
    assert (data["stats"]["dragon_7s"], data["stats"]["panda_8s"]) == (2, 1)
    assert Scoreboard(history).roads() == roads  # one result at a time: the same marks
    # A history typed as letters knows no cards: nothing is marked.
    typed = build_roads("BPB")
    assert not any(b.dragon_7 or b.panda_8 for b in typed.bead_plate)
    assert (typed.stats.dragon_7s, typed.stats.panda_8s) == (0, 0)


# ---- Big Road -----------------------------------------------------------------------------------


def test_big_road_streaks_in_columns_and_ties_on_the_previous_win() -> None:
    roads = build_roads("BPPTBBP")
    assert [(c.col, c.row, c.result, c.ties) for c in roads.big_road] == [
        (0, 0, "B", 0), (1, 0, "P", 0), (1, 1, "P", 1), (2, 0, "B", 0), (2, 1, "B", 0), (3, 0, "P", 0),
    ]
    assert roads.to_dict()["big_road"][2] == {
        "col": 1, "row": 1, "result": "P", "ties": 1, "leading_ties": 0, "streak": 1, "depth": 1,
        "player_pair": False, "banker_pair": False, "natural": False,
    }


def test_repeated_ties_count_on_one_cell() -> None:
    roads = build_roads("BTTTPTBTT")
    assert [(c.result, c.ties) for c in roads.big_road] == [("B", 3), ("P", 1), ("B", 2)]
    assert roads.stats.tie == 6


def test_leading_ties_are_counted_on_the_first_cell() -> None:
    roads = build_roads("TTBTP")
    first = roads.big_road[0]
    assert (first.col, first.row, first.result, first.ties, first.leading_ties) == (0, 0, "B", 3, 2)
    assert roads.leading_ties == 2
    assert roads.to_dict()["big_road_leading_ties"] == 2
    assert roads.big_road[1].leading_ties == 0


def test_leading_ties_before_any_win_are_kept() -> None:
    roads = build_roads("TT")
    assert roads.big_road == ()
    assert roads.leading_ties == 2
    assert roads.to_dict()["big_road_leading_ties"] == 2
    assert len(roads.bead_plate) == 2


def test_dragon_tail_turns_right_at_the_bottom_row() -> None:
    assert big_positions("B" * 8 + "P") == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5), (1, 0),
    ]
    roads = build_roads("B" * 8)
    assert [(c.streak, c.depth) for c in roads.big_road] == [(0, d) for d in range(8)]


def test_streak_runs_into_an_earlier_dragon_and_turns_above_it() -> None:
    # 8 Banker: col 0 and a tail along row 5 to col 2. Then 7 Player from col 1: down to row 4
    # (row 5 is the Banker tail) and right along row 4. Then 5 Banker from col 2: down to row 3
    # (row 4 taken by the Player tail) and right along row 3.
    positions = big_positions("B" * 8 + "P" * 7 + "B" * 5)
    assert positions[8:15] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    assert positions[15:] == [(2, 0), (2, 1), (2, 2), (2, 3), (3, 3)]


def test_tails_stacked_to_the_top_row_push_the_next_streak_right() -> None:
    text = "B" * 10 + "P" * 9 + "B" * 8 + "P" * 7 + "B" * 6 + "P" * 5 + "B"
    roads = build_roads(text)
    player5 = [(c.col, c.row) for c in roads.big_road if c.streak == 5]
    # Row 1 of column 5 holds the previous streak's tail, so this streak runs along row 0.
    assert player5 == [(5, 0), (6, 0), (7, 0), (8, 0), (9, 0)]
    last = roads.big_road[-1]
    assert (last.col, last.row, last.streak) == (10, 0, 6)  # drawn column 10, logical column 6


# ---- Derived roads ------------------------------------------------------------------------------


def test_worked_shoe_all_three_derived_roads() -> None:
    # Streak lengths B2 P1 B3 P2. Entries (col,row): (0,0)(0,1)(1,0)(2,0)(2,1)(2,2)(3,0)(3,1).
    text = "BBPBBBPP"
    assert colours(text, "big_eye_boy") == [BLUE, BLUE, RED, BLUE, RED]
    assert colours(text, "small_road") == [RED, BLUE, BLUE, BLUE]
    assert colours(text, "cockroach_pig") == [RED]
    assert [c.entry for c in build_roads(text).big_eye_boy] == [3, 4, 5, 6, 7]


@pytest.mark.parametrize(
    ("text", "road", "first_entry", "first_colour"),
    [
        # Big Eye Boy: column 2 row 2 when it exists ...
        ("BPPB", "big_eye_boy", 2, BLUE),
        # ... else column 3 row 1.
        ("BPB", "big_eye_boy", 2, RED),
        ("BPBB", "big_eye_boy", 2, RED),
        # Small Road: column 3 row 2, else column 4 row 1.
        ("BPBB", "small_road", 3, BLUE),
        ("BPBP", "small_road", 3, RED),
        ("BBPBP", "small_road", 4, BLUE),
        # Cockroach Pig: column 4 row 2, else column 5 row 1.
        ("BPBPP", "cockroach_pig", 4, BLUE),
        ("BPBPB", "cockroach_pig", 4, RED),
        ("BBPBPB", "cockroach_pig", 5, BLUE),
    ],
)
def test_derived_road_start_cells(text: str, road: str, first_entry: int, first_colour: str) -> None:
    cells = build_roads(text).derived(road)
    assert cells, f"{road} should have started on {text}"
    assert (cells[0].entry, cells[0].colour) == (first_entry, first_colour)


@pytest.mark.parametrize(
    ("text", "road"),
    [
        ("BBBBB", "big_eye_boy"),  # one column only
        ("BP", "big_eye_boy"),  # column 2 row 1 is before the start
        ("BPB", "small_road"),
        ("BPBP", "cockroach_pig"),
        ("BBBPPPB", "cockroach_pig"),
    ],
)
def test_no_derived_mark_before_the_start_cell(text: str, road: str) -> None:
    assert build_roads(text).derived(road) == ()


def test_derived_colour_rules_directly() -> None:
    lengths = [3, 1, 2, 4]
    # First entry of column 3: columns 2 and 1 (k=1) differ -> blue; columns 2 and 0 (k=2)... 2 vs 3 -> blue.
    assert derived_colour(lengths, 3, 0, 1) == BLUE
    assert derived_colour([2, 2, 2, 1], 3, 0, 1) == RED
    # Column 3 row 1 (k=1) looks at column 2 (length 2): has row 1 -> red.
    assert derived_colour(lengths, 3, 1, 1) == RED
    # Row 2: column 2 has length exactly 2 -> blue.
    assert derived_colour(lengths, 3, 2, 1) == BLUE
    # Row 3: column 2 is two short -> red ("straight drop").
    assert derived_colour(lengths, 3, 3, 1) == RED
    # Cockroach Pig at column 3 row 1 looks at column 0 (length 3).
    assert derived_colour(lengths, 3, 1, 3) == RED


def test_derived_roads_draw_streaks_of_one_colour_with_dragon_tails() -> None:
    # Banker 8 after B P: Big Eye Boy gets blue (col 2 row 0), blue, then red x6 -> the red
    # streak is 6 long and fits; add 2 more Banker wins and it bends along row 5.
    roads = build_roads("BPBB" + "B" * 8)
    cells = roads.big_eye_boy
    assert [c.colour for c in cells] == [RED, BLUE] + [RED] * 8
    assert [(c.col, c.row) for c in cells] == [
        (0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5), (3, 5), (4, 5),
    ]


def test_ask_road_predictions_worked() -> None:
    # B2 P1 B3 P2 (as above). Next Banker opens column 4: BEB compares columns 3 and 2 (2 vs 3)
    # -> blue; Small Road columns 3 and 1 (2 vs 1) -> blue; Cockroach Pig columns 3 and 0 (2 vs 2) -> red.
    # Next Player goes to column 3 row 2: BEB looks at column 2 (length 3) -> red; Small Road at
    # column 1 (length 1, two short) -> red; Cockroach Pig at column 0 (length 2 == row) -> blue.
    roads = build_roads("BBPBBBPP")
    assert roads.predictions["B"].to_dict() == {"big_eye_boy": BLUE, "small_road": BLUE, "cockroach_pig": RED}
    assert roads.predictions["P"].to_dict() == {"big_eye_boy": RED, "small_road": RED, "cockroach_pig": BLUE}
    assert roads.to_dict()["predictions"]["P"]["cockroach_pig"] == BLUE


def test_ask_road_predicts_nothing_before_the_roads_start() -> None:
    roads = build_roads("TB")
    assert roads.predictions["B"].to_dict() == {"big_eye_boy": None, "small_road": None, "cockroach_pig": None}
    assert roads.predictions["P"].to_dict() == {"big_eye_boy": None, "small_road": None, "cockroach_pig": None}


# ---- Statistics and input ----------------------------------------------------------------------


def test_statistics() -> None:
    s = build_roads("TBBTBPPTPPPB").stats
    assert (s.rounds, s.banker, s.player, s.tie) == (12, 4, 5, 3)
    assert (s.longest_banker_streak, s.longest_player_streak) == (3, 5)
    assert (s.current_streak_side, s.current_streak_length) == ("B", 1)
    assert build_roads("").stats.to_dict()["current_streak"] == {"side": None, "length": 0}


def test_a_bead_shows_the_winners_total_or_the_tied_total() -> None:
    assert ResultRecord("P", player_total=7, banker_total=3).winning_total == 7
    assert ResultRecord("B", player_total=7, banker_total=8).winning_total == 8
    assert ResultRecord("T", player_total=5, banker_total=5).winning_total == 5
    assert ResultRecord("T", player_total=5).winning_total == 5
    assert ResultRecord("P").winning_total is None
    beads = build_roads([ResultRecord("P", player_total=7, banker_total=3),
                         ResultRecord("B", player_total=1, banker_total=6)]).bead_plate
    assert [(b.result, b.total) for b in beads] == [("P", 7), ("B", 6)]


def test_the_current_streak_is_the_last_sides() -> None:
    assert (build_roads("BBBP").stats.current_streak_side, build_roads("BBBP").stats.current_streak_length) == ("P", 1)
    assert build_roads("PPBBT").stats.to_dict()["current_streak"] == {"side": "B", "length": 2}
    assert build_roads("TT").stats.current_streak_side is None


def test_bad_letters_and_totals_are_refused() -> None:
    with pytest.raises(RoadsInputError, match=r"^unknown result 'Q': use B \(Banker\), P \(Player\) or T \(Tie\)$"):
        as_record("Q")
    with pytest.raises(RoadsInputError, match=r"^player_total must be a point count 0-9, got 10$"):
        ResultRecord("B", player_total=10)
    assert as_record(Outcome.TIE) == ResultRecord("T")


def test_a_refused_result_changes_nothing() -> None:
    board = Scoreboard("BPT")
    before = board.roads()
    with pytest.raises(RoadsInputError, match=r"^unknown result 'X'"):
        board.add("X")
    with pytest.raises(RoadsInputError, match=r"^banker_total must be a point count 0-9, got True$"):
        board.add(ResultRecord("B", banker_total=True))
    assert board.roads() == before


def test_scoreboard_resets_for_a_new_shoe_and_rebuilds_from_the_journal_rounds() -> None:
    rng = random.Random(7)
    cards = list(FULL_DECK) * 8
    rng.shuffle(cards)
    draw = iter(cards).__next__
    rounds = [play_round(draw) for _ in range(60)]
    live = Scoreboard()
    for result in rounds:
        live.add(result)
    assert live.roads() == build_roads(rounds) == Scoreboard(rounds).roads()
    live.reset()
    assert live.roads() == build_roads([])
    assert len(live) == 0
