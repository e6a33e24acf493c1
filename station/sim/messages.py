"""What the station and its simulated table say to each other over their pipe.

Each message is a small frozen dataclass, so both ends tell them apart by type (``match``)
rather than by a string tag, and a message that is not one of these is a programming error
the receiving end reports instead of guessing at. They cross a ``multiprocessing`` pipe,
which pickles them; every field is plain data (strings, numbers, cards, outputs, events).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from station.cards import Card, ShoeComposition
from station.core import outputs as out
from station.events import Event


@dataclass(frozen=True, slots=True)
class View:
    """The station's state and the expectation it shows, once an event is applied."""

    state: str
    expectation: str


@dataclass(frozen=True, slots=True)
class Resume:
    """Where the station stands when the dealer takes over (after replaying its journal)."""

    state: str
    expectation: str
    remaining: ShoeComposition | None = None
    """The cards still in the shoe, to refill a simulated shoe after a restart mid-shoe."""
    cut_card_out: bool = False
    shoe_in_progress: bool = False
    """The journal has a shoe under way (a continuous shuffler's pool must then be resumed)."""
    out_cards: tuple[Card, ...] = ()
    """Continuous shuffler: cards the journal says are out of it (dealt or awaiting return)."""
    round_cards: tuple[Card, ...] = ()
    """The cards already dealt, in order, in a round the journal left open: the dealer goes on
    from them instead of dealing the round again."""
    shoes_dealt: int = 0
    """The journal's shoe number: the dealer's next shoe is a new one (a shuffled shoe is
    seeded by its number, so counting from 1 again after a restart would deal a shoe the
    table has already seen)."""
    last_outcome: str = ""
    """How the last settled round of the shoe ended (after a Tie, the bets stay on the layout)."""
    confirm_payouts: bool = False
    """The table wants each round's payouts confirmed before the next round opens."""
    payouts_due: str = ""
    """The round, settled before the restart, whose payouts still wait for the dealer's
    confirmation (the station said so before it stopped; it does not say it again)."""
    chips_on: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """At a chip table: the chips the journal last read on each place. A restarted simulated
    reader has an empty layout; the dealer puts them back, as real chips stay on the felt."""
    chips_owed: tuple[tuple[str, int], ...] | None = None
    """At a chip table, a settled round not yet cleared: what each of its boxes is owed."""


# --- station to table ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Begin:
    """Let the dealer play from where the station stands."""

    resume: Resume


@dataclass(frozen=True, slots=True)
class Seen:
    """What the dealer sees, in order: views and the outputs it acts on."""

    items: tuple[View | out.Output, ...]


@dataclass(frozen=True, slots=True)
class Posted:
    """The station has posted every screen action up to ``number`` to its core loop."""

    number: int


@dataclass(frozen=True, slots=True)
class HaltDealer:
    """The dealer stops dealing; the simulated devices stay up for the station's drivers."""


@dataclass(frozen=True, slots=True)
class StopTable:
    """Stop the dealer and the simulators, and end the table's process."""


ToTable = Begin | Seen | Posted | HaltDealer | StopTable


# --- table to station ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ready:
    """The simulators are up: the port each simulated serial device is opened on."""

    ports: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StartFailed:
    """A simulator could not be started; the table's process has ended."""

    error: str


@dataclass(frozen=True, slots=True)
class ScreenAction:
    """One action from the dealer's screen, numbered, with the count of shoe events the
    simulated shoe had set off before it (the station posts it only after those)."""

    number: int
    after: int
    event: Event


@dataclass(frozen=True, slots=True)
class ScreenActions:
    """Actions made in one go (a round's opening bets and calls), in order."""

    actions: tuple[ScreenAction, ...]


@dataclass(frozen=True, slots=True)
class PedalPress:
    """The dealer's foot on a simulated pedal (the pedals live in the station's process)."""

    button: str


@dataclass(frozen=True, slots=True)
class DealerEnded:
    """The dealer has stopped; ``error`` says why when it could not go on."""

    error: str | None


@dataclass(frozen=True, slots=True)
class TableStopping:
    """The table's process was told to stop (SIGINT or SIGTERM sent to it): the station stops
    too, in order, and then stops the table."""

    reason: str


FromTable = Ready | StartFailed | ScreenActions | PedalPress | DealerEnded | TableStopping
