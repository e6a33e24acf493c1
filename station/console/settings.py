"""The ``[console]`` section of the station's configuration (docs/console.md).

The console is off by default in a configuration that does not name it (a real table turns it
on where a screen is fitted); the shipped simulated configuration turns it on. It listens on
loopback unless told otherwise, and an address on the table's network (a supervisor's tablet)
is refused unless TLS is configured: PINs and session cookies never cross a network in clear.
"""

from __future__ import annotations

import ipaddress

from pydantic import Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from station.config.strict import StrictSection


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("console_setting", message)


def is_loopback(address: str) -> bool:
    """True for ``localhost`` and the loopback addresses (127.0.0.0/8, ::1)."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class ConsoleSection(StrictSection):
    """The dealer's console: where it listens, TLS for a network address, sessions, payouts."""

    enabled: bool = False
    """Serve the console (a process of its own, started with the station)."""
    tls_cert: str = ""
    """A PEM certificate (chain) for HTTPS; needed for any address that is not loopback."""
    tls_key: str = Field(default="", validate_default=True)
    """The certificate's private key (PEM)."""
    bind: str = Field(default="127.0.0.1", validate_default=True)
    """Loopback for the table PC's own screen; an address of this PC for a tablet (TLS only)."""
    port: int = Field(default=8081, ge=1, le=65535)
    idle_seconds: int = Field(default=600, ge=5, le=86_400)
    """A session with no tap for this long is signed out (10 minutes by default)."""
    confirm_payouts: bool = True
    """The next round does not open until the dealer has confirmed the payouts of the last."""
    max_connections: int = Field(default=64, ge=4, le=4096)
    """Connections served at once; more are answered 503 before their request is read."""

    @field_validator("tls_key")
    @classmethod
    def _key_with_cert(cls, value: str, info: ValidationInfo) -> str:
        if bool(value) != bool(info.data.get("tls_cert")):
            raise _problem("tls_cert and tls_key go together (a certificate and its key)")
        return value

    @field_validator("bind")
    @classmethod
    def _bind(cls, value: str, info: ValidationInfo) -> str:
        if value != "localhost":
            try:
                address = ipaddress.ip_address(value)
            except ValueError:
                raise _problem(f"{value!r} is not an IP address (use 127.0.0.1, or an address of this PC)") from None
            if address.is_unspecified or address.is_multicast:
                raise _problem(f"{value} is not one address of this PC: name the one the tablets reach")
        if not is_loopback(value) and not info.data.get("tls_cert"):
            raise _problem(f"{value} is on a network: the console serves a network address only over TLS "
                           "(set console.tls_cert and console.tls_key), or use 127.0.0.1")
        return value

    @property
    def tls(self) -> bool:
        return bool(self.tls_cert)

    @property
    def url(self) -> str:
        host = f"[{self.bind}]" if ":" in self.bind else self.bind
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"
