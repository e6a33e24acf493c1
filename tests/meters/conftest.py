"""The generated week of play (tests/meters/week.py), written once for the meters' tests that
only read it, with the station's meters service writing its checkpoints as in ``station run``
(after a checkpoint of the projection every 150 records, not 1,000: the chain of checkpoints
of a week then has the links of a longer journal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.core.loop import CoreLoop
from station.meters.service import MetersService

from .week import Week, play_week


class WithMeters:
    """The station's meters service on the generator's core loop, as ``station run`` has it."""

    def __init__(self) -> None:
        self.service: MetersService | None = None

    def __call__(self, loop: CoreLoop) -> None:
        self.service = MetersService(loop.machine.options, "Europe/Vienna", "06:00", note=loop.note)
        loop.hear_records(self.service.put)
        self.service.start()


@pytest.fixture(scope="session")
def week(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Week, MetersService]:
    """(the week's journal, what was played, the meters service that followed it)."""
    meters = WithMeters()
    path, _, played = play_week(tmp_path_factory.mktemp("week"), prepare=meters, checkpoint_every=150)
    assert meters.service is not None
    return path, played, meters.service
