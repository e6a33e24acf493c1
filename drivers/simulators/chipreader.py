"""Simulated RFID chip reader: a layout of antennas where chips are put down and taken up by UID.

A test (or a technician, through ``station simulate chipreader``) puts chips on antennas
(:meth:`ChipReaderSimulator.place`, :meth:`~ChipReaderSimulator.stack`) and takes them off
(:meth:`~ChipReaderSimulator.remove`); a chip is on one antenna at a time, as on a table. The
reader inventories an antenna when asked (``Inventory``) and, in continuous mode, every antenna
each period on a timer thread of its own, reporting each antenna whose set changed
(``AntennaChanged``, the whole set). Like a real reader it forgets its mode when it restarts
(:meth:`reboot`, :meth:`power_cycle`) and says again which antennas are faulted after its
``Boot``: a faulted antenna is hardware, and stays so across restarts.

Its own faults are the air interface's and the antennas': :meth:`miss` (chips a round does not
read) and :attr:`miss_probability`, :meth:`collide` (chips answering in one slot: unread, and
counted as a collision), :meth:`report_in_parts` (a reader with a small buffer), and
:meth:`abandon_next_report` (a report that stops before its last part), :meth:`lose_antenna` and
:meth:`restore_antenna`; the common ones (unplug, reboot, garbled frames, lost answers) are
the base simulator's. ``reported`` keeps every antenna event it queued, ``commands()`` every
command it executed, so a test checks a whole session from the reader's side.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from drivers.codec import chipreader as wire
from drivers.codec.protocol import Ack, Message, Nak, NakCode, SelfTestResult
from drivers.simulators.base import SimulatedDevice

#: The first UID :meth:`ChipReaderSimulator.stack` hands out: an ISO 15693 tag (``E0``) of NXP (``04``).
FIRST_UID = 0xE004_0150_0000_0001
#: The RF power a reader starts with (percent).
FULL_POWER = 100

Part = TypeVar("Part", wire.InventoryReport, wire.AntennaChanged)


@dataclass
class _Scripted:
    """Misreads asked for the next ``rounds`` rounds of one antenna: ``chips`` chips each."""

    rounds: int
    chips: int


@dataclass
class _Kept:
    """The parts of an antenna's last requested round, which ``InventoryPart`` asks for; the
    reader can give the first ``available`` (fewer than all when the report was abandoned)."""

    round_no: int
    parts: list[wire.InventoryReport]
    available: int


def _uids(uids: Iterable[str | int] | str | int) -> list[int]:
    if isinstance(uids, (str, int)):
        uids = [uids]
    return [wire.parse_uid(uid) for uid in uids]


class ChipReaderSimulator(SimulatedDevice):
    """A reader with ``antennas`` antennas, sending at most ``part_size`` UIDs in a report part;
    ``seed`` makes its misreads (:attr:`miss_probability`, which chips a fault hits) repeatable."""

    PROTOCOL = "chipreader"
    MODEL = "SIM-CHIPREADER-1"

    def __init__(self, *, antennas: int = 8, part_size: int = wire.MAX_UIDS_PER_PART, seed: int | None = None,
                 miss_probability: float = 0.0, **options: Any) -> None:
        if not 1 <= antennas <= wire.MAX_ANTENNAS:
            raise ValueError(f"antennas must be 1 to {wire.MAX_ANTENNAS}, not {antennas}")
        self._check_part_size(part_size)
        if not 0.0 <= miss_probability <= 1.0:
            raise ValueError(f"miss_probability must be 0 to 1, not {miss_probability}")
        super().__init__(**options)
        self.antennas = antennas
        self.part_size = part_size
        #: Each chip present is left unread by a round with this probability.
        self.miss_probability = miss_probability
        self._random = random.Random(seed)
        self._chips: dict[int, set[int]] = {n: set() for n in range(1, antennas + 1)}
        self._faults: dict[int, wire.AntennaFaultCode] = {}
        self._misses: dict[int, _Scripted] = {}
        self._collisions: dict[int, _Scripted] = {}
        self._abandon = 0
        self._next_uid = FIRST_UID
        # The reader's own state, forgotten when it restarts.
        self.continuous = False
        self.period_ms = 0
        self.rf_power = FULL_POWER
        self.rounds = 0
        self._previous: dict[int, tuple[tuple[int, ...], int]] = {}
        self._kept: dict[int, _Kept] = {}
        self.boots = 0
        #: Every antenna event queued (AntennaChanged parts, AntennaFault, AntennaRestored), in order.
        self.reported: list[Message] = []
        #: Called with each antenna event as it is queued (``station simulate`` prints them).
        self.on_reported: Callable[[Message], None] | None = None
        self._cycle = threading.Lock()  # a continuous pass, an antenna's fault and a restart, one at a time
        self._ticker = threading.Condition()
        self._mode_epoch = 0
        self._halted = False
        self._ticker_thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> ChipReaderSimulator:
        super().start()
        with self._ticker:
            self._halted = False
        self._ticker_thread = threading.Thread(target=self._ticker_loop, name=f"sim-{self.name}-rounds", daemon=True)
        self._ticker_thread.start()
        return self

    def stop(self) -> None:
        with self._ticker:
            self._halted = True
            self._ticker.notify_all()
        if self._ticker_thread is not None:
            self._ticker_thread.join(timeout=5)
            self._ticker_thread = None
        super().stop()

    # -- the layout -----------------------------------------------------------------------------

    def place(self, antenna: int, uids: Iterable[str | int] | str | int) -> None:
        """Put chips down on ``antenna`` (taken off any other antenna they were on)."""
        self._check_antenna(antenna)
        chips = _uids(uids)
        with self._lock:
            for on in self._chips.values():
                on.difference_update(chips)
            self._chips[antenna].update(chips)

    def remove(self, antenna: int, uids: Iterable[str | int] | str | int | None = None) -> None:
        """Take chips off ``antenna`` (every chip on it for None)."""
        self._check_antenna(antenna)
        with self._lock:
            if uids is None:
                self._chips[antenna].clear()
            else:
                self._chips[antenna].difference_update(_uids(uids))

    def stack(self, antenna: int, count: int) -> list[str]:
        """Put a stack of ``count`` new chips on ``antenna``; their UIDs, in order."""
        self._check_antenna(antenna)
        with self._lock:
            placed = {uid for on in self._chips.values() for uid in on}
            new: list[int] = []
            while len(new) < count:
                if self._next_uid not in placed:
                    new.append(self._next_uid)
                self._next_uid += 1
            self._chips[antenna].update(new)
        return [wire.uid_text(uid) for uid in new]

    def chips(self, antenna: int) -> list[str]:
        """The chips on ``antenna`` (what is there, not what a round reads), sorted."""
        self._check_antenna(antenna)
        with self._lock:
            return [wire.uid_text(uid) for uid in sorted(self._chips[antenna])]

    def layout(self) -> dict[int, list[str]]:
        """Every antenna's chips; an antenna with none is left out."""
        return {n: self.chips(n) for n in range(1, self.antennas + 1) if self._chips[n]}

    def commands(self, cls: type[Message] | None = None) -> list[Message]:
        """Commands executed, in order, of one type (every reader command if None: no pings,
        identifies, self-tests or status requests)."""
        with self._lock:
            items = list(self.received)
        if cls is None:
            return [m for m in items if 0x10 <= m.TYPE <= 0x3F]
        return [m for m in items if isinstance(m, cls)]

    # -- faults ---------------------------------------------------------------------------------

    def miss(self, antenna: int, rounds: int = 1, chips: int = 1) -> None:
        """The next ``rounds`` rounds of ``antenna`` each leave ``chips`` of its chips unread."""
        self._check_antenna(antenna)
        with self._lock:
            self._misses[antenna] = _Scripted(rounds, chips)

    def collide(self, antenna: int, rounds: int = 1, chips: int = 2) -> None:
        """In the next ``rounds`` rounds of ``antenna``, ``chips`` of its chips answer in the same
        slots: unread, and one collision counted for every two (a round with fewer than two
        chips has none)."""
        self._check_antenna(antenna)
        if chips < 2:
            raise ValueError("a collision takes two chips or more")
        with self._lock:
            self._collisions[antenna] = _Scripted(rounds, chips)

    def report_in_parts(self, size: int) -> None:
        """Send at most ``size`` UIDs in a report part from now on (a reader with a small buffer)."""
        self._check_part_size(size)
        with self._lock:
            self.part_size = size

    def abandon_next_report(self, count: int = 1) -> None:
        """The next ``count`` reports of more than one part stop before their last part: the rest
        of a requested round is refused, an event's last part is never sent (and the reader
        forgets that antenna's set, so its next round reports it whole)."""
        with self._lock:
            self._abandon += count

    def lose_antenna(self, antenna: int, code: wire.AntennaFaultCode = wire.AntennaFaultCode.DISCONNECTED,
                     detail: str = "") -> None:
        """``antenna`` stops reading: the reader says so (``AntennaFault``), refuses to inventory
        it and fails its self-test until :meth:`restore_antenna`."""
        self._check_antenna(antenna)
        with self._cycle:
            with self._lock:
                self._faults[antenna] = code
                self._previous.pop(antenna, None)
            self._report([wire.AntennaFault(antenna, code, detail)])

    def restore_antenna(self, antenna: int) -> None:
        """``antenna`` reads again (``AntennaRestored``); its next continuous round reports its set."""
        self._check_antenna(antenna)
        with self._cycle:
            with self._lock:
                if self._faults.pop(antenna, None) is None:
                    return
                self._previous.pop(antenna, None)
            self._report([wire.AntennaRestored(antenna)])

    def reboot(self, reason: str = "power on") -> None:
        with self._cycle:
            super().reboot(reason)
            self._announce_faults()

    def power_cycle(self) -> None:
        with self._cycle:
            super().power_cycle()
            self._announce_faults()

    # -- the device -----------------------------------------------------------------------------

    def handle_command(self, message: Message) -> Message:
        with self._lock:
            match message:
                case wire.ReaderGetStatus():
                    return wire.ReaderStatus(self.continuous, self.period_ms, self.rf_power, self.rounds,
                                             tuple(sorted(self._faults)))
                case wire.GetAntennas():
                    return wire.AntennaList(tuple(
                        wire.AntennaEntry(n, wire.AntennaState(self._faults.get(n, wire.AntennaState.OK)))
                        for n in range(1, self.antennas + 1)))
                case wire.Inventory(antenna=antenna):
                    return self._inventory(antenna)
                case wire.InventoryPart(antenna=antenna, round_no=round_no, part=part):
                    kept = self._kept.get(antenna)
                    if kept is None or kept.round_no != round_no or not 1 <= part <= kept.available:
                        return Nak(NakCode.NOT_ALLOWED_NOW, f"no part {part} of round {round_no} on antenna {antenna}")
                    return kept.parts[part - 1]
                case wire.SetMode(continuous=continuous, period_ms=period_ms):
                    if continuous and not wire.MIN_PERIOD_MS <= period_ms <= wire.MAX_PERIOD_MS:
                        return Nak(NakCode.OUT_OF_RANGE, f"period {period_ms} ms; {wire.MIN_PERIOD_MS} to "
                                                         f"{wire.MAX_PERIOD_MS}")
                    self.continuous, self.period_ms = continuous, period_ms if continuous else 0
                    self._previous.clear()  # the first pass reports every antenna
                case wire.SetRfPower(level=level):
                    if not 1 <= level <= 100:
                        return Nak(NakCode.OUT_OF_RANGE, f"RF power {level}%; 1 to 100")
                    self.rf_power = level
                case _:
                    return Nak(NakCode.UNKNOWN_COMMAND, message.WIRE_NAME)
        self._mode_changed()
        return Ack()

    def self_test_result(self) -> SelfTestResult:
        with self._lock:
            faults = sorted(self._faults.items())
        if faults:
            named = ", ".join(f"antenna {n} {code.name.lower()}" for n, code in faults)
            return SelfTestResult(False, int(faults[0][1]), named)
        return SelfTestResult(True, 0, f"all {self.antennas} antennas tuned and reading")

    def on_power_cycle(self) -> None:
        """A reader that restarts stops reading continuously and forgets its rounds, sets and power."""
        with self._lock:
            self.continuous, self.period_ms, self.rf_power, self.rounds = False, 0, FULL_POWER, 0
            self._previous.clear()
            self._kept.clear()
            self.boots += 1
        self._mode_changed()

    # -- internals ------------------------------------------------------------------------------

    def _check_antenna(self, antenna: int) -> None:
        if not 1 <= antenna <= self.antennas:
            raise ValueError(f"the reader has antennas 1 to {self.antennas}, not {antenna}")

    @staticmethod
    def _check_part_size(size: int) -> None:
        if not 1 <= size <= wire.MAX_UIDS_PER_PART:
            raise ValueError(f"a report part holds 1 to {wire.MAX_UIDS_PER_PART} UIDs, not {size}")

    def _refusal(self, antenna: int) -> Nak | None:
        if not 1 <= antenna <= self.antennas:
            return Nak(NakCode.OUT_OF_RANGE, f"antenna {antenna}; the reader has 1 to {self.antennas}")
        code = self._faults.get(antenna)
        if code is not None:
            return Nak(NakCode.HARDWARE_FAULT, f"antenna {antenna} {code.name.lower()}")
        return None

    def _inventory(self, antenna: int) -> Message:
        """A requested round (under the lock): its first part; the reader keeps them all."""
        refused = self._refusal(antenna)
        if refused is not None:
            return refused
        round_no, uids, collisions = self._round(antenna)
        parts = self._parts(wire.InventoryReport, antenna, round_no, uids, collisions)
        available = len(parts) - 1 if self._abandoning(len(parts)) else len(parts)
        self._kept[antenna] = _Kept(round_no, parts, available)
        return parts[0]

    def _round(self, antenna: int) -> tuple[int, tuple[int, ...], int]:
        """One inventory round of ``antenna`` (under the lock): its number, the UIDs read, the collisions."""
        self.rounds = self.rounds % 0xFFFF_FFFF + 1
        present = sorted(self._chips[antenna])
        missed = self._scripted(self._misses, antenna, present, at_least=1)
        collided = self._scripted(self._collisions, antenna, [uid for uid in present if uid not in missed], at_least=2)
        unread = missed | collided
        if self.miss_probability:
            unread.update(uid for uid in present if self._random.random() < self.miss_probability)
        collisions = min(255, len(collided) // 2)  # every slot of a collision holds two chips or more
        return self.rounds, tuple(uid for uid in present if uid not in unread), collisions

    def _scripted(self, scripts: dict[int, _Scripted], antenna: int, among: list[int], at_least: int) -> set[int]:
        """The chips of ``among`` a scripted fault leaves unread this round (one round of it used)."""
        script = scripts.get(antenna)
        if script is None:
            return set()
        script.rounds -= 1
        if script.rounds <= 0:
            del scripts[antenna]
        if len(among) < at_least:
            return set()
        return set(self._random.sample(among, min(script.chips, len(among))))

    def _parts(self, cls: type[Part], antenna: int, round_no: int, uids: tuple[int, ...],
               collisions: int) -> list[Part]:
        """The round's report as ``cls`` parts of at most :attr:`part_size` UIDs (one, empty, for no chips)."""
        size = self.part_size
        chunks = [uids[i:i + size] for i in range(0, len(uids), size)] or [()]
        return [cls(antenna, round_no, i + 1, i == len(chunks) - 1, collisions, chunk)
                for i, chunk in enumerate(chunks)]

    def _abandoning(self, parts: int) -> bool:
        if parts > 1 and self._abandon > 0:
            self._abandon -= 1
            return True
        return False

    def _report(self, events: Sequence[Message]) -> None:
        """Queue antenna events (under the cycle lock). A newer set of an antenna makes the older
        one not yet sent worthless: that one is taken back (each report is the whole set)."""
        antenna = getattr(events[0], "antenna", None)
        if isinstance(events[0], wire.AntennaChanged):
            self.withdraw(lambda m: isinstance(m, wire.AntennaChanged) and m.antenna == antenna)
        for event in events:
            with self._lock:
                self.reported.append(event)
            self.send_event(event)
            if self.on_reported is not None:
                self.on_reported(event)

    def _announce_faults(self) -> None:
        with self._lock:
            faults = sorted(self._faults.items())
        for antenna, code in faults:
            self._report([wire.AntennaFault(antenna, code, "found at power-up")])

    def _mode_changed(self) -> None:
        with self._ticker:
            self._mode_epoch += 1
            self._ticker.notify_all()

    def _ticker_loop(self) -> None:
        """Continuous mode: a pass over every antenna at once when the mode is set, then one each period."""
        while True:
            with self._ticker:
                while not self._halted and not self.continuous:
                    self._ticker.wait()
                if self._halted:
                    return
                epoch = self._mode_epoch
            self._pass()
            self._wait_period(epoch)

    def _wait_period(self, epoch: int) -> None:
        """Until the period is over, the mode changes (its first pass is due at once) or the end."""
        with self._ticker:
            self._ticker.wait_for(lambda: self._halted or self._mode_epoch != epoch, self.period_ms / 1000)

    def _pass(self) -> None:
        with self._cycle:
            for antenna in range(1, self.antennas + 1):
                with self._lock:
                    if not self.continuous:
                        return
                    if antenna in self._faults:
                        continue
                    round_no, uids, collisions = self._round(antenna)
                    if self._previous.get(antenna) == (uids, collisions):
                        continue
                    parts = self._parts(wire.AntennaChanged, antenna, round_no, uids, collisions)
                    if self._abandoning(len(parts)):
                        parts.pop()
                        self._previous.pop(antenna, None)
                    else:
                        self._previous[antenna] = (uids, collisions)
                self._report(parts)
