"""Helpers of the floor feed's tests: a real broker (Debian's mosquitto on a free local port).

Each test that needs one starts its own (``broker`` fixture) from a configuration written to
its temporary folder, so tests never share retained messages or sessions. The broker can be
stopped and started again on the same port (an outage); with persistence, a subscriber's
session and the messages queued for it survive that. Where ``/usr/sbin/mosquitto`` is not
installed (``.ci/run`` installs Debian's ``mosquitto``), these tests are skipped saying so.

``Subscriber`` is a paho client in the test process that keeps every message it receives, in
order, with the time it arrived.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from ..waiting import tail, wait_until

ROOT = Path(__file__).resolve().parents[2]
MOSQUITTO = Path("/usr/sbin/mosquitto")
needs_mosquitto = pytest.mark.skipif(
    not MOSQUITTO.exists(),
    reason="needs Debian's mosquitto (/usr/sbin/mosquitto; `apt-get install mosquitto`, as .ci/run does)",
)
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Broker:
    """One mosquitto process on 127.0.0.1, stoppable and restartable on its port."""

    def __init__(self, folder: Path, *, persistence: bool = False, tls: dict[str, Path] | None = None) -> None:
        self.folder = folder
        self.port = free_port()
        self.tls = tls
        self.config = folder / "mosquitto.conf"
        # As root, mosquitto would drop to its own user, who may not read the test's folder:
        # it keeps the user the tests run as.
        lines = [f"user {getpass.getuser()}", f"listener {self.port} 127.0.0.1", "allow_anonymous true",
                 # A slow subscriber must not lose QoS 1 messages to the broker's queue limit.
                 "max_queued_messages 0", f"persistence {'true' if persistence else 'false'}",
                 f"persistence_location {folder}/", "log_dest stderr", "log_type error", "log_type warning",
                 "log_type notice", "log_type subscribe"]
        if tls is not None:
            lines += [f"cafile {tls['ca']}", f"certfile {tls['server_cert']}", f"keyfile {tls['server_key']}",
                      "require_certificate true", "tls_version tlsv1.2"]
        self.config.write_text("\n".join(lines) + "\n")
        self.log = folder / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None

    @staticmethod
    def version() -> str:
        """``mosquitto version 2.0.11`` (its help's first line)."""
        shown = subprocess.run([str(MOSQUITTO), "-h"], capture_output=True, text=True, timeout=10)
        return (shown.stdout or shown.stderr).splitlines()[0].strip()

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{'localhost' if self.tls else '127.0.0.1'}:{self.port}"

    def start(self) -> Broker:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.config)], stdout=log, stderr=log)
        process = self.process

        def listening() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"mosquitto exited: {tail(self.log, 2000)}")
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            return True

        wait_until(listening, 10, f"mosquitto to listen on {self.port}", poll=0.05, ignoring=(OSError,),
                   detail=lambda: tail(self.log, 2000))
        return self

    def stop(self) -> None:
        """An orderly stop (SIGTERM): with persistence, sessions and queues are saved."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.process = None


@contextmanager
def broker_in(folder: Path, *, persistence: bool = True) -> Iterator[Broker]:
    """A mosquitto of the test's own, its files in ``folder``, while the block runs (skips the
    test where Debian's mosquitto is not installed)."""
    if not MOSQUITTO.exists():
        pytest.skip("needs Debian's mosquitto (/usr/sbin/mosquitto; `apt-get install mosquitto`, as .ci/run does)")
    folder.mkdir()
    running = Broker(folder, persistence=persistence).start()
    try:
        yield running
    finally:
        running.stop()


@dataclass(frozen=True)
class Received:
    topic: str
    payload: dict[str, Any]
    at: float  # time.time() when it arrived
    retained: bool


class Subscriber:
    """A paho subscriber in the test process; ``persistent`` keeps its session at the broker
    (clean_session false), so messages published while it is away are queued for it."""

    def __init__(self, url_port: int, topic: str = "#", *, client_id: str = "test-subscriber",
                 persistent: bool = True, tls: dict[str, Path] | None = None, host: str = "127.0.0.1") -> None:
        self.messages: list[Received] = []
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not persistent,
                                  protocol=mqtt.MQTTv311)
        if tls is not None:
            self.client.tls_set(ca_certs=str(tls["ca"]), certfile=str(tls["client_cert"]),
                                keyfile=str(tls["client_key"]))
        self.client.reconnect_delay_set(1, 2)
        self.topic = topic
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *_: self.connected.set()  # the broker has the subscription
        self.client.on_message = self._on_message
        self.client.on_disconnect = lambda *_: self.connected.clear()
        self.client.connect(host, url_port, keepalive=10)
        self.client.loop_start()
        assert self.connected.wait(10), "the subscriber could not connect"

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if not reason.is_failure:
            client.subscribe(self.topic, qos=1)

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        received = Received(message.topic, json.loads(message.payload), time.time(), bool(message.retain))
        with self.lock:
            self.messages.append(received)

    def kind(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [m.payload for m in self.messages if m.topic.endswith("/" + kind)]

    def wait_for(self, condition: Callable[[Subscriber], bool], timeout: float, what: str) -> None:
        wait_until(lambda: condition(self), timeout, what, poll=0.05)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def floor_config(path: Path, broker_url: str, *, table: str = "BAC-01", pace_ms: int = 0, extra: str = "",
                 metrics: str = "", base: str = "station.toml") -> Path:
    """The default (simulated) configuration (or another shipped one, ``base``: a file of
    config/ or config/examples/) with a dealer at ``pace_ms`` and a [floor] section."""
    text = (ROOT / "config" / base).read_text()
    text = text.replace("pace_ms = 1500", f"pace_ms = {pace_ms}")
    if "pace_ms" not in text:
        text = text.replace("[dealer]\n", f"[dealer]\npace_ms = {pace_ms}\n")
    text += f'\n[floor]\nenabled = true\nbroker = "{broker_url}"\ntable = "{table}"\n{extra}\n'
    if metrics:
        text += f"\n[metrics]\n{metrics}\n"
    path.write_text(text)
    return path


def station_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "RUNTIME_DIRECTORY": str(tmp_path / "run"),
            "XDG_STATE_HOME": str(tmp_path / "state")}


def run_station(config: Path, journal: Path, env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    """``station run`` on ``journal``, its output appended to ``log``."""
    with log.open("a") as out:
        return subprocess.Popen([sys.executable, "-m", "station", "run", "-c", str(config), "--journal", str(journal)],
                                stdout=out, stderr=subprocess.STDOUT, text=True, env=env)


def station(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def make_certificates(folder: Path) -> dict[str, Path]:
    """A CA, a server certificate for localhost/127.0.0.1 and a client certificate, with openssl."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=floor test CA",
        "-keyout", "ca.key", "-out", "ca.crt")
    (folder / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name, ext in (("server", ["-extfile", "server.ext"]), ("client", [])):
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
            "-out", f"{name}.csr")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-out", f"{name}.crt", *ext)
    return {"ca": folder / "ca.crt", "server_cert": folder / "server.crt", "server_key": folder / "server.key",
            "client_cert": folder / "client.crt", "client_key": folder / "client.key"}


def schema_validators() -> dict[str, Any]:
    """A validator per message kind, from the JSON Schemas the package ships."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    folder = ROOT / "station" / "floor" / "schemas"
    schemas = {path.name: json.loads(path.read_text()) for path in folder.glob("*.schema.json")}
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas.values())
    for schema in schemas.values():
        Draft202012Validator.check_schema(schema)
    return {name.removesuffix(".schema.json"): Draft202012Validator(schema, registry=registry)
            for name, schema in schemas.items() if name != "common.schema.json"}


def check_schemas(received: list[Received]) -> None:
    validators = schema_validators()
    for message in received:
        kind = message.topic.rsplit("/", 1)[1]
        errors = sorted(validators[kind].iter_errors(message.payload), key=lambda e: list(e.path))
        assert not errors, f"{message.topic}: {errors[0].message} at {list(errors[0].path)}: {message.payload}"


def expected_feed(journal: Path, table: str) -> list[dict[str, Any]]:
    """Every round and event message the journal gives, derived offline, in order."""
    from station.config.options import journal_options
    from station.floor.derive import derive_all
    from station.journal import JournalReader
    from station.journal.anchors import journal_id_of

    options = journal_options(journal, journal)
    with JournalReader(journal) as reader:
        ident = journal_id_of(reader)
        assert ident is not None
        return [m.payload for m in derive_all(reader.records(), options, table=table, journal_id=ident,
                                              devices=("shoe", "display", "pedals"))]


def sequenced(subscriber: Subscriber) -> list[dict[str, Any]]:
    """The round, event and significant messages received so far, in arrival order."""
    with subscriber.lock:
        return [m.payload for m in subscriber.messages
                if m.topic.rsplit("/", 1)[1] in ("round", "event", "significant")]


def first_occurrences(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(messages with repeats dropped, in arrival order; the repeats). A repeat has the
    (journal, kind, n) of a message already received."""
    seen: dict[tuple[str, str, int], dict[str, Any]] = {}
    firsts, repeats = [], []
    for message in messages:
        key = (message["journal_id"], message["kind"], message["n"])
        if key in seen:
            assert seen[key] == message, f"a repeat differs from the first: {message} vs {seen[key]}"
            repeats.append(message)
        else:
            seen[key] = message
            firsts.append(message)
    return firsts, repeats


def verify_unit(unit: Path, drop_in: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` of a unit of systemd/ with its drop-in template appended (its
    commented credentials too), ExecStart pointed at this checkout's ``station``."""
    station = Path(sys.executable).with_name("station")
    merged = folder / unit.name
    merged.write_text(unit.read_text().replace("/opt/dealing-station/bin/station", str(station))
                      + "\n" + drop_in.read_text().replace("#LoadCredential", "LoadCredential"))
    return subprocess.run(["systemd-analyze", "verify", "--man=no", str(merged)], capture_output=True, text=True,
                          timeout=60)
