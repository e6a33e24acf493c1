"""Tables sharing one progressive meter through the floor broker (docs/progressive.md).

Each table publishes its share of the pool in its retained ``state`` message (``progressive``:
what it gave the meter in all and its latest jackpot or reset; :func:`station.floor.derive.pool_share`).
:class:`PoolListener` subscribes to every table's state, and each message of another table of
the same pool becomes a :class:`~station.events.ProgressivePoolHeard` input, journaled before
it is applied like every input, so the meter after a restart (and on any copy of the journal)
is the journal's. A retained message heard again after a reconnection is not posted twice.

What is heard is checked before it is posted: a message that is not the shape the schema
says (``station/floor/schemas/state.schema.json``, ``progressive``) is counted and dropped,
with the table it came from in the log, never applied.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
import structlog

from station.events import ProgressivePoolHeard
from station.floor.mqtt import BrokerOptions, make_client

log = structlog.get_logger(__name__)

#: A table's name in a pool, and a pool's name: as the configuration allows them.
MAX_NAME = 64


def _money(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _name(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME


def rebase_problem(rebase: Any) -> str:
    """Why ``rebase`` is not a jackpot or reset as the pool's tables write them ("" when it is)."""
    if rebase is None:
        return ""
    if not isinstance(rebase, dict) or set(rebase) != {"epoch", "table", "kind", "base", "counted"}:
        return "a rebase needs exactly epoch, table, kind, base and counted"
    if not (_money(rebase["epoch"]) and rebase["epoch"] >= 1):
        return f"epoch {rebase['epoch']!r} is not a whole number from 1"
    if not _name(rebase["table"]) or rebase["kind"] not in ("jackpot", "reset") or not _money(rebase["base"]):
        return "a rebase's table, kind (jackpot or reset) or base is not one"
    counted = rebase["counted"]
    if not isinstance(counted, dict) or not all(_name(t) and _money(a) for t, a in counted.items()):
        return "counted must map tables to whole amounts"
    return ""


def heard_from(payload: bytes | bytearray, pool: str, member: str) -> tuple[ProgressivePoolHeard | None, str]:
    """The input a table's state message gives to this table (of ``pool``, named ``member``),
    or None with why: "" when the message is simply not of this pool (another pool, no
    progressive, this table's own), a reason when it is malformed."""
    try:
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None, "not JSON"
    share = message.get("progressive") if isinstance(message, dict) else None
    if not isinstance(share, dict) or share.get("pool") != pool or share.get("member") == member:
        return None, ""
    if not _name(share.get("member")) or not _money(share.get("contributed")):
        return None, "member and contributed must be a name and a whole amount"
    problem = rebase_problem(share.get("rebase"))
    if problem:
        return None, problem
    return ProgressivePoolHeard(pool, share["member"], share["contributed"], share.get("rebase")), ""


class PoolListener:
    """Hears the pool's other tables on the broker and posts what they say (any thread)."""

    def __init__(self, broker: BrokerOptions, prefix: str, client_id: str, pool: str, member: str,
                 post: Callable[[ProgressivePoolHeard], None]) -> None:
        self.broker, self.topic = broker, f"{prefix}/+/state"
        self.pool, self.member, self._post = pool, member, post
        self._client = make_client(broker, client_id)
        self._client.on_connect = self._on_connect
        self._client.on_message = self._on_message
        self._last: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()
        self.counts = {"heard": 0, "posted": 0, "malformed": 0}
        self.connected = False

    def start(self) -> None:
        host, port = self.broker.address()
        self._client.connect_async(host, port, keepalive=self.broker.keepalive_s)
        self._client.loop_start()

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        self.connected = not getattr(reason, "is_failure", False)
        if self.connected:
            client.subscribe(self.topic, qos=1)

    def _on_message(self, _client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        heard, problem = heard_from(message.payload, self.pool, self.member)
        with self._lock:
            self.counts["heard"] += 1
            if problem:
                self.counts["malformed"] += 1
                log.warning("progressive_pool_message_dropped", topic=message.topic, reason=problem)
                return
            if heard is None:
                return
            key = (heard.contributed, json.dumps(heard.rebase, sort_keys=True))
            if self._last.get(heard.table) == key:
                return  # a retained message heard again: nothing new
            self._last[heard.table] = key
            self.counts["posted"] += 1
        self._post(heard)

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"pool": self.pool, "connected": self.connected, "tables": sorted(self._last), **self.counts}
