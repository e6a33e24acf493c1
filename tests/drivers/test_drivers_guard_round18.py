"""Guard tests of the serial codecs, round 18 (the ``drivers`` mutation guard, docs/testing.md),
through the chip reader's protocol encoder and decoder and the wire types' pack.

Each test answers a mutant that survived the guard's tests:

* a chip's UID is eight bytes (``docs/protocols/chipreader.md``, "UIDs"): the largest eight-byte
  UID is encoded and decoded back, and a number one past it is refused by the encoder as a value
  that does not fit a UID, a ``ValueError`` like every other out-of-range field
  (``drivers/codec/chipreader.py``, ``UID``);
* a text field is one length byte then that many bytes of UTF-8
  (``docs/protocols/README.md``, "Field types"): a text of 255 bytes is encoded, one of 256 is
  refused with an error naming its size and the 255-byte limit, and nothing of it is written
  (``drivers/codec/fields.py``, ``_Text.pack``).
"""

from __future__ import annotations

import pytest

from drivers.codec import chipreader as wire
from drivers.codec.fields import TEXT
from drivers.codec.framing import Frame, FrameDecoder

# --- chip reader: a UID is eight bytes ---------------------------------------------------------

_LARGEST_UID = (1 << 64) - 1


def _report(*uids: int) -> wire.InventoryReport:
    return wire.InventoryReport(antenna=1, round_no=41, part=1, complete=True, collisions=0, uids=uids)


def test_the_largest_eight_byte_uid_round_trips_and_one_past_it_is_refused_as_not_fitting() -> None:
    """A UID is eight bytes on the wire: FFFFFFFFFFFFFFFF is sent and read back as itself; a
    number needing a ninth byte is no UID, and the encoder refuses it with the ValueError every
    field gives for a value it cannot hold, naming the UID field."""
    frame = wire.CHIPREADER.encode(_report(_LARGEST_UID), seq=3)
    (decoded,) = FrameDecoder().feed(frame)
    assert isinstance(decoded, Frame)
    message = wire.CHIPREADER.decode(decoded)
    assert message == _report(_LARGEST_UID)
    assert message.describe().endswith("uids=[FFFFFFFFFFFFFFFF])")

    with pytest.raises(ValueError, match=r"^18446744073709551616 does not fit in uid \(8 bytes\)$"):
        wire.CHIPREADER.encode(_report(1 << 64), seq=3)


# --- fields: a text is at most 255 bytes -------------------------------------------------------


def test_a_text_of_255_bytes_is_encoded_and_one_of_256_is_refused_naming_the_limit() -> None:
    """The length byte counts 0-255: 255 bytes of text go out behind the length 0xFF; a 256th
    byte cannot be counted, so the text is refused with an error saying its size and the limit,
    and nothing of it is written (a later field cannot land where the text should be)."""
    out = bytearray()
    TEXT.pack("a" * 255, out)
    assert bytes(out) == b"\xff" + b"a" * 255

    out = bytearray(b"\x07")
    with pytest.raises(ValueError, match=r"^text of 256 bytes is longer than 255$"):
        TEXT.pack("é" * 128, out)  # 128 two-byte characters: 256 bytes of UTF-8
    assert bytes(out) == b"\x07"
