"""Serial transport by URL, opened exclusively, with read and write timeouts.

Everything pyserial's ``serial_for_url`` accepts works: ``/dev/ttyUSB0``,
``/dev/serial/by-id/...`` symlinks, pseudo-terminal paths (the simulators), ``socket://``
and ``loop://``. The transport does not reconnect by itself: it reports loss as a
:class:`TransportError` and the device link above it decides when to reopen.

On a posix port (a real UART, a USB serial adapter, a pseudo-terminal) pyserial opens and
configures the port, and the bytes then move on its file descriptor directly: one ``select``
and one ``read`` for whatever has arrived, one ``write`` for a frame. pyserial's own calls take
two of each per frame (its read blocks for one byte, then reads the rest; its write waits for
the port to be writable again after writing), and in a busy station every such call hands
Python's interpreter lock to another thread and has to wait to get it back.
"""

from __future__ import annotations

import contextlib
import os
import select
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


READ_CHUNK = 4096
"""Bytes taken from the port at most per read: more than a frame, less than a burst of them."""


def _posix_fd(port: serial.SerialBase) -> int | None:
    """The open file descriptor of a posix serial port; None for URL handlers (socket://,
    loop://), whose data path stays pyserial's."""
    if not isinstance(port, serial.serialposix.Serial):
        return None
    fd = getattr(port, "fd", None)
    return fd if isinstance(fd, int) else None


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
            # already gone: closing a lost port is expected to fail
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def read(self) -> bytes:
        port = self._port
        if port is None:
            raise TransportError(f"{self.url} is not open")
        fd = _posix_fd(port)
        try:
            if fd is None:
                waiting = port.in_waiting  # type: ignore[attr-defined]  # all port classes have it; stubs: Serial only
                return bytes(port.read(waiting or 1))
            ready, _, _ = select.select([fd], [], [], self.read_timeout)
            if not ready:
                return b""
            data = os.read(fd, READ_CHUNK)
        except (serial.SerialException, OSError, TypeError, AttributeError, ValueError) as exc:
            # TypeError/AttributeError/ValueError: the port was closed under the read by close()
            raise TransportError(f"{self.url} lost: {exc}") from exc
        if not data:  # readable, yet nothing: the far end hung up (as pyserial reports it)
            raise TransportError(f"{self.url} lost: device reports readiness to read but returned no data")
        return data

    def write(self, data: bytes) -> None:
        port = self._port
        if port is None:
            raise TransportError(f"{self.url} is not open")
        fd = _posix_fd(port)
        try:
            if fd is None:
                port.write(data)
                return
            view = memoryview(data)
            while view:
                try:
                    written = os.write(fd, view)
                except BlockingIOError:
                    written = 0
                view = view[written:]
                if view:  # the port's buffer is full: wait for room, no longer than the timeout
                    _, ready, _ = select.select([], [fd], [], self.write_timeout)
                    if not ready:
                        raise TransportError(f"{self.url} write timed out after {self.write_timeout} s")
        except (serial.SerialException, OSError, TypeError, AttributeError, ValueError) as exc:
            if isinstance(exc, TransportError):
                raise
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
