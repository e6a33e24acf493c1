"""Properties of the roads on random shoes (hypothesis)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from station.roads.cells import DERIVED_ROADS, ROWS, Roads
from station.roads.rules import build_roads
from station.roads.scoreboard import Scoreboard

# Histories biased towards long streaks so dragon tails and stacked tails are common.
runs = st.lists(st.tuples(st.sampled_from("BPT"), st.integers(1, 9)), max_size=18)
histories = st.one_of(
    st.text(alphabet="BPT", max_size=80),
    runs.map(lambda rs: "".join(letter * n for letter, n in rs)),
)


def _cells_are_drawn_consistently(cells, rows: int = ROWS) -> None:
    positions = [(c.col, c.row) for c in cells]
    assert len(set(positions)) == len(positions), "two marks share a cell"
    assert all(0 <= row < rows and col >= 0 for col, row in positions)
    previous = None
    for cell in cells:
        assert cell.col >= cell.streak, "a streak is never drawn left of its logical column"
        if previous is not None and cell.streak == previous.streak:
            # Within a streak each mark is directly below or directly right of the one before,
            # and once it has turned right it never goes down again.
            step = (cell.col - previous.col, cell.row - previous.row)
            assert step in ((0, 1), (1, 0))
        elif previous is not None:
            assert cell.streak == previous.streak + 1 and cell.depth == 0 and cell.row == 0
        previous = cell
    for streak in {c.streak for c in cells}:
        rows_in_streak = [c.row for c in cells if c.streak == streak]
        assert rows_in_streak == sorted(rows_in_streak)


@settings(max_examples=200, deadline=None)
@given(histories)
def test_every_win_appears_exactly_once_in_the_big_road(text: str) -> None:
    roads = build_roads(text)
    assert [c.round_index for c in roads.big_road] == [i for i, ch in enumerate(text) if ch != "T"]
    assert "".join(c.result for c in roads.big_road) == text.replace("T", "")
    assert sum(c.ties for c in roads.big_road) + (roads.leading_ties if not roads.big_road else 0) == text.count("T")
    assert len(roads.bead_plate) == len(text)
    _cells_are_drawn_consistently(roads.big_road)


@settings(max_examples=200, deadline=None)
@given(histories)
def test_each_derived_road_has_one_mark_per_entry_after_its_start(text: str) -> None:
    roads = build_roads(text)
    for name, k in DERIVED_ROADS:
        expected = [n for n, c in enumerate(roads.big_road) if c.streak > k or (c.streak == k and c.depth >= 1)]
        cells = roads.derived(name)
        assert [c.entry for c in cells] == expected, name
        _cells_are_drawn_consistently(cells)
        for a, b in itertools.pairwise(cells):
            assert (a.colour == b.colour) == (a.streak == b.streak)


@settings(max_examples=100, deadline=None)
@given(histories)
def test_incremental_equals_batch_after_every_result(text: str) -> None:
    board = Scoreboard()
    for n, letter in enumerate(text, start=1):
        board.add(letter)
        assert board.roads() == build_roads(text[:n])
    assert board.to_dict() == build_roads(text).to_dict()


def _new_marks(before: Roads, after: Roads) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    new_entry = len(after.big_road) - 1
    for name, _ in DERIVED_ROADS:
        cells = after.derived(name)
        assert len(cells) - len(before.derived(name)) in (0, 1)
        out[name] = cells[-1].colour if cells and cells[-1].entry == new_entry else None
    return out


@settings(max_examples=200, deadline=None)
@given(histories)
def test_ask_road_predictions_come_true(text: str) -> None:
    before = build_roads(text)
    for side in "BP":
        after = build_roads(text + side)
        assert before.predictions[side].to_dict() == _new_marks(before, after)
