"""The baccarat scoreboard roads, pure: Bead Plate, Big Road, the three derived roads, ask-road
predictions and shoe statistics, from the shoe's results.

Rules in short (docs/roads.md has them in full, with worked examples):

* Bead Plate: every result in order, 6 rows, filled down then across; a Dragon 7 or Panda 8
  round is marked on its bead.
* Big Road: consecutive wins of one side in one column ("streak"); the other side's win starts a
  new column. A tie is marked on the previous winner's cell with a count. Ties before the first
  Banker/Player win are counted as *leading ties* and drawn on the first cell (``leading_ties``).
  A streak longer than the column, or running into a cell already taken by an earlier streak,
  turns right and runs along the row it is in (the "dragon tail").
* Derived roads (Big Eye Boy k=1, Small Road k=2, Cockroach Pig k=3) look at the *logical* streak
  columns, never the bent drawing. See :func:`derived_colour`.

:func:`build_roads` computes the whole scoreboard from scratch; the live service adds one result
at a time with :class:`~station.roads.scoreboard.Scoreboard`, which must give the same
:class:`~station.roads.cells.Roads`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from station.roads.cells import (
    BLUE,
    DERIVED_ROADS,
    RED,
    ROWS,
    AskPrediction,
    BeadPlateCell,
    BigRoadEntry,
    DerivedCell,
    Roads,
    Stats,
)
from station.roads.results import (
    BANKER,
    PLAYER,
    TIE,
    ResultLike,
    ResultRecord,
    as_record,
)


class GridPlacer:
    """Draws streaks on a grid ``rows`` high, bending dragon tails.

    A streak starts on the top row of the first free column right of where the previous streak
    started. It goes down while the cell below is free and on the grid; once it cannot, it turns
    right and stays on that row for the rest of the streak (so it never sits under an earlier
    streak's tail, and later streaks never cross it).
    """

    def __init__(self, rows: int = ROWS) -> None:
        self.rows = rows
        self._taken: set[tuple[int, int]] = set()
        self._last_start = -1
        self._cursor: tuple[int, int] | None = None
        self._turned = False

    def start_streak(self) -> tuple[int, int]:
        col = self._last_start + 1
        while (col, 0) in self._taken:
            col += 1
        self._last_start = col
        self._turned = False
        return self._take((col, 0))

    def extend_streak(self) -> tuple[int, int]:
        if self._cursor is None:
            raise ValueError("extend_streak before any streak started")
        col, row = self._cursor
        below = (col, row + 1)
        if not self._turned and row + 1 < self.rows and below not in self._taken:
            return self._take(below)
        self._turned = True
        return self._take((col + 1, row))

    def _take(self, cell: tuple[int, int]) -> tuple[int, int]:
        self._taken.add(cell)
        self._cursor = cell
        return cell


def derived_colour(lengths: Sequence[int], col: int, row: int, k: int) -> str | None:
    """Colour that the derived road with offset ``k`` gives a Big Road entry.

    ``col``/``row`` are the entry's logical streak column and depth (0-based); ``lengths[i]``
    the length of streak column ``i`` (only columns before ``col`` are read, and those are
    complete). Returns ``None`` before the road's start cell: the entry at column ``k`` row 1
    (0-based), or, when that column has only one entry, column ``k+1`` row 0.

    * first entry of a column: red when the two columns before it (``col-1`` and ``col-1-k``)
      have equal lengths, else blue ("is the pattern of column lengths repeating?");
    * further entries: look at column ``col-k``: an entry at this row → red; this row empty but
      the row above filled (length exactly ``row``) → blue; shorter still → red.
    """
    if col < k or (col == k and row == 0):
        return None
    if row == 0:
        return RED if lengths[col - 1] == lengths[col - 1 - k] else BLUE
    compared = lengths[col - k]
    if compared > row:
        return RED
    if compared == row:
        return BLUE
    return RED


def next_entry_position(lengths: Sequence[int], last_side: str | None, side: str) -> tuple[int, int]:
    """Logical (column, depth) that a new ``side`` win would take on the Big Road."""
    if not lengths:
        return 0, 0
    if side == last_side:
        return len(lengths) - 1, lengths[-1]
    return len(lengths), 0


def predict(lengths: Sequence[int], last_side: str | None) -> dict[str, AskPrediction]:
    """The ask road: what each derived road adds if the next result is a Banker or Player win."""
    out: dict[str, AskPrediction] = {}
    for side in (BANKER, PLAYER):
        col, row = next_entry_position(lengths, last_side, side)
        hypothetical = list(lengths)
        if col == len(hypothetical):
            hypothetical.append(0)
        hypothetical[col] += 1
        colours = [derived_colour(hypothetical, col, row, k) for _, k in DERIVED_ROADS]
        out[side] = AskPrediction(*colours)
    return out


def bead_cell(index: int, record: ResultRecord) -> BeadPlateCell:
    return BeadPlateCell(
        index=index,
        col=index // ROWS,
        row=index % ROWS,
        result=record.outcome,
        player_pair=record.player_pair,
        banker_pair=record.banker_pair,
        natural=record.natural,
        total=record.winning_total,
        dragon_7=record.dragon_7,
        panda_8=record.panda_8,
    )


def lay_out_marks(marks: Sequence[tuple[str, int]]) -> tuple[DerivedCell, ...]:
    """Place derived-road marks (colour, big road entry) in streaks on their own grid."""
    placer = GridPlacer()
    cells: list[DerivedCell] = []
    streak = -1
    depth = 0
    previous: str | None = None
    for colour, entry in marks:
        if colour == previous:
            depth += 1
            col, row = placer.extend_streak()
        else:
            streak += 1
            depth = 0
            col, row = placer.start_streak()
        cells.append(DerivedCell(col, row, streak, depth, colour, entry))
        previous = colour
    return tuple(cells)


def stats_of(records: Sequence[ResultRecord], lengths: Sequence[int], sides: Sequence[str]) -> Stats:
    longest = {BANKER: 0, PLAYER: 0}
    for side, length in zip(sides, lengths, strict=True):
        longest[side] = max(longest[side], length)
    return Stats(
        rounds=len(records),
        banker=sum(r.outcome == BANKER for r in records),
        player=sum(r.outcome == PLAYER for r in records),
        tie=sum(r.outcome == TIE for r in records),
        naturals=sum(r.natural for r in records),
        player_pairs=sum(r.player_pair for r in records),
        banker_pairs=sum(r.banker_pair for r in records),
        longest_banker_streak=longest[BANKER],
        longest_player_streak=longest[PLAYER],
        current_streak_side=sides[-1] if sides else None,
        current_streak_length=lengths[-1] if lengths else 0,
        dragon_7s=sum(r.dragon_7 for r in records),
        panda_8s=sum(r.panda_8 for r in records),
    )


def build_roads(results: Iterable[ResultLike]) -> Roads:
    """The whole scoreboard from the shoe's results, computed from scratch."""
    records = tuple(as_record(item) for item in results)
    bead = tuple(bead_cell(i, record) for i, record in enumerate(records))

    # Big Road: group wins into streaks first, then draw them.
    entries: list[tuple[int, ResultRecord, int]] = []  # (round index, record, ties after it)
    leading_ties = 0
    for index, record in enumerate(records):
        if record.outcome == TIE:
            if entries:
                i, rec, ties = entries[-1]
                entries[-1] = (i, rec, ties + 1)
            else:
                leading_ties += 1
        else:
            entries.append((index, record, 0))

    placer = GridPlacer()
    big: list[BigRoadEntry] = []
    sides: list[str] = []
    lengths: list[int] = []
    for n, (index, record, ties) in enumerate(entries):
        if sides and sides[-1] == record.outcome:
            lengths[-1] += 1
            col, row = placer.extend_streak()
        else:
            sides.append(record.outcome)
            lengths.append(1)
            col, row = placer.start_streak()
        lead = leading_ties if n == 0 else 0
        big.append(BigRoadEntry(
            col=col, row=row, streak=len(lengths) - 1, depth=lengths[-1] - 1,
            result=record.outcome, ties=ties + lead, leading_ties=lead, round_index=index,
            player_pair=record.player_pair, banker_pair=record.banker_pair, natural=record.natural,
        ))

    # Derived roads only ever read complete earlier columns, so the final lengths serve all.
    derived: dict[str, tuple[DerivedCell, ...]] = {}
    for name, k in DERIVED_ROADS:
        marks = []
        for n, cell in enumerate(big):
            colour = derived_colour(lengths, cell.streak, cell.depth, k)
            if colour is not None:
                marks.append((colour, n))
        derived[name] = lay_out_marks(marks)

    return Roads(
        results=records,
        bead_plate=bead,
        big_road=tuple(big),
        leading_ties=leading_ties,
        big_eye_boy=derived["big_eye_boy"],
        small_road=derived["small_road"],
        cockroach_pig=derived["cockroach_pig"],
        predictions=predict(lengths, sides[-1] if sides else None),
        stats=stats_of(records, lengths, sides),
    )
