"""Wire messages of the results display board (``docs/protocols/display.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, ClassVar

from drivers.codec.fields import BOOL, CARD, TEXT, U8, U16, U32, EnumU8, ListOf, Record
from drivers.codec.protocol import Message, Protocol, Since
from station.cards import Card


class WireOutcome(IntEnum):
    BANKER = 1
    PLAYER = 2
    TIE = 3


class Mark(IntEnum):
    """A derived-road mark (big eye boy, small road, cockroach pig); NONE only in predictions."""

    NONE = 0
    RED = 1
    BLUE = 2


class WarBoxOutcome(IntEnum):
    """How one Casino War box ended: on its first card, or after the war."""

    WIN = 1
    LOSE = 2
    TIE = 3  # first cards tied and nobody on the box had a war-or-surrender decision
    WAR_WIN = 4
    WAR_LOSE = 5
    SURRENDER = 6


class DisplayErrorCode(IntEnum):
    PANEL_FAULT = 1
    OVERHEAT = 2
    POWER = 3


@dataclass(frozen=True)
class BeadCell:
    """One round in the bead plate."""

    outcome: WireOutcome
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False


@dataclass(frozen=True)
class BigRoadCell:
    """One big-road cell: column and row from the top-left, result, ties marked on it."""

    col: int
    row: int
    outcome: WireOutcome
    ties: int = 0


@dataclass(frozen=True)
class Prediction:
    """What the three derived roads would mark if the next result were this side."""

    big_eye_boy: Mark = Mark.NONE
    small_road: Mark = Mark.NONE
    cockroach_pig: Mark = Mark.NONE


@dataclass(frozen=True)
class WarBox:
    """One Casino War box: its first card, how it ended, and its war card if it went to war."""

    box: int
    card: Card
    outcome: WarBoxOutcome
    war_card: tuple[Card, ...] = ()  # none, or the one card dealt to the box in the war


OUTCOME = EnumU8(WireOutcome)
MARK = EnumU8(Mark)
BEAD = Record(BeadCell, (("outcome", OUTCOME), ("player_pair", BOOL), ("banker_pair", BOOL), ("natural", BOOL)))
BIG_ROAD = Record(BigRoadCell, (("col", U16), ("row", U8), ("outcome", OUTCOME), ("ties", U8)))
PREDICTION = Record(Prediction, (("big_eye_boy", MARK), ("small_road", MARK), ("cockroach_pig", MARK)))
HAND = ListOf(CARD, count=U8, max_items=3)
MARKS = ListOf(MARK)
#: None or one card (a war card that may not have been dealt).
OPTIONAL_CARD = ListOf(CARD, count=U8, max_items=1)
WAR_BOX = Record(WarBox, (("box", U8), ("card", CARD), ("outcome", EnumU8(WarBoxOutcome)),
                          ("war_card", OPTIONAL_CARD)))

# commands (each answered by ACK, or NAK)


@dataclass(frozen=True)
class DisplayGetStatus(Message):
    WIRE_NAME = "GetStatus"
    TYPE: ClassVar[int] = 0x04


@dataclass(frozen=True)
class ShowResult(Message):
    TYPE: ClassVar[int] = 0x10
    round_no: Annotated[int, U32]
    outcome: Annotated[WireOutcome, OUTCOME]
    player_total: Annotated[int, U8]
    banker_total: Annotated[int, U8]
    player_cards: Annotated[tuple[Card, ...], HAND]
    banker_cards: Annotated[tuple[Card, ...], HAND]
    natural: Annotated[bool, BOOL] = False
    player_pair: Annotated[bool, BOOL] = False
    banker_pair: Annotated[bool, BOOL] = False


@dataclass(frozen=True)
class ShowRoads(Message):
    TYPE: ClassVar[int] = 0x11
    bead_plate: Annotated[tuple[BeadCell, ...], ListOf(BEAD)]
    big_road: Annotated[tuple[BigRoadCell, ...], ListOf(BIG_ROAD)]
    big_eye_boy: Annotated[tuple[Mark, ...], MARKS]
    small_road: Annotated[tuple[Mark, ...], MARKS]
    cockroach_pig: Annotated[tuple[Mark, ...], MARKS]
    if_banker: Annotated[Prediction, PREDICTION] = Prediction()
    if_player: Annotated[Prediction, PREDICTION] = Prediction()


@dataclass(frozen=True)
class ShowMessage(Message):
    """A banner for players; the empty text takes the banner down."""

    TYPE: ClassVar[int] = 0x12
    text: Annotated[str, TEXT]


@dataclass(frozen=True)
class ShowLimits(Message):
    """Table limits as integers in the currency's minor units; ``minor_digits`` says where
    the decimal point goes (2: 1000 is shown 10.00; 0: 1000 is shown 1,000).

    Version 1 has no ``minor_digits``, and its amounts are whole units of the currency
    (:mod:`drivers.devices.display_v1` converts)."""

    TYPE: ClassVar[int] = 0x13
    table_min: Annotated[int, U32]
    table_max: Annotated[int, U32]
    tie_min: Annotated[int, U32] = 0
    tie_max: Annotated[int, U32] = 0
    pair_min: Annotated[int, U32] = 0
    pair_max: Annotated[int, U32] = 0
    currency: Annotated[str, TEXT] = ""
    minor_digits: Annotated[int, U8, Since(2)] = 0


@dataclass(frozen=True)
class ShowExpected(Message):
    """What the station expects next, e.g. "deal Banker third card"."""

    TYPE: ClassVar[int] = 0x14
    text: Annotated[str, TEXT]


@dataclass(frozen=True)
class Clear(Message):
    TYPE: ClassVar[int] = 0x15


@dataclass(frozen=True)
class ShowWarResult(Message):
    """A Casino War round just decided: the dealer's card, each box's card and outcome, and
    after a war the dealer's war card and each warring box's war card. Version 2; a version-1
    board is shown the round as a banner line instead (:mod:`drivers.devices.display_v1`)."""

    TYPE: ClassVar[int] = 0x17
    SINCE: ClassVar[int] = 2
    round_no: Annotated[int, U32]
    dealer_card: Annotated[Card, CARD]
    boxes: Annotated[tuple[WarBox, ...], ListOf(WAR_BOX, count=U8, max_items=14)]
    dealer_war_card: Annotated[tuple[Card, ...], OPTIONAL_CARD] = ()


@dataclass(frozen=True)
class SetBrightness(Message):
    TYPE: ClassVar[int] = 0x16
    level: Annotated[int, U8]  # percent 0-100; above 100 is NAKed OUT_OF_RANGE


# responses


@dataclass(frozen=True)
class DisplayStatus(Message):
    TYPE: ClassVar[int] = 0x84
    brightness: Annotated[int, U8]
    commands_shown: Annotated[int, U32]
    error: Annotated[int, U8] = 0  # 0 or a DisplayErrorCode


# events


@dataclass(frozen=True)
class DisplayError(Message):
    TYPE: ClassVar[int] = 0x40
    code: Annotated[DisplayErrorCode, EnumU8(DisplayErrorCode)]
    detail: Annotated[str, TEXT] = ""


_WAR_LINE_WORDS = {
    WarBoxOutcome.WIN: "Win", WarBoxOutcome.LOSE: "Lose", WarBoxOutcome.TIE: "Tie",
    WarBoxOutcome.WAR_WIN: "War won", WarBoxOutcome.WAR_LOSE: "War lost", WarBoxOutcome.SURRENDER: "Surrender",
}


def war_banner_line(result: ShowWarResult) -> str:
    """A Casino War round in one banner line, for a version-1 board (which has no
    ``ShowWarResult``): the round, the dealer's cards, and the boxes by how they ended, e.g.
    ``Round 8 · Dealer 7D, war 5H · Win: box 5 · War won: box 2 · Surrender: box 4``.

    Grouping the boxes by outcome keeps the line short for any table (14 boxes fit well within
    the 255 bytes of a text field); a player reads their box number and the word before it."""
    dealer = result.dealer_card.code + (f", war {result.dealer_war_card[0].code}" if result.dealer_war_card else "")
    parts = [f"Round {result.round_no}", f"Dealer {dealer}"]
    for outcome, word in _WAR_LINE_WORDS.items():
        boxes = [str(box.box) for box in result.boxes if box.outcome is outcome]
        if boxes:
            parts.append(f"{word}: box{'es' if len(boxes) > 1 else ''} {' '.join(boxes)}")
    line = " \u00b7 ".join(parts)
    while len(line.encode("utf-8")) > 255:  # cannot happen with 14 boxes; a text field's limit all the same
        line = line[:-2] + "\u2026"
    return line


DISPLAY = Protocol(
    "display",
    (
        DisplayGetStatus,
        ShowResult,
        ShowRoads,
        ShowMessage,
        ShowLimits,
        ShowExpected,
        Clear,
        SetBrightness,
        ShowWarResult,
        DisplayStatus,
        DisplayError,
    ),
    summary="results display board: round results, roads, messages, limits, prompts",
    current=2,  # the changelog is in docs/protocols/display.md
)
