"""Reaching a simulated pedal unit in another process: a forwarding pyusb backend.

``station simulate pedals`` serves a simulated USB bus on a Unix socket
(:class:`drivers.simulators.pedals.server.PedalSimServer`); a station configured with
``usb-sim:///path`` uses :class:`RemoteBackend`, which implements pyusb's backend interface by
forwarding every call over that socket. The station's pyusb code therefore runs unchanged
against a simulator it did not start, which is how a technician tests a station at the
table. This is the station's end only: it imports nothing of the simulator.

Wire format: one JSON object per line. Request ``{"session": S, "op": NAME, "args": [...]}``,
reply ``{"result": ...}`` or ``{"error": {"type", "message", "code", "errno"}}``. Each client
thread gets its own connection (a blocking interrupt read never holds up a control request);
when every connection of a session has closed, the server closes that session's handles,
releasing its interfaces as the kernel does when a process exits.
"""

from __future__ import annotations

import array
import contextlib
import errno
import json
import socket
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import usb.backend
import usb.core

from drivers.usb.descriptor import Descriptor
from drivers.usb.errors import LibusbError


def error_to_wire(exc: BaseException) -> dict[str, Any]:
    """How the server sends back a failure: typed, so the client raises what libusb would."""
    if isinstance(exc, usb.core.USBTimeoutError):
        kind = "timeout"
    elif isinstance(exc, usb.core.USBError):
        kind = "usb"
    elif isinstance(exc, NotImplementedError):
        kind = "not-implemented"
    elif isinstance(exc, IndexError):
        kind = "index"
    else:
        kind = "value"
    return {
        "type": kind,
        "message": getattr(exc, "strerror", None) or str(exc),
        "code": getattr(exc, "backend_error_code", None),
        "errno": getattr(exc, "errno", None),
    }


def error_from_wire(error: dict[str, Any]) -> BaseException:
    """The exception a failure on the wire stands for (the inverse of :func:`error_to_wire`)."""
    kind, message = error.get("type"), str(error.get("message", ""))
    if kind == "timeout":
        timeout: BaseException = usb.core.USBTimeoutError(message, error.get("code"), error.get("errno"))
        return timeout
    if kind == "usb":
        failure: BaseException = usb.core.USBError(message, error.get("code"), error.get("errno"))
        return failure
    if kind == "not-implemented":
        return NotImplementedError(message)
    if kind == "index":
        return IndexError(message)
    return ValueError(message)


@dataclass(frozen=True)
class RemoteDeviceId:
    instance: str  # which run of the simulator
    key: int
    generation: int

    def wire(self) -> dict[str, Any]:
        return {"instance": self.instance, "key": self.key, "generation": self.generation}


@dataclass(frozen=True)
class RemoteHandle:
    number: int


class RemoteBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb ships no types: IBackend is Any
    """pyusb backend forwarding to a :class:`PedalSimServer` at ``path``."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.session = uuid.uuid4().hex
        self._local = threading.local()
        self._sockets: list[socket.socket] = []
        self._sockets_lock = threading.Lock()
        self._descriptors: dict[tuple[str, RemoteDeviceId, tuple[int, ...]], dict[str, Any]] = {}

    def close(self) -> None:
        """Close every connection: the server then frees this session's handles."""
        with self._sockets_lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()

    def _connection(self) -> tuple[socket.socket, Any]:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.path)
            conn = (sock, sock.makefile("rb"))
            self._local.conn = conn
            with self._sockets_lock:
                self._sockets.append(sock)
        return conn

    def _call(self, op: str, *args: Any, timeout_ms: int = 0) -> Any:
        try:
            sock, reader = self._connection()
            # The simulator answers within the USB timeout; 10 s more means it is stuck (stopped).
            sock.settimeout((timeout_ms / 1000 if timeout_ms else 0) + 10)
            sock.sendall(json.dumps({"session": self.session, "op": op, "args": list(args)}).encode() + b"\n")
            line = reader.readline()
            if not line:
                raise ConnectionResetError("the simulator closed the connection")
            reply = json.loads(line)
        except (OSError, ValueError) as exc:
            self._local.conn = None
            raise usb.core.USBError(
                f"pedal simulator at {self.path} not reachable: {exc}", int(LibusbError.NO_DEVICE), errno.ENODEV
            ) from exc
        if "error" in reply:
            raise error_from_wire(reply["error"])
        return reply["result"]

    def enumerate_devices(self) -> Iterator[RemoteDeviceId]:
        for wire in self._call("enumerate_devices"):
            yield RemoteDeviceId(str(wire["instance"]), int(wire["key"]), int(wire["generation"]))

    def get_parent(self, dev: RemoteDeviceId) -> None:
        return None

    def _descriptor(self, op: str, dev: RemoteDeviceId, *args: int) -> Descriptor:
        """Descriptors are fetched once per device identity and kept, as libusb caches them at
        enumeration: pyusb looks them up again at awkward moments (the first read after
        ``set_configuration``), and a vanished device must then fail the read, not the lookup."""
        key = (op, dev, args)
        with self._sockets_lock:
            cached = self._descriptors.get(key)
        if cached is None:
            try:
                cached = self._call(op, dev.wire(), *args)
            except IndexError as exc:
                cached = {"__index_error__": str(exc)}  # "no such interface": also fixed for this identity
            with self._sockets_lock:
                self._descriptors[key] = cached
        if "__index_error__" in cached:
            raise IndexError(cached["__index_error__"])
        fields = dict(cached)
        if fields.get("port_numbers") is not None:
            fields["port_numbers"] = tuple(fields["port_numbers"])
        return Descriptor(**fields)

    def get_device_descriptor(self, dev: RemoteDeviceId) -> Descriptor:
        return self._descriptor("get_device_descriptor", dev)

    def get_configuration_descriptor(self, dev: RemoteDeviceId, config: int) -> Descriptor:
        return self._descriptor("get_configuration_descriptor", dev, config)

    def get_interface_descriptor(self, dev: RemoteDeviceId, intf: int, alt: int, config: int) -> Descriptor:
        return self._descriptor("get_interface_descriptor", dev, intf, alt, config)

    def get_endpoint_descriptor(self, dev: RemoteDeviceId, ep: int, intf: int, alt: int, config: int) -> Descriptor:
        return self._descriptor("get_endpoint_descriptor", dev, ep, intf, alt, config)

    def open_device(self, dev: RemoteDeviceId) -> RemoteHandle:
        return RemoteHandle(int(self._call("open_device", dev.wire())))

    def close_device(self, dev_handle: RemoteHandle) -> None:
        with contextlib.suppress(usb.core.USBError):  # a vanished simulator has no handle left to close
            self._call("close_device", dev_handle.number)

    def set_configuration(self, dev_handle: RemoteHandle, config_value: int) -> None:
        self._call("set_configuration", dev_handle.number, config_value)

    def get_configuration(self, dev_handle: RemoteHandle) -> int:
        return int(self._call("get_configuration", dev_handle.number))

    def set_interface_altsetting(self, dev_handle: RemoteHandle, intf: int, altsetting: int) -> None:
        self._call("set_interface_altsetting", dev_handle.number, intf, altsetting)

    def claim_interface(self, dev_handle: RemoteHandle, intf: int) -> None:
        self._call("claim_interface", dev_handle.number, intf)

    def release_interface(self, dev_handle: RemoteHandle, intf: int) -> None:
        self._call("release_interface", dev_handle.number, intf)

    def is_kernel_driver_active(self, dev_handle: RemoteHandle, intf: int) -> bool:
        return bool(self._call("is_kernel_driver_active", dev_handle.number, intf))

    def detach_kernel_driver(self, dev_handle: RemoteHandle, intf: int) -> None:
        self._call("detach_kernel_driver", dev_handle.number, intf)

    def attach_kernel_driver(self, dev_handle: RemoteHandle, intf: int) -> None:
        self._call("attach_kernel_driver", dev_handle.number, intf)

    def clear_halt(self, dev_handle: RemoteHandle, ep: int) -> None:
        self._call("clear_halt", dev_handle.number, ep)

    def reset_device(self, dev_handle: RemoteHandle) -> None:
        self._call("reset_device", dev_handle.number)

    def intr_read(self, dev_handle: RemoteHandle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        size = len(buff) * buff.itemsize
        raw = bytes.fromhex(self._call("intr_read", dev_handle.number, ep, intf, size, timeout, timeout_ms=timeout))
        memoryview(buff).cast("B")[: len(raw)] = raw
        return len(raw)

    def ctrl_transfer(
        self,
        dev_handle: RemoteHandle,
        bmRequestType: int,
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array.array[int],
        timeout: int,
    ) -> int:
        device_to_host = bool(bmRequestType & 0x80)
        payload: int | str = len(data) * data.itemsize if device_to_host else data.tobytes().hex()
        result = self._call(
            "ctrl_transfer", dev_handle.number, bmRequestType, bRequest, wValue, wIndex, payload, timeout,
            timeout_ms=timeout,
        )
        if not device_to_host:
            return int(result)
        raw = bytes.fromhex(result)
        memoryview(data).cast("B")[: len(raw)] = raw
        return len(raw)
