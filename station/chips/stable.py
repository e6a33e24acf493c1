"""When a place's chips are known: the stable-read rule (docs/chips.md, "Stable reads").

The reader reports, per antenna, the UIDs one inventory round read, how many collisions it had
and (as a place's read here says) whether the read is complete. A read never holds a chip that
was not there (a UID is checked by its CRC), but it may miss chips: a chip may go unread,
collisions leave chips unread, a stack's report may stop before its last part. And in its
continuous mode the reader reports an antenna only when its set or its collisions **differ from
its previous round's** (docs/protocols/chipreader.md): silence means every round since read
the same. So:

- a read is **clean** when it is complete and had no collision; any other read is **partial**:
  what it holds was there, what it lacks may be there too;
- a run is the clean reads of one set in a row; a partial read never counts toward a run, and
  breaks it only when it holds a chip the run's set lacks (that set is then known to be wrong);
- a place's **stable set** becomes a run's set once the run has ``K`` clean reads
  (:attr:`StableRule.reads`, 2 by default: the rounds a host asks for one by one), or once
  ``T`` ms have passed since the run's first clean read (:attr:`StableRule.hold_ms`, 1,000 by
  default) while its latest read is a clean read of that set: the reader, saying nothing, read
  that set in every round since (:meth:`StableReads.elapse` brings the time forward);
- a partial read never changes the stable set. So a chip not read in a collision round is never
  taken as removed: a chip joins the stable set only once read in ``K`` clean reads in a row
  (or ``T`` ms of them), and leaves it only once missing from as many; a clean read that misses
  a chip once breaks the run, and the stable set stays as it was;
- when the reader cannot be trusted to report a change (an antenna faulted, the link lost, the
  reader restarted), :meth:`StableReads.interrupt` breaks the runs: the stable sets stay, and
  only new reads make them again.

Hence the stable set is always exactly what one clean read held: it never holds a chip that
was not on the antenna at that read, and a layout left alone converges to its chips as soon as
``K`` clean reads in a row, or ``T`` ms of clean reads, read them all. The set starts empty.

A read is one place's whole round (the driver puts a report's parts together and drops a set
whose last part never came). A read of the same round as the place's previous read is a repeat
and changes nothing. Times are the caller's (milliseconds of any clock that does not go back);
nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from station.chips.places import ChipPlace, PlaceKind, check_uids


@dataclass(frozen=True)
class StableRule:
    """``reads`` (K): clean reads in a row of one set that make it stable (at least 1);
    ``hold_ms`` (T): or this long since a run's first clean read, its latest read still a clean
    read of that set (None: only ``reads`` counts)."""

    reads: int = 2
    hold_ms: int | None = 1000

    def __post_init__(self) -> None:
        if not isinstance(self.reads, int) or isinstance(self.reads, bool) or self.reads < 1:
            raise ValueError(f"stable reads must be a whole number from 1, got {self.reads!r}")
        if self.hold_ms is not None and (not isinstance(self.hold_ms, int) or isinstance(self.hold_ms, bool)
                                         or self.hold_ms < 1):
            raise ValueError(f"the hold time is a whole number of milliseconds from 1, got {self.hold_ms!r}")


@dataclass(frozen=True)
class PlaceRead:
    """One round of the reader at one place: the UIDs it read, its collisions, whether the read
    is complete, and when (``at_ms``, the caller's clock)."""

    place: ChipPlace
    round: int
    uids: frozenset[str]
    collisions: int = 0
    complete: bool = True
    at_ms: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "uids", frozenset(self.uids))
        check_uids(self.uids)
        if not isinstance(self.collisions, int) or self.collisions < 0:
            raise ValueError(f"collisions are counted from 0, got {self.collisions!r}")

    @property
    def clean(self) -> bool:
        """Complete and without a collision: the read says what is there, and what is not."""
        return self.complete and self.collisions == 0


@dataclass(frozen=True)
class PlaceTrack:
    """What is known of one place: its stable set and the read that made it so (its round, and
    when it became stable), and the run that may replace it: ``candidate`` read clean ``run``
    times in a row, the first at ``run_from_ms``; ``latest_clean`` when the place's latest read
    is a clean read (of the candidate, then)."""

    stable: frozenset[str] = frozenset()
    stable_round: int | None = None
    stable_at_ms: int | None = None
    candidate: frozenset[str] | None = None
    run: int = 0
    run_from_ms: int = 0
    latest_clean: bool = False
    last_round: int | None = None

    def observe(self, read: PlaceRead, rule: StableRule) -> PlaceTrack:
        """The place after ``read`` (see the module's rule)."""
        if read.round == self.last_round:
            return self  # the same round again: a repeat
        track = replace(self, last_round=read.round, latest_clean=read.clean)
        if not read.clean:
            if track.candidate is not None and not read.uids <= track.candidate:
                track = replace(track, candidate=None, run=0)  # a chip the run's set lacks is there
            return track
        if read.uids == track.candidate:
            track = replace(track, run=track.run + 1)
        else:
            track = replace(track, candidate=read.uids, run=1, run_from_ms=read.at_ms)
        return track._settled(read.at_ms, rule, track.run >= rule.reads)

    def elapse(self, now_ms: int, rule: StableRule) -> PlaceTrack:
        """The place at ``now_ms`` with no read since its latest: a run whose clean set the reader
        kept reading for ``T`` ms becomes stable."""
        return self._settled(now_ms, rule, False) if self.latest_clean else self

    def due_ms(self, rule: StableRule) -> int | None:
        """When :meth:`elapse` would make the run's set stable if no read came before (None:
        no run is waiting on the clock), so a caller wakes then rather than at every tick."""
        if (rule.hold_ms is None or not self.latest_clean or self.candidate is None
                or self.candidate == self.stable):
            return None
        return self.run_from_ms + rule.hold_ms

    def interrupted(self) -> PlaceTrack:
        """The place once its reads stopped being reported (the stable set kept, the run broken)."""
        return replace(self, candidate=None, run=0, latest_clean=False, last_round=None)

    def _settled(self, at_ms: int, rule: StableRule, counted: bool) -> PlaceTrack:
        if self.candidate is None or self.candidate == self.stable:
            return self
        held = rule.hold_ms is not None and at_ms - self.run_from_ms >= rule.hold_ms
        if not (counted or held):
            return self
        return replace(self, stable=self.candidate, stable_round=self.last_round, stable_at_ms=at_ms)


@dataclass(frozen=True)
class StableChange:
    """A place's stable set changed: from ``before`` to ``after``, at ``at_ms`` (the time of the
    clean read that completed the run, or the time :meth:`StableReads.elapse` was told when the
    run held long enough), the set being the one read in the reader's round ``round``."""

    place: ChipPlace
    before: frozenset[str]
    after: frozenset[str]
    round: int
    at_ms: int

    @property
    def added(self) -> frozenset[str]:
        return self.after - self.before

    @property
    def removed(self) -> frozenset[str]:
        return self.before - self.after


@dataclass(frozen=True)
class StableReads:
    """Every place's track under one rule. A value: :meth:`observe` gives the next one."""

    rule: StableRule = StableRule()
    tracks: Mapping[ChipPlace, PlaceTrack] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def observe(self, read: PlaceRead) -> tuple[StableReads, StableChange | None]:
        """The places after ``read``, and the change of its place's stable set if it made one."""
        was = self.tracks.get(read.place, PlaceTrack())
        now = was.observe(read, self.rule)
        if now == was:
            return self, None
        after = StableReads(self.rule, MappingProxyType({**self.tracks, read.place: now}))
        return after, _change(read.place, was, now)

    def elapse(self, now_ms: int) -> tuple[StableReads, tuple[StableChange, ...]]:
        """The places at ``now_ms`` (no read since their latest): the changes of the stable sets
        that held for ``T`` ms, in the layout's order."""
        tracks = {place: track.elapse(now_ms, self.rule) for place, track in self.tracks.items()}
        changes = [_change(place, self.tracks[place], track) for place, track in tracks.items()]
        if not any(changes):
            return self, ()
        found = sorted((change for change in changes if change is not None), key=lambda c: c.place.order())
        return StableReads(self.rule, MappingProxyType(tracks)), tuple(found)

    def next_due_ms(self) -> int | None:
        """The earliest time a place's run would become stable by the clock alone (None: none
        waits on it): :meth:`elapse` at that time makes the change."""
        due = [d for d in (track.due_ms(self.rule) for track in self.tracks.values()) if d is not None]
        return min(due, default=None)

    def interrupt(self, places: Iterable[ChipPlace] | None = None) -> StableReads:
        """The places (every one for None) whose reads the reader may have stopped reporting: an
        antenna faulted, the link lost, the reader restarted. Their stable sets stay; their runs
        start again from their next reads."""
        chosen = self.tracks.keys() if places is None else set(places) & self.tracks.keys()
        return StableReads(self.rule, MappingProxyType(
            {place: track.interrupted() if place in chosen else track for place, track in self.tracks.items()}))

    def stable(self, place: ChipPlace) -> frozenset[str]:
        """The place's stable set (empty for a place never read)."""
        track = self.tracks.get(place)
        return track.stable if track is not None else frozenset()

    def stable_sets(self, kind: PlaceKind | None = None) -> dict[ChipPlace, frozenset[str]]:
        """Every place's stable set (those of ``kind`` only, if given), empty ones left out."""
        return {place: track.stable for place, track in self.tracks.items()
                if track.stable and (kind is None or place.kind is kind)}


def _change(place: ChipPlace, was: PlaceTrack, now: PlaceTrack) -> StableChange | None:
    if now.stable == was.stable:
        return None
    assert now.stable_round is not None and now.stable_at_ms is not None
    return StableChange(place, was.stable, now.stable, now.stable_round, now.stable_at_ms)
