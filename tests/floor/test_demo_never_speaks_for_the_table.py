"""``station demo`` with a configuration whose ``[floor]`` is on: the demo never speaks for the
real table on the floor.

Before, a demo run with the table's own configuration published its simulated rounds under the
table's id, and the pit page showed them as the table's. Now it publishes nothing unless
``--floor`` asks, and then as ``<table>-demo``, with a client id of its own and no place in the
pit, and says so in its summary (docs/demo.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from .helpers import Broker, Subscriber, floor_config, station, station_env

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

#: The real table, where it stands in the pit, and the client id the real station connects with.
FLOOR = 'pit = "A"\nnumber = 1\nclient_id = "bac-01-station"'
MARKER = "test/marker"


def _mark_the_end(broker: Broker, subscriber: Subscriber) -> None:
    """Publish a marker after the demo has ended and wait until the subscriber has it: the
    broker has then delivered everything it had before (the demo's own connection has closed,
    so nothing of it is still on its way)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-marker", protocol=mqtt.MQTTv311)
    client.connect("127.0.0.1", broker.port, keepalive=10)
    client.loop_start()
    client.publish(MARKER, b'{"end": true}', qos=1).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()
    subscriber.wait_for(lambda s: any(m.topic == MARKER for m in s.messages), 30, "the marker")


def _clients(broker: Broker) -> list[str]:
    """The client ids the broker has logged connecting (``log_type notice``)."""
    return [line.rsplit(" as ", 1)[1].split()[0] for line in broker.log.read_text().splitlines()
            if "New client connected" in line and " as " in line]


def test_a_demo_publishes_nothing_to_the_floor_unless_asked(tmp_path: Path, broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "#")
    config = floor_config(tmp_path / "station.toml", broker.url, table="BAC-01", extra=FLOOR)
    demo = station("demo", "--rounds", "3", "--fast", "-c", str(config), "--journal", str(tmp_path / "j.sqlite3"),
                   env=station_env(tmp_path))
    assert demo.returncode == 0, demo.stderr[-3000:]
    _mark_the_end(broker, subscriber)
    subscriber.close()
    assert [m.topic for m in subscriber.messages] == [MARKER], "the demo published"
    assert set(_clients(broker)) == {"test-subscriber", "test-marker"}, "the demo connected to the broker"
    assert demo.stdout.splitlines()[-1] == ("floor: nothing published (a demo never speaks for BAC-01; --floor "
                                            "publishes it as BAC-01-demo)")


def test_asked_to_publish_a_demo_publishes_as_a_demo(tmp_path: Path, broker: Broker) -> None:
    subscriber = Subscriber(broker.port, "#")
    config = floor_config(tmp_path / "station.toml", broker.url, table="BAC-01", extra=FLOOR)
    demo = station("demo", "--rounds", "3", "--fast", "--json", "--floor", "-c", str(config), "--journal",
                   str(tmp_path / "j.sqlite3"), env=station_env(tmp_path))
    assert demo.returncode == 0, demo.stderr[-3000:]
    summary = json.loads(demo.stdout.splitlines()[-1])
    assert summary["type"] == "summary" and summary["floor"] == {"table": "BAC-01-demo", "broker": broker.url}
    subscriber.wait_for(lambda s: any(m["status"] == "offline" for m in s.kind("status")), 30, "the demo's stop")
    subscriber.wait_for(lambda s: len(s.kind("round")) == 3, 30, "the demo's rounds")
    _mark_the_end(broker, subscriber)
    subscriber.close()
    feed = [m for m in subscriber.messages if m.topic != MARKER]
    assert {m.topic.split("/")[1] for m in feed} == {"BAC-01-demo"}, "a message under the real table's id"
    assert {m.payload["table"] for m in feed} == {"BAC-01-demo"}
    assert all((s["pit"], s["number"]) == ("", 0) for s in subscriber.kind("status")), "seated at the table's place"
    assert "bac-01-station" not in _clients(broker), "the demo took the real station's client id"
    assert "bac-01-station-demo" in _clients(broker)
