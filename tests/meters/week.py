"""A generated week of play on a real journal: the station's own core loop, the journal's own
writer, and a clock the generator moves, so a week passes in seconds.

The table is the default configuration's (mini baccarat, 8 decks, Europe/Vienna, gaming days
from 06:00). It plays two stretches a night around the start of the gaming day, 21:00 and
05:54 local, from 2026-03-25 to 2026-04-01: the night of 28-29 March the clocks go forward at
02:00, so gaming day 2026-03-28 is 23 hours long and its end, 06:00 CEST, falls in the morning
stretch. Between stretches a supervisor pauses the table. What the generator makes happen, for
the meters to count: refused bets (over the table maximum), device faults (irregularities, one
round voided), a correction of a settled round, an integrity alarm, and the shoes' ends with
their cut cards. Two dealers, ann and bob, sign in at the start of each stretch by turns (the
one already at the table is refused), and once one relieves the other in the middle of a
stretch.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from station.cards import FULL_DECK, Card
from station.config.options import CONFIGURATION_RECORD, core_options, new_journal_record
from station.core import outputs as out
from station.core.checkpoints import EVERY_RECORDS
from station.core.loop import CoreLoop
from station.events import (
    Actor,
    BetCorrected,
    BetPlaced,
    CardDrawn,
    CutCardSeen,
    DealerAction,
    DealerSignedIn,
    DeviceFault,
    DeviceRecovered,
    DropCounted,
    Event,
    IntegrityAlert,
    LimitsChanged,
    PauseRequested,
    ResumeRequested,
    SupervisorDecision,
    TrayCounted,
)
from station.journal import Journal
from station.service.config import load_config

REPO = Path(__file__).resolve().parents[2]
VIENNA = ZoneInfo("Europe/Vienna")
SUPERVISOR = Actor("supervisor", "sam")
#: The first and last evening of the week (local dates).
FIRST_NIGHT = datetime(2026, 3, 25)
NIGHTS = 7
#: Local times the two stretches of a night begin (the morning one on the next date).
EVENING = timedelta(hours=21)
MORNING = timedelta(days=1, hours=5, minutes=54)
#: The dealers who take turns at the table.
DEALERS = ("ann", "bob", "ann")  # one stretch in three begins with the dealer already there
#: A table maximum the generator's refused bets exceed.
OVER_MAX = 600_000


class FakeClock:
    """The journal's wall clock and the loop's monotonic clock, moved by the generator."""

    def __init__(self, start: datetime) -> None:
        self.now = start.astimezone(UTC)
        self._origin = self.now

    def wall(self) -> datetime:
        return self.now

    def monotonic(self) -> float:
        return (self.now - self._origin).total_seconds()

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def set_local(self, moment: datetime) -> None:
        """Move to a local wall time of the table (never back)."""
        self.now = max(self.now, moment.replace(tzinfo=VIENNA).astimezone(UTC))


def week_config(folder: Path, extra: str = "") -> Path:
    """The default configuration with the simulated dealer off (and ``extra`` appended)."""
    text = (REPO / "config" / "station.toml").read_text().replace("simulated = true", "simulated = false")
    path = folder / "station.toml"
    path.write_text(text + extra)
    return path


def run_config(folder: Path, journal: Path, control: str, pace_ms: int = 20) -> Path:
    """The configuration ``station run`` plays on after the week: the same table, with its
    simulated dealer at ``pace_ms``, the console off, ``control`` (tests/station_run.py's
    ``control_section``) in place of the default users."""
    text = (REPO / "config" / "station.toml").read_text()
    before, rest = text.split("\n[control]\n", 1)
    after = rest[rest.index("\n[console]\n"):].replace("[console]\nenabled = true", "[console]\nenabled = false")
    text = (before + after).replace('journal = ""', f'journal = "{journal}"').replace(
        "pace_ms = 1500", f"pace_ms = {pace_ms}")
    path = folder / "run.toml"
    path.write_text(text + control)
    return path


@dataclass
class Week:
    """What the generator did, for the tests to check the meters saw it."""

    rounds: int = 0
    voided: int = 0
    corrected: list[str] = field(default_factory=list)
    refusals: int = 0
    alarms: int = 0
    dealers: list[str] = field(default_factory=list)


class WeekPlayer:
    """Plays the week on a core loop: ``post`` journals and applies one input at the clock's
    time, then the clock moves on a few seconds."""

    def __init__(self, loop: CoreLoop, clock: FakeClock, seed: int, dealers: Sequence[str] = DEALERS) -> None:
        self.loop, self.clock = loop, clock
        self.rng = random.Random(seed)
        self.dealers = list(dealers)
        self.week = Week()
        self.shoe: list[Card] = []
        self.cut_at = 0
        self.cut_done = False
        self.last_settled: out.RoundSettled | None = None
        self.paused = False
        self.voids_left = 1
        self.corrections_left = 1
        self.alarms_left = 1
        loop.subscribe(self._heard)

    def _heard(self, output: out.Output) -> None:
        if isinstance(output, out.RoundSettled):
            self.week.rounds += 1
            self.last_settled = output
        elif isinstance(output, out.RoundVoided):
            self.week.rounds += 1
            self.week.voided += 1
        elif isinstance(output, out.Refused):
            self.week.refusals += 1

    @property
    def state(self) -> str:
        return self.loop.state

    def post(self, event: Event, seconds: tuple[float, float] = (3.0, 12.0)) -> None:
        self.loop.post(event)
        self.loop.run_pending()
        self.clock.advance(self.rng.uniform(*seconds))

    def draw(self) -> None:
        if not self.cut_done and len(self.shoe) <= self.cut_at:
            self.cut_done = True
            self.post(CutCardSeen("shoe"), (0.5, 1.0))
        self.post(CardDrawn("shoe", self.shoe.pop()), (1.0, 4.0))

    # --- the week --------------------------------------------------------------------------

    def play(self, rounds_per_stretch: int = 12) -> Week:
        stretch = 0
        for night in range(NIGHTS):
            for begins in (EVENING, MORNING):
                self.clock.set_local(FIRST_NIGHT + timedelta(days=night) + begins)
                self.stretch(stretch, rounds_per_stretch)
                stretch += 1
        return self.week

    def stretch(self, number: int, rounds: int) -> None:
        """One stretch of play: resume, a dealer signs in, ``rounds`` rounds, pause."""
        if self.paused:
            self.post(ResumeRequested(SUPERVISOR))
            self.paused = False
        if self.dealers:
            self._sign_in(self.dealers[number % len(self.dealers)])
        if number == 0:  # the first evening opens the tray (docs/tray.md)
            self.post(TrayCounted("opener", ((10_000, 100), (2500, 200)), "ann", SUPERVISOR))
            self.post(TrayCounted("fill", ((2500, 40),), "rob", SUPERVISOR, "F-1"))
        if number == 5:  # a quiet night: the maximum lowered from the next round (docs/limits.md)
            self.post(LimitsChanged({"max_bet": 400_000}, SUPERVISOR, "quiet night"))
        target = self.week.rounds + rounds
        relief_at = self.week.rounds + rounds // 2 if number == 3 else -1
        while self.week.rounds < target or self.state not in ("betting", "paying"):
            if self.week.rounds == relief_at and self.state == "betting":
                self._sign_in("bob" if self.loop.machine.dealer == "ann" else "ann")
                relief_at = -1
            self.step()
        self.post(PauseRequested(SUPERVISOR, "the stretch is over"))
        self.paused = True
        if number == 0:  # and closes it, with its drop counted
            self.post(TrayCounted("closer", ((10_000, 95), (2500, 230)), "ann", SUPERVISOR))
            self.post(DropCounted(80_000, SUPERVISOR, "count room"))

    def _sign_in(self, dealer: str) -> None:
        self.post(DealerSignedIn(dealer, SUPERVISOR, "control"))
        self.week.dealers.append(dealer)

    def step(self) -> None:
        state = self.state
        if state == "shuffling":
            self.shoe = [card for card in FULL_DECK for _ in range(8)]
            self.rng.shuffle(self.shoe)
            self.cut_at, self.cut_done = self.rng.randint(14, 16), False
            self.post(DealerAction("shuffle_done"), (30.0, 60.0))
        elif state == "cutting":
            self.post(DealerAction("confirm_cut"))
        elif state == "burning":
            self.draw()
        elif state == "betting":
            self.bets()
            self.post(DealerAction("no_more_bets"))
        elif state == "dealing":
            if self.rng.random() < 0.02:
                self.post(DeviceFault("shoe", "no reply"))
            else:
                self.draw()
        elif state == "paying":
            self.paying()
        elif state == "irregularity":
            problem = self.loop.machine.irregularity
            assert problem is not None
            if problem.device and problem.device in self.loop.machine.faulted:
                self.post(DeviceRecovered(problem.device))
            choice = "resume" if "resume" in problem.decisions else problem.decisions[0]
            if self.voids_left and "void" in problem.decisions:
                choice, self.voids_left = "void", 0
            self.post(SupervisorDecision(choice, SUPERVISOR))
        else:
            raise AssertionError(f"the week's generator cannot drive state {state}")

    def bets(self) -> None:
        rng = self.rng
        placed: set[tuple[str, str, str]] = set()
        for _ in range(rng.randint(1, 4)):
            box, player = str(rng.randint(1, 7)), rng.choice("abc")
            region = rng.choice(["banker", "player", "tie"])
            if (box, player, region) in placed:
                continue
            placed.add((box, player, region))
            amount = {"banker": rng.choice([2000, 4000, 10000]), "player": rng.choice([1000, 2500, 5000]),
                      "tie": rng.choice([1000, 2000])}[region]
            self.post(BetPlaced(box, player, region, amount))
        if rng.random() < 0.05:
            self.post(BetPlaced("7", "c", "player", OVER_MAX))  # over the maximum: refused

    def paying(self) -> None:
        settled = self.last_settled
        if self.corrections_left and settled is not None and settled.bets and self.week.rounds > 30:
            bet = settled.bets[0]
            new_amount = bet.stake * 2
            self.post(BetCorrected(settled.round_id, bet.box, bet.player, bet.region, bet.box, bet.player,
                                   bet.region, new_amount, "the bet was twice what was keyed", SUPERVISOR))
            self.week.corrected.append(settled.round_id)
            self.corrections_left = 0
        if self.alarms_left and self.week.rounds > 50:
            self.post(IntegrityAlert("composition", "alarm", "the shoe's cards do not add up", "week-alarm-1",
                                     self.loop.machine.shoe.number))
            self.week.alarms += 1
            self.alarms_left = 0
        self.post(DealerAction("next_round"))


def play_week(folder: Path, seed: int = 7, rounds_per_stretch: int = 12, *, extra_config: str = "",
              dealers: Sequence[str] = DEALERS,
              prepare: Callable[[CoreLoop], None] | None = None,
              checkpoint_every: int = EVERY_RECORDS) -> tuple[Path, Path, Week]:
    """Write the week's journal in ``folder``: (journal, configuration, what was played).
    ``prepare`` sees the loop before the first input (to subscribe a reader of its own);
    ``checkpoint_every`` is the loop's (fewer records than the station's make the week's
    journal hold as many checkpoints as a longer one would)."""
    config = week_config(folder, extra_config)
    loaded = load_config(config)
    options = core_options(loaded.config, loaded.path)
    clock = FakeClock(FIRST_NIGHT.replace(tzinfo=VIENNA) + EVENING - timedelta(minutes=5))
    path = folder / "journal.sqlite3"
    journal = Journal(path, clock=clock.wall)
    # The one thing done otherwise than at a table: no fsync at each commit (a week's 2,000
    # commits would take the test half a minute of disk waits; bench/restart.py does the same).
    journal._require_open().execute("PRAGMA synchronous = OFF")
    journal.append(CONFIGURATION_RECORD, new_journal_record(loaded.config))
    loop = CoreLoop(journal, options, clock=clock.monotonic, checkpoint_every=checkpoint_every)
    if prepare is not None:
        prepare(loop)
    try:
        week = WeekPlayer(loop, clock, seed, dealers).play(rounds_per_stretch)
    finally:
        loop.close()
    return path, config, week
