"""The chip reader's reads turned into the table's inputs (docs/chips.md).

The reader's driver reports what each antenna read (:class:`~station.chip_events.ChipsRead`),
many times a second, misses and collisions included. Those raw reads are not journaled: this
part maps each antenna to its place on the layout, keeps the stable-read rule
(:mod:`station.chips.stable`), and posts one :class:`~station.chip_inputs.ChipsOnPlace` when a
place's believed chips change, each chip valued by the registry in force. The part's clock
lets a read that stays the same become believed after ``stable_ms`` even when the reader, in
continuous mode, says nothing new: it wakes at the moment the earliest such read is due (not
at a tick, whose period would be added to every chip's wait), and again whenever a read
comes. A fault, a reboot or a lost link of the reader breaks every place's run of reads (its
silence then means nothing) but keeps what was believed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import structlog

from station.chip_events import ChipsRead
from station.chip_inputs import ChipRegistryInForce, ChipsOnPlace
from station.chips.places import ChipPlace
from station.chips.registry import ChipRegistry
from station.chips.registry_file import RegistryFileError, load_registry
from station.chips.stable import PlaceRead, PlaceTrack, StableChange, StableReads, StableRule
from station.config.chip_reader import ChipReaderSection
from station.config.errors import ConfigError
from station.core.tap import LoopTap
from station.events import DeviceBooted, DeviceFault, DeviceRecovered, Event
from station.money import Money
from station.service.features import FeatureBase, StopStage

log = structlog.get_logger("station.service")

Post = Callable[[Event], None]

#: Longest the clock sleeps when no read waits on it (a read coming wakes it at once).
IDLE_S = 1.0


def chip_registry(section: ChipReaderSection, config_path: Path, money: Money) -> ChipRegistry:
    """The registry ``[chip_reader] registry`` names, or a :class:`ConfigError` naming the key,
    the file, and each of its problems."""
    path = (config_path.parent / section.registry).resolve()
    try:
        return load_registry(path, money)
    except RegistryFileError as exc:
        raise ConfigError(config_path, [("chip_reader.registry", str(exc))]) from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(config_path, [("chip_reader.registry", f"{path}: {reason}")]) from None


def chip_registry_problems(config: Any, config_path: Path) -> list[tuple[str, str]]:
    """What ``station run --check`` says of the registry file (none without ``[chip_reader]``)."""
    if config.chip_reader is None:
        return []
    try:
        chip_registry(config.chip_reader, config_path, Money(config.table.minor_digits, config.table.currency))
    except ConfigError as exc:
        return list(exc.problems)
    return []


@dataclass
class ChipReadCounts:
    """What the part saw of the reader, for ``station ctl status``."""

    reads: int = 0
    unmapped: int = 0
    changes: int = 0
    interruptions: int = 0
    unmapped_antennas: set[int] = field(default_factory=set)


class ChipReadsPart(FeatureBase):
    """The stable-read rule between the chip reader and the core (see the module's docstring)."""

    name = "chip reader"
    stage = StopStage.INPUTS

    def __init__(self, section: ChipReaderSection, registry: ChipRegistry, source: str, device: str = "chipreader",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.places, self.period_ms = section.places(), section.period_ms
        #: The device by its name, once the devices are built (set by the assembly).
        self.devices: Callable[[str], Any] = lambda _name: None
        self.registry, self.source, self.device = registry, source, device
        self._clock = clock
        self._reads = StableReads(StableRule(section.stable_reads, section.stable_ms))
        self._lock = threading.Lock()
        self._post: Post | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()  # a read came: the clock's next due time may be sooner
        self._thread: threading.Thread | None = None
        self.counts = ChipReadCounts()

    # -- the devices' events pass through here --------------------------------------------------

    def router(self, post: Post) -> Post:
        """Where the drivers' events go: the reader's reads to this part, everything else (and
        the reader's faults too, after breaking the runs) on to ``post``."""
        self._post = post

        def route(event: Event) -> None:
            if isinstance(event, ChipsRead):
                self.on_read(event)
                return
            if isinstance(event, (DeviceFault, DeviceRecovered, DeviceBooted)) and event.device == self.device:
                self.interrupt()
            post(event)

        return route

    def on_read(self, read: ChipsRead) -> None:
        place = self.places.get(read.antenna)
        with self._lock:
            self.counts.reads += 1
            if place is None:
                self.counts.unmapped += 1
                if read.antenna not in self.counts.unmapped_antennas:
                    self.counts.unmapped_antennas.add(read.antenna)
                    log.warning("chip_antenna_unmapped", antenna=read.antenna,
                                detail="no [chip_reader.antennas] entry: its reads are not used")
                return
            self._reads, change = self._reads.observe(PlaceRead(
                place, read.round_no, frozenset(read.uids), read.collisions, True, self._now_ms()))
        self._wake.set()
        if change is not None:
            self._changed((change,))

    def interrupt(self) -> None:
        with self._lock:
            self.counts.interruptions += 1
            self._reads = self._reads.interrupt()

    def tick(self) -> None:
        """Let the clock run: a read held long enough becomes believed."""
        with self._lock:
            self._reads, changes = self._reads.elapse(self._now_ms())
        if changes:
            self._changed(changes)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _changed(self, changes: tuple[StableChange, ...]) -> None:
        post = self._post
        for change in changes:
            self.counts.changes += 1
            chips = tuple(self.registry.standing(uid) for uid in sorted(change.after))
            event = ChipsOnPlace(str(change.place), chips, change.round, change.at_ms, self.device)
            if post is not None:
                post(event)

    # -- the feature ----------------------------------------------------------------------------

    def attach(self, tap: LoopTap) -> None:
        """Believe what the journal believes: after a restart the chips the table last knew on
        each place are the stable sets, so a place emptied while the station was down is read
        empty (and journaled) once the reader says so, not taken as empty from the start."""
        super().attach(tap)
        view = tap.published.chips
        known = {} if view is None else {ChipPlace.parse(place): frozenset(c["uid"] for c in info["chips"])
                                         for place, info in view["places"].items() if info["chips"]}
        with self._lock:
            self._reads = StableReads(self._reads.rule, MappingProxyType(
                {place: PlaceTrack(stable=uids, stable_round=0, stable_at_ms=0) for place, uids in known.items()}))

    def start(self) -> None:
        """Journal the registry in force, ask the reader to read continuously (the driver sends
        the mode again after every reboot or reconnection), and start the clock."""
        self.tap.post(ChipRegistryInForce(self.registry.sha256(), self.source, len(self.registry)))
        reader = self.devices(self.device)
        if reader is not None:
            reader.set_mode(True, self.period_ms)
        self._thread = threading.Thread(target=self._run, name="chip-reads", daemon=True)
        self._thread.start()

    def wait_s(self) -> float:
        """How long the clock may sleep: until the earliest read due to be believed, at most
        ``IDLE_S``."""
        with self._lock:
            due = self._reads.next_due_ms()
        if due is None:
            return IDLE_S
        return min(IDLE_S, max(0.0, (due - self._clock() * 1000) / 1000))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.wait_s())
            self._wake.clear()
            try:
                self.tick()
            except Exception:  # a bug here must not stop the reads: logged, and the next tick tries again
                log.exception("chip_tick_failed")

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def status(self) -> dict[str, Any]:
        with self._lock:
            believed = {str(place): len(uids) for place, uids in self._reads.stable_sets().items()}
        return {"chip_reader": {
            "registry": {"chips": len(self.registry), "sha256": self.registry.sha256(), "source": self.source},
            "antennas": {str(n): str(p) for n, p in sorted(self.places.items())},
            "reads": self.counts.reads, "unmapped_reads": self.counts.unmapped, "changes": self.counts.changes,
            "interruptions": self.counts.interruptions, "believed": believed,
        }}

