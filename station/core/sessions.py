"""Deterministic table sessions: plausible input sequences for tests and benchmarks.

:func:`generate` plays a baccarat session on a manual shoe by asking a machine (without a
journal) what it expects next, and records the inputs: bets (some refused), cards from a
shuffled shoe, the cut card, shoe ends, and irregularities with their decisions (cards before
"no more bets", extra cards, device faults). The same seed always gives the same events, so
a crash test and a benchmark can compare runs of the very same session.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from station.cards import FULL_DECK, Card
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.events import (
    Actor,
    BetPlaced,
    CardDrawn,
    CutCardSeen,
    DealerAction,
    DeviceFault,
    DeviceRecovered,
    Event,
    SupervisorDecision,
)

SUPERVISOR = Actor("supervisor", "sam")


def generate(seed: int, rounds: int, decks: int = 8) -> list[Event]:
    """A deterministic session on a manual shoe, until ``rounds`` rounds are settled or voided."""
    machine = TableMachine(CoreOptions(decks=decks))
    events: list[Event] = []

    def feed(event: Event) -> None:
        events.append(event)
        machine.apply(event)

    drive(seed, rounds, machine, feed)
    return events


def drive(seed: int, rounds: int, machine: TableMachine, feed: Callable[[Event], None]) -> None:
    """Play the session of :func:`generate` on ``machine`` (a manual shoe of its decks), handing
    each input to ``feed``, which applies it to ``machine`` before it returns: a benchmark
    builds a journal of a million rounds this way without holding its inputs in memory."""
    rng = random.Random(seed)
    decks = machine.options.decks
    shoe: list[Card] = []
    cut_at = 0
    cut_done = False

    def draw() -> None:
        nonlocal cut_done
        if not cut_done and len(shoe) <= cut_at:
            cut_done = True
            feed(CutCardSeen("shoe"))
        feed(CardDrawn("shoe", shoe.pop()))

    while machine.rounds_settled + machine.rounds_voided < rounds:
        state = machine.state
        if state == "shuffling":
            shoe = [card for card in FULL_DECK for _ in range(decks)]
            rng.shuffle(shoe)
            cut_at, cut_done = rng.randint(14, 16), False
            feed(DealerAction("shuffle_done"))
        elif state == "cutting":
            feed(DealerAction("confirm_cut"))
        elif state == "burning":
            draw()
        elif state == "betting":
            for _ in range(rng.randint(0, 3)):
                region = rng.choice(["banker", "player", "tie"])
                amount = rng.choice([1000, 2000, 4000, 2500])
                feed(BetPlaced(str(rng.randint(1, 7)), rng.choice("abc"), region, amount))
            if rng.random() < 0.05:
                draw()  # a card before "no more bets": the supervisor has it burned
            else:
                feed(DealerAction("no_more_bets"))
        elif state == "dealing":
            if rng.random() < 0.04:
                feed(DeviceFault("shoe", "no reply"))
            else:
                draw()
        elif state == "paying":
            if rng.random() < 0.05:
                draw()  # a card when the rules say stand
            else:
                feed(DealerAction("next_round"))
        elif state == "irregularity":
            problem = machine.irregularity
            assert problem is not None
            if problem.device and problem.device in machine.faulted:
                feed(DeviceRecovered(problem.device))
            choice = "resume" if "resume" in problem.decisions else problem.decisions[0]
            if problem.reason == "shoe_empty" or (rng.random() < 0.1 and "void" in problem.decisions):
                choice = "void"
            feed(SupervisorDecision(choice, SUPERVISOR))
        else:
            raise AssertionError(f"generator cannot drive state {state}")
