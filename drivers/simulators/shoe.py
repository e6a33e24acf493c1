"""Simulated card shoe reader, scriptable by a (simulated) dealer.

``load`` a stacked order (cards and the :data:`CUT_CARD` marker) or ``load_shuffled``
decks with a seed; each ``draw()`` is the dealer sliding the next card out: the reader
reports it (or reports the cut card, when that is next). When the last card has left,
the presence sensor reports the shoe empty. With ``attach_pool`` the shoe is fed by a
continuous shuffler's card pool instead.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from drivers.codec import shoe as wire
from drivers.codec.protocol import Message, Nak, NakCode, SelfTestResult
from drivers.simulators.base import SimulatedDevice
from drivers.simulators.pool import CUT_CARD, CardPool, ShoeItem, shuffled_shoe
from station.cards import Card


class EmptyShoeError(RuntimeError):
    """The dealer tried to draw from an empty shoe."""


def shoe_items(messages: Iterable[Message]) -> list[ShoeItem]:
    """The cards (and the cut card) that shoe events report, in order; other events left out."""
    items: list[ShoeItem] = []
    for message in messages:
        if isinstance(message, wire.CardRead):
            items.append(message.card)
        elif isinstance(message, wire.CutCardRead):
            items.append(CUT_CARD)
    return items


class ShoeSimulator(SimulatedDevice):
    PROTOCOL = "shoe"
    MODEL = "SIM-SHOE-1"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._items: deque[ShoeItem] = deque()
        self._pool: CardPool | None = None
        self._shoe_lock = threading.Lock()
        self.lid_open = False
        self.cards_read = 0
        self.error = wire.ReaderErrorCode.NONE
        self.last_card: Card | None = None
        self.sensor_fault = False  # self-test fails while set

    # -- loading ------------------------------------------------------------------------------

    def load(self, items: Iterable[ShoeItem]) -> None:
        """Put a stacked order in the shoe (front first); reports cards present."""
        items = list(items)
        for item in items:
            if not isinstance(item, Card) and item is not CUT_CARD:
                raise TypeError(f"a shoe holds cards and the cut card, not {item!r}")
        with self._shoe_lock:
            self._pool = None
            self._items = deque(items)
        if any(isinstance(item, Card) for item in items):
            self.send_event(wire.CardsPresentNotice())

    def load_shuffled(self, decks: int, seed: int | None = None, cut_position: int | None = None) -> list[ShoeItem]:
        """Load ``decks`` decks shuffled with ``seed``; returns the order, for checking."""
        order = shuffled_shoe(decks, seed, cut_position)
        self.load(order)
        return order

    def attach_pool(self, pool: CardPool) -> None:
        """Deal from a continuous shuffler's pool (no cut card, no end of shoe while it has cards)."""
        with self._shoe_lock:
            self._pool = pool
            self._items.clear()
        if len(pool):
            self.send_event(wire.CardsPresentNotice())

    def remaining(self) -> int:
        """Cards still in the shoe (the cut card not counted)."""
        with self._shoe_lock:
            if self._pool is not None:
                return len(self._pool)
            return sum(1 for item in self._items if item is not CUT_CARD)

    # -- the dealer ---------------------------------------------------------------------------

    def draw(self, on_sent: Callable[[int], None] | None = None) -> ShoeItem:
        """Slide the next card (or the cut card) out past the reader."""
        with self._shoe_lock:
            if self._pool is not None:
                card = self._pool.take()
                if card is None:
                    raise EmptyShoeError("the shuffler's pool is empty")
                item: ShoeItem = card
                now_empty = len(self._pool) == 0
            else:
                if not self._items:
                    raise EmptyShoeError("the shoe is empty")
                item = self._items.popleft()
                now_empty = not any(isinstance(i, Card) for i in self._items)
        if item is CUT_CARD:
            self.send_event(wire.CutCardRead(), on_sent)
        else:
            assert isinstance(item, Card)
            self.cards_read += 1
            self.last_card = item
            self.send_event(wire.CardRead(item), on_sent)
        if now_empty:
            # the cut card left at the very back does not make the shoe "present"
            self.send_event(wire.ShoeEmptyNotice())
        return item

    def put_back(self, items: Iterable[ShoeItem]) -> None:
        """Cards (and the cut card) the reader never reported go back on top of the shoe, in
        order, to be slid past the reader again (a continuous shuffler's pool takes the cards
        back among the others)."""
        items = list(items)
        with self._shoe_lock:
            if self._pool is not None:
                self._pool.put_back([item for item in items if isinstance(item, Card)])
            else:
                self._items.extendleft(reversed(items))
            self.cards_read -= sum(1 for item in items if isinstance(item, Card))

    def withdraw_unsent(self) -> list[ShoeItem]:
        """Take back the cards slid out whose reports have not gone out yet (see
        :meth:`~drivers.simulators.base.SimulatedDevice.withdraw`), and put them back on top:
        as far as the host knows they never left. Returns them, in the order they were drawn.
        A shoe-empty notice among them goes too (the shoe is not empty any more)."""
        kinds = (wire.CardRead, wire.CutCardRead, wire.ShoeEmptyNotice)
        items = shoe_items(self.withdraw(lambda message: isinstance(message, kinds)))
        self.put_back(items)
        return items

    def open_lid(self) -> None:
        self.lid_open = True
        self.send_event(wire.LidOpenedNotice())

    def close_lid(self) -> None:
        self.lid_open = False
        self.send_event(wire.LidClosedNotice())

    # -- faults -------------------------------------------------------------------------------

    def report_card(self, card: Card) -> None:
        """Report a card that did not come from the loaded order (foreign card, misread)."""
        self.cards_read += 1
        self.send_event(wire.CardRead(card))

    def repeat_last_card(self) -> None:
        """The reader reports the last card a second time (a genuine duplicate read, new seq)."""
        if self.last_card is None:
            raise EmptyShoeError("no card has been drawn yet")
        self.report_card(self.last_card)

    def draw_unreadable(self) -> ShoeItem:
        """The next card leaves the shoe but the reader cannot recognise it."""
        with self._shoe_lock:
            if self._pool is not None:
                item: ShoeItem | None = self._pool.take()
            else:
                item = self._items.popleft() if self._items else None
        if item is None:
            raise EmptyShoeError("the shoe is empty")
        self.send_event(wire.ReaderError(wire.ReaderErrorCode.UNREADABLE_CARD, "card could not be read"))
        return item

    def report_error(self, code: wire.ReaderErrorCode, detail: str = "") -> None:
        self.error = code
        self.send_event(wire.ReaderError(code, detail))

    def empty(self) -> None:
        """Take every card out by hand (the presence sensor reports the shoe empty)."""
        with self._shoe_lock:
            self._items.clear()
            self._pool = None
        self.send_event(wire.ShoeEmptyNotice())

    def on_power_cycle(self) -> None:
        self.cards_read = 0  # counted since power-up
        self.error = wire.ReaderErrorCode.NONE

    # -- commands -----------------------------------------------------------------------------

    def handle_command(self, message: Message) -> Message:
        if isinstance(message, wire.ShoeGetStatus):
            return wire.ShoeStatus(self.lid_open, self.remaining() > 0, self.cards_read, self.error)
        return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)

    def self_test_result(self) -> SelfTestResult:
        if self.sensor_fault:
            return SelfTestResult(False, int(wire.ReaderErrorCode.SENSOR_FAULT), "optical sensor does not respond")
        return SelfTestResult(True, 0, "reader and sensors ok")
