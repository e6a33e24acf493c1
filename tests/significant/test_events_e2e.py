"""The significant-event log end to end: real ``station run`` processes, a real mosquitto, and
``station events`` reading the journal they wrote.

- a SIGKILL of a running station gives ``start_after_unclean_stop`` on the next start, once;
  an orderly stop (SIGTERM) does not; the metrics count it from that start;
- a shoe's lid opened mid-round, and the shoe lost and back (its cable pulled and put back,
  on a pseudo-terminal), each give their codes once;
- the journal's disk full and given room again (a 4 MB tmpfs, as root) gives the journal's
  and the disk's codes once each;
- the floor feed carries every one, as the journal gives them, valid against their schemas.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..floor.helpers import (
    Broker,
    Subscriber,
    check_schemas,
    first_occurrences,
    floor_config,
    free_port,
    run_station,
    station,
    station_env,
)
from ..integrity.external import SUPERVISOR, Station
from ..small_disk import fill, small_disk_in
from ..waiting import wait_until

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def logged_events(journal: Path, env: dict[str, str] | None = None, *more: str) -> list[dict[str, Any]]:
    shown = station("events", "--journal", str(journal), "--json", *more, env=env or {**os.environ})
    assert shown.returncode == 0, shown.stderr
    rows: list[dict[str, Any]] = json.loads(shown.stdout)
    return rows


def significant_on_the_feed(subscriber: Subscriber) -> list[dict[str, Any]]:
    firsts, _ = first_occurrences(subscriber.kind("significant"))
    return firsts


def ready_count(log: Path) -> int:
    return log.read_text().count('"station_ready"') if log.exists() else 0


def test_an_unclean_stop_is_said_once_on_the_next_start_and_a_clean_stop_is_not(tmp_path: Path,
                                                                                  broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#", client_id="significant-kill")
    port = free_port()
    config = floor_config(tmp_path / "station.toml", broker.url, pace_ms=20,
                          metrics=f"enabled = true\nport = {port}")
    config.write_text(config.read_text().replace("port = 8081", f"port = {free_port()}"))  # the console's
    journal, log, env = tmp_path / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)

    def start() -> subprocess.Popen[str]:
        ready = ready_count(log)
        process = run_station(config, journal, env, log)
        wait_until(lambda: process.poll() is not None or ready_count(log) > ready, 120, "the station to be ready")
        assert process.poll() is None, log.read_text()[-3000:]
        return process

    process = start()
    process.send_signal(signal.SIGKILL)  # as a power cut does: nothing more of this run is journaled
    process.wait(10)
    process = start()
    scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    assert 'station_significant_events_total{code="start_after_unclean_stop"} 1.0' in scraped
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) == 0, log.read_text()[-3000:]
    process = start()
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) == 0, log.read_text()[-3000:]

    codes = [e["code"] for e in logged_events(journal, env, "--code", "station")]
    assert codes == ["configuration_opened", "start_new_journal", "start_after_unclean_stop", "station_stopped",
                     "start_after_clean_stop", "station_stopped"]
    unclean = logged_events(journal, env, "--code", "start_after_unclean_stop")
    assert len(unclean) == 1 and unclean[0]["data"]["power_loss"] is False  # the PC stayed up
    assert "killed or crashed" in unclean[0]["text"] and unclean[0]["local_time"].endswith(("CET", "CEST"))
    everything = logged_events(journal, env)
    subscriber.wait_for(lambda s: len(significant_on_the_feed(s)) >= len(everything), 30, "the log on the feed")
    subscriber.close()
    assert [m["code"] for m in significant_on_the_feed(subscriber)] == [e["code"] for e in everything]
    assert [m["seq"] for m in significant_on_the_feed(subscriber)] == [e["seq"] for e in everything]
    check_schemas(subscriber.messages)


def test_a_lid_opened_mid_round_and_the_shoe_lost_and_back_each_give_their_code_once(tmp_path: Path,
                                                                                      broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "dealing-station/#", client_id="significant-devices")
    table = Station(tmp_path, extra=f'\n[floor]\nenabled = true\nbroker = "{broker.url}"\ntable = "BAC-01"\n')
    try:
        table.wait_for(lambda s: s["state"] == "betting")
        table.ctl("bet", {"box": "1", "player": "P1", "region": "banker", "amount": 2000})
        table.ctl("action", {"action": "no_more_bets"})
        table.wait_for(lambda s: s["state"] == "dealing")
        shoe = table.shoe.simulator
        for _ in range(2):
            seen = table.ctl("status")["expecting"]
            shoe.draw()

            def moved(s: dict[str, Any], seen: str = seen) -> bool:
                return bool(s["expecting"] != seen)

            table.wait_for(moved)
        shoe.open_lid()  # mid-round: the lid is said, the round goes on
        shoe.close_lid()
        subscriber.wait_for(lambda s: any(m["code"] == "shoe_lid_closed" for m in s.kind("significant")), 30,
                            "the lid closed on the feed")
        shoe.unplug()
        status = table.wait_for(lambda s: s["state"] == "irregularity")
        assert status["irregularity"]["reason"] == "device_fault"
        shoe.replug()
        table.wait_for(lambda s: "shoe" not in s["faulted"])
        table.ctl("decide", {"decision": "resume", "detail": "cable back"}, token=SUPERVISOR)
        table.deal_while(("dealing",))
        table.wait_for(lambda s: s["state"] == "paying")
    finally:
        table.close()
    journal = tmp_path / "journal.sqlite3"
    counted = Counter(e["code"] for e in logged_events(journal))
    for code in ("shoe_lid_opened", "shoe_lid_closed", "device_lost", "device_back"):
        assert counted[code] == 1, (code, counted)
    devices = logged_events(journal, None, "--code", "device")
    assert [(e["code"], e["device"]) for e in devices] == [  # the shuffler says it was powered up, as it connects
        ("device_rebooted", "shuffler"), ("shoe_lid_opened", "shoe"), ("shoe_lid_closed", "shoe"),
        ("device_lost", "shoe"), ("device_back", "shoe")]
    everything = logged_events(journal)
    subscriber.wait_for(lambda s: len(significant_on_the_feed(s)) >= len(everything), 30, "the log on the feed")
    subscriber.close()
    feed = significant_on_the_feed(subscriber)
    assert [m["code"] for m in feed] == [e["code"] for e in everything]
    lid = next(m for m in feed if m["code"] == "shoe_lid_opened")
    assert lid["round_id"] == "1-1" and lid["family"] == "device"
    check_schemas(subscriber.messages)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_disk_in(tmp_path) as mount:
        yield mount


def test_the_disk_full_and_back_give_the_journals_and_the_disks_codes_once(tmp_path: Path, small_disk: Path,
                                                                          broker: Broker) -> None:
    from station.service.control import hash_token, request

    subscriber = Subscriber(broker.port, "dealing-station/#", client_id="significant-disk")
    token, socket = "technician-token-for-the-disk", tmp_path / "control.sock"
    config = floor_config(tmp_path / "station.toml", broker.url, pace_ms=20, extra="drain_s = 10")
    text = config.read_text().replace('socket = ""', f'socket = "{socket}"')
    text = text.replace('log_level = "info"', 'log_level = "info"\ndisk_warning_mb = 0')
    text = text.replace("port = 8081", f"port = {free_port()}")
    text += f'\n[[control.users]]\nname = "tess"\nrole = "technician"\ntoken_sha256 = "{hash_token(token)}"\n'
    config.write_text(text)
    journal, log, env = small_disk / "journal.sqlite3", tmp_path / "station.log", station_env(tmp_path)

    def status() -> dict[str, Any]:
        reply = request(socket, token, "status")
        return dict(reply["result"]) if reply.get("ok") else {}

    process = run_station(config, journal, env, log)
    try:
        wait_until(lambda: socket.exists() and status().get("round"), 60, "the table dealing")
        filler = fill(small_disk)
        wait_until(lambda: status().get("journal_writable") is False, 30, "the journal unwritable")
        filler.unlink()
        wait_until(lambda: status().get("journal_writable") is True, 30, "the journal writable again")
        before = status()["round"]
        wait_until(lambda: status().get("round") != before, 30, "the table dealing again")
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(60)
    assert code == 0, log.read_text()[-3000:]
    counted = Counter(e["code"] for e in logged_events(journal, env))
    for name in ("journal_unwritable", "journal_writable", "disk_low", "disk_space_back"):
        assert counted[name] == 1, (name, counted)
    [unwritable] = logged_events(journal, env, "--code", "journal_unwritable")
    assert "full" in unwritable["text"]
    [writable] = logged_events(journal, env, "--code", "journal_writable")
    assert writable["data"]["waited_ms"] > 0 and unwritable["time"] < writable["time"]
    everything = logged_events(journal, env)
    subscriber.wait_for(lambda s: len(significant_on_the_feed(s)) >= len(everything), 30, "the log on the feed")
    subscriber.close()
    assert [m["code"] for m in significant_on_the_feed(subscriber)] == [e["code"] for e in everything]
    check_schemas(subscriber.messages)
