"""Serving a simulated USB bus on a Unix socket, for a station in another process.

``station simulate pedals`` (and ``start_simulator("pedals", {"transport": "socket"})``)
put a :class:`~drivers.simulators.pedals.backend.SimulatedBackend` behind a
:class:`PedalSimServer`; the station reaches it with ``usb-sim:///path`` through the
forwarding backend in :mod:`drivers.usb.remote`, whose module docstring describes the wire
format. When every connection of a client session has closed, the server closes that
session's handles, releasing its interfaces as the kernel does when a process exits.
"""

from __future__ import annotations

import array
import contextlib
import errno
import json
import os
import socket
import socketserver
import threading
import uuid
from typing import Any

import usb.core

from drivers.simulators.pedals.backend import SimDeviceId, SimHandle, SimulatedBackend
from drivers.usb.errors import LibusbError
from drivers.usb.remote import error_to_wire

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
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

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

    def _devid(self, wire: dict[str, str | int]) -> SimDeviceId:
        pedals = self.backend.pedals
        key = int(wire["key"])
        if wire.get("instance") != self.instance or not 0 <= key < len(pedals):
            # A device seen on an earlier run of the simulator is as gone as an unplugged one.
            raise usb.core.USBError(
                "No such device (it may have been disconnected)", int(LibusbError.NO_DEVICE), errno.ENODEV
            )
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
                {"instance": self.instance, "key": d.key, "generation": d.generation}
                for d in backend.enumerate_devices()
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
                    reply = {"error": error_to_wire(exc)}
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
