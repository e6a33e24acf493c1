"""Simulated shuffler: batch (shuffle a set, then hand it over) or continuous (a shared pool).

Batch: ``load_set`` puts a set in, ``start_shuffle`` (or the host's StartShuffle) runs
the shuffle in steps reporting progress, then DONE; ``take_set()`` hands the shuffled
cards to the dealer for the shoe. Continuous: the shuffler owns a :class:`CardPool`
that the simulated shoe draws from; ``return_cards`` puts a round's cards back.
Faults: ``jam``, ``open_door``, short or foreign sets (``remove_cards``/``add_cards``).
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any

from drivers.codec import shuffler as wire
from drivers.codec.protocol import Ack, Message, Nak, NakCode, SelfTestResult
from drivers.simulators.base import SimulatedDevice
from drivers.simulators.pool import CardPool
from station.cards import FULL_DECK, Card

S = wire.WireShufflerState


class ShufflerSimulator(SimulatedDevice):
    PROTOCOL = "shuffler"
    MODEL = "SIM-SHUFFLER-1"

    def __init__(
        self,
        *,
        mode: str = "batch",
        decks: int = 8,
        set_colour: str = "red",
        seed: int | None = None,
        load: bool = True,
        steps: int = 4,
        step_delay: float = 0.01,
        pool: CardPool | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.mode = wire.ShufflerMode[mode.upper()]
        self.decks = decks
        self.set_colour = set_colour
        self.steps = steps
        self.step_delay = step_delay
        self._rng = random.Random(seed)
        self.state = S.READY if self.mode is wire.ShufflerMode.CONTINUOUS else S.IDLE
        self.progress = 0
        self.detail = ""
        self._cards: list[Card] = []
        self._state_lock = threading.RLock()
        self._shuffle_thread: threading.Thread | None = None
        self._abort = threading.Event()
        self.pool: CardPool | None = None  # continuous mode: the cards inside, shared with the shoe
        if self.mode is wire.ShufflerMode.CONTINUOUS:
            self.pool = pool or CardPool.of_decks(decks, seed)
        elif load:
            self._cards = [card for _ in range(decks) for card in FULL_DECK]

    # -- scripting ------------------------------------------------------------------------------

    def load_set(self, cards: Iterable[Card] | None = None, colour: str | None = None) -> None:
        """Batch: put a set in (default: ``decks`` full decks)."""
        with self._state_lock:
            self._cards = list(cards) if cards is not None else [c for _ in range(self.decks) for c in FULL_DECK]
            if colour is not None:
                self.set_colour = colour
            self._set(S.IDLE, 0, "")

    def held_cards(self) -> list[Card]:
        with self._state_lock:
            return self.pool.cards() if self.pool is not None else list(self._cards)

    def remove_cards(self, cards: Iterable[Card]) -> None:
        """Fault: take cards out of the set (a short deck)."""
        for card in cards:
            if self.pool is not None:
                self.pool.remove(card)
            else:
                self._cards.remove(card)

    def add_cards(self, cards: Iterable[Card]) -> None:
        """Fault: slip extra cards in (duplicates or a foreign card)."""
        cards = list(cards)
        if self.pool is not None:
            self.pool.put_back(cards)
        else:
            self._cards.extend(cards)

    def start_shuffle(self) -> Nak | None:
        """What the shuffle button does; returns the refusal, if any."""
        with self._state_lock:
            if self.mode is wire.ShufflerMode.CONTINUOUS:
                return Nak(NakCode.NOT_ALLOWED_NOW, "continuous shuffler shuffles all the time")
            if self.state is S.SHUFFLING:
                return Nak(NakCode.BUSY, "already shuffling")
            if self.state is S.DOOR_OPEN:
                return Nak(NakCode.DOOR_OPEN, "close the door first")
            if self.state is S.JAM:
                return Nak(NakCode.JAM, "clear the jam first")
            if not self._cards:
                return Nak(NakCode.NOT_ALLOWED_NOW, "no cards inside")
            self._abort.clear()
            self._set(S.SHUFFLING, 0, "")
            self._shuffle_thread = threading.Thread(target=self._shuffle, daemon=True, name=f"sim-{self.name}-shuffle")
            self._shuffle_thread.start()
            return None

    def wait_shuffled(self, timeout: float = 10.0) -> bool:
        thread = self._shuffle_thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive() and self.state is S.DONE
        return self.state is S.DONE

    def take_set(self) -> list[Card]:
        """Batch: the dealer takes the shuffled set out (for the shoe)."""
        with self._state_lock:
            if self.state is not S.DONE:
                raise RuntimeError(f"the set is not shuffled (state {self.state.name.lower()})")
            cards, self._cards = self._cards, []
            self._set(S.IDLE, 0, "")
            return cards

    def return_cards(self, cards: Iterable[Card]) -> None:
        """Continuous: the dealer drops a round's cards in; the shuffler reports how many."""
        if self.pool is None:
            raise RuntimeError("only a continuous shuffler takes cards back during play")
        cards = list(cards)
        self.pool.put_back(cards)
        self.send_event(wire.CardsReturnedNotice(len(cards)))
        with self._state_lock:
            if self.state in (S.READY, S.IDLE):
                self._set(S.READY, 100, "")

    def jam(self, detail: str = "card jam in the elevator") -> None:
        self._abort.set()
        with self._state_lock:
            self._set(S.JAM, self.progress, detail)

    def clear_jam(self) -> None:
        with self._state_lock:
            self._set(self._resting_state(), 0, "")

    def open_door(self) -> None:
        self._abort.set()
        with self._state_lock:
            self._set(S.DOOR_OPEN, self.progress, "door open")

    def close_door(self) -> None:
        with self._state_lock:
            self._set(self._resting_state(), 0, "")

    def fail(self, detail: str) -> None:
        with self._state_lock:
            self._set(S.ERROR, self.progress, detail)

    # -- protocol -------------------------------------------------------------------------------

    def handle_command(self, message: Message) -> Message:
        if isinstance(message, wire.ShufflerGetStatus):
            with self._state_lock:
                return wire.StatusReport(
                    self.state, self.progress, self.mode, self.set_colour, len(self.held_cards()), self.detail
                )
        if isinstance(message, wire.StartShuffle):
            refusal = self.start_shuffle()
            return refusal or Ack()
        if isinstance(message, wire.RequestDeckCheck):
            return self.deck_check_report()
        return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)

    def deck_check_report(self) -> wire.DeckCheckReport:
        held = Counter(self.held_cards())
        expected = Counter(dict.fromkeys(FULL_DECK, self.decks))
        counts = tuple(wire.CardCount(card, n) for card, n in sorted(held.items()))
        missing = tuple(sorted((expected - held).elements()))
        extra = tuple(sorted((held - expected).elements()))
        return wire.DeckCheckReport(self.decks, counts, missing, extra)

    def self_test_result(self) -> SelfTestResult:
        if self.state in (S.JAM, S.ERROR):
            return SelfTestResult(False, int(self.state), self.detail)
        return SelfTestResult(True, 0, "motors and sensors ok")

    # -- internals ------------------------------------------------------------------------------

    def _resting_state(self) -> S:
        return S.READY if self.mode is wire.ShufflerMode.CONTINUOUS else S.IDLE

    def _set(self, state: S, progress: int, detail: str) -> None:
        self.state, self.progress, self.detail = state, progress, detail
        self.send_event(wire.StatusChanged(state, progress, self.set_colour, detail))

    def _shuffle(self) -> None:
        for step in range(1, self.steps + 1):
            if self._abort.wait(self.step_delay):
                return
            with self._state_lock:
                if self.state is not S.SHUFFLING:
                    return
                if step == self.steps:
                    self._rng.shuffle(self._cards)
                    self._set(S.DONE, 100, "")
                else:
                    self._set(S.SHUFFLING, step * 100 // self.steps, "")
