"""Typed outputs of the table: what every reader of the journal hears, live and in replay.

The machine produces these for every input it applies, whether the input arrives now or is
read back from the journal (:mod:`station.core.projection` turns each journal record into its
outputs): the same complete stream either way, so a consumer that starts from the journal
(the floor feed, the integrity monitor, recall) hears exactly what a live subscriber heard.
Who acts on what is the consumer's choice: the core loop hands subscribers only the outputs
of inputs applied now (no command may reach a device twice), and after a restart re-announces
where the table stands (:meth:`station.core.loop.CoreLoop.announce`).

Facts are fields: a round's id is a :class:`~station.core.rounds.RoundId` (its shoe and number
typed), the last round of a shoe is ``ExpectationChanged.last_round``, a round leaving the
table is :class:`RoundClosed` with its whole record; nothing is to be read back from words
meant for people.

Cards and results are only ever published once they may be shown on the table: under dealing
styles B, C and D the station knows each card as it leaves the shoe but holds it back until the
dealer's ``reveal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.cards import Card
from station.core.output_base import Output as Output  # noqa: PLC0414  (re-exported)
from station.core.rounds import BetKey, RoundId
from station.games.layout import SettledBet  # one bet after settlement, as the games record it


@dataclass(frozen=True)
class ExpectationChanged(Output):
    """What the station expects next, in the dealer's words ("burn 7 cards"), and whether the
    round it speaks of is the shoe's last (``last_round``: the cut card is out and no round
    follows this one; the words say so to the dealer, the field to everyone else)."""

    text: str
    last_round: bool = False


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

    round_id: RoundId
    position: str
    index: int
    card: Card


@dataclass(frozen=True)
class RoundResult(Output):
    """The result of a round, published only after every card has been revealed."""

    round_id: RoundId
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

    round_id: RoundId
    game: str
    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    totals: tuple[tuple[str, int], ...]
    outcome: str
    natural: bool
    player_pair: bool
    banker_pair: bool
    bets: tuple[SettledBet, ...]
    house_net: int  # what the house gained on the round (= -sum of net)
    dealer: str = ""  # who dealt it (docs/dealers.md; empty: no dealer signed in)
    #: The bets left on the layout for the next round of the shoe (a Tie's Banker and Player
    #: bets, rule 5.16), as the core keeps them: ((box, player, region), stake).
    carried: tuple[tuple[BetKey, int], ...] = ()
    #: The table minimum and maximum the round was played under (docs/limits.md).
    limits: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class RoundVoided(Output):
    """A round voided by a supervisor: every bet goes back to its owner."""

    round_id: RoundId
    reason: str
    returned: tuple[SettledBet, ...]
    dealer: str = ""  # who had the table (docs/dealers.md)
    limits: tuple[int, int] = (0, 0)  # the table minimum and maximum it was played under


@dataclass(frozen=True)
class RoundClosed(Output):
    """A round left the table (the dealer's "next round" after it was settled or voided):
    its whole record as the table keeps it (:meth:`station.core.rounds.Round.to_json`: bets,
    every card, decisions, settlement, the journal time it opened, the inputs refused while it
    was open). Recall and every other reader of past rounds take it from here."""

    round_id: RoundId
    record: dict[str, Any]


@dataclass(frozen=True)
class ShoeEnded(Output):
    """The shoe is finished: no round follows from it (``rounds`` were opened from it)."""

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
    note: str = ""  # what the supervisor wrote with the decision


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
    round_id: RoundId
    box: str
    player: str
    region: str
    amount: int


@dataclass(frozen=True)
class BetRemoved(Output):
    round_id: RoundId
    box: str
    player: str
    region: str


@dataclass(frozen=True)
class Refused(Output):
    """An input the machine would not act on, with a reason a dealer understands."""

    what: str  # the event kind, e.g. "BetPlaced" or "DealerAction"
    reason: str
    role: str = ""  # who sent it, when the input names someone
    who: str = ""


@dataclass(frozen=True)
class PayoutOptionScheduled(Output):
    """A supervisor changed the Banker payout option (5.11); it applies from the next round."""

    option: str
    applies_from: str  # "next round"
    role: str = ""
    who: str = ""


@dataclass(frozen=True)
class PayoutOptionApplied(Output):
    """The payout option took effect: ``from_round`` is the first round paid under it (the
    sign must show it from this round)."""

    option: str
    from_round: RoundId


@dataclass(frozen=True)
class BetsReduced(Output):
    """Table differential (5.17/5.18): bets on the larger side cut at "no more bets";
    each entry is (box, player, region, old amount, new amount)."""

    round_id: RoundId
    reductions: tuple[tuple[str, str, str, int, int], ...]


@dataclass(frozen=True)
class WarDecisionNeeded(Output):
    """Casino War: these boxes tied with the dealer; each player goes to war or surrenders."""

    round_id: RoundId
    boxes: tuple[str, ...]


@dataclass(frozen=True)
class TablePaused(Output):
    """A supervisor paused the table (between rounds)."""

    role: str
    who: str
    reason: str


@dataclass(frozen=True)
class TableResumed(Output):
    role: str
    who: str


@dataclass(frozen=True)
class LateBetsAllowed(Output):
    """A supervisor reopened betting with cards already out (5.14)."""

    round_id: RoundId
    reason: str
    role: str
    who: str


@dataclass(frozen=True)
class AccessRefused(Output):
    """Someone asked the control socket for a command their role may not give (journaled)."""

    command: str
    role: str
    who: str


@dataclass(frozen=True)
class Checkpointed(Output):
    """The journal holds a checkpoint of the projection here: record ``seq``, the state after
    record ``at`` (:mod:`station.core.checkpoints`). A reader that keeps derived state of its
    own (the integrity monitor) checkpoints it at the same point."""

    at: int
    seq: int


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
class PausePending(Output):
    """A supervisor asked for a pause while the table could not pause (cards in flight, an
    irregularity open): it begins when the round ends (the next state a pause may start
    from), and the dealer's line says so until then."""

    role: str
    who: str
    reason: str


@dataclass(frozen=True)
class PauseWithdrawn(Output):
    """A pause asked for but not yet begun was withdrawn (``resume`` before the round ended)."""

    role: str
    who: str


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


# --- payouts the dealer confirms, and corrections (docs/console.md) ----------------------------


@dataclass(frozen=True)
class PayoutsDue(Output):
    """The round's payouts wait for the dealer's confirmation, box by box, before the next
    round may open (``[console] confirm_payouts``)."""

    round_id: RoundId
    boxes: tuple[str, ...]


@dataclass(frozen=True)
class PayoutsConfirmation(Output):
    """The dealer confirmed the payouts of ``boxes``; ``remaining`` still wait."""

    round_id: RoundId
    boxes: tuple[str, ...]
    remaining: tuple[str, ...]
    role: str
    who: str


@dataclass(frozen=True)
class RoundCorrected(Output):
    """A supervisor corrected a bet of a settled round, and the round was settled again under
    its own rules. ``bet_before`` and ``bet_after`` are (box, player, region, amount);
    ``differences`` each (box, player, region, change of the player's net): positive is paid
    to the player now, negative taken back. ``house_before``/``house_after`` are the house's
    result of the round before and after."""

    round_id: RoundId
    game: str
    bet_before: tuple[str, str, str, int]
    bet_after: tuple[str, str, str, int]
    before: tuple[SettledBet, ...]
    after: tuple[SettledBet, ...]
    house_before: int
    house_after: int
    differences: tuple[tuple[str, str, str, int], ...]
    reason: str
    role: str
    who: str


# --- who deals (docs/dealers.md) ---------------------------------------------------------------


@dataclass(frozen=True)
class DealerChanged(Output):
    """``dealer`` took the table from ``relieved`` (empty: nobody was signed in; an empty
    ``dealer``: ``relieved`` signed out and nobody deals). ``round_id``
    is the round in play that becomes theirs (no card of it was out yet); empty when their
    first round is the next one opened. ``burn``: they burn one card before their first card
    (``[table] burn_on_dealer_change``). ``role``/``who`` signed them in, through ``door``."""

    dealer: str
    relieved: str
    round_id: str
    burn: bool
    role: str
    who: str
    door: str


# The outputs of the table's day (limits, the chip tray, rated play) are in their own module;
# every output is still reached here.
from station.core.chip_outputs import ChipBetsProposed as ChipBetsProposed  # noqa: E402, PLC0414  (re-exported)
from station.core.chip_outputs import ChipPaymentChecked as ChipPaymentChecked  # noqa: E402, PLC0414  (re-exported)
from station.core.chip_outputs import ChipPaymentHeld as ChipPaymentHeld  # noqa: E402, PLC0414  (re-exported)
from station.core.chip_outputs import (  # noqa: E402
    ChipPaymentWasAccepted as ChipPaymentWasAccepted,  # noqa: PLC0414  (re-exported)
)
from station.core.chip_outputs import ChipsMoved as ChipsMoved  # noqa: E402, PLC0414  (re-exported)
from station.core.chip_outputs import ChipsSeen as ChipsSeen  # noqa: E402, PLC0414  (re-exported)
from station.core.chip_outputs import ChipStatusChanged as ChipStatusChanged  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import CashBuyIn as CashBuyIn  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import LimitsApplied as LimitsApplied  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import LimitsScheduled as LimitsScheduled  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import PlayerCardPresented as PlayerCardPresented  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import RatingEnded as RatingEnded  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import RatingStarted as RatingStarted  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import TrayReconciled as TrayReconciled  # noqa: E402, PLC0414  (re-exported)
from station.core.day_outputs import TrayRecorded as TrayRecorded  # noqa: E402, PLC0414  (re-exported)
from station.core.progressive_outputs import ProgressiveHit as ProgressiveHit  # noqa: E402, PLC0414  (re-exported)
from station.core.progressive_outputs import ProgressiveMeter as ProgressiveMeter  # noqa: E402, PLC0414  (re-exported)
from station.core.progressive_outputs import ProgressivePaid as ProgressivePaid  # noqa: E402, PLC0414  (re-exported)
from station.core.progressive_outputs import (  # noqa: E402
    ProgressiveWasReset as ProgressiveWasReset,  # noqa: PLC0414  (re-exported)
)
