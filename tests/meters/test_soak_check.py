"""The soak's meters invariant (bench/soak_checks.py) on a journal with a voided round.

The meters' ``rounds`` counts every round that ended, voided ones included (docs/meters.md);
the soak's check once added ``voided_rounds`` on top, and an hour's soak reported each of its
37 voided rounds as a round the meters counted twice. Judged here on the generated week, which
voids a round, through the same commands the soak runs (``station recall``, ``station meters``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.soak_checks import journal_rounds, meters_against_rounds
from station.meters.service import MetersService

from .week import Week, week_config

pytestmark = pytest.mark.e2e  # runs the station's commands


def test_a_voided_round_is_one_round_of_the_meters(week: tuple[Path, Week, MetersService], tmp_path: Path) -> None:
    path, played, _ = week
    config = week_config(tmp_path)
    rounds = journal_rounds(path, config)
    assert played.voided and sum(1 for r in rounds if r["voided"]) == played.voided
    finding = meters_against_rounds(path, config, rounds)
    assert finding.violations == []
    assert finding.figures["meters_rounds"] == len(rounds)
