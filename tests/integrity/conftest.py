"""Fixtures of the integrity tests: a real core loop on a real journal (as in tests/core), and
helpers to play the table's shuffler."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from station.cards import FULL_DECK, parse_card
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.core.outputs import Output
from station.events import Actor, CardDrawn, DealerAction, DeckCheck, Event, SupervisorDecision

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
        self.loop.close()
        self.loop = self._open()
        return self.loop

    def post(self, *events: Event) -> Table:
        for event in events:
            self.loop.post(event)
        self.loop.run_pending()
        return self

    def act(self, *actions: str) -> Table:
        return self.post(*(DealerAction(a) for a in actions))

    def cards(self, codes: str, device: str = "shoe") -> Table:
        return self.post(*(CardDrawn(device, parse_card(c)) for c in codes.split()))

    def decide(self, decision: str) -> Table:
        return self.post(SupervisorDecision(decision, SUPERVISOR))

    def counted(self, device: str = "shuffler", change: dict[str, int] | None = None) -> Table:
        """The shuffler's count of its set: complete, or with ``change`` (card code -> count)."""
        decks = self.options.decks
        counts = {c.code: decks for c in FULL_DECK} | (change or {})
        return self.post(DeckCheck(device, decks, tuple((code, n) for code, n in counts.items() if n)))

    @property
    def state(self) -> str:
        return self.loop.state

    @property
    def machine(self) -> Any:
        return self.loop.machine

    def of(self, kind: type[Output]) -> list[Any]:
        return [o for o in self.outputs if isinstance(o, kind)]

    def last(self, kind: type[Output]) -> Any:
        found = self.of(kind)
        assert found, f"no {kind.__name__} output"
        return found[-1]


@pytest.fixture
def make_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    tables: list[Table] = []

    def make(**options: Any) -> Table:
        table = Table(tmp_path / f"journal-{len(tables)}.sqlite3", CoreOptions(**options))
        tables.append(table)
        return table

    yield make
    for table in tables:
        table.loop.close()
