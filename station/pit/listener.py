"""The pit page's one connection: a subscriber of the floor broker (paho-mqtt).

It subscribes to ``<prefix>/+/status``, ``…/state``, ``…/round`` and ``…/event`` with QoS 1
under a persistent session (clean session false, a fixed client id), so the broker keeps what
is published while the page is away (a restart, a network cut) and hands it over when it is
back; every connection subscribes again, so the retained status and state of every table come
again too and the page is whole at once. The connection is made in the background and made
again whenever it is lost (at most ``RECONNECT_MAX_S`` apart): a page started before its
broker shows that it has no broker, and fills in when the broker comes.

Everything paho calls runs on paho's network thread; the listener only hands each message on
(``on_message(topic, payload, retained)``) and says when the connection comes and goes
(``on_connection(connected, reason)``). The caller moves them to its own loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
import structlog

from station.floor.mqtt import BrokerOptions, make_client
from station.pit.board import KINDS

log = structlog.get_logger("station.pit")


class FloorListener:
    """Subscribes to the tables' feed; ``start`` returns at once, ``stop`` disconnects."""

    def __init__(self, options: BrokerOptions, client_id: str, prefix: str, *,
                 on_message: Callable[[str, bytes, bool], None],
                 on_connection: Callable[[bool, str], None]) -> None:
        self.options = options
        self.prefix = prefix.rstrip("/")
        self.on_message = on_message
        self.on_connection = on_connection
        self.connected = False
        self.connections = 0
        # Raises BrokerSettingsError for a CA, certificate or password file that cannot be used.
        self.client = make_client(options, client_id, clean_session=False, prefix="broker.")
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message

    def topics(self) -> list[tuple[str, int]]:
        return [(f"{self.prefix}/+/{kind}", 1) for kind in KINDS]

    def start(self) -> FloorListener:
        host, port = self.options.address()
        self.client.connect_async(host, port, keepalive=self.options.keepalive_s)
        self.client.loop_start()
        log.info("pit_broker_connecting", broker=self.options.url, topics=[t for t, _ in self.topics()])
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    # paho's network thread ----------------------------------------------------------------

    def _connected(self, client: mqtt.Client, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("pit_broker_refused", broker=self.options.url, reason=str(reason))
            self.on_connection(False, f"the broker refused the connection: {reason}")
            return
        client.subscribe(self.topics())
        self.connected = True
        self.connections += 1
        log.info("pit_broker_connected", broker=self.options.url, connection=self.connections)
        self.on_connection(True, "")

    def _disconnected(self, _client: mqtt.Client, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        was, self.connected = self.connected, False
        if was:
            log.warning("pit_broker_lost", broker=self.options.url, reason=str(reason))
        self.on_connection(False, str(reason))

    def _message(self, _client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.on_message(message.topic, bytes(message.payload), bool(message.retain))
