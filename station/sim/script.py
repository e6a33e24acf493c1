"""What the simulated dealer is told before it starts (what to deal and bet, at what pace, how
it waits for people), and the one way it ends early."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from drivers.simulators import shuffled_shoe
from drivers.simulators.pool import ShoeItem
from station.sim.chip_script import ChipScript

#: Cards left behind the cut card in a dealt shoe (casinos place it 14-16 from the back).
CUT_FROM_BACK = 15


@dataclass
class DealerScript:
    """What the simulated dealer deals and bets, and how it waits for the station."""

    decks: int = 8
    seed: int = 1
    pace_s: float = 1.5
    stacked_shoe: Sequence[ShoeItem] | None = None
    bets: Mapping[str, int] = field(default_factory=dict)
    box: str = "1"
    player: str = "P1"
    rounds: int = 0
    """The session ends after this many rounds (0: no limit): a dealer who knows it never
    starts a round beyond it, even when dealing ahead."""
    chips: ChipScript | None = None
    """At a table that reads its chips: the antennas and the rack the dealer bets and pays with
    (docs/chips.md); None: bets are keyed."""
    patience_s: float = 15.0
    """How long the station may stand still before the dealer says so."""
    gives_up: bool = False
    """What the dealer does when a person is needed (a pause, an irregularity) or the station
    stands still past its patience. False (``station run``): it waits, as a dealer at a table
    waits for the supervisor, saying so in the log now and then, and goes on once the station
    moves again. True (``station demo``, where nobody can decide anything): it stops, and the
    demo ends with the reason."""

    def shoe(self, number: int) -> list[ShoeItem]:
        if self.stacked_shoe is not None:
            return list(self.stacked_shoe)
        size = 52 * self.decks
        return shuffled_shoe(self.decks, self.seed * 1000 + number, size - CUT_FROM_BACK)


class DealerStopped(RuntimeError):
    """The simulated dealer cannot go on (an empty shoe; in a demo, an irregularity or a stall)."""
