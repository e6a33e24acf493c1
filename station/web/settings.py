"""``[web]``: the web scoreboard's section of the configuration (docs/web-scoreboard.md)."""

from __future__ import annotations

from pydantic import AliasChoices, Field, field_validator

from station.config.addresses import one_address
from station.config.strict import StrictSection


class WebSection(StrictSection):
    """The web scoreboard (docs/web-scoreboard.md): a read-only page served by a process of its own."""

    enabled: bool = False
    bind: str = Field(default="127.0.0.1", validation_alias=AliasChoices("bind", "host"))
    """The address the page is served on: loopback for a screen on the table PC, or the
    address of one of the PC's interfaces for pit screens on the table's network (``host`` is
    the older name of this key)."""
    port: int = Field(default=8080, ge=1, le=65535)
    max_connections: int = Field(default=512, ge=1, le=10_000)
    """Connections served at once (pages and their event streams); more are answered 503."""

    @field_validator("bind")
    @classmethod
    def _one_address(cls, value: str) -> str:
        return one_address(value)

    @property
    def host(self) -> str:
        """The older name of :attr:`bind`."""
        return self.bind
