"""Guard tests of the framing, the message tables, the serial link, the reconnect loop and the
input locators (the ``drivers`` mutation guard, docs/testing.md), answering what survived in
``drivers/codec``, ``drivers/devices`` and ``drivers/input``:

* an ETX right after an STX closes an empty frame (reported too short): the bytes after it are
  never read as that frame's body, even when they and a later ETX would pass for a good frame
  (``framing.py``, the decoder's whole-frame fast path);
* every field of a message has exactly one wire type: a field with none, or with two, is refused
  by name when the message's layout is read, never guessed (``protocol.py``, ``Message.layout``);
* a link's heartbeat is due a heartbeat after the last byte heard, however long the supervisor
  has been watching: a link already quiet that long is pinged at once (``link.py``, ``serve``);
* a connection lost while served is closed to be opened again, not given back for good: only
  the loop's end closes it finally (``reconnect.py``);
* an input locator reads as the URL it was configured with, and one built without a URL as its
  description (``drivers/input/locator.py``, ``EvdevLocator.__str__``).
"""

from __future__ import annotations

import dataclasses
import threading
from types import SimpleNamespace
from typing import Annotated, ClassVar

import pytest

import drivers.devices.link as link_module
from drivers.codec import get_protocol
from drivers.codec.fields import U8
from drivers.codec.framing import ETX, STX, Frame, FrameDecoder, FrameError, FrameFault, crc16
from drivers.codec.protocol import Message, Ping, Protocol
from drivers.devices.link import DeviceLink
from drivers.devices.reconnect import Backoff, Outage, ReconnectLoop
from drivers.devices.stats import DeviceStats
from drivers.input.locator import EvdevLocator, parse_evdev_locator
from drivers.simulators import ShoeSimulator
from drivers.transport.serial_port import SerialTransport

from ..waiting import wait_until
from .helpers import FAST, WAIT

# -- the framing --------------------------------------------------------------------------------


def test_an_etx_right_after_an_stx_closes_an_empty_frame_never_the_start_of_a_body() -> None:
    """``STX ETX`` is an empty frame, too short. What follows it (``03 40 CRC`` and an ETX) would
    be a good frame of seq 3 if that first ETX were taken as its first byte: it is not, the
    bytes are noise outside any frame."""
    body = bytes((ETX, 0x40))
    crc = crc16(body)
    assert not {crc >> 8, crc & 0xFF} & {0x02, 0x03, 0x10}  # nothing in the CRC needs escaping
    tail = bytes((0x40, crc >> 8, crc & 0xFF, ETX))
    decoder = FrameDecoder()
    out = decoder.feed(bytes((STX, ETX)) + tail)  # the whole stretch in one chunk
    assert out == [FrameError(FrameFault.TOO_SHORT, bytes((STX, ETX)))]
    assert decoder.flush_noise() == [FrameError(FrameFault.NOISE, tail)]
    assert decoder.stats.frames == 0
    assert not any(isinstance(item, Frame) for item in out)


# -- the message tables -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _NoWireType(Message):
    """A field with no wire type: how many bytes it takes on the wire is unknown."""

    TYPE: ClassVar[int] = 0x2E
    WIRE_NAME: ClassVar[str] = "NoWireType"
    count: int


@dataclasses.dataclass(frozen=True)
class _TwoWireTypes(Message):
    """A field with two wire types: which one the device reads is unknown."""

    TYPE: ClassVar[int] = 0x2F
    WIRE_NAME: ClassVar[str] = "TwoWireTypes"
    count: Annotated[int, U8, U8]


@pytest.mark.parametrize(("message", "name"), [(_NoWireType, "NoWireType"), (_TwoWireTypes, "TwoWireTypes")])
def test_a_field_without_exactly_one_wire_type_is_refused_by_name(message: type[Message], name: str) -> None:
    with pytest.raises(TypeError, match=rf"^{name}\.count needs exactly one wire type annotation$"):
        message.layout()
    with pytest.raises(TypeError, match=rf"^{name}\.count needs exactly one wire type annotation$"):
        Protocol("vendor", (message,), current=2)


# -- the link's heartbeat -----------------------------------------------------------------------


class _StoppedClock:
    """The link's monotonic clock, moved on by the test instead of waited out."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_link_already_quiet_for_a_heartbeat_is_pinged_at_once(
    shoe: ShoeSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heartbeat is counted from the last byte heard, not from when the supervisor looked:
    a link that has been quiet a whole heartbeat (60 s on the link's clock) when ``serve``
    starts is pinged at once, not after waiting that long again."""
    clock = _StoppedClock()
    monkeypatch.setattr(link_module, "time", SimpleNamespace(monotonic=clock))
    settings = dataclasses.replace(FAST, heartbeat=60.0)
    link = DeviceLink("shoe", SerialTransport(shoe.url), get_protocol("shoe"), on_event=lambda message: None,
                      on_down=lambda reason, code: None, on_up=lambda identity: None, settings=settings)
    outcome: list[Outage] = []
    supervisor = threading.Thread(target=lambda: outcome.append(link.serve()), name="shoe-serve", daemon=True)
    try:
        assert link.open() is None
        assert shoe.wait_idle(WAIT)  # the power-on Boot is acknowledged: the link is quiet now
        clock.now += 60.0  # nothing heard for a whole heartbeat
        supervisor.start()
        wait_until(lambda: link.stats.heartbeats >= 1, WAIT, "a ping on the long-quiet link")
        wait_until(lambda: any(isinstance(m, Ping) for m in list(shoe.received)), WAIT, "the shoe sent a Ping")
    finally:
        link.close(final=False)
        supervisor.join(WAIT)
        link.stop()
    assert outcome == [Outage("closed", "link_lost")]


# -- the reconnect loop -------------------------------------------------------------------------


class _LostOnceWhileServed:
    """A connection that opens every time; its first serving ends with the device lost, the
    second lasts until the loop stops."""

    def __init__(self, stopping: threading.Event) -> None:
        self.stopping = stopping
        self.serves = 0
        self.closes: list[bool] = []  # the ``final`` of each close, in order
        self.serving_again = threading.Event()

    def open(self) -> Outage | None:
        return None

    def serve(self) -> Outage:
        self.serves += 1
        if self.serves == 1:
            return Outage("link lost", "link_lost")
        self.serving_again.set()
        self.stopping.wait(WAIT)
        return Outage("stopped", "stopped")

    def close(self, *, final: bool) -> None:
        self.closes.append(final)


def test_a_connection_lost_while_served_is_closed_for_a_retry_not_given_back() -> None:
    stopping = threading.Event()
    connection = _LostOnceWhileServed(stopping)
    downs: list[Outage] = []
    loop = ReconnectLoop("scripted", connection, where="scripted://", backoff=Backoff(0.01, 2.0, 0.05),
                         stats=DeviceStats(), stopping=stopping, on_down=downs.append, on_up=lambda: None,
                         recent_frames=list, thread_name="scripted-link")
    loop.start()
    try:
        assert connection.serving_again.wait(WAIT)  # opened again after the loss
        assert connection.closes == [False]  # the lost connection, closed to be opened again
        assert downs == [Outage("link lost", "link_lost")]
    finally:
        loop.stop()
    assert connection.closes == [False, True]  # given back only on the way out


# -- the input locators -------------------------------------------------------------------------


def test_a_configured_locator_reads_as_its_url_and_a_built_one_as_its_description() -> None:
    url = "evdev://0c45:7403?serial=SN-7"
    configured = parse_evdev_locator(url)
    assert configured.describe() == "0c45:7403 serial SN-7"
    assert str(configured) == url  # what the configuration said, for a technician to find
    built = EvdevLocator(vendor_id=0x0C45, product_id=0x7403, serial="SN-7")
    assert str(built) == "0c45:7403 serial SN-7"
