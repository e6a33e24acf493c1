"""Play with chips on a real journal, for the meters to count (docs/chips.md, docs/meters.md):
the shipped chip table (config/examples/baccarat-chips.toml, its registry's chips), the
station's own core loop and the journal's own writer, the chip reader's stable reads posted as
the chip-reader part of the station journals them (:class:`~station.chip_inputs.ChipsOnPlace`).

:func:`play_mistakes` plays three rounds in which every kind of chip finding happens once or
more, by two dealers, and says what the meters must count (:class:`Expected`): a chip
past-posted and a chip pinched after no more bets, losing chips left on a spot, wrong payments
over, under and both at once, two accepted by a supervisor and one put right by the dealer.
A chip moves after no more bets only in a round with one spot bet: the core reads every other
locked spot as emptied when one spot is read (reported to the lead with issue 38).
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from station.cards import parse_cards
from station.chip_inputs import ChipBetsConfirmed, ChipPaymentAccepted, ChipsOnPlace, ChipStatusSet
from station.chips.registry import ChipStanding, ChipStatus
from station.config.options import CONFIGURATION_RECORD, core_options, new_journal_record
from station.core import outputs as out
from station.core.loop import CoreLoop
from station.events import Actor, CardDrawn, DealerAction, DealerSignedIn, Event, SupervisorDecision
from station.journal import Journal
from station.service.config import load_config

from .week import EVENING, FIRST_NIGHT, REPO, VIENNA, FakeClock

EXAMPLE = REPO / "config" / "examples" / "baccarat-chips.toml"
REGISTRY = EXAMPLE.with_suffix(".csv")
SUPERVISOR = Actor("supervisor", "sam")
BANKER_WINS = "KH 2D 6S 2C 3H"  # player 6, banker 4 draws a 3: banker 7 wins
PLAYER_WINS = "9H 2D KS 3C"  # player 9 (a natural) to banker 5


def rack() -> dict[int, list[str]]:
    """The shipped registry's active chips by value (minor units), UIDs in the file's order."""
    chips: dict[int, list[str]] = {}
    with REGISTRY.open(newline="") as text:
        for row in csv.DictReader(text):
            if row["status"] == "active":
                whole, _, cents = row["value"].partition(".")
                chips.setdefault(int(whole) * 100 + int(cents or 0), []).append(row["uid"])
    return chips


def chips_config(folder: Path) -> Path:
    """The shipped chip table, its dealer not simulated (the test deals), its registry named
    where it ships."""
    text = EXAMPLE.read_text().replace("simulated = true", "simulated = false").replace(
        'registry = "baccarat-chips.csv"', f'registry = "{REGISTRY}"')
    path = folder / "station.toml"
    path.write_text(text)
    return path


@dataclass
class Expected:
    """What the meters must count: each dealer's ``chips`` figures (docs/meters.md)."""

    by_dealer: dict[str, dict[str, int]] = field(default_factory=dict)
    rounds: list[str] = field(default_factory=list)

    def add(self, dealer: str, **counts: int) -> None:
        mine = self.by_dealer.setdefault(dealer, {})
        for key, value in counts.items():
            mine[key] = mine.get(key, 0) + value


class ChipPlayer:
    """Deals on a core loop: ``post`` journals and applies one input, then the clock (when the
    player has one) moves on a few seconds."""

    def __init__(self, loop: CoreLoop, clock: FakeClock | None = None) -> None:
        self.loop, self.clock = loop, clock
        self.read = 0
        self.chips = rack()
        self.used: dict[int, int] = {}
        self.dealer = ""
        self.heard: list[out.Output] = []
        loop.subscribe(self.heard.append)

    def post(self, event: Event, seconds: float = 4.0) -> None:
        self.loop.post(event)
        self.loop.run_pending()
        if self.clock is not None:
            self.clock.advance(seconds)

    @property
    def state(self) -> str:
        return self.loop.state

    def last(self, kind: type[out.Output]) -> out.Output | None:
        """The last output of ``kind`` the loop gave since the player sat down."""
        found = [o for o in self.heard if isinstance(o, kind)]
        return found[-1] if found else None

    def chip(self, value: int) -> ChipStanding:
        """A fresh chip of the rack worth ``value`` (each one on the table once)."""
        index = self.used.get(value, 0)
        self.used[value] = index + 1
        return ChipStanding(self.chips[value][index], ChipStatus.ACTIVE, value)

    def lay(self, place: str, *chips: ChipStanding) -> None:
        """The reader's stable read: ``place`` holds exactly ``chips`` now."""
        self.read += 1
        self.post(ChipsOnPlace(place, chips, read=self.read, at_ms=self.read * 100), seconds=1.0)

    def draw(self, cards: str) -> None:
        for card in parse_cards(cards):
            self.post(CardDrawn("shoe", card), seconds=2.0)

    def act(self, action: str) -> None:
        self.post(DealerAction(action))

    def sign_in(self, dealer: str) -> None:
        self.dealer = dealer
        self.post(DealerSignedIn(dealer, SUPERVISOR, "control"))

    def open_shoe(self) -> None:
        """Shuffled, cut, AS exposed and one card burned: betting."""
        self.act("shuffle_done")
        self.act("confirm_cut")
        self.draw("AS 2C")
        assert self.state == "betting", self.state

    def clear(self) -> None:
        """Every place that holds chips is read empty (the dealer cleared the layout)."""
        layout = self.loop.machine.chip_layout
        assert layout is not None
        for place in sorted(p for p, chips in layout.seen.items() if chips):
            self.lay(place)

    def pay_what_is_owed(self) -> None:
        """Each box of the round being paid that is not paid right gets what it is owed in its
        payout zone (chips of the rack, largest first)."""
        view = self.loop.machine.chip_view()
        assert view is not None
        for check in view["payment"]:
            if check["verdict"] != "right":
                left, chips = check["owed"], []
                for value in sorted(self.chips, reverse=True):
                    while left >= value:
                        chips.append(self.chip(value))
                        left -= value
                self.lay(f"payout:{check['box']}", *chips)

    def decide(self, decision: str, detail: str) -> None:
        assert self.state == "irregularity", self.state
        self.post(SupervisorDecision(decision, SUPERVISOR, detail))


def play_mistakes(player: ChipPlayer, first: str = "ann", second: str = "bob") -> Expected:
    """Three rounds from betting (see the module's docstring); each ends back at betting with
    the layout clear. ``first`` deals the first, ``second`` the other two."""
    expected = Expected()
    p = player
    ten, five = (lambda: p.chip(1000)), (lambda: p.chip(500))
    p.sign_in(first)

    # Round 1: a 5.00 chip past-posted on the Banker; Box 1 paid 10.00 of 19.00 (held, accepted).
    t1, t2 = ten(), ten()
    p.lay("spot:1:banker", t1, t2)
    p.post(ChipBetsConfirmed(Actor("dealer", first)))
    p.act("no_more_bets")
    p.draw("KH 2D")
    p.lay("spot:1:banker", t1, t2, five())
    p.decide("resume", "the late chip given back")
    p.draw("6S 2C 3H")
    assert p.state == "paying", p.state
    p.lay("payout:1", ten())
    p.act("next_round")
    held = p.last(out.ChipPaymentHeld)
    assert isinstance(held, out.ChipPaymentHeld) and held.difference == -900, held
    p.post(ChipPaymentAccepted(held.round_id, SUPERVISOR, "paid 9.00 in cash"))
    p.clear()
    p.act("next_round")
    assert p.state == "betting", p.state
    expected.rounds.append(held.round_id)
    expected.add(first, past_posting=1, past_posting_amount=500, wrong_payments=1, paid_over=0, paid_under=900,
                 payments_accepted=1)

    # Round 2, a new dealer: a 10.00 chip pinched from the Player; Box 2 paid 25.00 of 20.00
    # (held), then put right by the dealer.
    p.sign_in(second)
    t5, t6 = ten(), ten()
    p.lay("spot:2:player", t5, t6)
    p.post(ChipBetsConfirmed(Actor("dealer", second)))
    p.act("no_more_bets")
    p.lay("spot:2:player", t5)
    p.decide("resume", "the chip put back in the player's stack")
    p.draw(PLAYER_WINS)
    assert p.state == "paying", p.state
    t7, t8 = ten(), ten()
    p.lay("payout:2", t7, t8, five())
    p.act("next_round")
    held = p.last(out.ChipPaymentHeld)
    assert isinstance(held, out.ChipPaymentHeld) and held.difference == 500, held
    p.lay("payout:2", t7, t8)
    p.clear()
    p.act("next_round")
    assert p.state == "betting", p.state
    expected.rounds.append(held.round_id)
    expected.add(second, pinching=1, pinching_amount=1000, wrong_payments=1, paid_over=500, paid_under=0)

    # Round 3: Box 1 paid 10.00 of 19.00 and Box 2, whose bet lost, 5.00 of nothing: one wrong
    # payment, over and under at once (held, accepted); Box 2's losing chip is still on its spot
    # when the next round is called. A supervisor flags a chip meanwhile.
    p.lay("spot:1:banker", ten(), ten())
    p.lay("spot:2:player", ten())
    p.post(ChipBetsConfirmed(Actor("dealer", second)))
    p.act("no_more_bets")
    p.draw(BANKER_WINS)
    p.lay("payout:1", ten())
    p.lay("payout:2", five())
    p.post(ChipStatusSet(p.chip(2500).uid, "flagged", "reported stolen", SUPERVISOR))
    p.act("next_round")
    held = p.last(out.ChipPaymentHeld)
    assert isinstance(held, out.ChipPaymentHeld) and held.difference == -400, held
    p.post(ChipPaymentAccepted(held.round_id, SUPERVISOR, "box 2 gave back 5.00; box 1 paid 9.00 in cash"))
    for place in ("payout:1", "payout:2", "spot:1:banker"):
        p.lay(place)
    p.act("next_round")
    assert p.state == "betting", p.state
    p.clear()
    expected.rounds.append(held.round_id)
    expected.add(second, wrong_payments=1, paid_over=500, paid_under=900, payments_accepted=1,
                 left_on_losing_spot=1, left_on_losing_spot_amount=1000)
    return expected


def play_chip_journal(folder: Path, *, prepare: Callable[[CoreLoop], None] | None = None,
                      checkpoint_every: int = 10) -> tuple[Path, Expected]:
    """Write a journal of the shipped chip table in ``folder``: a shoe opened and the three
    rounds of :func:`play_mistakes`, on an evening in Vienna. ``prepare`` sees the loop before
    the first input (the meters service, as ``station run`` has it)."""
    loaded = load_config(chips_config(folder))
    options = core_options(loaded.config, loaded.path)
    clock = FakeClock(FIRST_NIGHT.replace(tzinfo=VIENNA) + EVENING - timedelta(minutes=5))
    path = folder / "journal.sqlite3"
    journal = Journal(path, clock=clock.wall)
    journal._require_open().execute("PRAGMA synchronous = OFF")  # as the week's (tests/meters/week.py)
    journal.append(CONFIGURATION_RECORD, new_journal_record(loaded.config))
    loop = CoreLoop(journal, options, clock=clock.monotonic, checkpoint_every=checkpoint_every)
    if prepare is not None:
        prepare(loop)
    try:
        player = ChipPlayer(loop, clock)
        player.open_shoe()
        expected = play_mistakes(player)
    finally:
        loop.close()
    return path, expected
