"""Guard tests of the serial codecs, second set (the ``drivers`` mutation guard,
docs/testing.md), through the codecs' encode and decode and the frame decoder's statistics.

Each test answers a mutant that survived the guard's tests (``/tmp/mut-drivers.log``):

* the frame decoder counts each stretch of noise once among its faults by kind, and noise is
  no bad frame (``drivers/codec/framing.py``, ``FrameStats``: the counters the diagnostics
  show);
* a fixed-size record decoded on its own (not in a list) comes from the record's store of
  decoded values, as the cells of a list do: equal records are one object
  (``drivers/codec/fields.py``, ``Record.unpack``; the store keeps a board's roads small);
* a protocol of one version (oldest and current the same) is a range of one version, not an
  error (``drivers/codec/protocol.py``, ``Protocol``).
"""

from __future__ import annotations

import pytest

from drivers.codec import display
from drivers.codec.display import Mark, Prediction
from drivers.codec.framing import FrameDecoder, FrameError, FrameFault, encode_frame
from drivers.codec.protocol import Packet, Protocol, StreamCodec

DISPLAY = display.DISPLAY


def test_each_stretch_of_noise_is_counted_once_and_is_no_bad_frame() -> None:
    decoder = FrameDecoder()
    good = encode_frame(3, 0x10, b"ok")
    out = decoder.feed(b"xyz" + good + b"\x00\x01" + good)
    assert [type(item).__name__ for item in out] == ["FrameError", "Frame", "FrameError", "Frame"]
    assert [item.fault for item in out if isinstance(item, FrameError)] == [FrameFault.NOISE, FrameFault.NOISE]
    assert decoder.feed(b"tail") == [] and len(decoder.flush_noise()) == 1  # a third stretch, told at the end
    assert decoder.stats.faults == {**dict.fromkeys(FrameFault, 0), FrameFault.NOISE: 3}
    assert (decoder.stats.noise_bytes, decoder.stats.frames, decoder.stats.bad_frames) == (9, 2, 0)
    decoder.feed(good[:-2] + b"\x00" + good[-1:])  # a wrong CRC: a bad frame
    assert decoder.stats.faults[FrameFault.NOISE] == 3 and decoder.stats.bad_frames == 1


def _decoded(message: display.ShowRoads) -> display.ShowRoads:
    [packet] = StreamCodec(DISPLAY).feed(DISPLAY.encode(message, 7))
    assert isinstance(packet, Packet) and isinstance(packet.message, display.ShowRoads)
    return packet.message


def test_a_record_decoded_alone_is_the_one_object_of_its_value() -> None:
    """The two predictions of a road message are records of their own (not list items)."""
    same = Prediction(Mark.BLUE, Mark.RED, Mark.NONE)
    first = _decoded(display.ShowRoads((), (), (), (), (), same, same))
    assert first.if_banker == same and first.if_player == same
    assert first.if_banker is first.if_player  # one value, one object
    again = _decoded(display.ShowRoads((), (), (Mark.RED,), (), (), same, Prediction()))
    assert again.if_banker is first.if_banker and again.if_player == Prediction()


@pytest.mark.parametrize("version", [2, 3])
def test_a_protocol_of_one_version_is_a_range_of_one(version: int) -> None:
    """(From version 2: the common messages have parts of version 2.)"""
    single = Protocol("vendor", (), current=version, oldest=version)
    assert list(single.versions) == [version]
    assert single.version_problem(version) is None and single.version_problem(version + 1) is not None
    with pytest.raises(ValueError, match="not a range from 1"):
        Protocol("vendor", (), current=version, oldest=version + 1)


def test_a_card_field_given_anything_but_a_card_is_refused_as_such() -> None:
    """A card on the wire is a Card: text such as "AS" handed by mistake is a TypeError that says
    so, not an AttributeError from deep in the packing."""
    from drivers.codec.shoe import CardRead

    with pytest.raises(TypeError, match="expected a Card, got 'AS'"):
        CardRead("AS").pack()  # type: ignore[arg-type]
