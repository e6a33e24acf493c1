"""Typed outputs of the core loop: what the service, display board and web scoreboard hear.

The machine publishes these to subscribers of :class:`station.core.loop.CoreLoop`. They are
*live-only*: while the journal is being replayed nothing is published (no command may reach a
device before replay has finished), so an output can never be delivered twice for one input.
Everything a subscriber needs after a restart can be read from the machine's state instead
(``machine.shoe_results``, ``machine.expectation``, ``machine.irregularity``) or re-announced
with :meth:`CoreLoop.announce`.

Cards and results are only ever published once they may be shown on the table: under dealing
styles B, C and D the station knows each card as it leaves the shoe but holds it back until the
dealer's ``reveal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from station.cards import Card
from station.events import to_plain
from station.games.layout import SettledBet  # one bet after settlement, as the games record it


@dataclass(frozen=True)
class Output:
    """Base of all outputs; ``kind`` is the class name."""

    kind: ClassVar[str] = "Output"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = cls.__name__

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (cards as codes) for the control socket and the web scoreboard."""
        body = to_plain(self)
        assert isinstance(body, dict)
        return {"type": self.kind, **body}


@dataclass(frozen=True)
class ExpectationChanged(Output):
    """What the station expects next, in the dealer's words ("burn 7 cards")."""

    text: str


@dataclass(frozen=True)
class StateChanged(Output):
    state: str
    previous: str


@dataclass(frozen=True)
class ShoeStarted(Output):
    """A shoe is in play: its number, the exposed first card and the cards burned after it.

    A continuous shuffler has no exposed card and no burn (``exposed`` is ``None``)."""

    shoe: int
    exposed: Card | None
    burned: tuple[Card, ...]
    set_colour: str = ""


@dataclass(frozen=True)
class CardRevealed(Output):
    """A card turned face up on the table. ``position`` is e.g. ``player``, ``banker``,
    ``box 3``, ``dealer``, ``war box 3``, ``war dealer``; ``index`` counts from 1 per position."""

    round_id: str
    position: str
    index: int
    card: Card


@dataclass(frozen=True)
class RoundResult(Output):
    """The result of a round, published only after every card has been revealed."""

    round_id: str
    game: str
    hands: tuple[tuple[str, tuple[Card, ...]], ...]  # (position, cards) in dealing order
    totals: tuple[tuple[str, int], ...]
    outcome: str  # baccarat: banker/player/tie; war: per box, see RoundSettled
    natural: bool = False
    player_pair: bool = False
    banker_pair: bool = False


@dataclass(frozen=True)
class RoundSettled(Output):
    """Settlement of a round: every bet with stake, valid/void split and net result."""

    round_id: str
    game: str
    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    totals: tuple[tuple[str, int], ...]
    outcome: str
    natural: bool
    player_pair: bool
    banker_pair: bool
    bets: tuple[SettledBet, ...]
    house_net: int  # what the house gained on the round (= -sum of net)


@dataclass(frozen=True)
class RoundVoided(Output):
    """A round voided by a supervisor: every bet goes back to its owner."""

    round_id: str
    reason: str
    returned: tuple[SettledBet, ...]


@dataclass(frozen=True)
class ShoeEnded(Output):
    shoe: int
    rounds: int


@dataclass(frozen=True)
class IrregularityRaised(Output):
    """The round has stopped; a supervisor must choose one of ``decisions``."""

    ident: int
    reason: str  # a stable code, e.g. "card_when_stand"
    detail: str  # words for the supervisor
    round_id: str
    decisions: tuple[str, ...]


@dataclass(frozen=True)
class IrregularityResolved(Output):
    ident: int
    reason: str
    decision: str
    role: str
    who: str


@dataclass(frozen=True)
class DeviceFaulted(Output):
    device: str
    reason: str
    code: str = ""


@dataclass(frozen=True)
class DeviceBack(Output):
    device: str


@dataclass(frozen=True)
class JournalUnwritable(Output):
    """The journal cannot be written (the disk is full, an I/O error): nothing more is applied
    until it can, and the loop keeps trying. Published once per outage."""

    reason: str


@dataclass(frozen=True)
class JournalWritable(Output):
    """The journal can be written again: the table goes on from the inputs that waited."""

    waited_s: float


@dataclass(frozen=True)
class BetAccepted(Output):
    round_id: str
    box: str
    player: str
    region: str
    amount: int


@dataclass(frozen=True)
class BetRemoved(Output):
    round_id: str
    box: str
    player: str
    region: str


@dataclass(frozen=True)
class Refused(Output):
    """An input the machine would not act on, with a reason a dealer understands."""

    what: str  # the event kind, e.g. "BetPlaced" or "DealerAction"
    reason: str


@dataclass(frozen=True)
class PayoutOptionScheduled(Output):
    """A supervisor changed the Banker payout option (5.11); it applies from the next round."""

    option: str
    applies_from: str  # "next round"


@dataclass(frozen=True)
class PayoutOptionApplied(Output):
    """The payout option took effect: ``from_round`` is the first round paid under it (the
    sign must show it from this round)."""

    option: str
    from_round: str


@dataclass(frozen=True)
class BetsReduced(Output):
    """Table differential (5.17/5.18): bets on the larger side cut at "no more bets";
    each entry is (box, player, region, old amount, new amount)."""

    round_id: str
    reductions: tuple[tuple[str, str, str, int, int], ...]


@dataclass(frozen=True)
class WarDecisionNeeded(Output):
    """Casino War: these boxes tied with the dealer; each player goes to war or surrenders."""

    round_id: str
    boxes: tuple[str, ...]


# --- integrity: what the shuffler must be asked, the cards out of the shoe, alerts -----------


@dataclass(frozen=True)
class DeckCheckWanted(Output):
    """A set is about to go into play: the station needs the shuffler's count of it (the
    service asks the shuffler; the answer comes back as a ``DeckCheck`` event)."""

    device: str
    set_colour: str


@dataclass(frozen=True)
class ShufflerStateWanted(Output):
    """The shuffler started afresh: the service asks its state (``GetStatus``) and posts what
    it reports as a ``ShufflerStatus`` event."""

    device: str


@dataclass(frozen=True)
class DeckChecked(Output):
    """A shuffler's count of its set, as the station judged it against the table's decks."""

    device: str
    set_colour: str
    passed: bool
    detail: str
    counted: int
    expected: int
    short: tuple[tuple[str, int], ...]  # card code, copies missing
    over: tuple[tuple[str, int], ...]  # card code, copies beyond the decks (or foreign)


@dataclass(frozen=True)
class CardsAccounted(Output):
    """The cards that left the shoe since the last account, in the order they were read, and
    what the shoe still holds: published when a shoe starts (exposed and burned cards), when a
    round is settled or voided, and when the shoe ends. The integrity monitor's view of every
    card; never shown to players. ``left`` counts each card of :data:`station.cards.FULL_DECK`
    in order (empty when no shoe is in play); ``emptied`` says the shoe reported it had no card
    left."""

    shoe: int
    round_id: str
    stage: str  # "start", "round" or "end"
    cards: tuple[Card, ...]
    left: tuple[int, ...]
    decks: int
    emptied: bool = False
    set_colour: str = ""
    shoe_over: bool = False  # no round follows from this shoe (the last round is done, or it ended)


@dataclass(frozen=True)
class AlertRaised(Output):
    """An integrity alarm (``severity="alarm"``) or alert, with its number for acknowledging it.
    For the supervisor, surveillance and the floor; never the players' board."""

    ident: int
    code: str
    severity: str
    detail: str
    shoe: int
    round_id: str
    stop: bool
    source: str  # "core" (the station's own checks) or "monitor"


@dataclass(frozen=True)
class AlertCleared(Output):
    """A supervisor acknowledged alert ``ident``."""

    ident: int
    code: str
    role: str
    who: str
    note: str
