"""The one interface every game implements, so the table's core never asks which game it plays.

A game is two things:

- a :class:`Game`: the rules that do not change during a round. It reads its table options
  from the configuration, accepts or refuses each bet, opens a round, closes betting ("no
  more bets"), and settles a complete round. One stateless instance per game, found by the
  configured name in :mod:`station.games.registry`.
- a :class:`Play`: one round's cards and decisions, immutable. It says what must happen
  next (:meth:`Play.step`, worded for the dealer by :meth:`Play.instruction`), takes each card
  where the rules put it (:meth:`Play.place`) and each player's decision
  (:meth:`Play.decide`), and once complete gives the result (:meth:`Play.result`). Every
  change returns a new value, so the state machine keeps a round as plain data and replaying
  the journal rebuilds it exactly.

Bets cross this interface in the layout's words (:mod:`station.games.layout`): ``(box,
player, region)`` keys and amounts in minor units, settled into
:class:`~station.games.layout.SettledBet` records.

Like all of :mod:`station.games`, implementations do no I/O, read no clock and keep no
state between calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

from station.cards import Card
from station.games.board import ResultsBoard
from station.games.layout import Acceptance, BetKey, SettledBet
from station.games.limits import TableLimits
from station.games.table import Chips
from station.money import Money


class NotAllowed(ValueError):
    """What was asked of a game cannot happen now; the message says why in a dealer's words
    (the state machine refuses the event with it)."""


class DecisionNeeded(NotAllowed):
    """Betting cannot close until a supervisor decides (baccarat: a table differential the
    station may not, or cannot, meet by itself, rules 5.17/5.18).

    ``decisions`` maps each decision the game can take at :meth:`Game.close_betting` (its
    ``decision`` argument) to what it does, in a supervisor's words. The message says why.
    """

    def __init__(self, reason: str, decisions: Mapping[str, str]) -> None:
        super().__init__(reason)
        self.decisions = dict(decisions)


class Stage(StrEnum):
    """Where a round is, in terms the state machine can act on without knowing the game."""

    DEAL = "deal"  # the round's cards are being dealt
    DECIDE = "decide"  # players must choose before another card comes out
    BURN = "burn"  # cards are burned in the middle of the round (Casino War: before a war)
    DEAL_MORE = "deal_more"  # cards dealt after the players' choices (Casino War: war cards)
    COMPLETE = "complete"  # no card is wanted: the round can be decided


_WANTS_CARD = frozenset({Stage.DEAL, Stage.BURN, Stage.DEAL_MORE})


@dataclass(frozen=True, slots=True)
class Step:
    """What a round needs next. ``deciding`` lists the boxes whose players must choose
    (:attr:`Stage.DECIDE` only)."""

    stage: Stage
    deciding: tuple[int, ...] = ()

    @property
    def wants_card(self) -> bool:
        return self.stage in _WANTS_CARD

    @property
    def complete(self) -> bool:
        return self.stage is Stage.COMPLETE


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a card went: ``position`` as the table names it (``"banker"``, ``"box 3"``,
    ``"war dealer"``), or ``None`` for a card burned; ``play`` is the round after it."""

    position: str | None
    play: Play


@dataclass(frozen=True, slots=True)
class Decision:
    """A player's decision taken: the round after it, and what the round's record keeps of
    it (journal-derived state and game recall show it as it is)."""

    play: Play
    record: dict[str, Any]


@dataclass(frozen=True)
class PlayResult:
    """The decided result of a complete round, in the words the table's outputs use.

    ``record`` is the result as the round keeps it (the state snapshot, game recall, and the
    shoe's results the scoreboard is rebuilt from). ``hands`` and ``totals`` are per
    position, in the order the positions were first dealt to; ``natural`` and the pairs are
    baccarat's (False elsewhere).
    ``bets_stay`` is True when bets on the game's ``carry_regions`` stay on the layout for the
    next round and may be changed before it starts (baccarat after a Tie, rule 5.16).
    """

    record: dict[str, Any]
    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    totals: tuple[tuple[str, int], ...]
    outcome: str
    natural: bool = False
    player_pair: bool = False
    banker_pair: bool = False
    bets_stay: bool = False


@dataclass(frozen=True)
class Closing:
    """Betting closed ("no more bets"): the round's play from now on, and the bets it is
    played for. ``reductions`` lists bets the rules cut at closing as (key, old amount, new
    amount; 0 removes the bet), e.g. for baccarat's table differential (5.17, 5.18)."""

    play: Play
    bets: Mapping[BetKey, int]
    reductions: tuple[tuple[BetKey, int, int], ...] = ()


@dataclass(frozen=True)
class MeterAward:
    """A bet that won a share of a progressive's meter (``percent``) with ``hand``: the game
    decides it, the table's progressive (station/core/progressive_steps.py) values and pays it."""

    key: BetKey
    hand: str
    percent: int


@dataclass(frozen=True)
class Settlement:
    """Every bet of a round settled, in the order the game settles them, and the house's
    result for the round (what it collects minus what it pays: -Σ net). ``meter_awards``: the
    bets that also won a share of a progressive's meter, paid apart from the settlement."""

    bets: tuple[SettledBet, ...]
    house_net: int
    meter_awards: tuple[MeterAward, ...] = ()


@runtime_checkable
class TableOptions(Protocol):
    """What the core may read of any game's table options (the rest is the game's)."""

    @property
    def boxes(self) -> int: ...

    @property
    def min_bet(self) -> int: ...

    @property
    def max_bet(self) -> int: ...

    @property
    def chips(self) -> Chips: ...

    @property
    def smallest_chip(self) -> int: ...

    @property
    def money(self) -> Money:
        """How amounts are written in the reasons a person reads."""
        ...


@runtime_checkable
class Play(Protocol):
    """One round of a game in progress: its cards and decisions. Immutable."""

    def step(self) -> Step:
        """What the round needs next."""
        ...

    def instruction(self) -> str:
        """:meth:`step` in the dealer's words: ``"deal Banker third card"``, ``"burn 3 cards"``."""
        ...

    def place(self, card: Card) -> Placement:
        """The next card out of the shoe, wherever the rules put it. Only while
        :attr:`Step.wants_card`; otherwise raises :class:`NotAllowed`."""
        ...

    def decide(self, box: str, player: str, choice: str) -> Decision:
        """A player's choice (``"war"``, ``"surrender"``) for ``box`` as the layout names it;
        ``player`` empty means everyone on the box who still has to choose. Raises
        :class:`NotAllowed` when nobody there has such a choice to make."""
        ...

    def reveal_due(self, squeeze: bool) -> bool:
        """With cards dealt face down, has a stage ended that must be turned before dealing
        goes on? With ``squeeze`` (dealing styles B and D) each stage is squeezed and turned;
        otherwise the cards are turned once the round needs no more."""
        ...

    def stage_end(self, revealed: int, squeeze: bool) -> int:
        """How many of the cards dealt so far are face up once the dealer's next reveal has
        turned the stage after the first ``revealed``: with ``squeeze`` one stage at a time
        (a card dealt ahead of its stage stays face down), otherwise every card dealt."""
        ...

    def disclosed(self) -> str:
        """What the cards dealt so far tell about the result without any being turned, in a
        supervisor's words (baccarat: whether a hand draws a third card tells about its
        total); empty while they tell nothing. Late bets (5.14) are refused once it is not."""
        ...

    def result(self) -> PlayResult:
        """The result of the complete round; raises :class:`NotAllowed` before it is."""
        ...

    def to_json(self) -> dict[str, Any]:
        """What the round's record keeps of the play beyond its cards (``{}`` for none)."""
        ...


TableT = TypeVar("TableT")
PlayT = TypeVar("PlayT", bound=Play)


@runtime_checkable
class Game(Protocol[TableT, PlayT]):
    """The rules of one game. Stateless: one instance serves every table and every round.

    Attributes:
        name: the name the configuration gives the game (``"baccarat"``, ``"war"``).
        title: the game in words for people (``"baccarat"``, ``"casino war"``).
        regions: the regions of a box every table of the game has, as the layout names them;
            a table may offer more (baccarat's side bets: :meth:`Game.regions_of`).
        region_words: every region any table of the game may take bets on (side bets too),
            in people's words (``"banker"``: "Banker", ``"dragon_7"``: "Dragon 7"); the
            words a screen or a report shows, where the journal and JSON keep the region
            (:func:`station.games.registry.region_words`).
        carry_regions: regions whose bets may stay on for the next round (see
            :attr:`PlayResult.bets_stay`), and be changed until it starts.
        payout_options: the payout options a supervisor may switch between (rule 5.11);
            empty when the game has none.
        choices: the decisions players take during a round (:meth:`Play.decide`), as the
            dealer's actions name them; empty when the rules decide everything.
        betting_choices: the decisions players take while bets are open, recorded by the
            dealer for a box and player (:meth:`Play.decide` on the betting round's play;
            Casino War: ``decline_tie``, the Tie Wager priority of rule 5.11).
        late_bets: whether a supervisor may reopen betting after the first card, while no
            card is revealed (baccarat 5.14).
        hides_cards: whether dealing styles B-D apply: cards known to the shoe but dealt
            face down and turned later.
        table_type: the type of the game's table options.
        limit_keys: the limits a supervisor may change on this game's table
            (:data:`station.games.limits.LIMIT_KEYS` that apply to it).
    """

    name: str
    title: str
    regions: tuple[str, ...]
    region_words: Mapping[str, str]
    carry_regions: tuple[str, ...]
    payout_options: tuple[str, ...]
    choices: tuple[str, ...]
    betting_choices: tuple[str, ...]
    late_bets: bool
    hides_cards: bool
    table_type: type[TableT]
    limit_keys: tuple[str, ...]

    # --- the table ------------------------------------------------------------------------

    def default_table(self) -> TableT:
        """Options of a typical table, for a configuration that gives none."""
        ...

    def settings_problem(self, settings: Any) -> tuple[str, str] | None:
        """The first thing the configuration's ``[table]`` section (read by attribute) says
        that this game's layout cannot have, as (key under ``table``, message); ``None``
        when the layout is possible."""
        ...

    def table_from_settings(self, settings: Any) -> TableT:
        """The game's table options from the configuration's ``[table]`` section. Raises
        :class:`~station.games.table.TableOptionError` naming the option it refuses."""
        ...

    def side_bet_problems(self, settings: Any) -> list[tuple[str, str]]:
        """Every problem of the side bets the ``[table]`` section offers (``side_bets``, a
        mapping of region to an offer with ``pays``, ``min`` and ``max``), as (key under
        ``table``, message): a side bet, pay table or limits the game cannot have."""
        ...

    def regions_of(self, table: TableT) -> tuple[str, ...]:
        """The regions of a box ``table`` takes bets on: :attr:`regions` and the side bets it
        offers, as the layout names them."""
        ...

    def limits_of(self, table: TableT) -> TableLimits:
        """The limits ``table`` has (without the sign's Tie and Pair lines, which are not a
        rule of the game)."""
        ...

    def table_with_limits(self, table: TableT, limits: TableLimits) -> TableT:
        """``table`` under ``limits`` (the game's own checks made: a chip set that cannot pay a
        Banker bet under commission is refused). Raises
        :class:`~station.games.table.TableOptionError` naming the option it refuses."""
        ...

    def wager_keys(self, table: TableT, payout_option: str) -> Mapping[str, str]:
        """Each betting region's wager as :mod:`station.analysis` names it (``banker`` ->
        ``banker_commission``), under the table's payouts: what a rating prices a bet by."""
        ...

    def payout_option(self, table: TableT) -> str:
        """The payout option a table starts with (``""`` when the game has none)."""
        ...

    def variant_of(self, table: TableT) -> str:
        """The table's variant in words for signs and logs (``"mini"``), or ``""`` for a game
        with a single layout."""
        ...

    def limit_lines(self, table: TableT, payout_option: str) -> tuple[tuple[str, int, int], ...]:
        """Lines the limits sign shows besides the table's minimum and maximum, as (name,
        smallest, largest accepted): baccarat's smallest Banker bet rule 5.12 accepts when the
        chips cannot pay one at the table minimum."""
        ...

    def cut_problem(self, box: str, player: str, table: TableT) -> str:
        """Why the player at ``box`` may not cut the cards (baccarat 5.6: standing players
        never do); empty when they may, or when nobody is named (the dealer cut)."""
        ...

    # --- bets and the round ---------------------------------------------------------------

    def accept(
        self, key: BetKey, amount: int, others: Mapping[BetKey, int], table: TableT, payout_option: str,
        play: PlayT,
    ) -> Acceptance:
        """May ``amount`` on ``key`` join ``others`` (the rest of the layout), in the round
        ``play`` whose payout option is ``payout_option`` (the round's, not the configured
        one: rule 5.12 does not apply under 5.11)? A layout entry the game cannot read is
        refused, not raised."""
        ...

    def open_round(self) -> PlayT:
        """A round's play while bets are being placed: no card dealt yet."""
        ...

    def close_betting(
        self, play: PlayT, bets: Mapping[BetKey, int], table: TableT, payout_option: str, decision: str = ""
    ) -> Closing:
        """"No more bets": the play that deals the round. ``play`` keeps any cards already
        dealt when a supervisor reopened betting. Raises :class:`NotAllowed` when the
        round cannot be dealt for these bets, and :class:`DecisionNeeded` when it can once a
        supervisor has decided how; ``decision`` is then one of the decisions it named."""
        ...

    def with_card_holders(self, play: PlayT, bets: Mapping[BetKey, int], table: TableT) -> PlayT:
        """Dealing styles B and D: ``play`` with the players who hold each hand's cards to
        squeeze (baccarat's marker pucks, seed 000 rule 3.3) designated from ``bets``."""
        ...

    def settle(
        self, play: PlayT, bets: Mapping[BetKey, int], table: TableT, payout_option: str
    ) -> Settlement:
        """Every bet of the complete round, settled under ``payout_option``."""
        ...

    def resettle(
        self, play: PlayT, bets: Mapping[BetKey, int], table: TableT, payout_option: str
    ) -> Settlement:
        """A settled round settled again for corrected ``bets`` (a supervisor's correction of a
        bet recorded wrongly), under the round's own cards, decisions and ``payout_option``.
        Raises :class:`NotAllowed` when the round's cards cannot stand for those bets (Casino
        War: a box that was dealt no card, a decision taken by someone else)."""
        ...

    # --- what players are shown ------------------------------------------------------------

    def board(self) -> ResultsBoard:
        """A fresh results board of this game (:mod:`station.games.board`): what the display
        board and the web scoreboard show of the shoe's rounds."""
        ...

    # --- the round's whole state, for checkpoints of the table's ----------------------------

    def play_state(self, play: PlayT) -> dict[str, Any]:
        """Everything ``play`` holds, as JSON (cards as codes): a checkpoint of the table's
        state keeps it, and :meth:`restore_play` gives back an equal play."""
        ...

    def restore_play(self, state: Mapping[str, Any]) -> PlayT:
        """The play :meth:`play_state` wrote."""
        ...
