"""The ``[floor]`` and ``[metrics]`` sections of the station's configuration (docs/floor.md,
docs/metrics.md).

Validated like every other section (unknown keys, wrong types and impossible values are
refused naming the dotted key); :mod:`station.service.config` includes them. Both features are
off by default, so the default (simulated) configuration stays self-contained. The anchor
cadence applies whether the feed is on or off: anchors are always logged and shown in
``station ctl status``; with the feed on they are published too.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from station.config.strict import StrictSection

#: A table id and a topic prefix level: what MQTT topics and file names can carry safely.
TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PREFIX = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("floor_setting", message)


def check_broker_url(value: str) -> str:
    """A broker's URL: ``mqtt://host[:port]`` or ``mqtts://host[:port]``, nothing else in it.
    Shared by ``[floor] broker`` and the pit page's ``[broker] url``."""
    parts = urlsplit(value)
    if parts.scheme not in DEFAULT_PORTS:
        raise _problem("use mqtt://host[:port] or mqtts://host[:port]")
    try:
        parts.port  # noqa: B018  (raises for a port that is not a number in range)
    except ValueError:
        raise _problem("the port must be a number from 1 to 65535") from None
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.username or parts.password:
        raise _problem("give only scheme, host and port (credentials go in username and password_file)")
    return value


def check_prefix(value: str) -> str:
    """A topic prefix: levels a topic can carry, no wildcards."""
    if not PREFIX.match(value):
        raise _problem("topic levels of letters, digits, '-', '_' and '.', separated by '/' (no wildcards)")
    return value


def check_key_with_cert(key_file: str, info: ValidationInfo) -> str:
    """A client certificate and its key go together (``key_file``'s validator, after ``cert_file``)."""
    if bool(key_file) != bool(info.data.get("cert_file")):
        raise _problem("cert_file and key_file go together (a client certificate and its key)")
    return key_file


class FloorSection(StrictSection):
    """The floor feed: an MQTT publisher driven by the journal, and the journal's anchors."""

    enabled: bool = False
    """Publish the journal to the broker (anchors are logged whether or not)."""
    broker: str = Field(default="", validate_default=True)
    """``mqtt://host[:port]`` or ``mqtts://host[:port]`` (TLS; default ports 1883 and 8883)."""
    table: str = ""
    """The table's id on the floor (topic level, e.g. ``BAC-01``); empty: made from station.name."""
    topic_prefix: str = "dealing-station"
    """Topics are ``<topic_prefix>/<table>/round|event|state|status|anchor``."""
    pit: str = Field(default="", max_length=32)
    """The pit the table stands in (e.g. ``A`` or ``Pit 3``), carried in the status message:
    the pit page groups and sorts tables by it; empty: no pit."""
    number: int = Field(default=0, ge=0, le=9999)
    """The table's number in its pit (the pit page's order within a pit); 0: none."""
    client_id: str = Field(default="", max_length=64)
    """MQTT client id; empty: ``dealing-station-<table>``."""
    ca_file: str = ""
    """mqtts: the CA certificate(s) the broker's certificate must chain to; empty: the system's."""
    cert_file: str = ""
    """mqtts: this station's client certificate (PEM), for brokers that require one."""
    key_file: str = Field(default="", validate_default=True)
    """mqtts: the client certificate's private key (PEM)."""
    username: str = ""
    password_file: str = ""
    """A file holding the broker password (e.g. a systemd credential); never the password itself."""
    keepalive_s: int = Field(default=30, ge=5, le=600)
    window: int = Field(default=500, ge=1, le=20_000)
    """Most messages handed to the broker connection beyond the stored cursor (what a crash repeats)."""
    drain_s: float = Field(default=5.0, ge=0, le=10)
    """At stop, how long the station waits for the broker to take the backlog before it goes."""
    anchor_records: int = Field(default=100, ge=1, le=1_000_000)
    """An anchor at least every this many records ..."""
    anchor_seconds: int = Field(default=60, ge=1, le=86_400)
    """... and every this many seconds while records come (plus every shoe end, start and stop)."""
    anchor_key_file: str = ""
    """An HMAC key (16 bytes or more) that signs every anchor; keep it out of the journal's folder."""

    @field_validator("broker")
    @classmethod
    def _broker(cls, value: str, info: ValidationInfo) -> str:
        if not value:
            if info.data.get("enabled"):
                raise _problem("the broker's URL is needed when floor.enabled is true (mqtt://host or mqtts://host)")
            return value
        return check_broker_url(value)

    @field_validator("table")
    @classmethod
    def _table(cls, value: str) -> str:
        if value and not TABLE_ID.match(value):
            raise _problem("letters, digits, '-', '_' and '.', starting with a letter or digit, at most 64")
        return value

    @field_validator("topic_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        return check_prefix(value)

    @field_validator("pit")
    @classmethod
    def _pit(cls, value: str) -> str:
        if value != value.strip() or any(not ch.isprintable() for ch in value):
            raise _problem("printable text without leading or trailing spaces (e.g. 'A' or 'Pit 3')")
        return value

    @field_validator("key_file")
    @classmethod
    def _key_with_cert(cls, value: str, info: ValidationInfo) -> str:
        return check_key_with_cert(value, info)

    @property
    def tls(self) -> bool:
        return self.broker.startswith("mqtts:")

    def address(self) -> tuple[str, int]:
        parts = urlsplit(self.broker)
        return parts.hostname or "", parts.port or DEFAULT_PORTS[parts.scheme]


class MetricsSection(StrictSection):
    """Prometheus metrics (docs/metrics.md)."""

    enabled: bool = False
    host: str = Field(default="127.0.0.1", min_length=1)
    """The address to serve ``/metrics`` on; keep it local unless the unit allows the scraper in."""
    port: int = Field(default=9464, ge=1, le=65535)


def slug(name: str) -> str:
    """A table id from a station's name: ``Mini Baccarat 1 (simulated)`` -> ``mini-baccarat-1-simulated``."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return (text or "table")[:64]


def table_id(floor: FloorSection, station_name: str) -> str:
    return floor.table or slug(station_name)


def describe(section: BaseModel) -> dict[str, Any]:
    """The section as configured, without secrets (for ``ctl status``)."""
    return section.model_dump()
