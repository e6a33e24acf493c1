"""The scoreboard of the current shoe, kept up to date one result at a time.

Why incremental: the live service adds a result per round and must not recompute the whole
shoe each time, yet it must show exactly what :func:`~station.roads.rules.build_roads` would
(the tests check this on random shoes). After a restart it is rebuilt from the shoe's rounds
in the journal, and it is reset at shoe end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from station.roads.cells import DERIVED_ROADS, BeadPlateCell, BigRoadEntry, DerivedCell, Roads
from station.roads.results import TIE, ResultLike, ResultRecord, as_record
from station.roads.rules import GridPlacer, bead_cell, derived_colour, next_entry_position, predict, stats_of


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
        self._bead: list[BeadPlateCell] = []
        self._big: list[BigRoadEntry] = []
        self._leading_ties = 0
        self._sides: list[str] = []
        self._lengths: list[int] = []
        self._placer = GridPlacer()
        self._derived = {name: _DerivedState(k) for name, k in DERIVED_ROADS}

    def __len__(self) -> int:
        return len(self._records)

    @property
    def records(self) -> tuple[ResultRecord, ...]:
        """The shoe's results so far, in order."""
        return tuple(self._records)

    def add(self, item: ResultLike) -> ResultRecord:
        """Take the next result of the shoe; returns it as a record."""
        record = as_record(item)
        index = len(self._records)
        self._records.append(record)
        self._bead.append(bead_cell(index, record))
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
        self._big.append(BigRoadEntry(
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
            stats=stats_of(self._records, self._lengths, self._sides),
        )

    def to_dict(self) -> dict[str, Any]:
        return self.roads().to_dict()
