"""The feed over TLS with a client certificate, and the views of it: ``station floor watch``,
anchors collected off the PC and checked against the journal, ``station floor cursor``.

The certificates are made here with openssl: a CA, the broker's certificate for localhost and
127.0.0.1, and the station's client certificate; the broker requires a client certificate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.journal import JournalReader

from ..forgery import rewrite_journal
from ..waiting import wait_until
from .helpers import (
    MOSQUITTO,
    Broker,
    Subscriber,
    check_schemas,
    expected_feed,
    floor_config,
    make_certificates,
    needs_mosquitto,
    needs_openssl,
    sequenced,
    station,
    station_env,
)

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


@needs_mosquitto
@needs_openssl
def test_the_feed_over_tls_with_a_client_certificate(tmp_path: Path) -> None:
    assert MOSQUITTO.exists()
    certs_dir = tmp_path / "certs"
    certs_dir.mkdir()
    certs = make_certificates(certs_dir)
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Broker(folder, tls=certs).start()
    try:
        subscriber = Subscriber(broker.port, "dealing-station/#", tls=certs, host="localhost")
        extra = f'ca_file = "{certs["ca"]}"\ncert_file = "{certs["client_cert"]}"\nkey_file = "{certs["client_key"]}"'
        config = floor_config(tmp_path / "station.toml", broker.url, extra=extra)
        journal = tmp_path / "journal.sqlite3"
        demo = station("demo", "--rounds", "20", "--fast", "--floor", "-c", str(config), "--journal", str(journal),
                       env=station_env(tmp_path))
        assert demo.returncode == 0, demo.stderr[-3000:]
        expected = expected_feed(journal, "BAC-01-demo")  # a demo publishes only when asked, as a demo
        subscriber.wait_for(lambda s: len(sequenced(s)) >= len(expected), 30, "the feed over TLS")
        subscriber.close()
        assert sequenced(subscriber) == expected
        check_schemas(subscriber.messages)

        # Without its client certificate the station is refused, and the table deals all the same:
        # its journal keeps the backlog for when the certificate is fixed.
        refused = floor_config(tmp_path / "refused.toml", broker.url, extra=f'ca_file = "{certs["ca"]}"')
        other = tmp_path / "other.sqlite3"
        demo = station("demo", "--rounds", "5", "--fast", "--floor", "-c", str(refused), "--journal", str(other), "-v",
                       env=station_env(tmp_path))
        assert demo.returncode == 0, demo.stderr[-3000:]
        cursor = station("floor", "cursor", "--journal", str(other), "--json", env=station_env(tmp_path))
        assert cursor.returncode == 0, cursor.stderr
        body = json.loads(cursor.stdout)
        assert body["backlog_records"] == body["journal_last_seq"] > 0  # nothing was published
    finally:
        broker.stop()


def test_a_missing_ca_file_stops_the_start_naming_the_key(tmp_path: Path) -> None:
    config = floor_config(tmp_path / "station.toml", "mqtts://localhost:8883",
                          extra=f'ca_file = "{tmp_path / "nowhere.crt"}"')
    demo = station("demo", "--rounds", "1", "--fast", "-c", str(config), "--journal", str(tmp_path / "j.sqlite3"),
                   env=station_env(tmp_path))
    assert demo.returncode == 78, demo.stderr
    assert "floor.ca_file: cannot use" in demo.stderr


def _watch(tmp_path: Path, broker: Broker, *extra: str, out: Path) -> subprocess.Popen[str]:
    """``station floor watch``, its lines (flushed one by one) written to ``out``."""
    with out.open("w") as stream:
        return subprocess.Popen([sys.executable, "-m", "station", "floor", "watch", "--broker", broker.url, *extra],
                                stdout=stream, stderr=subprocess.PIPE, text=True, env=station_env(tmp_path))


def _subscriptions(broker: Broker) -> int:
    """Subscriptions to the feed the broker has logged (``log_type subscribe``)."""
    return sum(1 for line in broker.log.read_text().splitlines() if " dealing-station/" in line)


def _views(out: Path) -> dict[str, dict[str, Any]]:
    """The last line the JSON watch printed for each table."""
    views = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return {view["table"]: view for view in views}


def test_watch_shows_a_line_per_table_and_collects_anchors_that_expose_a_rewrite(tmp_path: Path,
                                                                                 broker: Broker) -> None:
    key = tmp_path / "keys" / "anchor.key"
    key.parent.mkdir()
    key.write_text("a-key-the-journal's-folder-never-sees\n")
    anchors = tmp_path / "anchors.jsonl"
    watch_out, lines_out = tmp_path / "watch.jsonl", tmp_path / "watch.txt"
    watch = _watch(tmp_path, broker, "--json", "--anchors-out", str(anchors), "--client-id", "surveillance",
                   out=watch_out)
    lines = _watch(tmp_path, broker, "--seconds", "60", out=lines_out)
    try:
        wait_until(lambda: _subscriptions(broker) >= 2, 60, "both watchers to subscribe")
        env = station_env(tmp_path)
        journals = {}
        for table, base in (("BAC-01", "station.toml"), ("WAR-02", "examples/casino-war.toml")):
            config = floor_config(tmp_path / f"{table}.toml", broker.url, table=table, base=base,
                                  extra=f'anchor_records = 50\nanchor_key_file = "{key}"')
            journals[table] = tmp_path / "journals" / f"{table}.sqlite3"  # the key is kept elsewhere
            demo = station("demo", "--rounds", "30", "--fast", "--floor", "-c", str(config), "--journal",
                           str(journals[table]), env=env)
            assert demo.returncode == 0, demo.stderr[-3000:]
        wait_until(lambda: all(v["status"] == "offline" and v["rounds_seen"] == 30 for v in _views(watch_out).values())
                   and len(_views(watch_out)) == 2, 60, "the watch to see both tables end")
        wait_until(lambda: "last 1-30" in lines_out.read_text(), 60, "the plain watch to see the last round")
    finally:
        watch.terminate()
        lines.terminate()
    _, err = watch.communicate(timeout=30)
    assert watch.returncode == 0, err
    last = _views(watch_out)
    assert set(last) == {"BAC-01-demo", "WAR-02-demo"}  # demos, published as demos
    for view in last.values():
        assert view["status"] == "offline" and view["rounds_seen"] == 30 and view["gaps"] == 0, view
        assert view["journal_id"] and view["anchor_seq"] > 0
    lines.communicate(timeout=30)
    plain = lines_out.read_text()
    assert any(line.startswith("BAC-01-demo") and "offline" in line and "last 1-30" in line
               for line in plain.splitlines()), plain[-2000:]

    # Every anchor heard checks out against the untouched journals ...
    for table, journal in journals.items():
        verified = station("journal", "verify", "--journal", str(journal), "--anchors", str(anchors),
                           "--anchor-key", str(key), "--table", f"{table}-demo", env=env)
        assert verified.returncode == 0, verified.stdout + verified.stderr
    # ... and a bet raised in the journal, the chain recomputed, no longer does.
    journal = journals["BAC-01"]
    with JournalReader(journal) as reader:
        bet = next(r for r in reader.records() if r.kind == "BetPlaced" and r.seq > 60)
    rewrite_journal(journal, bet.seq, lambda payload: payload.update(amount=100000))
    assert station("journal", "verify", "--journal", str(journal), env=env).returncode == 0  # the chain alone
    verified = station("journal", "verify", "--journal", str(journal), "--anchors", str(anchors),
                       "--anchor-key", str(key), "--table", "BAC-01-demo", env=env)
    assert verified.returncode == 1, verified.stdout
    heard = sorted({json.loads(line)["seq"] for line in anchors.read_text().splitlines()
                    if json.loads(line)["table"] == "BAC-01-demo"})
    first_after = min(seq for seq in heard if seq >= bet.seq)
    assert f"record {first_after}: hash differs from the anchor" in verified.stdout


@pytest.mark.parametrize("args", [("floor", "watch"), ("floor", "watch", "--broker", "http://x")])
def test_watch_says_what_it_needs(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = station(*args, env=station_env(tmp_path))
    assert result.returncode == 2 and ("give --broker" in result.stderr or "use mqtt://" in result.stderr)
