"""Transports: how bytes reach a device (serial ports by URL, ptys, sockets)."""

from drivers.transport.serial_port import (
    PortInfo,
    SerialTransport,
    Transport,
    TransportError,
    list_ports,
)

__all__ = ["PortInfo", "SerialTransport", "Transport", "TransportError", "list_ports"]
