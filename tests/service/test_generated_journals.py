"""The journals bench/restart.py generates hold every record kind a real station writes, and
pass ``verify --deep``.

The restart bench writes journals of up to a million rounds directly, as the station would
have written them. Before, they held only the dealer's inputs and the checkpoints: no start or
stop of the station, no pedal, no cards-present, no integrity alert, and so they passed a
``verify --deep`` that called every real journal altered. Here a real ``station run`` of the
same configuration (killed once, started again, stopped in order) gives the kinds to hold.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from station.cli.main import main
from station.journal import JournalReader

from ..benches import load_bench
from ..shipped import runnable_copy, shipped
from ..waiting import wait_until

pytestmark = pytest.mark.e2e


def _bench() -> ModuleType:
    return load_bench("restart")


def _kinds(journal: Path) -> set[str]:
    with JournalReader(journal) as reader:
        return {record.kind for record in reader.records()}


def _shoe_ended(log: Path) -> Callable[[], bool]:
    return lambda: '"shoe_end"' in log.read_text(errors="replace")


def _real_station_kinds(folder: Path) -> set[str]:
    """``station run`` of config/station.toml at full speed past a shoe's end, killed, started
    again, and stopped in order: the kinds its journal holds."""
    copy = runnable_copy(shipped("station"), folder)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(folder / "run"), "PYTHONUNBUFFERED": "1"}
    for number, (sig, status) in enumerate(((signal.SIGKILL, -signal.SIGKILL), (signal.SIGTERM, 0))):
        log = folder / f"run-{number}.log"
        with log.open("wb") as out:
            station = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(copy.config)], stdout=out,
                                       stderr=subprocess.STDOUT, env=env)
        try:
            wait_until(_shoe_ended(log), 120, "a shoe's end")
        finally:
            station.send_signal(sig)
            assert station.wait(60) == status, log.read_text()[-2000:]
    return _kinds(copy.journal)


def test_a_generated_journal_holds_what_a_real_station_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    real = _real_station_kinds(tmp_path / "real")
    bench = _bench()
    generated = tmp_path / "generated.sqlite3"
    bench.build(generated, 300, bench.bench_config(tmp_path))
    kinds = _kinds(generated)
    assert real - kinds == set(), f"the generated journal lacks {sorted(real - kinds)}"
    assert main(["journal", "verify", "--deep", "--journal", str(generated)]) == 0
    said = capsys.readouterr().out
    assert "intact" in said and "checkpoints match the replay" in said, said
