"""Worked examples for the protocol documents, produced by the real codec.

``python -m drivers.codec.examples shoe`` prints the message tables and the example
frames in the Markdown used by ``docs/protocols/<device>.md``; a test decodes every
example found in those pages and checks it against the codec, so the documents cannot
drift from the code. Examples of an older version of a protocol carry a ``version:`` line
and are encoded and decoded in that version.
"""

from __future__ import annotations

import sys

from drivers.codec import buttonbox, chipreader, display, get_protocol, shoe, shuffler, sign
from drivers.codec.protocol import (
    Ack,
    Boot,
    Identify,
    IdentityReport,
    Kind,
    Message,
    Nak,
    NakCode,
    Ping,
    Protocol,
    SelfTest,
    SelfTestResult,
)
from station.cards import parse_card, parse_cards

Example = tuple[str, int, Message]  # (what happens, seq, message)

def _chipreader_examples() -> list[Example]:
    """The chip reader's worked frames: two chips, a stack in parts, continuous mode, a fault."""
    cr = chipreader
    a, b = 0xE004_0150_1234_5678, 0xE004_0150_1234_5679
    stack = tuple(range(0xE004_0150_0000_0001, 0xE004_0150_0000_0001 + 3))
    return [
        ("the reader answers Identify: model, serial number, firmware, protocol version 2", 1,
         IdentityReport("CHIP-R", "R0007", "1.1.0", 2)),
        ("host asks for the antennas", 2, cr.GetAntennas()),
        ("four antennas; antenna 3's cable is off", 2, cr.AntennaList((
            cr.AntennaEntry(1, cr.AntennaState.OK), cr.AntennaEntry(2, cr.AntennaState.OK),
            cr.AntennaEntry(3, cr.AntennaState.DISCONNECTED), cr.AntennaEntry(4, cr.AntennaState.OK)))),
        ("inventory antenna 1 now", 3, cr.Inventory(1)),
        ("round 41 read two chips on antenna 1, no collision; the whole report in one part", 3,
         cr.InventoryReport(1, 41, 1, True, 0, (a, b))),
        ("inventory antenna 2, which has a stack", 4, cr.Inventory(2)),
        ("round 42: the first part of its report (a reader sending three UIDs a part), more to come", 4,
         cr.InventoryReport(2, 42, 1, False, 0, stack)),
        ("host asks for part 2 of round 42 on antenna 2", 5, cr.InventoryPart(2, 42, 2)),
        ("the last part: round 42 read 4 chips, and 1 collision says some chips there were not read", 5,
         cr.InventoryReport(2, 42, 2, True, 1, (0xE004_0150_0000_0004,))),
        ("the reader no longer has round 42 (it restarted, or began a newer round): no half a stack", 6,
         Nak(NakCode.NOT_ALLOWED_NOW, "no part 2 of round 42 on antenna 2")),
        ("inventory antenna 3, whose cable is off", 7, cr.Inventory(3)),
        ("refused: the antenna cannot read", 7, Nak(NakCode.HARDWARE_FAULT, "antenna 3 disconnected")),
        ("continuous mode: every antenna every 250 ms, each change reported", 8, cr.SetMode(True, 250)),
        ("the reader acknowledges", 8, Ack()),
        ("back to reading only when asked", 9, cr.SetMode(False, 0)),
        ("RF power 60 %: antenna fields that no longer reach the next spot", 10, cr.SetRfPower(60)),
        ("host asks for the status", 11, cr.ReaderGetStatus()),
        ("continuous every 250 ms, RF power 60 %, 1234 rounds since power-up, antenna 3 faulted", 11,
         cr.ReaderStatus(True, 250, 60, 1234, (3,))),
        ("self-test: antenna 3's cable is off", 12,
         SelfTestResult(False, cr.AntennaFaultCode.DISCONNECTED, "antenna 3 disconnected")),
        ("continuous mode: antenna 1 now holds these two chips (its whole set)", 1,
         cr.AntennaChanged(1, 57, 1, True, 0, (a, b))),
        ("antenna 1 is empty again: an empty set, whole", 2, cr.AntennaChanged(1, 65, 1, True, 0)),
        ("antenna 3 went open-circuit", 3, cr.AntennaFault(3, cr.AntennaFaultCode.DISCONNECTED, "cable off")),
        ("antenna 3 reads again", 4, cr.AntennaRestored(3)),
        ("the reader restarted: it reads only when asked until the host sends its mode again", 1,
         Boot("watchdog reset")),
    ]


COMMON: list[Example] = [
    ("host asks who is there (handshake after every connection)", 1, Identify()),
    (
        "device answers with model, serial number, firmware and the protocol version it speaks",
        1,
        IdentityReport("SHOE-X", "A1234", "2.1.0", 2),
    ),
    ("host heartbeat", 2, Ping()),
    ("device acknowledges a command that has no data to return", 2, Ack()),
    ("host asks for a self-test", 3, SelfTest()),
    ("self-test passed", 3, SelfTestResult(True, 0, "ok")),
    ("device refuses command seq 4 as unknown", 4, Nak(NakCode.UNKNOWN_COMMAND, "")),
    ("device announces a power-up (accepted whatever its seq)", 1, Boot("power on")),
    ("host acknowledges device event seq 1", 1, Ack()),
]

EXAMPLES: dict[str, list[Example]] = {
    "shoe": [
        ("the nine of hearts leaves the shoe", 5, shoe.CardRead(parse_card("9H"))),
        ("host acknowledges it", 5, Ack()),
        (
            "the ten of diamonds: its byte 0xA2 is sent as is; seq 0x02 must be escaped",
            2,
            shoe.CardRead(parse_card("TD")),
        ),
        ("the cut card comes out", 6, shoe.CutCardRead()),
        ("last card gone", 7, shoe.ShoeEmptyNotice()),
        ("cards loaded", 8, shoe.CardsPresentNotice()),
        ("lid opened", 9, shoe.LidOpenedNotice()),
        ("lid closed", 10, shoe.LidClosedNotice()),
        ("a card passed but could not be read", 11, shoe.ReaderError(shoe.ReaderErrorCode.UNREADABLE_CARD, "")),
        ("host asks for the status", 12, shoe.ShoeGetStatus()),
        (
            "lid closed, cards present, 87 cards read, no error",
            12,
            shoe.ShoeStatus(False, True, 87, shoe.ReaderErrorCode.NONE),
        ),
    ],
    "shuffler": [
        ("host starts a batch shuffle", 7, shuffler.StartShuffle()),
        ("shuffler accepted", 7, Ack()),
        ("shuffler refuses: the door is open", 8, Nak(NakCode.DOOR_OPEN, "close the door")),
        ("progress: half done, red set", 3, shuffler.StatusChanged(shuffler.WireShufflerState.SHUFFLING, 50, "red")),
        ("shuffle finished", 4, shuffler.StatusChanged(shuffler.WireShufflerState.DONE, 100, "red")),
        ("a jam", 5, shuffler.StatusChanged(shuffler.WireShufflerState.JAM, 40, "red", "elevator")),
        ("continuous mode: 6 cards returned after a round", 6, shuffler.CardsReturnedNotice(6)),
        ("host asks for the status", 9, shuffler.ShufflerGetStatus()),
        (
            "continuous shuffler ready, blue set, 410 cards inside",
            9,
            shuffler.StatusReport(shuffler.WireShufflerState.READY, 100, shuffler.ShufflerMode.CONTINUOUS, "blue", 410),
        ),
        ("host asks for a deck check", 10, shuffler.RequestDeckCheck()),
        (
            "a (tiny, illustrative) report: 1 deck expected, AS seen twice, KH missing",
            10,
            shuffler.DeckCheckReport(
                1, (shuffler.CardCount(parse_card("AS"), 2),), (parse_card("KH"),), (parse_card("AS"),)
            ),
        ),
    ],
    "display": [
        (
            "round 12: Player 9 (4H 5C, natural) beats Banker 8 (4D 4S), Banker pair",
            12,
            display.ShowResult(
                12,
                display.WireOutcome.PLAYER,
                9,
                8,
                tuple(parse_cards("4H 5C")),
                tuple(parse_cards("4D 4S")),
                True,
                False,
                True,
            ),
        ),
        ("the board acknowledges", 12, Ack()),
        (
            "roads after two rounds (Banker, then Player natural with a tie on it)",
            13,
            display.ShowRoads(
                (
                    display.BeadCell(display.WireOutcome.BANKER),
                    display.BeadCell(display.WireOutcome.PLAYER, natural=True),
                ),
                (
                    display.BigRoadCell(0, 0, display.WireOutcome.BANKER),
                    display.BigRoadCell(1, 0, display.WireOutcome.PLAYER, 1),
                ),
                (display.Mark.RED,),
                (),
                (),
                display.Prediction(display.Mark.BLUE, display.Mark.NONE, display.Mark.NONE),
                display.Prediction(display.Mark.RED, display.Mark.NONE, display.Mark.NONE),
            ),
        ),
        ("a banner for players", 14, display.ShowMessage("Round paused \u2014 please wait")),
        ("the banner is taken down (empty text)", 20, display.ShowMessage("")),
        (
            "table limits 10.00-5,000.00, ties 5.00-500.00, pairs 5.00-250.00 EUR (minor units, 2 digits)",
            15,
            display.ShowLimits(1000, 500000, 500, 50000, 500, 25000, "EUR", 2),
        ),
        ("table limits 1,000-500,000 JPY (no minor unit)", 21, display.ShowLimits(1000, 500000, 0, 0, 0, 0, "JPY", 0)),
        ("what the station expects next", 16, display.ShowExpected("deal Banker 3rd card")),
        ("clear the board", 17, display.Clear()),
        ("brightness 60 %", 18, display.SetBrightness(60)),
        ("brightness 150 % is refused", 19, Nak(NakCode.OUT_OF_RANGE, "")),
        (
            "Casino War round 7: dealer 9S; box 1 (KH) wins, box 3 (4C) loses",
            22,
            display.ShowWarResult(
                7, parse_card("9S"),
                (
                    display.WarBox(1, parse_card("KH"), display.WarBoxOutcome.WIN),
                    display.WarBox(3, parse_card("4C"), display.WarBoxOutcome.LOSE),
                ),
            ),
        ),
        (
            "round 8 after a war: dealer 7D then war card 5H; box 2 (7C) went to war with QS and won, "
            "box 4 (7S) surrendered, box 5 (AD) won",
            23,
            display.ShowWarResult(
                8, parse_card("7D"),
                (
                    display.WarBox(2, parse_card("7C"), display.WarBoxOutcome.WAR_WIN, (parse_card("QS"),)),
                    display.WarBox(4, parse_card("7S"), display.WarBoxOutcome.SURRENDER),
                    display.WarBox(5, parse_card("AD"), display.WarBoxOutcome.WIN),
                ),
                (parse_card("5H"),),
            ),
        ),
        ("a panel failed", 1, display.DisplayError(display.DisplayErrorCode.PANEL_FAULT, "")),
    ],
    "buttonbox": [
        ("button 1 goes down", 4, buttonbox.ButtonDown(1)),
        ("button 1 comes up after 120 ms: a short press", 5, buttonbox.ButtonUp(1, 120)),
        ("button 2 held for 800 ms: a long press, sent while still held", 6, buttonbox.LongPress(2, 800)),
        ("host sets the long-press time to 1 s", 3, buttonbox.SetLongPress(1000)),
        ("host asks for the status", 4, buttonbox.ButtonBoxGetStatus()),
        ("4 buttons, button 2 held, long press 1000 ms", 4, buttonbox.BoxStatus(4, (2,), 1000)),
    ],
    "sign": [
        ("the sign answers Identify: model, serial number, firmware, protocol version 2", 1,
         IdentityReport("SIGN-J", "J0042", "1.1.0", 2)),
        ("the meter: Mega Jackpot at 1,234,567.89 EUR (minor units, 2 digits)", 5,
         sign.ShowMeter("Mega Jackpot", 123_456_789, 2, "EUR")),
        ("the sign acknowledges", 5, Ack()),
        ("a meter past the reach of a u32: 5,000,000,000 VND (no minor unit)", 6,
         sign.ShowMeter("Jackpot", 5_000_000_000, 0, "VND")),
        ("box 5 hit the jackpot: 1,234,567.89 EUR, flashing until paid", 7,
         sign.ShowHit("Mega Jackpot", 123_456_789, 2, "EUR", "5")),
        ("the hit is paid", 8, sign.EndHit()),
        ("a line for players over the meter", 9, sign.SignShowMessage("Meter offline")),
        ("the line is taken down (empty text)", 10, sign.SignShowMessage("")),
        ("clear the sign", 11, sign.SignClear()),
        ("brightness 60 %", 12, sign.SignSetBrightness(60)),
        ("an amount with 5 minor digits (or brightness 150 %) is refused", 13, Nak(NakCode.OUT_OF_RANGE, "")),
        ("host asks for the status", 14, sign.SignGetStatus()),
        ("brightness 80, 42 commands shown since power-up, LED row 3 failed", 14,
         sign.SignStatus(80, 42, sign.SignErrorCode.LED_ROW, (3,))),
        ("self-test: LED row 3 does not light", 15,
         SelfTestResult(False, sign.SignErrorCode.LED_ROW, "LED row 3 does not light")),
        ("LED row 3 went dark", 1, sign.SignError(sign.SignErrorCode.LED_ROW, 3, "row 3 dark")),
        ("the sign restarted with the cable in: it is blank, numbers from 1 again, and is repainted", 1,
         Boot("watchdog reset")),
    ],
    "chipreader": _chipreader_examples(),
}


#: Frames of version 1 that differ from the current version's, by page ("common" for the
#: common page). What a version-1 device sends and is sent; the other frames are the same.
EXAMPLES_V1: dict[str, list[Example]] = {
    "common": [
        (
            "a version-1 device answers with model, serial number and firmware, and no version",
            1,
            IdentityReport("SHOE-X", "A1234", "2.1.0"),
        ),
    ],
    "display": [
        (
            "version 1: table limits 10-5,000, ties 5-500, pairs 5-250 EUR, in whole units",
            15,
            display.ShowLimits(10, 5000, 5, 500, 5, 250, "EUR"),
        ),
        (
            "version 1: Casino War round 7 as a banner line (version 1 has no ShowWarResult)",
            22,
            display.ShowMessage(display.war_banner_line(display.ShowWarResult(
                7, parse_card("9S"),
                (
                    display.WarBox(1, parse_card("KH"), display.WarBoxOutcome.WIN),
                    display.WarBox(3, parse_card("4C"), display.WarBoxOutcome.LOSE),
                ),
            ))),
        ),
    ],
    "sign": [
        (
            "a version-1 sign answers Identify with model, serial number and firmware, and no version",
            1,
            IdentityReport("SIGN-J", "J0042", "1.0.3"),
        ),
    ],
    "chipreader": [
        (
            "a version-1 reader answers Identify with model, serial number and firmware, and no version",
            1,
            IdentityReport("CHIP-R", "R0007", "1.0.2"),
        ),
    ],
}


def describe(seq: int, message: Message, version: int | None = None) -> str:
    return f"seq={seq} {message.describe(version)}"


def render_example(protocol: Protocol, title: str, seq: int, message: Message, version: int | None = None) -> str:
    direction = "host -> device" if message.kind() is Kind.COMMAND else "device -> host"
    if isinstance(message, Ack) and "host" in title.split(maxsplit=1)[0]:
        direction = "host -> device"
    raw = protocol.encode(message, seq, version)
    stated = "" if version is None else f"\nversion: {version}"
    return (f"{title} ({direction}):\n\n```text\nframe:   {raw.hex(' ')}\n"
            f"decoded: {describe(seq, message, version)}{stated}\n```\n")


def render_table(protocol: Protocol, common: bool = False) -> str:
    """The message table of the current version; what a later version added says so."""
    from drivers.codec.protocol import COMMON_MESSAGES

    rows = ["| code | message | kind | since | payload fields, in order |", "|---|---|---|---|---|"]
    for code, cls in sorted(protocol.by_type.items()):
        if (cls in COMMON_MESSAGES) != common:
            continue
        fields = "; ".join(
            f"`{name}`: {wire.doc}" + (f" (version {cls.field_since(name)})" if cls.field_since(name) > 1 else "")
            for name, wire in cls.layout()
        ) or "(none)"
        rows.append(f"| `0x{code:02X}` | `{cls.WIRE_NAME}` | {cls.kind().value} | {cls.SINCE} | {fields} |")
    return "\n".join(rows) + "\n"


def render_v1(name: str, protocol: Protocol) -> list[str]:
    examples = EXAMPLES_V1.get(name, [])
    if not examples:
        return []
    parts = ["## Version 1 frames\n"]
    for title, seq, message in examples:
        parts.append(render_example(protocol, title, seq, message, 1))
    return parts


def render(name: str) -> str:
    protocol = get_protocol(name)
    parts = [f"## Messages\n\n{render_table(protocol)}", "## Examples\n"]
    for title, seq, message in EXAMPLES[name]:
        parts.append(render_example(protocol, title, seq, message))
    return "\n".join(parts + render_v1(name, protocol))


def render_common() -> str:
    protocol = get_protocol("shoe")
    parts = [f"## Common messages\n\n{render_table(protocol, common=True)}", "## Examples\n"]
    for title, seq, message in COMMON:
        parts.append(render_example(protocol, title, seq, message))
    return "\n".join(parts + render_v1("common", protocol))


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "common"
    print(render_common() if target == "common" else render(target))
