"""Connecting to the floor's MQTT broker with paho-mqtt: URL, TLS, credentials, the last will.

One place for the publisher (:mod:`station.floor.outbox`) and ``station floor watch``: both
name a broker by ``mqtt://host[:port]`` or ``mqtts://host[:port]``; mqtts verifies the broker's
certificate against the given CA file (or the system's) and its host name, and presents a
client certificate when one is given. The password comes from a file (a systemd credential,
say), never from the configuration itself. MQTT 3.1.1, which every broker speaks.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from station.floor.settings import DEFAULT_PORTS, FloorSection

#: The longest pause between two attempts to reach the broker (paho doubles it from 1 s).
RECONNECT_MAX_S = 4


class BrokerSettingsError(ValueError):
    """A broker setting that cannot be used; ``key`` names it (e.g. ``floor.ca_file``)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class BrokerOptions:
    url: str
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    username: str = ""
    password_file: str = ""
    keepalive_s: int = 30

    @classmethod
    def from_floor(cls, floor: FloorSection) -> BrokerOptions:
        return cls(floor.broker, floor.ca_file, floor.cert_file, floor.key_file, floor.username, floor.password_file,
                   floor.keepalive_s)

    @property
    def tls(self) -> bool:
        return urlsplit(self.url).scheme == "mqtts"

    def address(self) -> tuple[str, int]:
        parts = urlsplit(self.url)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise BrokerSettingsError("broker", f"{self.url!r}: use mqtt://host[:port] or mqtts://host[:port]")
        return parts.hostname, parts.port or DEFAULT_PORTS[parts.scheme]


def _tls_context(options: BrokerOptions, prefix: str) -> ssl.SSLContext:
    try:
        context = ssl.create_default_context(cafile=options.ca_file or None)
    except (OSError, ssl.SSLError) as exc:
        raise BrokerSettingsError(f"{prefix}ca_file", f"cannot use {options.ca_file}: {exc}") from None
    if options.cert_file:
        try:
            context.load_cert_chain(options.cert_file, options.key_file or None)
        except (OSError, ssl.SSLError) as exc:
            raise BrokerSettingsError(f"{prefix}cert_file", f"cannot use {options.cert_file}: {exc}") from None
    return context


def _password(options: BrokerOptions, prefix: str) -> str | None:
    if not options.password_file:
        return None
    try:
        return Path(options.password_file).read_text(encoding="utf-8").strip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise BrokerSettingsError(f"{prefix}password_file", f"cannot read {options.password_file}: {reason}") from None


def check_options(options: BrokerOptions, prefix: str = "floor.") -> None:
    """Read what the options name (CA, certificate, key, password): raise
    :class:`BrokerSettingsError` naming the key of the first that cannot be used."""
    try:
        options.address()
    except BrokerSettingsError as exc:
        raise BrokerSettingsError(prefix + exc.key, str(exc)) from None
    if options.tls:
        _tls_context(options, prefix)
    if options.username:
        _password(options, prefix)


def make_client(options: BrokerOptions, client_id: str, *, clean_session: bool = True,
                will: tuple[str, bytes] | None = None, prefix: str = "floor.") -> mqtt.Client:
    """A paho client set up for ``options`` (not connected yet). Raises
    :class:`BrokerSettingsError` for a CA, certificate or password file that cannot be used."""
    options.address()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                         protocol=mqtt.MQTTv311)
    if options.tls:
        client.tls_set_context(_tls_context(options, prefix))
    if options.username:
        client.username_pw_set(options.username, _password(options, prefix))
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    # A broker that comes back is found within RECONNECT_MAX_S: the backlog goes out then.
    client.reconnect_delay_set(1, RECONNECT_MAX_S)
    return client
