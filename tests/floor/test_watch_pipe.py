"""``station floor watch`` whose reader goes away: ``station floor watch --json | head``.

The watch prints on paho's network thread. Before, the first line written after the reader
had closed the pipe raised ``BrokenPipeError`` there: a traceback from the MQTT thread on
stderr, and a watch that went on running, deaf, until someone interrupted it. Now it ends
quietly with status 0 (docs/floor.md), whether messages keep coming or the floor is quiet.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from ..waiting import wait_until
from .helpers import Broker, station_env

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

#: How long the watch may take to end once its reader is gone: it notices on its next write,
#: or at its next look at the pipe (every 0.2 s), then disconnects from the broker.
PROMPT_S = 15


def _subscribed(broker: Broker) -> bool:
    """The broker has logged the watch's subscription to the feed (``log_type subscribe``)."""
    return any(" dealing-station/" in line for line in broker.log.read_text().splitlines())


def _watch(tmp_path: Path, broker: Broker) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "station", "floor", "watch", "--broker", broker.url, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=station_env(tmp_path))


def _state(shoe: int, number: int) -> bytes:
    """A table's state message: every new round id is a change, so a new line of the watch."""
    return json.dumps({"v": 1, "kind": "state", "table": "BAC-01", "journal_id": "0123456789abcdef",
                       "state": "betting", "expectation": "place your bets", "shoe": shoe,
                       "round_id": f"{shoe}-{number}", "seq": number}).encode()


@contextmanager
def _publishing(broker: Broker, *, keep_on: bool) -> Iterator[threading.Event]:
    """A paho publisher of the table's state: one message (retained), then, with ``keep_on``,
    a new one every 20 ms until the block ends. Yields the event set once the first is out."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-publisher", protocol=mqtt.MQTTv311)
    client.connect("127.0.0.1", broker.port, keepalive=10)
    client.loop_start()
    first, stop = threading.Event(), threading.Event()

    def publish() -> None:
        for number in itertools.count(1):
            client.publish("dealing-station/BAC-01/state", _state(1, number), qos=1, retain=True).wait_for_publish(10)
            first.set()
            if not keep_on or stop.wait(0.02):
                return

    publisher = threading.Thread(target=publish, name="test-publisher", daemon=True)
    publisher.start()
    try:
        yield first
    finally:
        stop.set()
        publisher.join(10)
        client.disconnect()
        client.loop_stop()


def _read_one_line_and_close(watch: subprocess.Popen[bytes]) -> bytes:
    """What ``head -1`` does: one line, then its end of the pipe closed."""
    assert watch.stdout is not None
    line = watch.stdout.readline()
    watch.stdout.close()
    return line


def _ended_quietly(watch: subprocess.Popen[bytes]) -> None:
    try:
        watch.wait(PROMPT_S)
    except subprocess.TimeoutExpired:
        watch.kill()
        raise AssertionError(f"the watch ran on after its reader had gone: "
                             f"{watch.communicate(timeout=30)[1].decode()[-2000:]}") from None
    assert watch.stderr is not None
    err = watch.stderr.read().decode()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err[-2000:]
    assert err == "", err[-2000:]
    assert watch.returncode == 0


def test_a_reader_that_goes_away_while_messages_keep_coming_ends_the_watch_quietly(tmp_path: Path,
                                                                                   broker: Broker) -> None:
    watch = _watch(tmp_path, broker)
    try:
        wait_until(lambda: _subscribed(broker), 60, "the watch to subscribe")
        with _publishing(broker, keep_on=True) as first:
            assert first.wait(30), "the publisher could not publish"
            line = _read_one_line_and_close(watch)
            assert json.loads(line)["table"] == "BAC-01"
            _ended_quietly(watch)  # while the messages keep coming: the write on paho's thread fails
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait(30)


def test_a_reader_that_goes_away_from_a_quiet_floor_ends_the_watch_too(tmp_path: Path, broker: Broker) -> None:
    """``station floor watch --table BAC-01 | head -1`` on a table that is not dealing: nothing
    more is printed for hours, and the watch must not wait for the next change to end."""
    watch = _watch(tmp_path, broker)
    try:
        wait_until(lambda: _subscribed(broker), 60, "the watch to subscribe")
        with _publishing(broker, keep_on=False) as first:
            assert first.wait(30), "the publisher could not publish"
        line = _read_one_line_and_close(watch)
        assert json.loads(line)["round_id"] == "1-1"
        _ended_quietly(watch)  # nothing more was published: no write fails
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait(30)
