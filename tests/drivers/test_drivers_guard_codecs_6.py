"""Guard tests of the codecs, sixth set (the ``drivers`` mutation guard, docs/testing.md), through
the protocols' encode and decode, the protocol-page tool run as a program, the wire types, and
the simulated pedal unit read through the station's USB port on the simulated pyusb bus. The
tests that run the page tool start a process and are marked ``e2e``.

Each test answers a mutant that survived the guard's tests (``/tmp/wave4-codec.txt``):

* ``python -m drivers.codec.examples DEVICE`` prints the part of ``docs/protocols/DEVICE.md``
  from its "## Messages" heading to its end, and with no argument the part of the common page
  (``docs/protocols/README.md``) from "## Common messages" on; a page's version-1 frames are
  encoded, decoded and labelled in version 1 (``drivers/codec/examples.py``, its ``__main__``
  block and ``render_v1``);
* a text whose length byte claims more bytes than the payload holds is a bad payload, even
  where the message may end early: a version-1 identity whose firmware text is cut short is
  refused, never read as an identity with a shorter firmware (``drivers/codec/fields.py``,
  ``_Text.unpack``);
* a protocol lists the messages of the version asked for, and of its current version when none
  is named: version 1 of the display board has no ``ShowWarResult`` (``drivers/codec/protocol.py``,
  ``Protocol.messages``);
* wire types are values: a record declared twice with the same class and fields is equal to, and
  hashes as, the first; the struct layout it derives is no part of what it is
  (``drivers/codec/fields.py``, ``Record``);
* a pedal report damaged with the simulator's "checksum" fault has one bit of its fields after
  the report ID (bytes 1-6 of the 7 the CRC covers, docs/protocols/pedals.md) flipped and keeps
  the check of its true content: the host refuses it, and flipping that one bit back gives the
  report the unit meant to send, in both versions (``drivers/usb/protocol.py``,
  ``REPORT_FIELDS_LENGTH``, as the simulator's faults use it).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from drivers.codec import display, get_protocol
from drivers.codec.fields import BOOL, TEXT, U8, U16, ListOf, Record
from drivers.codec.framing import encode_frame
from drivers.codec.protocol import CodecError, IdentityReport, Packet, StreamCodec
from drivers.simulators.pedals.backend import SimulatedBackend
from drivers.simulators.pedals.device import SimulatedPedal
from drivers.transport.usb_port import UsbPort
from drivers.usb.codec import PedalReport, ReportError, decode_report
from drivers.usb.locator import simulated_locator
from drivers.usb.protocol import EventType

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "protocols"
PROGRAM_TIMEOUT_S = 120
READ_MS = 2000

# --- the protocol-page tool, run as a program ------------------------------------------------


def _run_examples(*args: str) -> str:
    """What ``python -m drivers.codec.examples ARGS`` prints, run from this tree."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, "-m", "drivers.codec.examples", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _page_from(page: str, heading: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    assert heading in text, f"{page} has no {heading!r}"
    return text[text.index(heading):]


@pytest.mark.e2e
@pytest.mark.parametrize("device", ["shoe", "display"])
def test_the_examples_program_prints_a_device_page_from_its_message_table_to_its_end(device: str) -> None:
    """The display page also has version-1 frames: they are printed in version 1, as the page holds."""
    printed = _run_examples(device)
    assert printed.rstrip("\n") == _page_from(f"{device}.md", "## Messages").rstrip("\n")


@pytest.mark.e2e
def test_the_examples_program_prints_the_common_page_when_no_device_is_named() -> None:
    printed = _run_examples()
    assert printed.rstrip("\n") == _page_from("README.md", "## Common messages").rstrip("\n")
    assert "version: 1" in printed  # the version-1 identity, labelled with its version


# --- texts, versions, wire types --------------------------------------------------------------


def _text(value: str) -> bytes:
    out = bytearray()
    TEXT.pack(value, out)
    return bytes(out)


def test_a_version_1_identity_with_its_firmware_text_cut_short_is_a_bad_payload() -> None:
    shoe = get_protocol("shoe")
    whole = _text("SHOE-X") + _text("A1234") + _text("2.1.0")
    assert whole[-6:] == b"\x052.1.0"  # the firmware text: its length byte, then its 5 bytes
    good = StreamCodec(shoe, 1).feed(encode_frame(1, IdentityReport.TYPE, whole))
    assert [p.message for p in good if isinstance(p, Packet)] == [IdentityReport("SHOE-X", "A1234", "2.1.0")]

    cut = whole[:-6] + b"\x062.1.0"  # claims 6 bytes, holds 5: the payload ends inside the text
    codec = StreamCodec(shoe, 1)
    out = codec.feed(encode_frame(1, IdentityReport.TYPE, cut))
    assert len(out) == 1 and isinstance(out[0], CodecError), out
    assert out[0].fault == "bad_payload" and "text" in out[0].detail
    assert codec.errors == 1


def test_a_protocol_lists_the_messages_of_the_version_asked_for_and_else_of_its_current_one() -> None:
    board = display.DISPLAY
    assert board.current >= 2
    assert display.ShowWarResult in board.messages()
    assert board.messages() == board.messages(board.current)
    older = board.messages(1)
    assert display.ShowWarResult not in older and display.ShowLimits in older
    assert all(cls.SINCE == 1 for cls in older)


@dataclass(frozen=True)
class _Cell:
    col: int
    seen: bool


def test_a_record_declared_twice_alike_is_the_same_wire_type() -> None:
    """Wire types are values, as UInt, ListOf and the rest are: the fixed struct layout a record
    derives from its fields is not part of what it is."""
    first = Record(_Cell, (("col", U16), ("seen", BOOL)))
    again = Record(_Cell, (("col", U16), ("seen", BOOL)))
    assert first.layout is not None and again.layout is not None  # both fixed-size
    assert first == again and hash(first) == hash(again)
    assert ListOf(first, U8) == ListOf(again, U8)
    assert {first: "cells"}[again] == "cells"
    assert first != Record(_Cell, (("col", U8), ("seen", BOOL)))


# --- the pedal unit's "checksum" fault ----------------------------------------------------------

#: docs/protocols/pedals.md: a report is 9 bytes (8 in version 1); bytes 0-6 are its fields,
#: byte 0 the report ID (1 or 2, the version), then the check (2 bytes, or 1).
REPORT_BYTES = {1: 8, 2: 9}
FIELDS_AFTER_ID = range(1, 7)
CLICKS = 20


def _repairs(raw: bytes, version: int) -> list[tuple[int, PedalReport]]:
    """Each (byte, report) where flipping one bit of that byte makes ``raw`` a valid report."""
    found = []
    for index in range(len(raw)):
        for bit in range(8):
            fixed = bytearray(raw)
            fixed[index] ^= 1 << bit
            with contextlib.suppress(ReportError):
                found.append((index, decode_report(bytes(fixed), version)))
    return found


@pytest.mark.parametrize("version", [1, 2])
def test_a_checksum_fault_flips_one_bit_of_the_fields_and_keeps_the_check_of_the_true_report(version: int) -> None:
    unit = SimulatedPedal("PED-SIM-0001", timed_long_press=False, protocol_version=version)
    port = UsbPort(simulated_locator(SimulatedBackend([unit]), "PED-SIM-0001"))
    port.open()
    damaged: list[bytes] = []
    try:
        unit.corrupt_next(2 * CLICKS, "checksum")
        for _ in range(CLICKS):
            unit.click("left")
            for _ in range(2):
                raw = port.read(READ_MS)
                assert raw is not None, "the unit sent nothing"
                damaged.append(raw)
    finally:
        port.close(give_back=True)
    for sequence, raw in enumerate(damaged):
        assert len(raw) == REPORT_BYTES[version] and raw[0] == version  # report ID 1 or 2, unharmed
        with pytest.raises(ReportError):
            decode_report(raw, version)
        repairs = _repairs(raw, version)
        assert len(repairs) == 1, f"report {sequence} ({raw.hex(' ')}): not one bit from a valid report"
        byte, meant = repairs[0]
        assert byte in FIELDS_AFTER_ID, f"report {sequence} ({raw.hex(' ')}) was damaged in byte {byte}"
        expected = EventType.DOWN if sequence % 2 == 0 else EventType.UP
        assert (meant.sequence, meant.event, meant.button) == (sequence, expected, 0)
