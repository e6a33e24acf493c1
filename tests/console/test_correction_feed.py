"""A correction leaves the PC as the floor feed's ``correction`` message, valid against its
JSON Schema, derived from the journal like every other message; the metrics count it in the
house's result."""

from __future__ import annotations

from pathlib import Path

from station.core.options import CoreOptions
from station.events import Actor, BetCorrected, PayoutsConfirmed
from station.floor.derive import derive_all
from station.journal import JournalReader
from station.metrics.exporter import Readings, StationMetrics

from ..core_table import Table
from ..floor.helpers import schema_validators


def test_the_correction_message_and_its_schema(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite3", CoreOptions())
    metrics = StationMetrics(Readings)  # nothing is scraped here
    table.loop.subscribe(metrics.on_output)
    table.start_shoe()
    table.bet("1", "ann", "banker", 2000)
    table.act("no_more_bets").cards("2S 4H 3D 4C")  # Banker wins: ann is paid 19.00
    table.post(PayoutsConfirmed("1-1", (), Actor("dealer", "dee"))).act("next_round")
    table.post(BetCorrected("1-1", "1", "ann", "banker", "1", "ann", "player", 2000, "chips were on Player",
                            Actor("supervisor", "sue")))
    table.loop.close()
    with JournalReader(table.path) as reader:
        messages = [m.payload for m in derive_all(reader.records(), CoreOptions(), table="T1",
                                                  journal_id="0123456789abcdef", currency="EUR")]
    corrections = [m for m in messages if m.get("type") == "correction"]
    assert len(corrections) == 1
    message = corrections[0]
    assert message["corrected_round"] == "1-1" and (message["role"], message["who"]) == ("supervisor", "sue")
    assert message["differences"] == [{"box": "1", "player": "ann", "region": "banker", "change": -1900},
                                      {"box": "1", "player": "ann", "region": "player", "change": -2000}]
    assert (message["house_before"], message["house_after"]) == (-1900, 2000)
    errors = list(schema_validators()["event"].iter_errors(message))
    assert not errors, errors[0].message
    house_won = metrics.registry.get_sample_value("station_house_won_minor_units_total") or 0
    house_lost = metrics.registry.get_sample_value("station_house_lost_minor_units_total") or 0
    assert house_won - house_lost == 2000, "the meters count the corrected figure"
    assert metrics.registry.get_sample_value("station_round_corrections_total") == 1
