"""Driver of the results display board (protocol: ``docs/protocols/display.md``).

Every method blocks until the board ACKs the command (retransmitting on timeout) and
raises a :class:`~drivers.devices.link.DeviceError` if it cannot be shown. Commands are given
in the protocol's current version; to a board that announced version 1 they go as
:mod:`drivers.devices.display_v1` translates them, so it is never sent a frame it cannot decode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from drivers.codec import display as wire
from drivers.codec.display import BeadCell, BigRoadCell, Mark, Prediction, WarBox, WarBoxOutcome, WireOutcome
from drivers.codec.protocol import Ack, Message
from drivers.devices.display_v1 import BoardV1
from drivers.devices.errors import DeviceProtocolError
from drivers.devices.repainted import RepaintedDriver
from station import events
from station.cards import Card, parse_card

__all__ = [
    "BeadCell", "BigRoadCell", "DisplayDriver", "DisplayInfo", "Mark", "Prediction", "WarBox", "WarBoxOutcome",
    "WireOutcome",
]

#: No derived-road marks: the default prediction (frozen, so one instance serves every call).
NO_PREDICTION = Prediction()


def _outcome(value: Any) -> WireOutcome:
    """Accept a WireOutcome, the engine's Outcome ("banker"/"player"/"tie") or its letter."""
    if isinstance(value, WireOutcome):
        return value
    text = str(getattr(value, "value", value)).strip().upper()
    letters = {"B": "BANKER", "P": "PLAYER", "T": "TIE"}
    try:
        return WireOutcome[letters.get(text, text)]
    except KeyError:
        raise ValueError(f"unknown outcome {value!r}: use banker, player or tie") from None


def _cards(cards: Sequence[Card | str]) -> tuple[Card, ...]:
    return tuple(c if isinstance(c, Card) else parse_card(c) for c in cards)


def _marks(marks: Sequence[Mark | str]) -> tuple[Mark, ...]:
    return tuple(m if isinstance(m, Mark) else Mark[str(m).upper()] for m in marks)


@dataclass(frozen=True)
class DisplayInfo:
    brightness: int
    commands_shown: int
    error: int


class DisplayDriver(RepaintedDriver):
    """Emits DeviceFault for board errors and link loss; everything else is commands.

    A board shows only what it was told since it last powered up, and misses what was sent
    while its link was down. :meth:`on_needs_repaint` names who repaints it (the publisher):
    called when the link comes up (first connection and every reconnection) and when the
    board announces a Boot. It is called on a link thread and must only take note: the
    repaint's commands go from the caller's own thread."""

    PROTOCOL = "display"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._v1 = BoardV1()

    def _command(self, message: Message) -> None:
        if self.link.peer_version > 1:
            self._request(message)
            return
        for translated in self._v1.translate(message):
            try:
                self._request(translated)
            except Exception:
                self._v1.sent(translated, False)
                raise
            self._v1.sent(translated, True)

    def _request(self, message: Message) -> None:
        answer = self.link.request(message)
        if not isinstance(answer, Ack):
            raise DeviceProtocolError(f"{message.WIRE_NAME} answered by {answer.WIRE_NAME}")

    def show_result(
        self,
        outcome: Any,
        player_total: int,
        banker_total: int,
        player_cards: Sequence[Card | str],
        banker_cards: Sequence[Card | str],
        *,
        natural: bool = False,
        player_pair: bool = False,
        banker_pair: bool = False,
        round_no: int = 0,
    ) -> None:
        self._command(
            wire.ShowResult(round_no, _outcome(outcome), player_total, banker_total, _cards(player_cards),
                            _cards(banker_cards), natural, player_pair, banker_pair)
        )

    def show_round(self, result: Any, round_no: int = 0) -> None:
        """Show a :class:`station.games.baccarat.RoundResult` as it is."""
        self.show_result(result.outcome, result.player_total, result.banker_total, result.player, result.banker,
                         natural=result.natural, player_pair=result.player_pair, banker_pair=result.banker_pair,
                         round_no=round_no)

    def show_roads(
        self,
        bead_plate: Sequence[BeadCell],
        big_road: Sequence[BigRoadCell],
        big_eye_boy: Sequence[Mark | str] = (),
        small_road: Sequence[Mark | str] = (),
        cockroach_pig: Sequence[Mark | str] = (),
        *,
        if_banker: Prediction = NO_PREDICTION,
        if_player: Prediction = NO_PREDICTION,
    ) -> None:
        self._command(
            wire.ShowRoads(tuple(bead_plate), tuple(big_road), _marks(big_eye_boy), _marks(small_road),
                           _marks(cockroach_pig), if_banker, if_player)
        )

    def show_message(self, text: str) -> None:
        self._command(wire.ShowMessage(text))

    def show_limits(self, table_min: int, table_max: int, *, tie_min: int = 0, tie_max: int = 0,
                    pair_min: int = 0, pair_max: int = 0, currency: str = "", minor_digits: int = 0) -> None:
        """Limits as integers in the currency's minor units; ``minor_digits`` places the point."""
        for value in (table_min, table_max, tie_min, tie_max, pair_min, pair_max, minor_digits):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"limits are integers in minor units, got {value!r}")
        self._command(wire.ShowLimits(table_min, table_max, tie_min, tie_max, pair_min, pair_max, currency,
                                      minor_digits))

    def show_war_result(self, round_no: int, dealer_card: Card | str, boxes: Sequence[WarBox],
                        dealer_war_card: Card | str | None = None) -> None:
        """A Casino War round: the dealer's card, each box's card and outcome, the war cards."""
        war = () if dealer_war_card is None else _cards([dealer_war_card])
        self._command(wire.ShowWarResult(round_no, _cards([dealer_card])[0], tuple(boxes), war))

    def send(self, message: Message) -> None:
        """Send one display command as it is (the publisher keeps the board's picture as the
        messages themselves)."""
        self._command(message)

    def show_expected(self, text: str) -> None:
        self._command(wire.ShowExpected(text))

    def clear(self) -> None:
        self._command(wire.Clear())

    def brightness(self, level: int) -> None:
        self._command(wire.SetBrightness(level))

    def status(self) -> DisplayInfo:
        a = self._expect(self.link.request(wire.DisplayGetStatus()), wire.DisplayStatus)
        return DisplayInfo(a.brightness, a.commands_shown, a.error)

    def on_message(self, message: Message) -> None:
        match message:
            case wire.DisplayError(code=code, detail=detail):
                self.emit(
                    events.DeviceFault(self.name, detail or f"display error: {code.name.lower()}", code.name.lower())
                )
            case _:
                super().on_message(message)
