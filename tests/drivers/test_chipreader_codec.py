"""The chip reader's codec: every message round-trips in both versions, a UID keeps its eight
bytes in the order they are printed, a report part of 128 UIDs fits a frame, and no damaged,
truncated or random input ever decodes to a chip that was not sent ("no false chip").

(``test_codecs.py`` runs its checks over every registered protocol, the reader's included;
these are the reader's own: its UIDs, its big reports, and its reads as station events.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codec import StreamCodec, get_protocol
from drivers.codec import chipreader as wire
from drivers.codec.fields import PayloadError
from drivers.codec.framing import MAX_BODY, crc16, encode_frame, encode_frame_with_crc
from drivers.codec.protocol import CodecError, IdentityReport, Message, Packet
from station.chip_events import ChipsRead
from station.event_codec import event_from_dict, event_to_dict
from station.events import REGISTRY, EventError

from .strategies import any_message

READER = get_protocol("chipreader")
READER_MESSAGES = sorted({cls for cls in READER.by_type.values() if cls.__module__ == wire.__name__},
                         key=lambda cls: cls.TYPE)
UIDS = st.integers(0, 2**64 - 1)
REPORTS: list[type[wire.ReportPart]] = [wire.InventoryReport, wire.AntennaChanged]
FULL_PART = st.lists(UIDS, min_size=wire.MAX_UIDS_PER_PART, max_size=wire.MAX_UIDS_PER_PART).map(tuple)


def _report(data: st.DataObject, cls: type[wire.ReportPart]) -> wire.ReportPart:
    """A report part of any size up to the most a part holds (the generic strategies stop at 3)."""
    uids = data.draw(st.lists(UIDS, max_size=wire.MAX_UIDS_PER_PART).map(tuple))
    return cls(data.draw(st.integers(1, 255)), data.draw(st.integers(0, 2**32 - 1)), data.draw(st.integers(1, 255)),
               data.draw(st.booleans()), data.draw(st.integers(0, 255)), uids)


def chips_in(out: list[Packet | CodecError]) -> set[int]:
    """Every UID the decoded packets carry: what a host could take for a chip."""
    return {uid for p in out if isinstance(p, Packet) and isinstance(p.message, wire.ReportPart)
            for uid in p.message.uids}


def test_the_reader_speaks_versions_1_and_2_and_is_registered() -> None:
    assert READER.versions == range(1, 3)
    assert {cls.WIRE_NAME for cls in READER_MESSAGES} == {
        "GetStatus", "GetAntennas", "Inventory", "InventoryPart", "SetMode", "SetRfPower", "ReaderStatus",
        "AntennaList", "InventoryReport", "AntennaChanged", "AntennaFault", "AntennaRestored",
    }
    assert READER.messages(1) == READER.messages(2)  # only the handshake's layout differs
    assert "ChipsRead" in REGISTRY  # registered with every event, so the journal can read it back


@pytest.mark.parametrize("version", [1, 2])
@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_every_reader_message_round_trips_in_both_versions(version: int, data: st.DataObject) -> None:
    messages = data.draw(st.lists(any_message(READER), min_size=1, max_size=4))
    stream = b"".join(READER.encode(m, seq, version) for seq, m in enumerate(messages, 1))
    out = StreamCodec(READER, version).feed(stream)
    assert all(isinstance(p, Packet) for p in out)
    decoded = [p.message for p in out if isinstance(p, Packet)]
    if version == 1:  # a version-1 identity has no version: it reads as 1
        messages = [IdentityReport(m.model, m.serial, m.firmware) if isinstance(m, IdentityReport) else m
                    for m in messages]
    assert decoded == messages


@given(data=st.data(), seq=st.integers(1, 255))
@settings(max_examples=60, deadline=None)
def test_reports_of_any_size_round_trip_and_128_uids_fit_one_frame(data: st.DataObject, seq: int) -> None:
    for cls in (wire.InventoryReport, wire.AntennaChanged):
        report = _report(data, cls)
        frame = READER.encode(report, seq)
        (packet,) = StreamCodec(READER).feed(frame)
        assert isinstance(packet, Packet) and packet.message == report
    full = wire.AntennaChanged(1, 1, 1, True, 0, data.draw(FULL_PART))
    assert len(full.pack()) + 4 <= MAX_BODY  # SEQ, TYPE and the CRC: the most a part holds is one frame


def test_a_uid_is_its_eight_bytes_first_byte_first_and_16_hex_digits() -> None:
    uid = wire.parse_uid("E0 04 01 50 12 34 56 78")
    assert uid == wire.parse_uid("e0:04:01:50:12:34:56:78") == wire.parse_uid(0xE004_0150_1234_5678)
    assert wire.uid_text(uid) == "E004015012345678"
    report = wire.InventoryReport(1, 41, 1, True, 0, (uid,))
    assert report.pack()[-8:] == bytes.fromhex("e004015012345678")
    assert report.describe() == "InventoryReport(antenna=1, round_no=41, part=1, complete=1, collisions=0, " \
                                "uids=[E004015012345678])"
    assert wire.uid_text(wire.parse_uid("0000000012345678")) == "0000000012345678"  # a padded short UID keeps its zeros
    for bad in ("E00401501234567", "E00401501234567G", "E0040150123456789", "", True, 2**64, -1, 1.5):
        with pytest.raises((ValueError, TypeError)):
            wire.parse_uid(bad)  # type: ignore[arg-type]  # the wrong types tested


def test_a_list_past_its_bounds_is_never_encoded_nor_decoded() -> None:
    with pytest.raises(ValueError, match="longer than 128"):
        wire.AntennaChanged(1, 1, 1, True, 0, tuple(range(129))).pack()
    with pytest.raises(PayloadError, match="longer than 128"):
        wire.InventoryReport.unpack(bytes((1, 0, 0, 0, 1, 1, 1, 0, 129)) + bytes(129 * 8))
    with pytest.raises(PayloadError, match="uid"):  # the count says two, the bytes hold one and a half
        wire.InventoryReport.unpack(bytes((1, 0, 0, 0, 1, 1, 1, 0, 2)) + bytes(12))
    with pytest.raises(PayloadError, match="bool"):  # complete is 0 or 1, nothing else
        wire.AntennaChanged.unpack(bytes((1, 0, 0, 0, 1, 1, 2, 0, 0)))


@pytest.mark.parametrize("cls", READER_MESSAGES, ids=lambda cls: cls.WIRE_NAME)
@given(payload=st.binary(max_size=60))
@settings(max_examples=150, deadline=None)
def test_random_payloads_are_refused_or_decode_to_exactly_themselves(cls: type[Message], payload: bytes) -> None:
    """Never a guess: a payload is a bad payload, or the message whose bytes it is."""
    out = StreamCodec(READER).feed(encode_frame(9, cls.TYPE, payload))
    assert len(out) == 1
    if isinstance(out[0], CodecError):
        assert out[0].fault == "bad_payload"
        return
    assert out[0].message.pack() == payload and type(out[0].message) is cls


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_a_damaged_report_is_dropped_and_never_a_chip(data: st.DataObject) -> None:
    """CRC-16/CCITT catches every error burst of 16 bits or less: a damaged report is counted and
    dropped, none of its UIDs (damaged or not) becomes a chip, and the next good frame arrives."""
    report = _report(data, data.draw(st.sampled_from(REPORTS)))
    seq = data.draw(st.integers(1, 255))
    body = bytes((seq, report.TYPE)) + report.pack()
    at = data.draw(st.integers(0, len(body) - 1))
    mask = data.draw(st.integers(1, 0xFFFF)).to_bytes(2, "big")
    damaged = bytearray(body)
    for i, m in enumerate(mask[: len(body) - at]):
        damaged[at + i] ^= m
    if damaged == body:
        return  # the burst fell past the end: nothing damaged
    frame = encode_frame_with_crc(damaged[0], damaged[1], bytes(damaged[2:]), crc16(body))
    good = READER.encode(wire.AntennaRestored(4), 77)
    codec = StreamCodec(READER)
    out = codec.feed(frame + good)
    assert chips_in(out) == set() and codec.errors == 1
    assert [(p.seq, p.message) for p in out if isinstance(p, Packet)] == [(77, wire.AntennaRestored(4))]


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_a_truncated_report_is_dropped_and_never_a_chip(data: st.DataObject) -> None:
    """A report cut short on the line (the cable pulled, a new frame begun) is a truncated frame:
    counted and skipped, whatever of its UIDs had arrived; the frame after it decodes."""
    report = _report(data, wire.AntennaChanged)
    frame = READER.encode(report, data.draw(st.integers(1, 255)))
    cut = frame[: data.draw(st.integers(1, len(frame) - 1))]
    sentinel = wire.AntennaChanged(2, 9, 1, True, 0, (wire.parse_uid("E0040150AAAAAAAA"),))
    codec = StreamCodec(READER)
    out = codec.feed(cut + READER.encode(sentinel, 200))
    assert chips_in(out) == {wire.parse_uid("E0040150AAAAAAAA")}
    assert [p.message for p in out if isinstance(p, Packet)] == [sentinel]
    assert [e.fault for e in out if isinstance(e, CodecError)] == ["truncated"] and codec.errors == 1


@given(noise=st.binary(max_size=300))
@settings(max_examples=200, deadline=None)
def test_random_bytes_never_raise_and_decode_only_intact_frames(noise: bytes) -> None:
    sentinel = wire.InventoryReport(1, 2**31, 1, True, 0, (2**63,))
    out = StreamCodec(READER).feed(noise + READER.encode(sentinel, 200))
    packets = [p for p in out if isinstance(p, Packet)]
    for packet in packets[:-1]:  # what the noise held: only ever a whole frame it really contains
        assert packet.raw in noise and READER.encode(packet.message, packet.seq) == packet.raw
    assert packets and packets[-1].seq == 200 and packets[-1].message == sentinel


@given(antenna=st.integers(1, 255), round_no=st.integers(0, 2**32 - 1), collisions=st.integers(0, 255),
       uids=st.lists(UIDS, max_size=100, unique=True))
@settings(max_examples=100, deadline=None)
def test_a_read_round_trips_through_the_journal_exactly(antenna: int, round_no: int, collisions: int,
                                                        uids: list[int]) -> None:
    event = ChipsRead("chipreader", antenna, tuple(map(wire.uid_text, sorted(uids))), round_no, collisions)
    record = event_to_dict(event)
    assert record["type"] == "ChipsRead" and all(len(u) == 16 and u == u.upper() for u in record["uids"])
    assert event_from_dict(record) == event
    assert event_from_dict({**record, "uids": list(record["uids"])}) == event  # as JSON gives it back


def test_a_malformed_read_record_is_refused_not_half_built() -> None:
    record = event_to_dict(ChipsRead("chipreader", 3, ("E004015012345678",), 7, 0))
    for bad in ({**record, "antenna": "3"}, {**record, "uids": "E004015012345678"}, {**record, "uids": [7]},
                {**record, "chips": []}):
        with pytest.raises(EventError):
            event_from_dict(bad)

