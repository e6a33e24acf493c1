"""The simulated dealer's hands at a table that reads its chips (docs/chips.md).

At such a table nobody keys a bet: the players' chips on the betting spots are the bets. The
simulated dealer plays both parts on the simulated chip reader's layout
(:class:`drivers.simulators.chipreader.ChipReaderSimulator`): it puts the script's bets down
as chips from a rack of registered chips, waits until the station shows it believes them
(the bets it proposes equal the chips put down), pays each winning box in its payout zone
and waits for the station to find the payment right, then clears the layout as players and
dealer take their chips, and waits until the station reads it empty. The station hears the
chips only through the reader's wire, as it would at a real table.

The station's chip outputs come to :meth:`ChipHands.heard` from the dealer's pipe; a wait
ends when they say what was expected, or when the dealer is stopped. A wait that lasts longer
than the dealer's patience is said in the log, and then the dealer goes on waiting (a person
at the table may be sorting it out), or stops when it gives up (``station demo``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from station.core import outputs as out
from station.sim.chip_script import ChipScript, RackTooSmall
from station.sim.script import DealerStopped

log = structlog.get_logger(__name__)

#: The chip outputs the dealer's hands wait on.
CHIP_OUTPUTS = (out.ChipsSeen, out.ChipBetsProposed, out.ChipPaymentChecked)


class DealerHalted(Exception):
    """The dealer was stopped while it waited for the station (the session is over)."""


class ChipLayoutDevice(Protocol):
    """What the hands do with the simulated chip reader's layout."""

    def place(self, antenna: int, uids: Iterable[str]) -> None: ...
    def remove(self, antenna: int, uids: Iterable[str] | None = None) -> None: ...


@dataclass
class _Seen:
    """What the station last said of the chips: each place's amount and chips, the spots'
    proposed and keyed amounts, and each box's payment verdict."""

    places: dict[str, frozenset[str]] = field(default_factory=dict)
    spots: dict[str, tuple[int, int]] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)


class ChipHands:
    """Puts chips down, pays and clears, each time waiting for the station to read it."""

    def __init__(self, device: ChipLayoutDevice, script: ChipScript, stop: threading.Event, *,
                 patience_s: float, gives_up: bool) -> None:
        self.device, self.script, self._stop = device, script, stop
        self.patience_s, self.gives_up = patience_s, gives_up
        self._on: dict[str, list[str]] = {}  # place -> chips the dealer put there
        self._seen = _Seen()
        self._changed = threading.Condition()

    @property
    def confirm_by_tap(self) -> bool:
        return self.script.confirm == "tap"

    def heard(self, output: out.Output) -> None:
        """A chip output of the station (from the pipe's thread)."""
        with self._changed:
            if isinstance(output, out.ChipsSeen):
                self._seen.places[output.place] = frozenset(c["uid"] for c in output.chips)
            elif isinstance(output, out.ChipBetsProposed):
                self._seen.spots = {s["place"]: (int(s["chips"]), int(s["keyed"])) for s in output.spots}
            elif isinstance(output, out.ChipPaymentChecked):
                self._seen.verdicts[output.box] = output.verdict
            self._changed.notify_all()

    # -- the bets -------------------------------------------------------------------------------

    def bet(self, box: str, bets: Mapping[str, int]) -> None:
        """Put ``bets`` (region -> amount) down on ``box``'s spots, on top of chips that stayed
        (a Tie's), and wait until the station proposes each as bet; at a table that takes them
        as read, until each is bet."""
        wanted = {}
        for region, amount in bets.items():
            place = f"spot:{box}:{region}"
            have = self._value_on(place)
            if amount > have:
                self._put(place, self._from_rack(amount - have))
            wanted[place] = max(amount, have)
        keyed = not self.confirm_by_tap
        self._wait(lambda seen: all(seen.spots.get(place, (0, 0))[1 if keyed else 0] == amount
                                    for place, amount in wanted.items()),
                   f"the station to read the bets {wanted}")

    def confirmed(self, box: str, bets: Mapping[str, int]) -> None:
        """After the tap: wait until each spot's bet is what its chips say."""
        wanted = {f"spot:{box}:{region}": self._value_on(f"spot:{box}:{region}") for region in bets}
        self._wait(lambda seen: all(seen.spots.get(place, (0, -1))[1] == amount for place, amount in wanted.items()),
                   f"the bets {wanted} to be taken")

    # -- paying and clearing --------------------------------------------------------------------

    def pay(self, owed: Mapping[str, int]) -> None:
        """Each winning box's winnings in its payout zone; wait until the station finds them right."""
        with self._changed:
            self._seen.verdicts = {}
        paying = {box: amount for box, amount in owed.items() if amount > 0 and f"payout:{box}" in self.script.antennas}
        for box, amount in paying.items():
            short = amount - self._value_on(f"payout:{box}")  # a payment begun before a restart is finished
            if short > 0:
                self._put(f"payout:{box}", self._from_rack(short))
        self._wait(lambda seen: all(seen.verdicts.get(box) == "right" for box in paying),
                   f"the station to find the payment {paying} right")

    def clear(self, keep: Iterable[str] = ()) -> None:
        """Players take their winnings and stakes, the dealer the losing chips: every place but
        ``keep`` (spots whose bets stay, after a Tie) is emptied; wait until the station reads them so."""
        kept = set(keep)
        cleared = [place for place in self._on if place not in kept]
        for place in cleared:
            self.device.remove(self.script.antennas[place], self._on.pop(place))
        self._wait(lambda seen: all(not seen.places.get(place) for place in cleared),
                   f"the station to read {', '.join(cleared) or 'the layout'} empty")

    def restore(self, on: Iterable[tuple[str, Iterable[str]]]) -> None:
        """After a restart the simulated layout is empty: the chips the journal last read go
        back where they were (real chips stay on the felt while the PC restarts)."""
        for place, uids in on:
            if place in self.script.antennas:
                self._put(place, list(uids))

    def spots_of(self, regions: Iterable[str]) -> set[str]:
        """The spots of ``regions`` that hold the dealer's chips."""
        wanted = set(regions)
        return {place for place in self._on if place.startswith("spot:") and place.rsplit(":", 1)[1] in wanted}

    # -- the layout -----------------------------------------------------------------------------

    def _put(self, place: str, chips: list[str]) -> None:
        if place not in self.script.antennas:
            raise DealerStopped(f"no antenna is under {place}: [chip_reader.antennas] names none")
        self._on.setdefault(place, []).extend(chips)
        self.device.place(self.script.antennas[place], chips)

    def _from_rack(self, amount: int) -> list[str]:
        try:
            return self.script.chips_for(amount, self._in_use())
        except RackTooSmall as exc:
            raise DealerStopped(str(exc)) from None

    def _value_on(self, place: str) -> int:
        values = {uid: value for value, uids in self.script.rack.items() for uid in uids}
        return sum(values[uid] for uid in self._on.get(place, ()))

    def _in_use(self) -> set[str]:
        return {uid for chips in self._on.values() for uid in chips}

    def _wait(self, done: Callable[[_Seen], bool], what: str) -> None:
        said_at = time.monotonic()
        with self._changed:
            while not done(self._seen):
                if self._stop.is_set():
                    raise DealerHalted(what)
                self._changed.wait(0.1)
                if time.monotonic() - said_at >= self.patience_s:
                    if self.gives_up:
                        raise DealerStopped(f"waited {self.patience_s:.0f} s for {what}")
                    log.warning("simulated_dealer_waits_for_chips", waiting_for=what)
                    said_at = time.monotonic()

