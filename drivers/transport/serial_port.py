"""Serial transport by URL, opened exclusively, with read and write timeouts.

Everything pyserial's ``serial_for_url`` accepts works: ``/dev/ttyUSB0``,
``/dev/serial/by-id/...`` symlinks, pseudo-terminal paths (the simulators), ``socket://``
and ``loop://``. The transport does not reconnect by itself: it reports loss as a
:class:`TransportError` and the device link above it decides when to reopen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import serial
from serial.tools import list_ports as _list_ports


class TransportError(OSError):
    """The port could not be opened, or was lost (unplugged, hung up, closed by the peer)."""


class Transport(Protocol):
    """What a device link needs from a byte pipe."""

    url: str

    def open(self) -> None: ...

    def close(self) -> None: ...

    @property
    def is_open(self) -> bool: ...

    def read(self) -> bytes:
        """Wait up to the read timeout for bytes; ``b""`` on timeout; TransportError on loss."""
        ...

    def write(self, data: bytes) -> None: ...


class SerialTransport:
    """A serial port opened through ``serial.serial_for_url``."""

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        read_timeout: float = 0.1,
        write_timeout: float = 1.0,
        exclusive: bool = True,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self.exclusive = exclusive
        self._port: serial.SerialBase | None = None

    def open(self) -> None:
        if self._port is not None:
            return
        try:
            # exclusive=True takes an advisory lock (flock) on posix ports, so a second
            # program (or a second driver by mistake) cannot read the same port; URL handlers
            # without locking (socket://, loop://) ignore it.
            self._port = serial.serial_for_url(
                self.url,
                baudrate=self.baudrate,
                timeout=self.read_timeout,
                write_timeout=self.write_timeout,
                exclusive=self.exclusive,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise TransportError(f"cannot open {self.url}: {exc}") from exc

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass  # already gone: closing a lost port is expected to fail

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def read(self) -> bytes:
        port = self._port
        if port is None:
            raise TransportError(f"{self.url} is not open")
        try:
            waiting = port.in_waiting
            return bytes(port.read(waiting or 1))
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            # TypeError/AttributeError: pyserial's fd was closed under the read by close()
            raise TransportError(f"{self.url} lost: {exc}") from exc

    def write(self, data: bytes) -> None:
        port = self._port
        if port is None:
            raise TransportError(f"{self.url} is not open")
        try:
            port.write(data)
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            raise TransportError(f"{self.url} write failed: {exc}") from exc


@dataclass(frozen=True)
class PortInfo:
    """A serial port as the technician's port list shows it."""

    device: str
    description: str
    hwid: str
    serial_number: str | None
    by_id: tuple[str, ...]  # stable /dev/serial/by-id/ links to this port, if any


def list_ports() -> list[PortInfo]:
    """The serial ports on this machine (pyserial's ``list_ports``) with their by-id links."""
    import os

    by_id_dir = "/dev/serial/by-id"
    links: dict[str, list[str]] = {}
    if os.path.isdir(by_id_dir):
        for entry in sorted(os.listdir(by_id_dir)):
            full = os.path.join(by_id_dir, entry)
            links.setdefault(os.path.realpath(full), []).append(full)
    ports = []
    for info in sorted(_list_ports.comports(), key=lambda p: p.device):
        ports.append(
            PortInfo(
                device=info.device,
                description=info.description,
                hwid=info.hwid,
                serial_number=info.serial_number,
                by_id=tuple(links.get(os.path.realpath(info.device), ())),
            )
        )
    return ports
