"""The pit page's configuration (``/etc/dealing-station/pit.toml``): the page and the broker.

Validated like the station's own file (unknown keys, wrong types and impossible values are
refused naming the file and the dotted key), with the same checks where a key means the same:
the page's address is one address of the PC (``[web] bind``'s rule), the broker's URL and
topic prefix are what ``[floor]`` accepts, the time zone is an IANA name this machine knows.
The password is never in the file: ``password_file`` names a file (a systemd credential).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from station.config.addresses import one_address
from station.config.errors import ConfigError
from station.config.file import read_config_data
from station.config.rules import judge
from station.config.strict import StrictSection
from station.floor.mqtt import BrokerOptions
from station.floor.settings import check_broker_url, check_key_with_cert, check_prefix
from station.localtime import DEFAULT_TIMEZONE, timezone_problem
from station.resources import configuration_folder


class PageSection(StrictSection):
    """``[pit]``: the page, where it is served and how it reads."""

    title: str = Field(default="Pit", min_length=1, max_length=40)
    """The page's heading (the pit's or the floor's name)."""
    bind: str = "127.0.0.1"
    """The address the page is served on: loopback for a screen on this PC, or this PC's
    address on the network the pit's screens are on (never the wildcard)."""
    port: int = Field(default=8090, ge=1, le=65535)
    max_connections: int = Field(default=256, ge=1, le=10_000)
    """Connections served at once (pages and their event streams); more are answered 503."""
    timezone: str = DEFAULT_TIMEZONE
    """The casino's IANA time zone: the page's clock and the hour that "rounds this hour" counts."""
    pits: list[str] = Field(default_factory=list)
    """Only the tables of these pits (empty: every table the broker carries)."""
    page_seconds: int = Field(default=20, ge=0, le=3600)
    """A pit with more tables than one screen holds shows them in pages: a screen turns to its
    next page after this many seconds (0: only when a person taps)."""
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"

    @field_validator("bind")
    @classmethod
    def _one_address(cls, value: str) -> str:
        return one_address(value)

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        problem = timezone_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class BrokerSection(StrictSection):
    """``[broker]``: the floor's MQTT broker, as the stations' ``[floor]`` names it."""

    url: str = Field(default="mqtt://127.0.0.1", validate_default=True)
    """``mqtt://host[:port]`` or ``mqtts://host[:port]`` (TLS)."""
    topic_prefix: str = Field(default="dealing-station", validate_default=True)
    """The stations' ``[floor] topic_prefix``."""
    client_id: str = Field(default="", max_length=64)
    """The broker keeps a session under this id while the page is away (what it missed comes
    when it is back); empty: ``station-pit-<host name>``."""
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = Field(default="", validate_default=True)
    username: str = ""
    password_file: str = ""
    keepalive_s: int = Field(default=30, ge=5, le=600)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_broker_url(value)

    @field_validator("topic_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        return check_prefix(value)

    @field_validator("key_file")
    @classmethod
    def _key_with_cert(cls, value: str, info: ValidationInfo) -> str:
        return check_key_with_cert(value, info)

    def options(self) -> BrokerOptions:
        return BrokerOptions(self.url, self.ca_file, self.cert_file, self.key_file, self.username,
                             self.password_file, self.keepalive_s)

    def session_id(self) -> str:
        return self.client_id or f"station-pit-{socket.gethostname()}"[:64]


class PitConfig(StrictSection):
    pit: PageSection = PageSection()
    broker: BrokerSection = BrokerSection()


@dataclass(frozen=True)
class LoadedPitConfig:
    path: Path
    config: PitConfig


def template_path() -> Path:
    """The shipped, commented template (``config/pit.toml``)."""
    return configuration_folder() / "pit.toml"


def load_pit_config(path: str | Path, overrides: dict[str, dict[str, Any]] | None = None) -> LoadedPitConfig:
    """Read and validate the pit page's file; :class:`ConfigError` names the file and every
    key that is wrong (:class:`~station.service.config.ConfigFileError` when there is no file).
    ``overrides`` (``{"broker": {"url": ...}}``: the command line's) replace keys of the file
    before it is validated, so a bad one is named like a key of the file."""
    config_path = Path(path)
    data = read_config_data(config_path)
    for section, values in (overrides or {}).items():
        current = data.get(section)
        data[section] = {**(current if isinstance(current, dict) else {}), **values}
    config, problems = judge(PitConfig, data)
    if problems or config is None:
        raise ConfigError(config_path, problems or [("", "cannot be read as a configuration")])
    return LoadedPitConfig(config_path, config)
