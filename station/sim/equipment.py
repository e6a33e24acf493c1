"""The simulated shoe and shuffler as the simulated dealer handles them.

A dealer loads a shoe by hand or from a batch shuffler, feeds a continuous shuffler, slides
cards out one at a time (setting the cut card aside when it comes), and gives the round's
cards back to a continuous shuffler. Cards the station never heard of (the table stopped
before the shoe's reports of them went out, or the shoe rebooted and lost them) go back on top
of the shoe, to be slid past the reader again when the station asks for a card: as far as the
table's records go, they never left it. After a restart mid-shoe a simulated shoe is empty, so
it is refilled with the cards the station knows are still in it (a real shoe keeps its cards
when the PC restarts); after a restart while the table waits for the cut, it is given the
shoe the dealer had shuffled and put in. What the dealer does with the cards once they are out is
:mod:`station.sim.dealer`'s business.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable
from typing import Protocol

import structlog

from drivers.codec.protocol import Message
from drivers.simulators import CUT_CARD
from drivers.simulators.pool import CardPool, ShoeItem
from drivers.simulators.shoe import shoe_items
from station.cards import Card, ShoeComposition
from station.core.options import CoreOptions
from station.sim.script import CUT_FROM_BACK, DealerScript, DealerStopped

log = structlog.get_logger(__name__)

#: How often a dealer waiting for its equipment looks up (to stop when told).
WAIT_SLICE_S = 0.05


class SimulatedShoe(Protocol):
    """What the dealer does with the simulated shoe (:class:`drivers.simulators.shoe.ShoeSimulator`)."""

    drop_listeners: list[Callable[[list[Message]], None]]
    events_queued: int

    def load(self, items: Iterable[ShoeItem]) -> None: ...
    def attach_pool(self, pool: CardPool) -> None: ...
    def remaining(self) -> int: ...
    def draw(self) -> ShoeItem: ...
    def put_back(self, items: Iterable[ShoeItem]) -> None: ...
    def withdraw_unsent(self) -> list[ShoeItem]: ...
    def wait_idle(self, timeout: float = 5.0) -> bool: ...


class SimulatedShuffler(Protocol):
    """What the dealer does with the simulated shuffler
    (:class:`drivers.simulators.shuffler.ShufflerSimulator`)."""

    def held_cards(self) -> list[Card]: ...
    def load_set(self, cards: Iterable[Card] | None = None, colour: str | None = None) -> None: ...
    def start_shuffle(self) -> object: ...
    def wait_shuffled(self, timeout: float = 10.0) -> bool: ...
    def take_set(self) -> list[Card]: ...
    def return_cards(self, cards: Iterable[Card]) -> None: ...
    def wait_idle(self, timeout: float = 5.0) -> bool: ...


class DealerEquipment:
    """The shoe and the shuffler in the dealer's hands, and which cards are out of them."""

    def __init__(self, options: CoreOptions, script: DealerScript, shoe: SimulatedShoe,
                 shuffler: SimulatedShuffler | None, pool: CardPool | None, pause: Callable[[], None],
                 stop: threading.Event | None = None) -> None:
        self.options = options
        self.stop = stop or threading.Event()  # the dealer is stopping: no wait goes on
        self.script = script
        self.shoe = shoe
        self.shuffler = shuffler
        self.pool = pool
        self._pause = pause
        self.shoes_loaded = 0
        self.cut_card_out = False  # in the shoe being dealt
        self.set_shuffled = False  # batch: a set shuffled and waiting for the station to take it
        self._drawn: list[Card] = []  # cards out of the shoe, not yet back in a shuffler
        self._lost: list[ShoeItem] | None = None  # the shoe lost events (told on another thread): its cards
        self._lost_lock = threading.Lock()
        #: Called (on the shoe's restarting thread) when the shoe lost cards: the dealer looks.
        self.on_lost: Callable[[], None] = lambda: None
        shoe.drop_listeners.append(self._shoe_lost)

    # --- after a restart ---------------------------------------------------------------------

    def refill(self, remaining: ShoeComposition, cut_card_out: bool) -> None:
        """The simulated shoe gets back the cards the station knows are still in it."""
        cards: list[ShoeItem] = [card for card, count in remaining for _ in range(count)]
        random.Random(self.script.seed * 7919 + len(cards)).shuffle(cards)
        if not cut_card_out:
            cards.insert(max(0, len(cards) - CUT_FROM_BACK), CUT_CARD)
        self.shoes_loaded = max(self.shoes_loaded, 1)
        self.cut_card_out = cut_card_out
        self.shoe.load(cards)
        log.info("simulated_shoe_refilled", cards=len(remaining), cut_card_out=cut_card_out)

    def reload_for_the_cut(self, shoes_dealt: int) -> None:
        """After a restart while the station waits for the cut: the new shoe, shuffled and put
        in (by hand, or out of the batch shuffler) before the restart, is back in the simulated
        shoe. The station starts its count of the new shoe only at the cut, so it has no cards
        to give back here; the shoe is the script's next, the same cards as before the restart
        (a shoe is seeded by its number). A shoe that still holds cards is left as it is."""
        if self.options.equipment == "continuous" or self.shoe.remaining():
            return
        self.shoes_loaded = shoes_dealt + 1
        cards = self.script.shoe(self.shoes_loaded)
        self.cut_card_out = False
        self.set_shuffled = False
        self._drawn = []
        self.shoe.load(cards)
        log.info("simulated_shoe_reloaded_for_the_cut", shoe=self.shoes_loaded,
                 cards=sum(1 for card in cards if isinstance(card, Card)))

    def hand_back(self, cards: list[Card]) -> None:
        """Cards already out of a continuous shuffler when the dealer takes over: they go back
        with the next return."""
        self._drawn = list(cards)
        self.shoes_loaded = max(self.shoes_loaded, 1)

    # --- shuffling -----------------------------------------------------------------------------

    def shuffle(self) -> bool:
        """Make the next shoe ready; True when the dealer must then say so on the screen
        (a shoe shuffled by hand; shufflers tell the station themselves)."""
        equipment = self.options.equipment
        if equipment == "manual":
            self.shoes_loaded += 1
            self.shoe.load(self.script.shoe(self.shoes_loaded))
            self.cut_card_out = False
            self._drawn = []
            return True
        if equipment == "batch":
            self._batch_shuffle()
        else:
            self._continuous_ready()
        return False

    def _batch_shuffle(self) -> None:
        """Shuffle the next set in the shuffler. The shuffler's DONE tells the station, which has
        the set counted (its deck check) and only then calls for the cut: the dealer takes the
        set out of the shuffler when the station says so (:meth:`take_shuffled_set`)."""
        if self.set_shuffled:
            return  # shuffled: the station is checking it
        shuffler = self.shuffler
        assert shuffler is not None, "a batch shuffler table needs a simulated shuffler"
        self.shoes_loaded += 1
        if not shuffler.held_cards():
            colour = self.options.set_colours[(self.shoes_loaded - 1) % 2]
            order = [c for c in self.script.shoe(self.shoes_loaded) if isinstance(c, Card)]
            shuffler.load_set(order, colour=colour)
        shuffler.start_shuffle()
        if not shuffler.wait_shuffled(timeout=30):
            raise DealerStopped("the simulated shuffler did not finish its shuffle")
        self.set_shuffled = True

    def take_shuffled_set(self) -> None:
        """The station took the shuffled set: it goes from the shuffler into the shoe with the
        cut card (nothing to do when no set is waiting)."""
        if not self.set_shuffled:
            return
        assert self.shuffler is not None
        cards: list[ShoeItem] = list(self.shuffler.take_set())
        cards.insert(max(0, len(cards) - CUT_FROM_BACK), CUT_CARD)
        self.set_shuffled = False
        self.cut_card_out = False
        self.shoe.load(cards)

    def feed_from_the_shuffler(self) -> None:
        """A continuous shuffler feeds the shoe from the moment it is switched on: the shoe
        deals from its pool. Done when the dealer takes the table, not when the dealer first
        sees the station shuffling: a station that hears the shuffler say READY of itself (it
        asks the shuffler's state at its start) goes straight on to betting, and a dealer
        waiting to see "shuffling" would never give the shoe its cards."""
        assert self.pool is not None, "a continuous shuffler needs a simulated shuffler"
        if self.shoes_loaded == 0:
            self.shoes_loaded = 1
            self.shoe.attach_pool(self.pool)

    def _continuous_ready(self) -> None:
        shuffler = self.shuffler
        assert shuffler is not None and self.pool is not None, "a continuous shuffler needs a simulated shuffler"
        self.feed_from_the_shuffler()
        # Dropping nothing in makes the shuffler report its state (READY), which is what
        # the station waits for before the first round.
        shuffler.return_cards([])

    # --- the cards -------------------------------------------------------------------------------

    def remaining(self) -> int:
        return self.shoe.remaining()

    def draw(self) -> Card:
        """Slide one card out; the cut card, if it comes first, is set aside and the next
        card drawn, as a dealer does."""
        try:
            item = self.shoe.draw()
            if item is CUT_CARD:
                self.cut_card_out = True
                self._pause()
                item = self.shoe.draw()
        except Exception as exc:
            raise DealerStopped(f"cannot draw a card: {exc}") from None
        assert isinstance(item, Card)
        self._drawn.append(item)
        return item

    def take_back(self) -> list[ShoeItem]:
        """The table stopped: the cards slid out whose reports have not gone out yet go back
        on top of the shoe (they would reach the station after the round they were dealt for
        was stopped, or in a round the station never opens). Returns them, in order."""
        items = self.shoe.withdraw_unsent()
        self._forget(items)
        return items

    def lost_cards(self) -> list[ShoeItem] | None:
        """The cards a restarted shoe lost before reporting them, back on top of the shoe to be
        slid past the reader again (the station never heard of them). Returns them, in order;
        None when the shoe has lost nothing since the last call."""
        with self._lost_lock:
            items, self._lost = self._lost, None
        if items:
            self.shoe.put_back(items)
            self._forget(items)
        return items

    def delivered(self, timeout: float) -> bool:
        """Wait at most ``timeout`` s for the shoe to have delivered everything it reported."""
        return self.shoe.wait_idle(timeout)

    def _shoe_lost(self, messages: list[Message]) -> None:
        items = shoe_items(messages)
        with self._lost_lock:
            self._lost = [*(self._lost or []), *items]
        log.info("simulated_shoe_lost_events", events=len(messages), cards=" ".join(str(i) for i in items))
        self.on_lost()

    def _forget(self, items: list[ShoeItem]) -> None:
        """Cards back in the shoe are out of it no more (nor is the cut card)."""
        for item in reversed(items):
            if item is CUT_CARD:
                self.cut_card_out = False
            elif item in self._drawn:
                del self._drawn[len(self._drawn) - 1 - self._drawn[::-1].index(item)]

    def collect(self) -> None:
        """A new round: a continuous shuffler gets back the last round's cards, cleared from
        the layout at "next round", before this round's first card leaves the shoe.

        Not before the shuffler has told the station of the cards it got back last time: it
        shuffles them in at once, and the shoe may deal them again; a station that has not
        heard they are back counts each as one more copy out (a shuffler unplugged for a moment
        at full speed would have dealt the same card more times than the decks hold)."""
        if self.options.equipment == "continuous" and self._drawn:
            shuffler = self.shuffler
            assert shuffler is not None, "a continuous shuffler needs a simulated shuffler"
            while not shuffler.wait_idle(WAIT_SLICE_S):
                if self.stop.is_set():
                    return  # the dealer is stopping: the cards stay on the layout
            cards, self._drawn = self._drawn, []
            shuffler.return_cards(cards)
