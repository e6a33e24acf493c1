"""The chip tray counted by its antenna on a real ``station run`` (docs/tray.md, "Counted by the
tray antenna"): the chip reader a simulator in this process with one antenna, under the tray.
Through ``station ctl``: the count is refused, in one line, before the tray is read and while a
flagged chip lies on it; then the opener is the tray's stable read, by denomination, in
``status`` and the journal; a restart after the tray was emptied replays the same opener; and
``station meters`` counts it as the antenna's, valid against its schema."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from drivers.simulators import RunningSimulator, start_simulator
from station.service.control import ControlError

from ..chip_rig import CHIP_TABLE, chip_reader_sections, write_registry
from .test_chips_e2e import FIVES, FLAGGED, TENS, believed, records_of, supervisor

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

TRAY = 1
ANTENNAS = {TRAY: "tray"}
BY_READER = {"what": "opener", "counted_by": "reader", "witness": "dana"}


@pytest.fixture
def tray_table(external_table: Any, tmp_path: Path) -> Iterator[tuple[Any, RunningSimulator]]:
    """The test table (chips 1.00, 5.00, 10.00, 25.00) with a chip reader whose one antenna is under the tray."""
    reader = start_simulator("chipreader", {"directory": str(tmp_path)}, antennas=len(ANTENNAS))
    registry = write_registry(tmp_path / "chips.csv", {"10.00": TENS, "5.00": FIVES},
                              [f"{FLAGGED},10.00,EUR,flagged,test series,reported stolen"])
    table = external_table(table_extra=CHIP_TABLE, config_extra=chip_reader_sections(reader.url, registry, ANTENNAS))
    try:
        yield table, reader
    finally:
        reader.stop()


def meters(table: Any) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "station", "meters", "--json", "--journal", str(table.journal)],
                          capture_output=True, text=True, timeout=120, check=True)
    return dict(json.loads(done.stdout))


def test_an_opener_counted_by_the_tray_antenna_through_ctl(tray_table: tuple[Any, RunningSimulator]) -> None:
    table, reader = tray_table
    layout = reader.simulator
    table.start_station()
    with pytest.raises(ControlError, match=r"^refused: the tray antenna has not read the tray \(no antenna"):
        supervisor(table, "tray", BY_READER)

    layout.place(TRAY, [TENS[0], TENS[1], FIVES[0], FLAGGED])
    believed(table, "tray", 2500)  # the flagged chip counts for nothing
    with pytest.raises(ControlError) as refused:
        supervisor(table, "tray", BY_READER)
    assert str(refused.value) == (f"refused: 1 chip(s) on the tray do not count ({FLAGGED} is flagged): take them "
                                  "off the tray, or count it by hand")
    layout.remove(TRAY, [FLAGGED])
    table.wait_for(lambda s: [c["uid"] for c in s["chips"]["places"]["tray"]["chips"]] == sorted(
        [TENS[0], TENS[1], FIVES[0]]))

    assert supervisor(table, "tray", BY_READER) == "applied: TrayCounted (journaled with supervisor sam)"
    tray = table.status()["tray"]
    assert (tray["open"], tray["opener"]) == (True, 2500)
    assert [(e["kind"], e["value"], e["signed"], e["counted_by"]) for e in tray["entries"]] == [
        ("opener", 2500, ["sam", "dana"], "reader")]
    # Each count is journaled before it is applied or refused: the refused ones are there too.
    counts = records_of(table, "TrayCounted")
    assert [(c["what"], c["chips"], c["counted_by"]) for c in counts] == [("opener", [], "reader")] * 3

    # The tray emptied, then the station started again: the journal's replay counts the chips
    # the antenna had read when the opener was applied, not the tray as it is now.
    layout.remove(TRAY)
    believed(table, "tray", 0)
    assert table.stop_station() == 0
    table.start_station()
    assert table.status()["tray"]["opener"] == 2500
    assert table.stop_station() == 0

    report = meters(table)
    totals = report["days"][-1]["totals"]
    assert (totals["tray"], totals["tray_entries"], totals["tray_by_reader"]) == (
        {"opener": 2500}, {"opener": 1}, {"opener": 1})
    schema = json.loads((Path(__file__).resolve().parents[2] / "station" / "meters" / "meters.schema.json").read_text())
    jsonschema.validate(report, schema)
