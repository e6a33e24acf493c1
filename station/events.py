"""Typed input events: the only way anything reaches the table's state machine.

Drivers turn bytes into these events and post them to the core's queue; the control
socket and the dealer's buttons do the same. Every event is journaled before it is
applied, so each one must round-trip through :func:`station.event_codec.event_to_dict` /
:func:`station.event_codec.event_from_dict`
exactly (the replayed state after a crash depends on it).

Events are frozen dataclasses. A subclass registers itself under its ``kind`` (the class
name unless given), which is the ``type`` field of its journal record.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from station.cards import Card
from station.event_base import REGISTRY as REGISTRY  # noqa: PLC0414  (re-exported: the events' base)
from station.event_base import Actor as Actor  # noqa: PLC0414
from station.event_base import DeviceEvent as DeviceEvent  # noqa: PLC0414
from station.event_base import Event as Event  # noqa: PLC0414
from station.event_base import EventError as EventError  # noqa: PLC0414

# --- events from devices ------------------------------------------------------------------


@dataclass(frozen=True)
class CardDrawn(DeviceEvent):
    card: Card


@dataclass(frozen=True)
class CutCardSeen(DeviceEvent):
    pass


@dataclass(frozen=True)
class ShoeEmpty(DeviceEvent):
    pass


@dataclass(frozen=True)
class CardsPresent(DeviceEvent):
    pass


@dataclass(frozen=True)
class LidOpened(DeviceEvent):
    pass


@dataclass(frozen=True)
class LidClosed(DeviceEvent):
    pass


class ShufflerState(str, Enum):  # noqa: UP042  journaled and logged in events; StrEnum would change str()/format()
    IDLE = "idle"
    SHUFFLING = "shuffling"
    DONE = "done"  # batch shuffle finished: the set can go into the shoe
    READY = "ready"  # continuous shuffler ready to deliver cards
    JAM = "jam"
    DOOR_OPEN = "door_open"
    ERROR = "error"


@dataclass(frozen=True)
class ShufflerStatus(DeviceEvent):
    state: ShufflerState
    progress: int = 0  # percent, 0-100
    set_colour: str = ""  # colour of the set the shuffler holds ("red", "blue"), "" if unknown
    detail: str = ""


@dataclass(frozen=True)
class DeckCheck(DeviceEvent):
    """The shuffler's count of its set: every card code with its count, and what is wrong."""

    decks: int
    counts: tuple[tuple[str, int], ...]
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.missing and not self.extra


@dataclass(frozen=True)
class DeckCheckUnanswered(DeviceEvent):
    """The station asked the shuffler to count its set and got no count (no answer, a refusal,
    the link lost): the set is not known to be complete, so it does not go into play."""

    reason: str


@dataclass(frozen=True)
class DeviceBooted(DeviceEvent):
    """The device reports that it started afresh (power-up, reset): what it held before may be
    gone, so the station asks it where it stands."""

    reason: str = ""


@dataclass(frozen=True)
class CardsReturned(DeviceEvent):
    """Continuous shuffler: cards from the last round were put back."""

    count: int


@dataclass(frozen=True)
class ButtonPressed(DeviceEvent):
    button: str
    long_press: bool = False


@dataclass(frozen=True)
class DeviceFault(DeviceEvent):
    reason: str
    code: str = ""


@dataclass(frozen=True)
class DeviceRecovered(DeviceEvent):
    pass


# --- events from people and the loop --------------------------------------------------------


@dataclass(frozen=True)
class Timer(Event):
    name: str


# --- events from the table's people: bets, dealer actions, supervisor decisions ------------


@dataclass(frozen=True)
class BetPlaced(Event):
    """A bet put on the layout: ``box`` is a numbered box or a standing region ("S1")."""

    box: str
    player: str
    region: str  # baccarat: banker/player/tie; war: war/tie
    amount: int  # minor units
    actor: Actor = Actor()


@dataclass(frozen=True)
class BetChanged(Event):
    """A bet's amount replaced (after a Tie, or late by supervisor override)."""

    box: str
    player: str
    region: str
    amount: int
    actor: Actor = Actor()


@dataclass(frozen=True)
class BetWithdrawn(Event):
    box: str
    player: str
    region: str
    actor: Actor = Actor()


@dataclass(frozen=True)
class DealerAction(Event):
    """A dealer's button or screen action: ``shuffle_done``, ``confirm_cut``, ``no_more_bets``,
    ``reveal``, ``next_round``, ``call_supervisor``, and in Casino War ``war`` / ``surrender``
    for ``box`` (and ``player``; empty means every undecided player on that box)."""

    action: str
    box: str = ""
    player: str = ""
    actor: Actor = Actor()


@dataclass(frozen=True)
class SupervisorDecision(Event):
    """The decision on the active irregularity: ``void``, ``burn``, ``dummy`` or ``resume``."""

    decision: str
    actor: Actor
    detail: str = ""


@dataclass(frozen=True)
class PayoutOptionChanged(Event):
    """Banker payout option (5.11): ``commission``, ``no_commission`` or ``ez``, from the next round."""

    option: str
    actor: Actor


@dataclass(frozen=True)
class LateBetOverride(Event):
    """Supervisor allows bet changes after "no more bets" while no card is revealed (5.14)."""

    actor: Actor
    reason: str = ""


@dataclass(frozen=True)
class PauseRequested(Event):
    actor: Actor
    reason: str = ""


@dataclass(frozen=True)
class ResumeRequested(Event):
    actor: Actor


@dataclass(frozen=True)
class AccessDenied(Event):
    """Someone authenticated tried a command their role may not use (a dealer deciding an
    irregularity, say). It changes nothing at the table; it is journaled so that who tried
    what, and when, can be answered later."""

    actor: Actor
    command: str


# --- integrity: alerts raised by the monitor, acknowledged by a supervisor -----------------


@dataclass(frozen=True)
class IntegrityAlert(Event):
    """An alarm or alert of the integrity monitor (:mod:`station.integrity`), posted like any
    other input so that it is journaled and replay shows it. ``key`` names the finding (the same
    finding always has the same key, so it is raised once); ``stop`` asks the table to stop the
    round for a supervisor (alarms that prove the shoe is wrong). ``data`` holds the figures
    behind it (statistic, p-value, edge, composition) for the report."""

    code: str
    severity: str  # "alarm" or "alert"
    detail: str
    key: str
    shoe: int = 0
    round_id: str = ""
    stop: bool = False
    data: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class AlertAcknowledged(Event):
    """A supervisor has seen alert ``ident`` (``station ctl send ack``)."""

    ident: int
    actor: Actor
    note: str = ""


# --- payouts the dealer confirms, and corrections a supervisor makes (docs/console.md) ------


@dataclass(frozen=True)
class PayoutConfirmationRequired(Event):
    """From here on the next round opens only once the last one's payouts are confirmed (or,
    with ``required`` false, without). The station posts it at start when ``[console]
    confirm_payouts`` (with the console running) differs from what its journal last said, so
    the journal itself records which rule each round was paid under."""

    required: bool


@dataclass(frozen=True)
class PayoutsConfirmed(Event):
    """The dealer has paid and collected ``boxes`` of the round being paid (empty: every box
    still to confirm); ``round_id`` names that round (empty: whichever is being paid)."""

    round_id: str = ""
    boxes: tuple[str, ...] = ()
    actor: Actor = Actor()


@dataclass(frozen=True)
class BetCorrected(Event):
    """A supervisor's correction of a bet recorded wrongly in a round already settled: the bet
    (``box``, ``player``, ``region``) as recorded was really ``new_amount`` on ``new_region`` of
    ``new_box`` for ``new_player`` (a ``new_amount`` of 0: there was no such bet). The round is
    settled again under its own rules; ``reason`` says why, for the journal."""

    round_id: str
    box: str
    player: str
    region: str
    new_box: str
    new_player: str
    new_region: str
    new_amount: int
    reason: str
    actor: Actor


# --- who deals, and what happened to the station (docs/dealers.md, docs/events.md) ----------


@dataclass(frozen=True)
class DealerSignedIn(Event):
    """``dealer`` takes the table, relieving whoever dealt before. ``door`` says how they
    signed in (``console``, ``buttonbox`` or ``control``); ``actor`` is who did it (the dealer
    themselves, or a supervisor). The machine decides which round is theirs first."""

    dealer: str
    actor: Actor
    door: str = ""


@dataclass(frozen=True)
class DealerSignedOut(Event):
    """``dealer`` left the table: they signed out at a door (or the console signed them out
    after a while without a tap). Nobody deals until the next sign-in; the rounds opened
    meanwhile are no person's (on the simulated table, its simulated dealer plays them)."""

    dealer: str
    actor: Actor
    door: str = ""


@dataclass(frozen=True)
class SignInRefused(Event):
    """Someone was refused at a door before any role was known: a wrong PIN at the console, an
    unknown token on the control socket, a dealer id nobody has on the button box. ``attempts``
    counts the refusals at that door since the last one journaled (a flood is journaled at most
    once a second with its count, never record by record); ``claimed`` is the name given, if
    any. Never the PIN or the token."""

    door: str
    reason: str
    claimed: str = ""
    attempts: int = 1


@dataclass(frozen=True)
class StationStarted(Event):
    """The station started on this journal. What it found of the run before is part of the
    record, so that a reader never has to guess: ``previous_stop`` is ``none`` (the journal's
    first start), ``clean`` (the last run journaled its :class:`StationStopped`), ``unclean``
    (it did not: killed, crashed, or the power went) or ``unknown`` (a journal written before
    stops were journaled). ``boot_id`` is the kernel's id of this boot of the PC: a different
    one after an unclean stop says the PC itself went down (a power loss or a reset)."""

    version: str
    configuration_sha256: str
    boot_id: str
    previous_stop: str
    previous_version: str = ""
    previous_configuration_sha256: str = ""
    previous_boot_id: str = ""
    pid: int = 0


@dataclass(frozen=True)
class StationStopped(Event):
    """The station stopped in order (a signal, a stop asked for): the last record of a run."""

    reason: str


@dataclass(frozen=True)
class JournalOutage(Event):
    """The journal could not be written from ``since`` (UTC) for ``waited_ms`` milliseconds, because
    ``reason``: journaled as soon as it can be written again (nothing could be journaled
    meanwhile; the inputs that waited are journaled just before this)."""

    reason: str
    since: str
    waited_ms: int


@dataclass(frozen=True)
class DiskSpace(Event):
    """The journal's file system crossed ``[station] disk_warning_mb``: ``low`` true when its
    free space went below it (or to nothing), false when it came back. ``at`` is when it was
    measured (UTC): the record may be written later, when a full disk has room again."""

    low: bool
    free_mb: int
    threshold_mb: int
    at: str


# The events below are in modules of their own; every event is still reached here.
# The chip reader's reads (docs/protocols/chipreader.md).
from station.chip_events import ChipsRead as ChipsRead  # noqa: E402, PLC0414  (re-exported)

# What a table that knows its chips journals (docs/chips.md).
from station.chip_inputs import ChipBetsConfirmed as ChipBetsConfirmed  # noqa: E402, PLC0414  (re-exported)
from station.chip_inputs import ChipPaymentAccepted as ChipPaymentAccepted  # noqa: E402, PLC0414  (re-exported)
from station.chip_inputs import ChipRegistryInForce as ChipRegistryInForce  # noqa: E402, PLC0414  (re-exported)
from station.chip_inputs import ChipsOnPlace as ChipsOnPlace  # noqa: E402, PLC0414  (re-exported)
from station.chip_inputs import ChipStatusSet as ChipStatusSet  # noqa: E402, PLC0414  (re-exported)

# The events of the table's day (limits, the chip tray, rated play).
from station.day_events import BuyIn as BuyIn  # noqa: E402, PLC0414  (re-exported)
from station.day_events import DropCounted as DropCounted  # noqa: E402, PLC0414  (re-exported)
from station.day_events import LimitsChanged as LimitsChanged  # noqa: E402, PLC0414  (re-exported)
from station.day_events import PlayerCardRead as PlayerCardRead  # noqa: E402, PLC0414  (re-exported)
from station.day_events import RatingClosed as RatingClosed  # noqa: E402, PLC0414  (re-exported)
from station.day_events import RatingOpened as RatingOpened  # noqa: E402, PLC0414  (re-exported)
from station.day_events import TrayCorrected as TrayCorrected  # noqa: E402, PLC0414  (re-exported)
from station.day_events import TrayCounted as TrayCounted  # noqa: E402, PLC0414  (re-exported)

# The progressive's events (docs/progressive.md).
from station.progressive_events import ProgressivePoolHeard as ProgressivePoolHeard  # noqa: E402, PLC0414  (re-exported)
from station.progressive_events import ProgressiveReset as ProgressiveReset  # noqa: E402, PLC0414  (re-exported)
from station.progressive_events import ProgressiveSignOff as ProgressiveSignOff  # noqa: E402, PLC0414  (re-exported)
