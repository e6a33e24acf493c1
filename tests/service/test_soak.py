"""The soak (bench/soak.py) in the suite: every shipped configuration under the real ``station
run``, a fault from outside every few seconds, and every invariant checked from outside.

The suite runs a minute of it; ``-m soak`` runs a longer one; docs/benchmarks.md
records a run of an hour. It needs Debian's mosquitto (``.ci/run`` installs it) and is
skipped, saying so, where it is missing; the disk-full fault needs root to mount a small file
system and the clock step a C compiler for its shim: where the machine cannot make one, the
soak says so and injects the rest.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from ..benches import load_bench
from ..floor.helpers import MOSQUITTO

NO_BROKER = "needs Debian's mosquitto (/usr/sbin/mosquitto; `apt-get install mosquitto`, as .ci/run does)"
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not MOSQUITTO.exists(), reason=NO_BROKER)]


def _soak() -> ModuleType:
    return load_bench("soak")


def _run(seconds: float, tmp_path: Path, pace_ms: int, every: float = 3.0) -> None:
    soak = _soak()
    report = soak.soak(soak.Options(seconds=seconds, every=every, seed=7, verify_every=30.0,
                                    folder=tmp_path / "soak", pace_ms=pace_ms))
    assert report.violations == [], "\n".join(report.lines[-60:])
    injected = {kind for kind, count in report.faults.items() if count}
    assert injected == set(soak.FAULTS) - set(report.unavailable), (injected, report.unavailable)
    assert len(report.figures) == len(soak.SHIPPED)
    for name, figures in report.figures.items():
        assert figures["in_journal"] > 0 and figures["floor_rounds"] == figures["in_journal"], (name, figures)


@pytest.mark.long
@pytest.mark.timeout(600)
def test_a_minute_of_faults_breaks_no_invariant(tmp_path: Path) -> None:
    """The suite's share: the dealers at 40 ms an action (seven tables then take most of one of
    the machine's CPUs, beside the rest of the suite), a fault every 2.5 s on average: every
    kind of fault at least twice (they come in shuffled rounds of each kind once)."""
    _run(60.0, tmp_path, pace_ms=40, every=2.5)


@pytest.mark.soak
@pytest.mark.timeout(2400)
def test_half_an_hour_of_faults_breaks_no_invariant(tmp_path: Path) -> None:
    """The dealers at full speed, as ``bench/soak.py`` runs them by default."""
    _run(1800.0, tmp_path, pace_ms=0)
