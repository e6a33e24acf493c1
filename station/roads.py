"""The baccarat scoreboard roads, pure: Bead Plate, Big Road, the three derived roads, ask-road
predictions and shoe statistics; plus the Casino War results per box.

Why pure: the results display must survive a restart and reset at shoe end. The only input is
the list of round results of the current shoe (which the journal keeps), so the whole scoreboard
is a function of that list: :func:`build_roads`. The live service adds one result at a time with
:meth:`Scoreboard.add`, which keeps running state instead of recomputing, and must give exactly
the same :class:`Roads` (the tests check this on random shoes).

Rules in short (docs/roads.md has them in full, with worked examples):

* Bead Plate: every result in order, 6 rows, filled down then across.
* Big Road: consecutive wins of one side in one column ("streak"); the other side's win starts a
  new column. A tie is marked on the previous winner's cell with a count. Ties before the first
  Banker/Player win are counted as *leading ties* and drawn on the first cell (``leading_ties``).
  A streak longer than the column, or running into a cell already taken by an earlier streak,
  turns right and runs along the row it is in (the "dragon tail").
* Derived roads (Big Eye Boy k=1, Small Road k=2, Cockroach Pig k=3) look at the *logical* streak
  columns, never the bent drawing. See :func:`derived_colour`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Union

from station.games.baccarat import Outcome, RoundResult

ROWS = 6
"""Every road is drawn six cells high, as on the standard Asian scoreboard."""

BANKER = "B"
PLAYER = "P"
TIE = "T"
RED = "red"
BLUE = "blue"

DERIVED_ROADS: tuple[tuple[str, int], ...] = (
    ("big_eye_boy", 1),
    ("small_road", 2),
    ("cockroach_pig", 3),
)
"""Each derived road with its offset k: how many streak columns back it compares."""


class RoadsInputError(ValueError):
    """A result the scoreboard cannot take (unknown letter, impossible total...)."""


# --------------------------------------------------------------------------------------------
# Input: one round result
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """What the scoreboard needs to know about one round.

    Built from a :class:`~station.games.baccarat.RoundResult` by :func:`as_record`, or from a
    letter (``"B"``, ``"P"``, ``"T"``) when only the outcome is known (a hand-typed history).
    Totals are ``None`` when unknown.
    """

    outcome: str
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False
    player_total: int | None = None
    banker_total: int | None = None

    def __post_init__(self) -> None:
        if self.outcome not in (BANKER, PLAYER, TIE):
            raise RoadsInputError(f"outcome must be 'B', 'P' or 'T', got {self.outcome!r}")
        for name in ("player_total", "banker_total"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not (isinstance(value, int) and 0 <= value <= 9)):
                raise RoadsInputError(f"{name} must be a point count 0-9, got {value!r}")

    @property
    def winning_total(self) -> int | None:
        """The total shown on a bead: the winner's, or the tied total."""
        if self.outcome == PLAYER:
            return self.player_total
        return self.banker_total if self.banker_total is not None else self.player_total

    @classmethod
    def from_round(cls, result: RoundResult) -> ResultRecord:
        return cls(
            outcome=result.outcome.letter,
            player_pair=result.player_pair,
            banker_pair=result.banker_pair,
            natural=result.natural,
            player_total=result.player_total,
            banker_total=result.banker_total,
        )


ResultLike = Union[ResultRecord, RoundResult, Outcome, str]


def as_record(item: ResultLike) -> ResultRecord:
    """Accept a round result, an outcome, a record or a single letter (any case)."""
    if isinstance(item, ResultRecord):
        return item
    if isinstance(item, RoundResult):
        return ResultRecord.from_round(item)
    if isinstance(item, Outcome):
        return ResultRecord(item.letter)
    if isinstance(item, str):
        letter = item.strip().upper()
        if letter not in (BANKER, PLAYER, TIE):
            raise RoadsInputError(f"unknown result {item!r}: use B (Banker), P (Player) or T (Tie)")
        return ResultRecord(letter)
    raise RoadsInputError(f"cannot read a round result from {type(item).__name__}")


def parse_results(text: str) -> list[ResultRecord]:
    """Read a history typed as letters, e.g. ``"BPPTBBP"`` (case and spaces ignored).

    Any other character is refused with its position, so a typo never becomes a result.
    """
    records: list[ResultRecord] = []
    for position, char in enumerate(text, start=1):
        if char.isspace() or char == ",":
            continue
        letter = char.upper()
        if letter not in (BANKER, PLAYER, TIE):
            raise RoadsInputError(
                f"unknown result {char!r} at position {position}: use B (Banker), P (Player) or T (Tie)"
            )
        records.append(ResultRecord(letter))
    return records


# --------------------------------------------------------------------------------------------
# Output cells
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BeadCell:
    """One result on the Bead Plate (``index`` counts rounds of the shoe from 0)."""

    index: int
    col: int
    row: int
    result: str
    player_pair: bool
    banker_pair: bool
    natural: bool
    total: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "col": self.col,
            "row": self.row,
            "result": self.result,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class BigRoadCell:
    """One Banker or Player win on the Big Road.

    ``col``/``row`` are where it is drawn (after dragon-tail bending); ``streak``/``depth`` are
    its logical position: which streak column it belongs to and how far down that streak.
    ``ties`` counts every tie drawn on this cell; on the first cell it includes the
    ``leading_ties`` that came before any Banker/Player win.
    """

    col: int
    row: int
    streak: int
    depth: int
    result: str
    ties: int
    leading_ties: int
    round_index: int
    player_pair: bool
    banker_pair: bool
    natural: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "col": self.col,
            "row": self.row,
            "result": self.result,
            "ties": self.ties,
            "leading_ties": self.leading_ties,
            "streak": self.streak,
            "depth": self.depth,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
        }


@dataclass(frozen=True, slots=True)
class DerivedCell:
    """One mark of a derived road; ``entry`` is the Big Road entry (0-based) that made it."""

    col: int
    row: int
    streak: int
    depth: int
    colour: str
    entry: int

    def to_dict(self) -> dict[str, Any]:
        return {"col": self.col, "row": self.row, "colour": self.colour}


@dataclass(frozen=True, slots=True)
class Prediction:
    """What each derived road would add for one hypothetical next result (``None``: nothing)."""

    big_eye_boy: str | None
    small_road: str | None
    cockroach_pig: str | None

    def to_dict(self) -> dict[str, str | None]:
        return {name: getattr(self, name) for name, _ in DERIVED_ROADS}


@dataclass(frozen=True, slots=True)
class Stats:
    rounds: int
    banker: int
    player: int
    tie: int
    naturals: int
    player_pairs: int
    banker_pairs: int
    longest_banker_streak: int
    longest_player_streak: int
    current_streak_side: str | None
    current_streak_length: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "banker": self.banker,
            "player": self.player,
            "tie": self.tie,
            "naturals": self.naturals,
            "player_pairs": self.player_pairs,
            "banker_pairs": self.banker_pairs,
            "longest_banker_streak": self.longest_banker_streak,
            "longest_player_streak": self.longest_player_streak,
            "current_streak": {"side": self.current_streak_side, "length": self.current_streak_length},
        }


@dataclass(frozen=True)
class Roads:
    """The whole baccarat scoreboard of one shoe at one moment."""

    results: tuple[ResultRecord, ...]
    bead_plate: tuple[BeadCell, ...]
    big_road: tuple[BigRoadCell, ...]
    leading_ties: int
    big_eye_boy: tuple[DerivedCell, ...]
    small_road: tuple[DerivedCell, ...]
    cockroach_pig: tuple[DerivedCell, ...]
    predictions: Mapping[str, Prediction]
    stats: Stats

    def derived(self, name: str) -> tuple[DerivedCell, ...]:
        return {"big_eye_boy": self.big_eye_boy, "small_road": self.small_road,
                "cockroach_pig": self.cockroach_pig}[name]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``station roads --json`` and of the web scoreboard.

        Each derived road is its marks in order under its own name, and its drawn grid under
        ``<name>_grid``.
        """
        out: dict[str, Any] = {
            "bead_plate": [cell.to_dict() for cell in self.bead_plate],
            "big_road": [cell.to_dict() for cell in self.big_road],
            "big_road_leading_ties": self.leading_ties,
        }
        for name, _ in DERIVED_ROADS:
            cells = self.derived(name)
            out[name] = [cell.colour for cell in cells]
            out[f"{name}_grid"] = [cell.to_dict() for cell in cells]
        out["predictions"] = {side: self.predictions[side].to_dict() for side in (BANKER, PLAYER)}
        out["stats"] = self.stats.to_dict()
        return out


# --------------------------------------------------------------------------------------------
# The rules
# --------------------------------------------------------------------------------------------


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


def predict(lengths: Sequence[int], last_side: str | None) -> dict[str, Prediction]:
    """The ask road: what each derived road adds if the next result is a Banker or Player win."""
    out: dict[str, Prediction] = {}
    for side in (BANKER, PLAYER):
        col, row = next_entry_position(lengths, last_side, side)
        hypothetical = list(lengths)
        if col == len(hypothetical):
            hypothetical.append(0)
        hypothetical[col] += 1
        colours = [derived_colour(hypothetical, col, row, k) for _, k in DERIVED_ROADS]
        out[side] = Prediction(*colours)
    return out


def _bead(index: int, record: ResultRecord) -> BeadCell:
    return BeadCell(
        index=index,
        col=index // ROWS,
        row=index % ROWS,
        result=record.outcome,
        player_pair=record.player_pair,
        banker_pair=record.banker_pair,
        natural=record.natural,
        total=record.winning_total,
    )


def _lay_out_marks(marks: Sequence[tuple[str, int]]) -> tuple[DerivedCell, ...]:
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


def _streak_lengths(cells: Iterable[BigRoadCell]) -> list[int]:
    lengths: list[int] = []
    for cell in cells:
        if cell.depth == 0:
            lengths.append(0)
        lengths[-1] += 1
    return lengths


def _stats(records: Sequence[ResultRecord], lengths: Sequence[int], sides: Sequence[str]) -> Stats:
    longest = {BANKER: 0, PLAYER: 0}
    for side, length in zip(sides, lengths):
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
    )


def build_roads(results: Iterable[ResultLike]) -> Roads:
    """The whole scoreboard from the shoe's results, computed from scratch."""
    records = tuple(as_record(item) for item in results)
    bead = tuple(_bead(i, record) for i, record in enumerate(records))

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
    big: list[BigRoadCell] = []
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
        big.append(BigRoadCell(
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
        derived[name] = _lay_out_marks(marks)

    return Roads(
        results=records,
        bead_plate=bead,
        big_road=tuple(big),
        leading_ties=leading_ties,
        big_eye_boy=derived["big_eye_boy"],
        small_road=derived["small_road"],
        cockroach_pig=derived["cockroach_pig"],
        predictions=predict(lengths, sides[-1] if sides else None),
        stats=_stats(records, lengths, sides),
    )


@dataclass
class _DerivedState:
    k: int
    placer: GridPlacer = field(default_factory=GridPlacer)
    cells: list[DerivedCell] = field(default_factory=list)


class Scoreboard:
    """The scoreboard of the current shoe, updated one result at a time.

    ``Scoreboard(results)`` rebuilds it after a restart from the journal's rounds;
    :meth:`add` takes each new result; :meth:`reset` starts a new shoe. :meth:`roads` gives the
    same :class:`Roads` as :func:`build_roads` on the same results.
    """

    def __init__(self, results: Iterable[ResultLike] = ()) -> None:
        self.reset()
        for item in results:
            self.add(item)

    def reset(self) -> None:
        """A new shoe: every road starts empty."""
        self._records: list[ResultRecord] = []
        self._bead: list[BeadCell] = []
        self._big: list[BigRoadCell] = []
        self._leading_ties = 0
        self._sides: list[str] = []
        self._lengths: list[int] = []
        self._placer = GridPlacer()
        self._derived = {name: _DerivedState(k) for name, k in DERIVED_ROADS}

    def __len__(self) -> int:
        return len(self._records)

    def add(self, item: ResultLike) -> ResultRecord:
        """Take the next result of the shoe; returns it as a record."""
        record = as_record(item)
        index = len(self._records)
        self._records.append(record)
        self._bead.append(_bead(index, record))
        if record.outcome == TIE:
            if self._big:
                last = self._big[-1]
                self._big[-1] = replace(last, ties=last.ties + 1)
            else:
                self._leading_ties += 1
            return record

        col_logical, depth = next_entry_position(
            self._lengths, self._sides[-1] if self._sides else None, record.outcome
        )
        if col_logical == len(self._lengths):
            self._lengths.append(0)
            self._sides.append(record.outcome)
            col, row = self._placer.start_streak()
        else:
            col, row = self._placer.extend_streak()
        self._lengths[col_logical] += 1
        lead = self._leading_ties if not self._big else 0
        self._big.append(BigRoadCell(
            col=col, row=row, streak=col_logical, depth=depth, result=record.outcome,
            ties=lead, leading_ties=lead, round_index=index, player_pair=record.player_pair,
            banker_pair=record.banker_pair, natural=record.natural,
        ))
        entry = len(self._big) - 1
        for state in self._derived.values():
            colour = derived_colour(self._lengths, col_logical, depth, state.k)
            if colour is None:
                continue
            previous = state.cells[-1] if state.cells else None
            if previous is not None and previous.colour == colour:
                d_col, d_row = state.placer.extend_streak()
                cell = DerivedCell(d_col, d_row, previous.streak, previous.depth + 1, colour, entry)
            else:
                d_col, d_row = state.placer.start_streak()
                streak = previous.streak + 1 if previous is not None else 0
                cell = DerivedCell(d_col, d_row, streak, 0, colour, entry)
            state.cells.append(cell)
        return record

    def roads(self) -> Roads:
        return Roads(
            results=tuple(self._records),
            bead_plate=tuple(self._bead),
            big_road=tuple(self._big),
            leading_ties=self._leading_ties,
            big_eye_boy=tuple(self._derived["big_eye_boy"].cells),
            small_road=tuple(self._derived["small_road"].cells),
            cockroach_pig=tuple(self._derived["cockroach_pig"].cells),
            predictions=predict(self._lengths, self._sides[-1] if self._sides else None),
            stats=_stats(self._records, self._lengths, self._sides),
        )

    def to_dict(self) -> dict[str, Any]:
        return self.roads().to_dict()


# --------------------------------------------------------------------------------------------
# Casino War
# --------------------------------------------------------------------------------------------


class WarOutcome(str, Enum):
    """How one betting box's Casino War Wager ended in a round."""

    WIN = "win"
    LOSE = "lose"
    WAR_WIN = "war-win"
    WAR_LOSE = "war-lose"
    SURRENDER = "surrender"
    TIE = "tie"  # first cards tied and the box had no war or surrender (e.g. a Tie Wager only)


WAR_HISTORY = 10
"""How many latest results per box the War board keeps."""


class WarBoard:
    """Latest Casino War results per betting box for the current shoe.

    Each round is a mapping ``box number -> outcome`` for the boxes that played; boxes that sat
    a round out keep their history unchanged. Like :class:`Scoreboard` it is rebuilt from the
    shoe's rounds after a restart and reset at shoe end.
    """

    def __init__(self, rounds: Iterable[Mapping[int, WarOutcome | str]] = (), keep: int = WAR_HISTORY) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self.keep = keep
        self.rounds = 0
        self._boxes: dict[int, list[WarOutcome]] = {}
        for round_ in rounds:
            self.add(round_)

    def reset(self) -> None:
        self.rounds = 0
        self._boxes.clear()

    def add(self, round_: Mapping[int, WarOutcome | str]) -> None:
        parsed: dict[int, WarOutcome] = {}
        for box, outcome in round_.items():
            if not isinstance(box, int) or box < 1:
                raise RoadsInputError(f"box must be a positive number, got {box!r}")
            try:
                parsed[box] = WarOutcome(outcome)
            except ValueError:
                allowed = ", ".join(o.value for o in WarOutcome)
                raise RoadsInputError(f"unknown war outcome {outcome!r} for box {box}: use {allowed}") from None
        self.rounds += 1
        for box, outcome in parsed.items():
            history = self._boxes.setdefault(box, [])
            history.append(outcome)
            del history[:-self.keep]

    def latest(self, box: int) -> tuple[WarOutcome, ...]:
        """Oldest first, newest last."""
        return tuple(self._boxes.get(box, ()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "boxes": {str(box): [o.value for o in self._boxes[box]] for box in sorted(self._boxes)},
        }
