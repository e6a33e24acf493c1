"""Probe a serial port: is a station device there, and which one?

Every device protocol shares the framing and the ``Identify`` command, so one probe
works on any port without knowing the device kind: it opens the port (exclusively),
sends ``Identify`` (retrying like the link does), and returns the identity, or a clear
reason why nothing answered. It starts no threads and leaves the port closed, so the
technician's ``station diag probe`` can use it on a port no driver has open.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from drivers.codec import StreamCodec, get_protocol
from drivers.codec.protocol import Ack, CodecError, Identify, IdentityReport, Kind, Packet
from drivers.devices.contract import Identity
from drivers.transport import SerialTransport, TransportError


@dataclass
class ProbeResult:
    url: str
    identity: Identity | None
    error: str = ""
    frames: list[tuple[str, str]] = field(default_factory=list)  # (direction, hex) seen during the probe

    @property
    def found(self) -> bool:
        return self.identity is not None


def probe(url: str, *, timeout: float = 0.5, attempts: int = 3, baudrate: int = 115200) -> ProbeResult:
    """Ask whatever is on ``url`` to identify itself."""
    result = ProbeResult(url, None)
    transport = SerialTransport(url, baudrate=baudrate, read_timeout=0.05)
    try:
        transport.open()
    except TransportError as exc:
        result.error = str(exc)
        return result
    codec = StreamCodec(get_protocol("shoe"))  # any registered protocol: Identify is common to all
    seq = 1
    frame = codec.encode(Identify(), seq)
    try:
        for _ in range(attempts):
            transport.write(frame)
            result.frames.append(("tx", frame.hex(" ")))
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                data = transport.read()
                for item in codec.feed(data):
                    result.frames.append(("rx", item.raw.hex(" ")))
                    if isinstance(item, CodecError):
                        continue
                    assert isinstance(item, Packet)
                    if item.message.kind() is Kind.EVENT:
                        # device-specific events may not decode with this table; ACK what does
                        transport.write(codec.encode(Ack(), item.seq))
                    elif item.seq == seq and isinstance(item.message, IdentityReport):
                        m = item.message
                        result.identity = Identity(m.model, m.serial, m.firmware,
                                                   protocol_version=m.protocol_version)
                        return result
        result.error = f"no answer to Identify after {attempts} attempt(s)"
        return result
    except TransportError as exc:
        result.error = str(exc)
        return result
    finally:
        transport.close()
