"""What the table knows of the chips on its layout, as the core keeps it (docs/chips.md).

The stable reads journaled as :class:`~station.chip_inputs.ChipsOnPlace` are kept per place
with each chip's standing as it was valued; a supervisor's change of a chip's status is kept
over them (a chip flagged after it was read counts no more). At no more bets each betting
spot's chips are locked; while the round is dealt, a spot whose chips differ from the lock is
past-posting or pinching. Once the round is settled, each box's payout zone is compared with
what the box is owed, and a wrong payment can hold the next round until the zone is right or a
supervisor accepts it.

Plain data with its JSON form for the checkpoints (:mod:`station.core.state`): every decision
on it is taken by :class:`~station.core.chip_steps.ChipSteps` from journaled inputs only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from station.chips.payout_check import PayoutCheck, check_payouts
from station.chips.places import ChipPlace, PlaceKind
from station.chips.recognise import BetProposal, propose_bets
from station.chips.registry import ChipRecord, ChipRegistry, ChipStanding, ChipStatus
from station.chips.stable import StableChange
from station.chips.watch import BetLock, ChipFinding, losing_chips_left
from station.money import Money

CONFIRM_MODES = ("tap", "as_read")


@dataclass(frozen=True)
class ChipRules:
    """How a table takes its bets from chips. ``confirm``: ``tap`` (the dealer confirms the
    chips' bets with one tap) or ``as_read`` (a spot's bet is what its chips say as soon as they
    are read). ``hold_wrong_payment``: a wrong payment holds the next round until the payout
    zone is right or a supervisor accepts it."""

    confirm: str = "tap"
    hold_wrong_payment: bool = True

    def __post_init__(self) -> None:
        if self.confirm not in CONFIRM_MODES:
            raise ValueError(f"chip bets are confirmed by 'tap' or taken 'as_read', not {self.confirm!r}")


def _standing_json(chip: ChipStanding) -> list[Any]:
    return [chip.uid, chip.status.value, chip.value]


def _standing_back(item: list[Any]) -> ChipStanding:
    uid, status, value = item
    return ChipStanding(uid, ChipStatus(status), value)


@dataclass
class ChipLayout:
    """The chips of the layout and what was decided about them (see the module's docstring).

    ``seen``: each place's chips by its latest stable read; ``statuses``: chips whose status a
    supervisor set (uid -> status); ``lock``: each betting spot's chips at no more bets (None
    while betting is open or no round is dealt); ``reported``: the chips moved since the lock
    that were reported already (each once); ``owed``: what each box of the settled round
    ``owed_round`` is to be paid in its payout zone (None before a settlement); ``paid``: each
    payout zone's latest chips since (an empty read is the player taking the payment, not a
    payment taken back); ``losing``: the settled round's losing spots; ``hold``: the round whose
    wrong payment holds the next one ("" when none); ``noted``: the round whose wrong payment was
    counted (once, held or not); ``accepted``: the round whose payment a
    supervisor accepted; ``alarmed``: the chips already raised as an alarm where they lie;
    ``counts``: what the meters count."""

    seen: dict[str, tuple[ChipStanding, ...]] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)
    lock: dict[str, tuple[ChipStanding, ...]] | None = None
    reported: set[str] = field(default_factory=set)
    owed: dict[str, int] | None = None
    owed_round: str = ""
    paid: dict[str, tuple[ChipStanding, ...]] = field(default_factory=dict)
    losing: list[str] = field(default_factory=list)
    hold: str = ""
    noted: str = ""
    accepted: str = ""
    alarmed: set[str] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    #: Bumped by every step that may change the layout: the snapshot makes its view again only
    #: then (not kept in checkpoints; a restored layout is a new object).
    version: int = field(default=0, compare=False)

    def touch(self) -> None:
        self.version += 1

    # -- what the layout holds ------------------------------------------------------------------

    def standing(self, chip: ChipStanding) -> ChipStanding:
        """``chip`` as it counts now: a status a supervisor set since it was read wins."""
        status = self.statuses.get(chip.uid)
        if status is None or status == chip.status.value:
            return chip
        return ChipStanding(chip.uid, ChipStatus(status), chip.value)

    def chips(self, place: str) -> tuple[ChipStanding, ...]:
        return tuple(self.standing(chip) for chip in self.seen.get(place, ()))

    def stable(self, kind: PlaceKind | None = None) -> dict[ChipPlace, frozenset[str]]:
        """The stable sets as :mod:`station.chips` reads them (of one kind of place, or all)."""
        sets = {ChipPlace.parse(place): frozenset(c.uid for c in chips) for place, chips in self.seen.items()}
        return {place: uids for place, uids in sets.items() if kind is None or place.kind is kind}

    def registry(self, money: Money) -> ChipRegistry:
        """Every chip on the layout as a registry (unknown chips left out: they are unknown)."""
        records: dict[str, ChipRecord] = {}
        for chips in (*(self.lock or {}).values(), *self.seen.values(), *self.paid.values()):
            for chip in map(self.standing, chips):
                if chip.status is not ChipStatus.UNKNOWN and chip.value > 0:
                    records[chip.uid] = ChipRecord(chip.uid, chip.value, chip.status)
        return ChipRegistry.of(money.currency or "XXX", money.digits, records.values())

    def proposal(self, money: Money) -> BetProposal:
        """Each betting spot's bet as its chips say, and the chips that do not count."""
        return propose_bets(self.stable(PlaceKind.SPOT), self.registry(money))

    # -- after no more bets ---------------------------------------------------------------------

    def lock_bets(self) -> None:
        self.lock = {place: chips for place, chips in sorted(self.seen.items())
                     if chips and ChipPlace.parse(place).is_spot}
        self.reported = set()

    def first_report(self, finding: ChipFinding) -> ChipFinding | None:
        """``finding`` cut to the chips not reported yet as moved this way on its place since the
        lock (None when every one was): each chip moved is reported once."""
        fresh = []
        for chip in finding.chips:
            key = f"{finding.kind.value}|{finding.place}|{chip.uid}"
            if key not in self.reported:
                self.reported.add(key)
                fresh.append(chip)
        if not fresh:
            return None
        return replace(finding, chips=tuple(fresh), amount=sum(c.value for c in fresh if c.counts))

    def findings(self, place: ChipPlace, read: int, at_ms: int, money: Money) -> tuple[ChipFinding, ...]:
        """Past-posting or pinching on ``place`` against the lock (none when nothing is locked)."""
        if self.lock is None or not place.is_spot:
            return ()
        lock = BetLock.at({ChipPlace.parse(p): frozenset(c.uid for c in chips) for p, chips in self.lock.items()})
        now = frozenset(c.uid for c in self.seen.get(str(place), ()))
        return lock.findings(StableChange(place, lock.chips(place), now, read, at_ms), self.registry(money))

    # -- the payment ----------------------------------------------------------------------------

    def payout_checks(self, money: Money, boxes: Iterable[str] | None = None) -> tuple[PayoutCheck, ...]:
        """Each box of the settled round (or of ``boxes``) against the chips last seen in its
        payout zone."""
        if self.owed is None:
            return ()
        chosen = None if boxes is None else set(boxes)
        owed = {box: amount for box, amount in self.owed.items() if chosen is None or box in chosen}
        paid = {ChipPlace.payout(box): frozenset(c.uid for c in chips) for box, chips in self.paid.items()
                if chosen is None or box in chosen}
        return check_payouts(owed, paid, self.registry(money))

    def payment_wrong(self, money: Money) -> tuple[PayoutCheck, ...]:
        """The boxes paid over or under what they are owed (none: the payment is right)."""
        return tuple(check for check in self.payout_checks(money) if check.difference)

    def round_over(self) -> None:
        """The round left the table: nothing of it is watched or checked any longer."""
        self.lock, self.reported, self.owed, self.owed_round = None, set(), None, ""
        self.paid, self.losing, self.hold, self.noted, self.accepted = {}, [], "", "", ""

    def losing_left(self, losing: Iterable[ChipPlace], read: int, at_ms: int, money: Money) -> tuple[ChipFinding, ...]:
        return losing_chips_left(self.stable(PlaceKind.SPOT), losing, read, at_ms, self.registry(money))

    def count(self, name: str, by: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + by

    # -- checkpoints ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "seen": {place: [_standing_json(c) for c in chips] for place, chips in sorted(self.seen.items())},
            "statuses": dict(sorted(self.statuses.items())),
            "lock": None if self.lock is None else {place: [_standing_json(c) for c in chips]
                                                    for place, chips in sorted(self.lock.items())},
            "reported": sorted(self.reported),
            "owed": None if self.owed is None else dict(self.owed),
            "owed_round": self.owed_round,
            "paid": {box: [_standing_json(c) for c in chips] for box, chips in sorted(self.paid.items())},
            "losing": list(self.losing),
            "hold": self.hold,
            "noted": self.noted,
            "accepted": self.accepted,
            "alarmed": sorted(self.alarmed),
            "counts": dict(sorted(self.counts.items())),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChipLayout:
        return cls(
            {place: tuple(_standing_back(c) for c in chips) for place, chips in data["seen"].items()},
            dict(data["statuses"]),
            None if data["lock"] is None else {p: tuple(_standing_back(c) for c in chips)
                                               for p, chips in data["lock"].items()},
            set(data["reported"]),
            None if data["owed"] is None else dict(data["owed"]),
            data["owed_round"],
            {box: tuple(_standing_back(c) for c in chips) for box, chips in data["paid"].items()},
            list(data["losing"]),
            data["hold"],
            data["noted"],
            data["accepted"],
            set(data["alarmed"]),
            dict(data["counts"]),
        )
