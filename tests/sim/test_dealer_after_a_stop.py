"""The simulated dealer after the table stopped for a person, or its shoe lost cards, in process.

The shoe here is a stand-in whose reports reach the "station" only when a test says so, as the
real simulator's do over its serial line (in order; one on the line at a time; those not yet
sent can be taken back; a reboot loses those queued). The station is the test, which shows the
dealer views and outputs in the order a real station's relay may bring them. The faults of a
real ``station run`` are in test_dealer_after_an_outage.py; these pin each cause down:

- after a stop, the cards whose reports had not gone out are taken back, and the round is dealt
  card by card as the station asks, never on a view one of the dealer's cards still answers;
- a "paying" view heard before the settlement it follows (a supervisor's ``resume`` that
  settles the round in the same event) is acted on once the settlement and payouts come, and
  a confirmation a stop refused is made again;
- a shoe that lost cards in a reboot has them slid past the reader again, as the station asks;
- a war decision refused in a stop is made again when the station asks for it again;
- a continuous shuffler out of reach gets no cards back until it is heard again;
- actions made after the shoe dropped events tell the station's half not to wait for them.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from drivers.codec import shoe as wire
from drivers.codec.protocol import Message
from drivers.simulators import CUT_CARD
from drivers.simulators.pool import CardPool, ShoeItem
from station.cards import Card
from station.core import outputs as out
from station.core.options import CoreOptions
from station.core.rounds import RoundId
from station.events import DealerAction, Event, PayoutsConfirmed
from station.sim.dealer import SIMULATED_DEALER, SimulatedDealer
from station.sim.equipment import DealerEquipment
from station.sim.screen_order import DROP_EPOCH, ScreenOrder
from station.sim.script import DealerScript
from station.sim.table_process import DealerScreen

from .test_dealer_waits import until

PAYING = ("paying", "pay and collect, clear the layout, then next round")
CONFIRM = ("paying", "pay and collect, confirm the payouts of box 1, clear the layout, then next round")
STOPPED = ("irregularity", "waiting for supervisor: device lost during the round (shoe still faulted)")
#: A round of four cards: Player KH 8C (a natural 8), Banker QD 2S; then cards for whatever follows.
ROUND = [Card.parse(code) for code in ("KH", "QD", "8C", "2S")]
REST = [Card.parse(code) for code in ("3D", "4D", "5D", "6D", "7D", "9D")]


class Shoe:
    """A shoe whose reports are sent and delivered when the test says (see the module's docstring)."""

    def __init__(self, items: Iterable[ShoeItem]) -> None:
        self.items: deque[ShoeItem] = deque(items)
        self.outbox: list[list[Any]] = []  # [report, sent]
        self.drawn: list[ShoeItem] = []
        self.events_queued = 0
        self.events_dropped = 0
        self.drop_listeners: list[Callable[[list[Message]], None]] = []
        self._changed = threading.Condition()

    def load(self, items: Iterable[ShoeItem]) -> None:
        self.items = deque(items)

    def attach_pool(self, pool: CardPool) -> None:
        raise AssertionError("not a continuous shuffler's shoe")

    def remaining(self) -> int:
        return sum(1 for item in self.items if item is not CUT_CARD)

    def draw(self) -> ShoeItem:
        with self._changed:
            item = self.items.popleft()
            self.drawn.append(item)
            self.events_queued += 1
            self.outbox.append([item, False])
            self._changed.notify_all()
            return item

    def put_back(self, items: Iterable[ShoeItem]) -> None:
        self.items.extendleft(reversed(list(items)))

    def withdraw_unsent(self) -> list[ShoeItem]:
        with self._changed:
            taken = [report for report, sent in self.outbox if not sent]
            self.outbox = [entry for entry in self.outbox if entry[1]]
            self.events_dropped += len(taken)
            self._changed.notify_all()
        self.put_back(taken)
        return taken

    def wait_idle(self, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: not self.outbox, timeout)

    # --- the test's hand on the line ---------------------------------------------------------

    def send(self, count: int) -> None:
        """The next ``count`` reports go on the line (the station may have them)."""
        with self._changed:
            for entry in [entry for entry in self.outbox if not entry[1]][:count]:
                entry[1] = True

    def deliver(self, count: int) -> None:
        """The station has the next ``count`` reports (and acknowledged them)."""
        with self._changed:
            for entry in self.outbox[:count]:
                assert entry[1], "a report is sent before it is delivered"
            del self.outbox[:count]
            self._changed.notify_all()

    def reboot(self) -> None:
        """Restart: the reports queued and not sent are lost; their maker is told."""
        with self._changed:
            lost = [report for report, sent in self.outbox if not sent]
            self.events_dropped += len(self.outbox)
            self.outbox = []
            self._changed.notify_all()
        messages: list[Message] = [wire.CardRead(item) if isinstance(item, Card) else wire.CutCardRead()
                                   for item in lost]
        for listener in self.drop_listeners:
            listener(messages)

    def wait_drawn(self, count: int) -> list[ShoeItem]:
        until(lambda: len(self.drawn) >= count)
        return self.drawn[:count]


class Table:
    """A simulated dealer at full speed on :class:`Shoe`, and what it posted."""

    def __init__(self, options: CoreOptions | None = None, pace_s: float = 0.0) -> None:
        self.posted: list[Event] = []
        self.shoe = Shoe([*ROUND, *REST])
        script = DealerScript(pace_s=pace_s, patience_s=30, bets={"banker": 2000})
        self.dealer = SimulatedDealer(self.posted.append, options or CoreOptions(), script, shoe=self.shoe,
                                      press=lambda button: False)

    def see(self, *views: tuple[str, str]) -> None:
        for view in views:
            self.dealer.observed(*view)

    def hear(self, *outputs: out.Output) -> None:
        for output in outputs:
            self.dealer.on_output(output)

    def stop_for_a_supervisor(self) -> None:
        self.hear(out.IrregularityRaised(1, "device_fault", "shoe: lost", "1-1", ("resume", "void")))
        self.see(STOPPED)

    def wait_posted(self, event: Event, count: int = 1) -> None:
        until(lambda: self.posted.count(event) >= count)


@pytest.fixture
def table() -> Iterator[Table]:
    made = Table()
    yield made
    made.dealer.stop()


def waits_for_the_station(dealer: SimulatedDealer) -> bool:
    """The dealer has taken everything it was told and waits for the station to say more."""
    frame = sys._current_frames().get(dealer._thread.ident or 0)
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return dealer.watch._heard.empty() and "wait_for_change" in names and "_act" not in names


def settled(number: int) -> out.RoundSettled:
    return out.RoundSettled(RoundId(1, number), "baccarat", (), (), "player", True, False, False, (), 0)


def deal_the_round_ahead(table: Table) -> None:
    """From "paying", the dealer opens the next round and deals all of it in one go."""
    table.dealer.start(*PAYING)
    assert table.shoe.wait_drawn(4) == ROUND
    table.see(("betting", "place your bets"), ("dealing", "deal Player first card"))


def test_a_stop_takes_back_the_cards_not_sent_and_the_round_goes_on_as_the_station_asks(table: Table) -> None:
    deal_the_round_ahead(table)
    table.shoe.send(2)
    table.shoe.deliver(2)  # the station has KH and QD; 8C and 2S wait in the shoe's outbox
    table.see(("dealing", "deal Banker first card"), ("dealing", "deal Player second card"))
    table.stop_for_a_supervisor()
    until(lambda: table.shoe.events_dropped == 2)  # taken back: they would meet the stopped round
    assert list(table.shoe.items)[:2] == ROUND[2:]
    table.see(("dealing", "deal Player second card"))  # resumed
    assert table.shoe.wait_drawn(5)[4] == ROUND[2]  # 8C, slid out again
    table.shoe.send(1)
    table.shoe.deliver(1)
    table.see(("dealing", "deal Banker second card"))
    assert table.shoe.wait_drawn(6)[5] == ROUND[3]
    table.shoe.send(1)
    table.shoe.deliver(1)
    table.hear(settled(1))
    table.see(PAYING)
    next_round = DealerAction("next_round")
    table.wait_posted(next_round, 2)  # the opening's, then after the stop (on the screen)
    assert len(table.shoe.drawn) == 6, table.shoe.drawn  # not one card more than the station asked for


def test_a_view_one_of_the_dealers_cards_still_answers_is_not_dealt_on(table: Table) -> None:
    """8C was on the line when the table stopped: it cannot be taken back, and reaches the
    station after the supervisor's decision. The view the decision leaves ("deal Player second
    card") is the one 8C answers; the dealer waits until the station has taken it."""
    deal_the_round_ahead(table)
    table.shoe.send(3)
    table.shoe.deliver(2)
    table.stop_for_a_supervisor()
    until(lambda: table.shoe.events_dropped == 1)  # 2S only
    table.see(("dealing", "deal Player second card"))
    table.shoe.deliver(1)  # 8C reaches the station; its view is still on its way
    until(lambda: waits_for_the_station(table.dealer))  # it looked, and did not deal on that view
    assert len(table.shoe.drawn) == 4
    table.see(("dealing", "deal Banker second card"))
    assert table.shoe.wait_drawn(5)[4] == ROUND[3]
    table.shoe.send(1)
    table.shoe.deliver(1)
    table.hear(settled(1))
    table.see(PAYING)
    table.wait_posted(DealerAction("next_round"), 2)
    assert len(table.shoe.drawn) == 5, table.shoe.drawn


def test_a_paying_view_heard_before_its_settlement_is_acted_on_when_the_settlement_comes() -> None:
    """The supervisor's ``resume`` applies the cards held with the irregularity and settles the
    round in the same event: the view after that event ("paying") reaches the dealer before the
    settlement and the payouts to confirm. The dealer had confirmed the round before and sent
    "next round" after it; it must not take the new "paying" for that one (it waited for ever)."""
    table = Table(pace_s=0.001)  # at human pace: one card per view
    try:
        table.dealer.resume_payouts(True, "1-4")
        table.dealer.start(*CONFIRM)
        table.wait_posted(DealerAction("next_round"))
        assert table.posted[:2] == [PayoutsConfirmed("1-4", (), SIMULATED_DEALER), DealerAction("next_round")]
        table.see(("betting", "place your bets"), ("dealing", "deal Player first card"))
        table.shoe.wait_drawn(1)
        table.stop_for_a_supervisor()
        table.see(CONFIRM)  # the decision's event: its view first...
        until(lambda: waits_for_the_station(table.dealer))  # (it has looked at that view)
        table.hear(settled(5), out.PayoutsDue(RoundId(1, 5), ("1",)))  # ...then its outputs
        table.wait_posted(DealerAction("next_round"), 2)
        assert PayoutsConfirmed(RoundId(1, 5), (), SIMULATED_DEALER) in table.posted
        confirmed_at = table.posted.index(PayoutsConfirmed(RoundId(1, 5), (), SIMULATED_DEALER))
        assert table.posted[confirmed_at + 1] == DealerAction("next_round")
    finally:
        table.dealer.stop()


def test_a_confirmation_a_stop_refused_is_made_again_when_the_station_still_asks_for_it() -> None:
    """Stopped while it pays (a shuffler's count of the cards back did not match, say), the
    station refuses the confirmation and "next round" the dealer sent; once the supervisor
    lets it go on it pays the same round and still asks for them."""
    table = Table(pace_s=0.001)
    try:
        table.dealer.resume_payouts(True, "1-4")
        table.dealer.start(*CONFIRM)
        table.wait_posted(DealerAction("next_round"))
        table.stop_for_a_supervisor()
        table.see(CONFIRM)
        table.wait_posted(DealerAction("next_round"), 2)
        assert table.posted == [PayoutsConfirmed("1-4", (), SIMULATED_DEALER), DealerAction("next_round")] * 2
    finally:
        table.dealer.stop()


def test_cards_a_rebooted_shoe_lost_are_dealt_again_as_the_station_asks(table: Table) -> None:
    deal_the_round_ahead(table)
    table.shoe.send(2)
    table.shoe.deliver(2)
    table.see(("dealing", "deal Banker first card"), ("dealing", "deal Player second card"))
    table.shoe.reboot()  # 8C and 2S never reach the station, which raises nothing: it waits
    assert table.shoe.wait_drawn(5)[4] == ROUND[2]
    table.shoe.send(1)
    table.shoe.deliver(1)
    table.see(("dealing", "deal Banker second card"))
    assert table.shoe.wait_drawn(6)[5] == ROUND[3]
    table.shoe.send(1)
    table.shoe.deliver(1)
    table.hear(settled(1))
    table.see(PAYING)
    table.wait_posted(DealerAction("next_round"), 2)
    assert len(table.shoe.drawn) == 6, table.shoe.drawn


def test_a_war_decision_refused_in_a_stop_is_made_again() -> None:
    table = Table(CoreOptions(game="war"), pace_s=0.001)
    try:
        table.dealer.start("war_decision", "box 1: P1 goes to war or surrenders")
        table.hear(out.WarDecisionNeeded(RoundId(1, 1), ("1",)))  # heard after its view
        war = DealerAction("war", box="1")
        table.wait_posted(war)
        table.stop_for_a_supervisor()  # the decision reached a stopped table: refused
        table.see(("war_decision", "box 1: P1 goes to war or surrenders"))
        table.wait_posted(war, 2)
        table.see(("war_decision", "box 1: P1 goes to war or surrenders (pause by sam: it begins when the round ends)"))
        table.see(("war_burning", "burn 3 cards"))
        table.shoe.wait_drawn(1)
        assert table.posted.count(war) == 2
    finally:
        table.dealer.stop()


class _Shuffler:
    """A continuous shuffler whose reports reach the station when the test says."""

    def __init__(self) -> None:
        self.idle = threading.Event()
        self.asked = 0  # times the dealer asked whether its reports are out
        self.returned: list[Card] = []

    def wait_idle(self, timeout: float = 5.0) -> bool:
        self.asked += 1
        return self.idle.wait(timeout)

    def return_cards(self, cards: Iterable[Card]) -> None:
        self.returned.extend(cards)


def test_cards_go_back_to_a_continuous_shuffler_only_once_it_has_told_the_station_of_the_last_ones() -> None:
    """Unplugged for a moment, a continuous shuffler keeps its reports of the cards it got back;
    it shuffles them in at once, though, and the shoe deals them again. A dealer who went on
    dropping cards in would have the station count more copies of a card out than the decks
    hold ("impossible card"): it waits for the shuffler to be heard first."""
    shoe, shuffler = Shoe(ROUND), _Shuffler()
    equipment = DealerEquipment(CoreOptions(equipment="continuous"), DealerScript(), shoe,
                                shuffler, None, lambda: None)  # type: ignore[arg-type]  # a stand-in
    equipment.draw()
    equipment.draw()
    collecting = threading.Thread(target=equipment.collect, daemon=True)
    collecting.start()
    until(lambda: shuffler.asked >= 2)  # it waits, and looks again
    assert shuffler.returned == []
    shuffler.idle.set()  # the shuffler is heard again
    collecting.join(10)
    assert shuffler.returned == ROUND[:2]


class _Outbox:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)


class _ShoeCounts:
    def __init__(self) -> None:
        self.events_queued = 0
        self.events_dropped = 0
        self.held: list[int | None] = []

    def hold_after(self, number: int | None) -> None:
        self.held.append(number)


def test_actions_made_after_a_drop_are_numbered_afresh_and_the_station_does_not_wait_for_the_dropped() -> None:
    outbox, shoe = _Outbox(), _ShoeCounts()
    screen = DealerScreen(outbox, shoe)  # type: ignore[arg-type]  # stand-ins for the pipe and the shoe
    posted: list[Event] = []
    order = ScreenOrder(posted.append, lambda number: None)
    shoe.events_queued = 5
    screen.post(DealerAction("next_round"))  # after five shoe events...
    shoe.events_queued, shoe.events_dropped = 7, 4  # ...then two more; four are dropped
    screen.start_afresh()
    screen.post(DealerAction("no_more_bets"))
    (first,), (second,) = (message.actions for message in outbox.sent)
    assert (first.number, first.after) == (1, 5)
    assert (second.number, second.after) == (DROP_EPOCH + 1, 3)  # a new epoch
    assert shoe.held[-1] == 7  # the new action holds what is drawn after it; the old ones nothing
    order.delivered(3)
    order.arrived(first.number, first.after, first.event)
    assert posted == []  # it waits for events 4 and 5, which the shoe dropped
    order.arrived(second.number, second.after, second.event)
    assert posted == [DealerAction("next_round"), DealerAction("no_more_bets")]
