"""``station run`` as a real subprocess against simulators over ptys: whole shoes of mini,
midi and full baccarat and of Casino War, a device unplugged mid-round, SIGTERM mid-round,
and what the journal and the display board received."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import Any

import pytest

from station.games.baccarat.rules import result_of

from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SHOE_FINISHED = "shoe finished"


def shoe_done(status: dict[str, Any]) -> bool:
    return bool(status["state"] == "shuffling" and status["expecting"].startswith(SHOE_FINISHED))


def recall(table: Any) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config", str(table.config)],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    rounds: list[dict[str, Any]] = json.loads(out.stdout)
    return rounds


def verify_journal(table: Any) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "station", "journal", "verify", "--journal", str(table.journal)],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def check_display_results(table: Any) -> int:
    """Every result shown on the board obeys the rules for the cards it shows."""
    shown = table.display_received("ShowResult")
    for message in shown:
        result = result_of(list(message.player_cards), list(message.banker_cards))
        assert (result.player_total, result.banker_total) == (message.player_total, message.banker_total)
        assert message.outcome.name.lower() == result.outcome.value
    return len(shown)


@pytest.mark.parametrize(
    ("variant", "boxes", "players_per_box", "style", "decks"),
    [("mini", 7, 3, "A", 8), ("midi", 9, 3, "C", 4), ("full", 14, 1, "B", 4)],
)
def test_whole_baccarat_shoe(external_table: Any, variant: str, boxes: int, players_per_box: int,
                             style: str, decks: int) -> None:
    table = external_table(variant=variant, boxes=boxes, players_per_box=players_per_box,
                           dealing_style=style, decks=decks)
    table.start_station()
    table.play_until(shoe_done)
    rounds = recall(table)
    assert len(rounds) >= 30 * decks // 4
    shown = check_display_results(table)
    assert shown == len(rounds), "the board shows every round's result exactly once"
    # Roads are whole pictures sent at most every 50 ms: the last one holds every round.
    table.wait_for(lambda s: len(table.display_received("ShowRoads")[-1].bead_plate) == len(rounds), timeout=10)
    assert table.display_received("ShowExpected"), "the board says what the station expects next"
    ids = [r["round_id"] for r in rounds]
    assert len(ids) == len(set(ids)), "no round settled twice"
    assert "intact" in verify_journal(table) or "ok" in verify_journal(table).lower()
    assert table.stop_station() == 0


def test_whole_casino_war_shoe(external_table: Any) -> None:
    table = external_table(game="war", decks=4, boxes=7)
    table.start_station()
    table.play_until(shoe_done)
    rounds = recall(table)
    assert len(rounds) >= 50
    assert table.stop_station() == 0


def test_results_are_not_shown_before_the_reveal_under_style_c(external_table: Any) -> None:
    table = external_table(variant="midi", boxes=9, dealing_style="C", decks=4)
    table.start_station()
    status = table.play_until(lambda s: s["state"] == "revealing")
    shown_before = len(table.display_received("ShowResult"))
    table.act(status)  # the dealer turns the cards and presses reveal
    table.wait_for(lambda s: s["state"] != "revealing")
    table.wait_for(lambda s: len(table.display_received("ShowResult")) > shown_before, timeout=10)
    assert shown_before == 0
    table.stop_station()


def test_sigterm_mid_round_resumes_the_round(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    table.play_until(lambda s: s["state"] == "dealing" and s["round"] == "1-3")
    table.draw()
    table.draw()
    mid = table.wait_for(lambda s: s["expecting"] == "deal Player second card")
    assert table.stop_station(signal.SIGTERM) == 0
    table.start_station()
    resumed = table.status()
    assert (resumed["state"], resumed["round"], resumed["expecting"]) == (mid["state"], mid["round"], mid["expecting"])
    # The board's roads are rebuilt from the journal: the first ShowRoads after the restart
    # already holds the two rounds settled before it.
    roads_after_restart = table.display_received("ShowRoads")[-1]
    assert len(roads_after_restart.bead_plate) == 2
    table.play_until(lambda s: s["round"] == "1-5")
    rounds = recall(table)
    ids = [r["round_id"] for r in rounds]
    assert ids[:4] == ["1-1", "1-2", "1-3", "1-4"] and len(ids) == len(set(ids))
    verify_journal(table)
    table.stop_station()


def test_shoe_unplugged_mid_round_waits_for_recovery_and_a_decision(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    table.play_until(lambda s: s["state"] == "dealing" and s["round"] == "1-2")
    table.draw()
    table.shoe.simulator.unplug()
    stopped = table.wait_for(lambda s: s["state"] == "irregularity")
    assert "shoe" in stopped["expecting"]
    table.shoe.simulator.replug()
    table.wait_for(lambda s: "recovered" in s["expecting"], timeout=20)
    table.ctl("decide", {"decision": "resume"}, token="supervisor-token-for-tests")
    # The card drawn just before the unplug may not have been acknowledged: the shoe sends it
    # again after the replug, and the dealer goes on only once the station has it (the next
    # card is the Banker's first).
    table.wait_for(lambda s: s["state"] == "dealing" and s["expecting"] == "deal Banker first card")
    table.play_until(lambda s: s["round"] == "1-3")
    kinds = [r["kind"] for r in table.journal_records()]
    assert "DeviceFault" in kinds and "DeviceRecovered" in kinds and "SupervisorDecision" in kinds
    decision = next(r for r in table.journal_records() if r["kind"] == "SupervisorDecision")
    assert decision["payload"]["actor"] == {"role": "supervisor", "who": "sam"}
    table.stop_station()


def test_dealer_token_cannot_decide(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    with pytest.raises(Exception, match="supervisor"):
        table.ctl("decide", {"decision": "void"})
    table.stop_station()


def test_supervisor_pauses_and_resumes_the_table(external_table: Any) -> None:
    table = external_table()
    table.start_station()
    table.play_until(lambda s: s["state"] == "betting" and s["round"] == "1-2")
    table.ctl("pause", {"reason": "fill the float"}, token="supervisor-token-for-tests")
    paused = table.wait_for(lambda s: s["state"] == "paused")
    assert "sam" in paused["expecting"]
    with pytest.raises(Exception, match="supervisor"):
        table.ctl("resume")  # a dealer may not
    table.ctl("resume", token="supervisor-token-for-tests")
    table.wait_for(lambda s: s["state"] == "betting")
    kinds = [(r["kind"], r["payload"].get("actor")) for r in table.journal_records()]
    assert ("PauseRequested", {"role": "supervisor", "who": "sam"}) in kinds
    table.stop_station()


def test_station_run_refuses_a_bad_configuration(tmp_path: Any) -> None:
    bad = tmp_path / "station.toml"
    bad.write_text('[table]\nequipment = "continuous"\ndealing_style = "D"\n[devices.shuffler]\nurl = "sim:"\n')
    run = subprocess.run([sys.executable, "-m", "station", "run", "-c", str(bad)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 78  # EX_CONFIG: restarting will not help
    assert f"{bad}: table.dealing_style: Dealing Style D is not allowed with a continuous shuffler" in run.stderr


def test_journal_written_under_another_configuration_is_refused(tmp_path: Any) -> None:
    """A journal replays under the configuration it was written with: starting it with other
    rules is refused, naming the keys that changed; recall uses the journal's own rules."""
    config = tmp_path / "station.toml"
    journal = tmp_path / "journal.sqlite3"
    base = f'[station]\njournal = "{journal}"\n[dealer]\nsimulated = true\n'
    config.write_text(base)
    demo = subprocess.run([sys.executable, "-m", "station", "demo", "-c", str(config), "--rounds", "3", "--fast",
                           "--journal", str(journal)], capture_output=True, text=True, timeout=120)
    assert demo.returncode == 0, demo.stderr[-2000:]
    config.write_text(base + "[table]\ntie_pays = 9\n")
    run = subprocess.run([sys.executable, "-m", "station", "run", "-c", str(config)], capture_output=True, text=True,
                         timeout=60, env={**__import__("os").environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")})
    assert run.returncode == 78
    assert "table.tie_pays: differs from the configuration" in run.stderr
    recalled = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config",
                               str(config)], capture_output=True, text=True, timeout=60)
    assert recalled.returncode == 0 and len(json.loads(recalled.stdout)) >= 3


@pytest.mark.parametrize("equipment", ["manual", "continuous"])
def test_simulated_table_resumes_after_a_restart_mid_shoe(tmp_path: Any, equipment: str) -> None:
    """The README's first command: stopped mid-shoe and started again, the simulated table
    goes on with the same shoe (the simulated shoe is refilled with exactly the cards the
    journal says are still in it) and never trips over an impossible card."""
    import os
    import signal

    config = tmp_path / "station.toml"
    config.write_text(
        f'[station]\njournal = "{tmp_path / "journal.sqlite3"}"\n'
        f'[table]\nequipment = "{equipment}"\n'
        '[devices.shoe]\nurl = "sim:"\n[devices.pedals]\nurl = "sim:"\n'
        + ('[devices.shuffler]\nurl = "sim:"\n' if equipment == "continuous" else "")
        + "[dealer]\nsimulated = true\npace_ms = 5\nbets = { banker = 2000 }\n"
    )
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")}

    def run_until_settled(rounds: int) -> None:
        """Run the station until it has settled ``rounds`` rounds (its log says so), then stop it."""
        log = tmp_path / f"run-{len(list(tmp_path.glob('run-*.log')))}.log"
        with log.open("w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config)], env=env,
                                    stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: proc.poll() is not None or log.read_text().count("round_settled") >= rounds, 120,
                       f"{rounds} rounds settled")
            assert proc.poll() is None, f"the station stopped by itself: {log.read_text()[-3000:]}"
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0, log.read_text()[-3000:]

    def rounds() -> list[dict[str, Any]]:
        out = subprocess.run([sys.executable, "-m", "station", "recall", "--last", "0", "--json", "--config",
                              str(config)], capture_output=True, text=True, timeout=60, check=True)
        return [r for r in json.loads(out.stdout) if r.get("result")]

    run_until_settled(4)
    before = len(rounds())
    assert before >= 3
    run_until_settled(4)
    after = rounds()
    assert len(after) > before + 2
    export = subprocess.run([sys.executable, "-m", "station", "journal", "export", "--format", "jsonl",
                             "--journal", str(tmp_path / "journal.sqlite3")], capture_output=True, text=True,
                            timeout=60, check=True).stdout
    assert '"SupervisorDecision"' not in export and '"DeviceFault"' not in export
    ids = [r["round_id"] for r in after]
    assert len(ids) == len(set(ids))

