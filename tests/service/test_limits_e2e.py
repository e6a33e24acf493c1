"""Limits changed by a supervisor on ``station ctl`` and by the configuration file at start, on
a real ``station run`` against simulators over ptys: refused with the reason where a role or a
rule forbids it, taken from the next round, shown on the board's limits sign, kept by each
round in recall, kept over a restart, and a change of the game still refused with the way to
start a new journal (docs/limits.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from station.service.control import ControlError

from .conftest import SUPERVISOR_TOKEN

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def play_round(table: Any) -> dict[str, Any]:
    """Deal from betting through one whole round to the next betting."""
    status = table.wait_for(lambda s: s["state"] == "betting")
    number = status["round"]
    after: dict[str, Any] = table.play_until(lambda s: s["state"] == "betting" and s["round"] != number)
    return after


def recalled(table: Any) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config",
                          str(table.config)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rounds: list[dict[str, Any]] = json.loads(out.stdout)
    return rounds


def test_limits_change_by_ctl_and_by_the_configuration_without_a_new_journal(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    table.play_until(lambda s: s["state"] == "betting")
    with pytest.raises(ControlError, match="'limits' needs the role supervisor"):
        table.ctl("limits", {"min_bet": 1000})  # the dealer's token
    with pytest.raises(ControlError, match=r"refused: max_bet: maximum 1,000\.00 is below the minimum 2,000\.00"):
        table.ctl("limits", {"min_bet": 200_000}, token=SUPERVISOR_TOKEN)
    with pytest.raises(ControlError, match="refused: box_max: this table has no such limit"):
        table.ctl("limits", {"box_max": 5000}, token=SUPERVISOR_TOKEN)
    reply = table.ctl("limits", {"min_bet": 1000, "max_bet": 50_000, "reason": "evening"}, token=SUPERVISOR_TOKEN)
    assert reply.startswith("applied: LimitsChanged")
    status = table.status()
    assert status["limits"]["min_bet"] == 500
    assert (status["next_limits"]["min_bet"], status["next_limits"]["by"]) == (1000, "supervisor sam")
    first = status["round"]
    play_round(table)
    status = table.status()
    assert status["limits"]["min_bet"] == 1000 and status["next_limits"] is None
    table.wait_for(lambda s: any(m.table_min == 1000 and m.table_max == 50_000
                                 for m in table.display_received("ShowLimits")))
    with pytest.raises(ControlError, match="below the table minimum"):
        table.ctl("bet", {"box": "2", "player": "P2", "region": "player", "amount": 500})
    play_round(table)
    rounds = {r["round_id"]: r for r in recalled(table)}
    assert rounds[first]["limits"]["min_bet"] == 500
    later = [r for rid, r in rounds.items() if rid != first]
    assert later and all(r["limits"]["min_bet"] == 1000 for r in later)
    assert table.stop_station() == 0

    # The same configuration again: the supervisor's limits stay over the restart.
    table.start_station()
    assert table.status()["limits"]["min_bet"] == 1000
    assert table.status()["next_limits"] is None
    assert table.stop_station() == 0

    # The file now gives a minimum of 2500: applied as a change by the configuration.
    table.config.write_text(table.config.read_text().replace("min_bet = 500", "min_bet = 2500"))
    table.start_station()
    # The configuration's change is posted as the station starts: waited for, not assumed applied.
    waiting = table.wait_for(lambda s: s["next_limits"] is not None)["next_limits"]
    assert waiting["min_bet"] == 2500 and waiting["max_bet"] == 50_000  # the rest as the table had it
    assert waiting["by"] == f"configuration {table.config}"
    changes = [r for r in table.journal_records() if r["kind"] == "LimitsChanged"]
    # Journaled as asked, the two refused ones too; one only by the configuration, at this start.
    assert [c["payload"]["actor"]["role"] for c in changes] == ["supervisor"] * 3 + ["configuration"]
    assert changes[-1]["payload"]["changes"] == {"min_bet": 2500}
    assert table.stop_station() == 0

    # A change of the game's rules still needs a new journal, and the refusal says how.
    table.config.write_text(table.config.read_text().replace('dealing_style = "A"', 'dealing_style = "C"'))
    run = subprocess.run([sys.executable, "-m", "station", "run", "-c", str(table.config)], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "XDG_RUNTIME_DIR": str(table.directory / "run")})
    assert run.returncode == 78
    assert "table.dealing_style: differs from the configuration" in run.stderr
    assert "only the limits and chips change by an event" in run.stderr
    assert "--journal NEW.sqlite3" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
