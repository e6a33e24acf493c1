"""The chip tray's day on a real ``station run`` against simulators over ptys (docs/tray.md):
an opener, a fill, rounds dealt, a closer short of one chip and the drop, all through
``station ctl``; the ledger in ``status``; the win by inventory, the variance equal to the
missing chip, and the integrity alarm it raises; ``station meters`` on the journal written."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from station.service.control import ControlError

from .conftest import SUPERVISOR_TOKEN

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

#: The test table's chips (tests/service/conftest.py): 1.00, 5.00, 10.00, 25.00.
OPENER = [[100, 500], [500, 200], [1000, 100], [2500, 40]]


def worth(chips: list[list[int]]) -> int:
    return sum(d * n for d, n in chips)


def supervisor(table: Any, command: str, args: dict[str, Any]) -> str:
    return str(table.ctl(command, args, token=SUPERVISOR_TOKEN))


def test_a_tray_day_through_ctl_with_a_missing_chip(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    with pytest.raises(ControlError, match="'tray' needs the role supervisor"):
        table.ctl("tray", {"what": "opener", "chips": OPENER, "witness": "dana"})
    with pytest.raises(ControlError, match="refused: the witness must be another person than sam"):
        supervisor(table, "tray", {"what": "opener", "chips": OPENER, "witness": "sam"})
    assert supervisor(table, "tray", {"what": "opener", "chips": OPENER, "witness": "dana"}).startswith("applied")
    fill = [[2500, 20]]
    assert supervisor(table, "tray", {"what": "fill", "chips": fill, "witness": "rob", "slip": "F-17"}
                      ).startswith("applied")
    status = table.play_until(lambda s: s["state"] == "betting")
    for _ in range(3):  # three rounds
        number = status["round"]
        status = table.play_until(lambda s, n=number: s["state"] == "betting" and s["round"] != n)
    said = subprocess.run([sys.executable, "-m", "station", "ctl", "--socket", str(table.socket), "status"],
                          capture_output=True, text=True, timeout=60, env={"STATION_TOKEN": SUPERVISOR_TOKEN,
                                                                           "PATH": "/usr/bin:/bin"})
    assert f"tray:     opening 1 open: opener {worth(OPENER) // 100:,}.00, fills 500.00" in said.stdout, said
    tray = table.status()["tray"]
    assert (tray["ledger"], tray["open"], tray["opener"], tray["fill"]) == (1, True, worth(OPENER), worth(fill))
    house = json.loads(subprocess.run(
        [sys.executable, "-m", "station", "meters", "--json", "--journal", str(table.journal)],
        capture_output=True, text=True, timeout=120, check=True).stdout)["days"][-1]["totals"]["house"]
    # The tray as the rounds leave it, less one 1.00 chip gone missing.
    closing = worth(OPENER) + worth(fill) + house - 100
    closer = [[100, closing // 100]]
    assert supervisor(table, "tray", {"what": "closer", "chips": closer, "witness": "dana"}).startswith("applied")
    assert supervisor(table, "drop", {"amount": 0, "note": "count room"}).startswith("applied")
    table.wait_for(lambda s: any(a["code"] == "tray_variance" for a in s["integrity"]["alerts"]))
    [alarm] = [a for a in table.status()["integrity"]["alerts"] if a["code"] == "tray_variance"]
    assert alarm["severity"] == "alarm" and "is -1.00 from the rounds" in alarm["detail"], alarm
    assert table.stop_station() == 0

    report = json.loads(subprocess.run(
        [sys.executable, "-m", "station", "meters", "--json", "--journal", str(table.journal)],
        capture_output=True, text=True, timeout=120, check=True).stdout)["days"][-1]["totals"]
    assert (report["win"], report["variance"], report["drop"]) == (house - 100, -100, 0)
    text = subprocess.run([sys.executable, "-m", "station", "meters", "--journal", str(table.journal)],
                          capture_output=True, text=True, timeout=120, check=True).stdout
    assert "variance -1.00 from the rounds' house result VARIANCE" in text, text
