"""Which processes the soak takes for a killed station's children (bench/soak_table.py).

A station's children name it in their titles ("of station 25556"); the soak looked for the
killed pid as a substring, so killing station 2555 took another table's live console, outbox,
scoreboard and simulated table (of station 25556) for children left behind, a violation of a
run that had none.
"""

from __future__ import annotations

from bench.soak_table import names_a_station


def test_a_title_names_its_own_station_only() -> None:
    assert names_a_station("station-console (dealer's console of station 2555, http://127.0.0.1:1/)", {2555})
    assert names_a_station("station-sim-table (simulated devices and dealer of station 2555)", {7, 2555})
    assert not names_a_station("station-floor-outbox (SOAK-station, of station 25556)", {2555})
    assert not names_a_station("station-scoreboard (web scoreboard of station 12555)", {2555})
    assert not names_a_station("station-console (no station named)", {2555})
