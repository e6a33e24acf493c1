"""Each record is folded into the meters once: the catch-up reads the journal up to where the
loop stood at the start, and the live records the loop hands over may begin before that; one
already read is passed over (``MetersService.take``), never counted twice."""

from __future__ import annotations

import json
from pathlib import Path

from station.core.history import History
from station.meters.service import MetersService

from .week import play_week


def _parts(service: MetersService) -> str:
    return json.dumps(sorted((p.to_json() for p in (*service.fold.sealed, *service.fold.parts.values())),
                             key=json.dumps), sort_keys=True)


def test_a_record_handed_over_again_is_folded_once(tmp_path: Path) -> None:
    journal, _, _ = play_week(tmp_path, rounds_per_stretch=4)
    service = MetersService(None, "Europe/Vienna", "06:00")
    steps = list(History(journal, None).steps())
    for step in steps:
        service.take(step)
    once = _parts(service)
    counted = sum(p.figures.rounds for p in (*service.fold.sealed, *service.fold.parts.values()))
    assert counted > 0
    for step in steps[len(steps) // 2:]:  # the live hand-over overlapping the catch-up
        service.take(step)
    assert _parts(service) == once
