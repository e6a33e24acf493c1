"""A real core loop on a real temporary journal, driven as the tests of the core and of the
integrity checks drive it: :class:`Table` posts events, runs the loop until its queue is
empty, and keeps every output, so each test goes through the real code path (journal first,
then apply)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self, TypeVar

from station.cards import parse_card
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.outputs import Output
from station.events import Actor, BetPlaced, CardDrawn, DealerAction, Event, SupervisorDecision

SUPERVISOR = Actor("supervisor", "sam")


class Table:
    """A core loop on a journal file, with the outputs it published."""

    def __init__(self, path: Path, options: CoreOptions) -> None:
        self.path = path
        self.options = options
        self.outputs: list[Output] = []
        self.loop = self._open()

    def _open(self) -> CoreLoop:
        loop = CoreLoop(self.path, self.options)
        loop.subscribe(self.outputs.append)
        return loop

    def restart(self) -> CoreLoop:
        """Close and reopen: the new loop replays the journal."""
        self.loop.close()
        self.loop = self._open()
        return self.loop

    # driving -------------------------------------------------------------------------------
    def post(self, *events: Event) -> Self:
        for event in events:
            self.loop.post(event)
        self.loop.run_pending()
        return self

    def act(self, *actions: str) -> Self:
        return self.post(*(DealerAction(a) for a in actions))

    def cards(self, codes: str, device: str = "shoe") -> Self:
        return self.post(*(CardDrawn(device, parse_card(c)) for c in codes.split()))

    def bet(self, box: str, player: str, region: str, amount: int) -> Self:
        return self.post(BetPlaced(box, player, region, amount))

    def decide(self, decision: str) -> Self:
        return self.post(SupervisorDecision(decision, SUPERVISOR))

    def start_shoe(self, exposed: str = "2S", burns: str = "2C 2D") -> Self:
        """Manual shoe: shuffle, cut, expose, burn: the table is then open for bets."""
        self.act("shuffle_done", "confirm_cut")
        return self.cards(exposed).cards(burns)

    # reading -------------------------------------------------------------------------------
    @property
    def state(self) -> str:
        return self.loop.state

    @property
    def expectation(self) -> str:
        return self.loop.expectation

    @property
    def machine(self) -> Any:
        return self.loop.machine

    def of(self, kind: type[Output]) -> list[Any]:
        return [o for o in self.outputs if isinstance(o, kind)]

    def last(self, kind: type[Output]) -> Any:
        found = self.of(kind)
        assert found, f"no {kind.__name__} output"
        return found[-1]

    def clear(self) -> None:
        self.outputs.clear()


TableT = TypeVar("TableT", bound=Table)


def tables_in(folder: Path, kind: type[TableT]) -> Iterator[Callable[..., TableT]]:
    """The body of a ``make_table`` fixture: tables of ``kind`` with journals in ``folder``,
    each closed after the test."""
    tables: list[TableT] = []

    def make(**options: Any) -> TableT:
        table = kind(folder / f"journal-{len(tables)}.sqlite3", CoreOptions(**options))
        tables.append(table)
        return table

    yield make
    for table in tables:
        table.loop.close()
