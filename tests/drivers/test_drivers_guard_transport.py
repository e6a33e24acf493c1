"""Guard tests of the serial transport and of the device URLs (the ``drivers`` mutation guard,
docs/testing.md), on a pseudo-terminal and pyserial's ``loop://``.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* a port read through pyserial (``loop://``, ``socket://``: no posix descriptor) hands over
  everything that has arrived in one read, not a byte at a time
  (``drivers/transport/serial_port.py``, ``read``);
* a write that meets a full port buffer (``BlockingIOError``) sends every byte still, in order,
  once there is room: none is skipped (``write``; the port here is a real pseudo-terminal whose
  descriptor takes a few bytes a call and now and then none);
* a URL's scheme is read case-blind and an unknown one named (``drivers/transport/urls.py``).
"""

from __future__ import annotations

import os
import select
import threading
import types
from collections.abc import Iterator

import pytest

from drivers.transport import serial_port
from drivers.transport.serial_port import SerialTransport
from drivers.transport.urls import url_problem


def test_a_pyserial_port_hands_over_all_that_has_arrived_in_one_read() -> None:
    port = SerialTransport("loop://", read_timeout=0.05)
    port.open()
    try:
        port.write(b"\x02hello, frame\x03")
        assert port.read() == b"\x02hello, frame\x03"
        assert port.read() == b""  # nothing more: the read timeout, then empty
    finally:
        port.close()


class _ChoppyOs:
    """``os`` as the transport sees it, for a port that takes at most 61 bytes a write and
    says "no room now" (``BlockingIOError``) every third write, as a full UART buffer does."""

    def __init__(self) -> None:
        self.calls = 0
        self.refused = 0
        self.read = os.read

    def write(self, fd: int, data: memoryview) -> int:
        self.calls += 1
        if self.calls % 3 == 0:
            self.refused += 1
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return os.write(fd, data[:61])


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    try:
        yield master, os.ttyname(slave)
    finally:
        os.close(slave)
        os.close(master)


def test_a_write_that_meets_a_full_buffer_sends_every_byte_in_order(pty_pair: tuple[int, str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    master, path = pty_pair
    choppy = _ChoppyOs()
    monkeypatch.setattr(serial_port, "os", types.SimpleNamespace(write=choppy.write, read=choppy.read))
    data = bytes(range(256)) * 12
    received = bytearray()
    done = threading.Event()

    def drain() -> None:
        while not done.is_set() and len(received) < len(data):
            if select.select([master], [], [], 0.05)[0]:
                received.extend(os.read(master, 4096))

    port = SerialTransport(path, write_timeout=10.0)
    port.open()
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        port.write(data)
        reader.join(10.0)
    finally:
        done.set()
        port.close()
    assert choppy.refused >= 10
    assert bytes(received) == data


@pytest.mark.parametrize("url", ["socket://localhost:7000", "SOCKET://localhost:7000", "loop://", "Rfc2217://h:1"])
def test_a_url_with_a_scheme_pyserial_knows_can_be_tried(url: str) -> None:
    assert url_problem("shoe", url) is None


def test_an_unknown_url_scheme_is_named() -> None:
    problem = url_problem("shoe", "Sockett://localhost:7000") or ""
    assert problem.startswith("unknown URL scheme 'sockett': use a device path")
