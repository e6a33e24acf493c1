"""Version 1 of every serial protocol, pinned: the worked frames of the version-1 documents.

These frames are copied, byte for byte, from the protocol documents as version 1 was
published (docs/protocols/*.md of 2026-11-29, before versions were numbered); they are not
regenerated from the codec, so a change to the codec that would break a device built to
version 1 fails here. Each frame decodes, in version 1, to what that document said, and what
the station sends a version-1 device encodes to the same bytes.
"""

from __future__ import annotations

import pytest

from drivers.codec import StreamCodec, get_protocol
from drivers.codec.examples import describe
from drivers.codec.protocol import Packet

#: (protocol, frame in hex, decoded as the version-1 document wrote it)
VERSION_1_FRAMES: list[tuple[str, str, str]] = [
    ('shoe', '02 01 01 3e 1f 03',
     'seq=1 Identify()'),
    ('shoe', '02 01 81 06 53 48 4f 45 2d 58 05 41 31 32 33 34 05 32 2e 31 2e 30 f9 79 03',
     "seq=1 IdentityReport(model='SHOE-X', serial='A1234', firmware='2.1.0')"),
    ('shoe', '02 10 22 10 22 5b 2f 03',
     'seq=2 Ping()'),
    ('shoe', '02 10 22 f0 94 72 03',
     'seq=2 Ack()'),
    ('shoe', '02 10 23 10 23 78 3f 03',
     'seq=3 SelfTest()'),
    ('shoe', '02 10 23 83 01 00 10 22 6f 6b 31 64 03',
     "seq=3 SelfTestResult(passed=1, code=0, detail='ok')"),
    ('shoe', '02 04 f1 01 00 a9 62 03',
     "seq=4 Nak(code=unknown_command, detail='')"),
    ('shoe', '02 01 7f 08 70 6f 77 65 72 20 6f 6e 2d 87 03',
     "seq=1 Boot(reason='power on')"),
    ('shoe', '02 01 f0 c1 21 03',
     'seq=1 Ack()'),
    ('shoe', '02 05 40 91 b9 38 03',
     'seq=5 CardRead(card=9H)'),
    ('shoe', '02 05 f0 0d e5 03',
     'seq=5 Ack()'),
    ('shoe', '02 10 22 40 a2 3a 98 03',
     'seq=2 CardRead(card=TD)'),
    ('shoe', '02 06 41 ef 4c 03',
     'seq=6 CutCardRead()'),
    ('shoe', '02 07 42 ec 1e 03',
     'seq=7 ShoeEmpty()'),
    ('shoe', '02 08 43 ec 01 03',
     'seq=8 CardsPresent()'),
    ('shoe', '02 09 44 af d7 03',
     'seq=9 LidOpened()'),
    ('shoe', '02 0a 45 ea a5 03',
     'seq=10 LidClosed()'),
    ('shoe', '02 0b 46 01 00 06 e3 03',
     "seq=11 ReaderError(code=unreadable_card, detail='')"),
    ('shoe', '02 0c 04 18 e6 03',
     'seq=12 GetStatus()'),
    ('shoe', '02 0c 84 00 01 00 00 00 57 00 8d 06 03',
     'seq=12 ShoeStatus(lid_open=0, cards_present=1, cards_read=87, error=none)'),
    ('shuffler', '02 07 05 d4 3d 03',
     'seq=7 StartShuffle()'),
    ('shuffler', '02 07 f0 6b 87 03',
     'seq=7 Ack()'),
    ('shuffler', '02 08 f1 06 0e 63 6c 6f 73 65 20 74 68 65 20 64 6f 6f 72 da 13 03',
     "seq=8 Nak(code=door_open, detail='close the door')"),
    ('shuffler', '02 10 23 40 01 32 10 23 72 65 64 00 29 f1 03',
     "seq=3 StatusChanged(state=shuffling, progress=50, set_colour='red', detail='')"),
    ('shuffler', '02 04 40 10 22 64 10 23 72 65 64 00 bd ad 03',
     "seq=4 StatusChanged(state=done, progress=100, set_colour='red', detail='')"),
    ('shuffler', '02 05 40 04 28 10 23 72 65 64 08 65 6c 65 76 61 74 6f 72 96 39 03',
     "seq=5 StatusChanged(state=jam, progress=40, set_colour='red', detail='elevator')"),
    ('shuffler', '02 06 41 00 06 e9 10 22 03',
     'seq=6 CardsReturned(count=6)'),
    ('shuffler', '02 09 04 e7 13 03',
     'seq=9 GetStatus()'),
    ('shuffler', '02 09 84 10 23 64 01 04 62 6c 75 65 01 9a 00 27 82 03',
     "seq=9 StatusReport(state=ready, progress=100, mode=continuous, set_colour='blue', cards_held=410, detail='')"),
    ('shuffler', '02 0a 06 92 10 22 03',
     'seq=10 RequestDeckCheck()'),
    ('shuffler', '02 0a 86 01 00 01 10 30 10 22 00 01 d1 00 01 10 30 33 d4 03',
     'seq=10 DeckCheckReport(decks=1, counts=[(AS,2)], missing=[KH], extra=[AS])'),
    ('display', '02 0c 10 30 00 00 00 0c 10 22 09 08 10 22 41 53 10 22 42 40 01 00 01 b0 a4 03',
     'seq=12 ShowResult(round_no=12, outcome=player, player_total=9, banker_total=8, '
     'player_cards=[4H 5C], banker_cards=[4D 4S], natural=1, player_pair=0, banker_pair=1)'),
    ('display', '02 0c f0 b7 7d 03',
     'seq=12 Ack()'),
    ('display',
     '02 0d 11 00 10 22 01 00 00 00 10 22 00 00 01 00 10 22 00 00 00 01 00 00 01 00 10 22 01 00 '
     '01 01 00 00 00 00 10 22 00 00 01 00 00 0c 99 03',
     'seq=13 ShowRoads(bead_plate=[(banker,0,0,0) (player,0,0,1)], big_road=[(0,0,banker,0) '
     '(1,0,player,1)], big_eye_boy=[red], small_road=[], cockroach_pig=[], '
     'if_banker=(blue,none,none), if_player=(red,none,none))'),
    ('display', '02 0e 12 0c 4e 6f 20 6d 6f 72 65 20 62 65 74 73 5c 63 03',
     "seq=14 ShowMessage(text='No more bets')"),
    ('display',
     '02 0f 13 00 00 00 0a 00 00 13 88 00 00 00 05 00 00 01 f4 00 00 00 05 00 00 01 f4 10 23 45 55 52 4c 10 30 03',
     'seq=15 ShowLimits(table_min=10, table_max=5000, tie_min=5, tie_max=500, pair_min=5, '
     "pair_max=500, currency='EUR')"),
    ('display', '02 10 30 14 14 64 65 61 6c 20 42 61 6e 6b 65 72 20 33 72 64 20 63 61 72 64 95 c0 03',
     "seq=16 ShowExpected(text='deal Banker 3rd card')"),
    ('display', '02 11 15 6f d9 03',
     'seq=17 Clear()'),
    ('display', '02 12 16 3c bf 95 03',
     'seq=18 SetBrightness(level=60)'),
    ('display', '02 13 f1 09 00 6a 41 03',
     "seq=19 Nak(code=out_of_range, detail='')"),
    ('display', '02 01 40 01 00 dc e8 03',
     "seq=1 DisplayError(code=panel_fault, detail='')"),
    ('buttonbox', '02 04 40 01 0d b1 03',
     'seq=4 ButtonDown(button=1)'),
    ('buttonbox', '02 05 41 01 00 00 00 78 f2 17 03',
     'seq=5 ButtonUp(button=1, held_ms=120)'),
    ('buttonbox', '02 06 42 10 22 00 00 10 23 20 84 09 03',
     'seq=6 LongPress(button=2, held_ms=800)'),
    ('buttonbox', '02 10 23 05 10 23 e8 dd 99 03',
     'seq=3 SetLongPress(millis=1000)'),
    ('buttonbox', '02 04 04 91 4f 03',
     'seq=4 GetStatus()'),
    ('buttonbox', '02 04 84 04 01 10 22 10 23 e8 5a 2e 03',
     'seq=4 BoxStatus(buttons=4, held=[2], long_press_ms=1000)'),
]


@pytest.mark.parametrize(("name", "frame", "text"), VERSION_1_FRAMES, ids=lambda v: v[:24] if isinstance(v, str) else v)
def test_a_version_1_frame_reads_and_writes_as_version_1_wrote_it(name: str, frame: str, text: str) -> None:
    protocol = get_protocol(name)
    raw = bytes.fromhex(frame)
    out = StreamCodec(protocol, 1).feed(raw)
    assert len(out) == 1 and isinstance(out[0], Packet), f"{frame} does not decode in version 1: {out}"
    assert describe(out[0].seq, out[0].message, 1) == text
    assert protocol.encode(out[0].message, out[0].seq, 1) == raw


def test_every_protocol_still_speaks_version_1() -> None:
    for name in {name for name, _, _ in VERSION_1_FRAMES}:
        assert 1 in get_protocol(name).versions


def test_what_version_2_added_is_never_sent_to_version_1_and_is_refused_by_it() -> None:
    from drivers.codec import display as wire
    from drivers.codec.protocol import NotInVersion
    from station.cards import parse_card

    display = get_protocol("display")
    war = wire.ShowWarResult(7, parse_card("9S"), (wire.WarBox(1, parse_card("KH"), wire.WarBoxOutcome.WIN),))
    with pytest.raises(NotInVersion):
        display.encode(war, 22, 1)
    limits_v2 = display.encode(wire.ShowLimits(1000, 500000, 0, 0, 0, 0, "EUR", 2), 15)
    # what a version-1 board makes of the version-2 frames: an unknown command, a bad payload
    out = StreamCodec(display, 1).feed(display.encode(war, 22) + limits_v2)
    assert [getattr(item, "fault", None) for item in out] == ["unknown_type", "bad_payload"]
