"""A simulated pedal device in another process, reached through a forwarding pyusb backend.

``station simulate pedals`` serves a :class:`~drivers.usb.simbackend.SimulatedBackend` on a
Unix socket (:class:`PedalSimServer`); a station configured with ``usb-sim:///path`` uses
:class:`RemoteBackend`, which implements pyusb's backend interface by forwarding every call
over that socket. The station's pyusb code therefore runs unchanged against a simulator it
did not start, which is how a technician tests a station at the table.

Wire format: one JSON object per line. Request ``{"session": S, "op": NAME, "args": [...]}``,
reply ``{"result": ...}`` or ``{"error": {"type", "message", "code", "errno"}}``. Each client
thread gets its own connection (a blocking interrupt read never holds up a control request);
when every connection of a session has closed, the server closes that session's handles,
releasing its interfaces as the kernel does when a process exits.
"""

from __future__ import annotations

import array
import errno
import json
import os
import socket
import socketserver
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import usb.backend  # type: ignore[import-untyped]
import usb.core  # type: ignore[import-untyped]

from drivers.usb.errors import LibusbError
from drivers.usb.simbackend import SimDeviceId, SimHandle, SimulatedBackend
from drivers.usb.simdevice import Descriptor

_DESCRIPTOR_OPS = {
    "get_device_descriptor",
    "get_configuration_descriptor",
    "get_interface_descriptor",
    "get_endpoint_descriptor",
}
_HANDLE_OPS = {
    "close_device",
    "set_configuration",
    "get_configuration",
    "set_interface_altsetting",
    "claim_interface",
    "release_interface",
    "is_kernel_driver_active",
    "detach_kernel_driver",
    "attach_kernel_driver",
    "clear_halt",
    "reset_device",
}


def _error_to_wire(exc: BaseException) -> dict[str, Any]:
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


def _error_from_wire(error: dict[str, Any]) -> BaseException:
    kind, message = error.get("type"), str(error.get("message", ""))
    if kind == "timeout":
        return usb.core.USBTimeoutError(message, error.get("code"), error.get("errno"))
    if kind == "usb":
        return usb.core.USBError(message, error.get("code"), error.get("errno"))
    if kind == "not-implemented":
        return NotImplementedError(message)
    if kind == "index":
        return IndexError(message)
    return ValueError(message)


# --- server ---------------------------------------------------------------------------------


class _Session:
    def __init__(self) -> None:
        self.connections = 0
        self.handles: set[int] = set()


class PedalSimServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Serve ``backend`` on the Unix socket ``path`` until :meth:`shutdown`."""

    daemon_threads = True

    def __init__(self, path: str, backend: SimulatedBackend) -> None:
        self.path = path
        self.backend = backend
        self._lock = threading.Lock()
        self._handles: dict[int, SimHandle] = {}
        self._sessions: dict[str, _Session] = {}
        self.instance = uuid.uuid4().hex
        if os.path.exists(path):
            _remove_stale_socket(path)
        super().__init__(path, _RequestHandler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"usb-sim://{os.path.abspath(self.path)}"

    def start(self) -> PedalSimServer:
        """Serve in a background thread (for tests and the ``simulate`` command)."""
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, name="pedal-sim-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(5)
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    # --- dispatch -----------------------------------------------------------------------------

    def join_session(self, session: str) -> None:
        with self._lock:
            self._sessions.setdefault(session, _Session()).connections += 1

    def leave_session(self, session: str) -> None:
        with self._lock:
            state = self._sessions.get(session)
            if state is None:
                return
            state.connections -= 1
            if state.connections > 0:
                return
            del self._sessions[session]
            handles = [self._handles.pop(n) for n in state.handles if n in self._handles]
        for handle in handles:
            self.backend.close_device(handle)

    def _devid(self, wire: dict[str, int]) -> SimDeviceId:
        pedals = self.backend.pedals
        key = int(wire["key"])
        if wire.get("instance") != self.instance or not 0 <= key < len(pedals):
            # A device seen on an earlier run of the simulator is as gone as an unplugged one.
            raise usb.core.USBError("No such device (it may have been disconnected)", int(LibusbError.NO_DEVICE), errno.ENODEV)
        return SimDeviceId(pedals[key], int(wire["generation"]), key)

    def _handle(self, number: int) -> SimHandle:
        with self._lock:
            handle = self._handles.get(number)
        if handle is None:
            raise usb.core.USBError("Invalid parameter", int(LibusbError.INVALID_PARAM), errno.EINVAL)
        return handle

    def call(self, session: str, op: str, args: list[Any]) -> Any:
        backend = self.backend
        if op == "enumerate_devices":
            return [
                {"instance": self.instance, "key": d.key, "generation": d.generation} for d in backend.enumerate_devices()
            ]
        if op in _DESCRIPTOR_OPS:
            descriptor = getattr(backend, op)(self._devid(args[0]), *args[1:])
            fields = descriptor.fields()
            if "extra_descriptors" in fields:
                fields["extra_descriptors"] = list(fields["extra_descriptors"])
            return fields
        if op == "get_parent":
            return None
        if op == "open_device":
            handle = backend.open_device(self._devid(args[0]))
            with self._lock:
                self._handles[handle.number] = handle
                self._sessions.setdefault(session, _Session()).handles.add(handle.number)
            return handle.number
        if op in _HANDLE_OPS:
            handle = self._handle(args[0])
            result = getattr(backend, op)(handle, *args[1:])
            if op == "close_device":
                with self._lock:
                    self._handles.pop(handle.number, None)
                    if session in self._sessions:
                        self._sessions[session].handles.discard(handle.number)
            return result
        if op == "intr_read":
            handle, ep, intf, size, timeout = self._handle(args[0]), *args[1:]
            buff = array.array("B", bytes(size))
            count = backend.intr_read(handle, ep, intf, buff, timeout)
            return buff[:count].tobytes().hex()
        if op == "ctrl_transfer":
            handle, request_type, request, value, index, payload, timeout = self._handle(args[0]), *args[1:]
            device_to_host = bool(request_type & 0x80)
            buff = array.array("B", bytes(payload) if device_to_host else bytes.fromhex(payload))
            count = backend.ctrl_transfer(handle, request_type, request, value, index, buff, timeout)
            return buff[:count].tobytes().hex() if device_to_host else count
        raise NotImplementedError(op)


class _RequestHandler(socketserver.StreamRequestHandler):
    server: PedalSimServer

    def handle(self) -> None:
        session = None
        try:
            for line in self.rfile:
                try:
                    request = json.loads(line)
                    if session is None:
                        session = str(request["session"])
                        self.server.join_session(session)
                    reply = {"result": self.server.call(session, str(request["op"]), list(request["args"]))}
                except Exception as exc:  # every failure goes back to the caller, typed
                    reply = {"error": _error_to_wire(exc)}
                self.wfile.write(json.dumps(reply).encode() + b"\n")
                self.wfile.flush()
        except (ConnectionError, OSError):
            pass
        finally:
            if session is not None:
                self.server.leave_session(session)


def _remove_stale_socket(path: str) -> None:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        os.unlink(path)
        return
    finally:
        probe.close()
    raise OSError(errno.EADDRINUSE, f"a pedal simulator is already serving {path}")


# --- client ---------------------------------------------------------------------------------


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


class RemoteBackend(usb.backend.IBackend):  # type: ignore[misc]
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
            try:
                sock.close()
            except OSError:
                pass

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
            raise _error_from_wire(reply["error"])
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
        try:
            self._call("close_device", dev_handle.number)
        except usb.core.USBError:
            pass  # a vanished simulator has no handle left to close

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

    def intr_read(self, dev_handle: RemoteHandle, ep: int, intf: int, buff: array.array, timeout: int) -> int:
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
        data: array.array,
        timeout: int,
    ) -> int:
        device_to_host = bool(bmRequestType & 0x80)
        payload: int | str = len(data) * data.itemsize if device_to_host else data.tobytes().hex()
        result = self._call(
            "ctrl_transfer", dev_handle.number, bmRequestType, bRequest, wValue, wIndex, payload, timeout, timeout_ms=timeout
        )
        if not device_to_host:
            return int(result)
        raw = bytes.fromhex(result)
        memoryview(data).cast("B")[: len(raw)] = raw
        return len(raw)
