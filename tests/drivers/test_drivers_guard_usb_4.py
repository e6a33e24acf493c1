"""Guard tests of the USB pedals' port and remote backend, fourth set (the ``drivers`` mutation
guard, docs/testing.md), against the simulated unit on the simulated pyusb bus, a bus made to fail
on purpose, and the simulator served on a Unix socket.

Each test answers a mutant that survived the guard's tests:

* a USB error the port does not expect of a lost link (not ``ENODEV``, ``EIO``, ``ENOENT``,
  ``ESHUTDOWN`` or ``EPROTO``: a permission taken away, a bad parameter) ends the link as any
  failure does and is also logged, once, as ``pedals.unexpected_usb_error`` with what failed and
  its errno, for a person to look into; the cable pulled is only the fault, never that line
  (``drivers/transport/usb_port.py``, ``_lost``);
* a device-to-host control request through the remote backend asks for as many bytes as the
  caller's buffer holds, whatever the size of its items (an array of 16-bit words of length 1
  holds two bytes), and gets what the unit answers in process; pyusb 1.2, which pyproject.toml
  allows, hands the backend the caller's own array (``drivers/usb/remote.py``, ``ctrl_transfer``).
"""

from __future__ import annotations

import array
import errno
from pathlib import Path
from typing import Any

import pytest

from drivers.simulators.pedals.backend import SimHandle, SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.simulators.pedals.server import PedalSimServer
from drivers.transport.usb_port import UsbLinkLost, UsbPort
from drivers.usb import protocol as p
from drivers.usb.errors import LibusbError, usb_error
from drivers.usb.locator import simulated_locator
from drivers.usb.remote import RemoteBackend

READ_MS = 50
CONTROL_MS = 500


class _LogLines:
    """The port's logger: keeps each line (level, event, fields)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def _keep(self, level: str, event: str, **fields: Any) -> None:
        self.lines.append((level, event, fields))

    def info(self, event: str, **fields: Any) -> None:
        self._keep("info", event, **fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._keep("warning", event, **fields)

    def named(self, event: str) -> list[dict[str, Any]]:
        return [fields for _, name, fields in self.lines if name == event]


class _FailingRead(SimulatedBackend):
    """A bus whose next interrupt read fails with ``error``, as libusb reports it."""

    def __init__(self, unit: SimulatedPedal, error: LibusbError) -> None:
        super().__init__([unit])
        self.error = error

    def intr_read(self, dev_handle: SimHandle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        raise usb_error(self.error)


@pytest.mark.parametrize(("error", "number", "code"), [
    (LibusbError.ACCESS, errno.EACCES, "access-denied"),
    (LibusbError.INVALID_PARAM, errno.EINVAL, "usb-error"),
])
def test_an_error_a_lost_link_does_not_explain_is_logged_once_with_its_errno(
        error: LibusbError, number: int, code: str) -> None:
    lines = _LogLines()
    port = UsbPort(simulated_locator(_FailingRead(SimulatedPedal("PED-SIM-0001", timed_long_press=False), error),
                                     "PED-SIM-0001"), log=lines)
    port.open()
    try:
        with pytest.raises(UsbLinkLost) as lost:
            port.read(READ_MS)
    finally:
        port.close(give_back=True)
    assert lost.value.code == code and lost.value.reason.startswith("read failed: ")
    unexpected = lines.named("pedals.unexpected_usb_error")
    assert [(u["what"], u["errno"]) for u in unexpected] == [("read failed", number)]


@pytest.mark.parametrize(("error", "code"), [
    (LibusbError.NO_DEVICE, "disconnected"),
    (LibusbError.IO, "io-error"),
])
def test_a_lost_link_is_only_the_fault_never_an_unexpected_error(error: LibusbError, code: str) -> None:
    lines = _LogLines()
    port = UsbPort(simulated_locator(_FailingRead(SimulatedPedal("PED-SIM-0001", timed_long_press=False), error),
                                     "PED-SIM-0001"), log=lines)
    port.open()
    try:
        with pytest.raises(UsbLinkLost) as lost:
            port.read(READ_MS)
    finally:
        port.close(give_back=True)
    assert lost.value.code == code
    assert lines.named("pedals.unexpected_usb_error") == []


def test_a_remote_control_read_into_a_buffer_of_words_asks_for_every_byte_it_holds(tmp_path: Path) -> None:
    """GET_STATUS answers two bytes; a caller's buffer of one 16-bit word holds them both.

    pyusb 1.2 (pyproject.toml allows ``pyusb>=1.2``) hands the caller's own array to the backend
    whatever its item type (1.3 copies it into bytes first), so the backend is called here as
    pyusb 1.2 calls it, the in-process bus and the remote one alike."""
    bus = SimulatedBackend([SimulatedPedal("PED-R-1", timed_long_press=False)])
    server = PedalSimServer(str(tmp_path / "p.sock"), bus).start()
    remote = RemoteBackend(str(tmp_path / "p.sock"))
    try:
        results = []
        backends: tuple[Any, ...] = (bus, remote)  # pyusb's backend interface, untyped
        for backend in backends:
            handle = backend.open_device(next(iter(backend.enumerate_devices())))
            try:
                buffer = array.array("H", [0xFFFF])  # filled by the answer
                count = backend.ctrl_transfer(handle, p.STANDARD_IN_DEVICE, p.REQUEST_GET_STATUS, 0, 0, buffer,
                                              CONTROL_MS)
                results.append((count, buffer.tobytes()))
            finally:
                backend.close_device(handle)
        assert results == [(2, b"\x00\x00")] * 2  # the remote unit answers as the one in process
    finally:
        remote.close()
        server.stop()
