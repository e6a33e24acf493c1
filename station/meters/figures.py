"""The meters' figures of one stretch of play, and how two stretches add up.

A pit keeps its figures per gaming day, per dealer session and per shoe; every one of those is
a sum of the same small *parts* (:mod:`station.meters.fold`): the rounds of one gaming day,
dealt in one dealer session, from one shoe. So a figure is either a count or a sum of minor
units, or the first and last time something happened: all of them add up whatever the order,
and a part restored from a checkpoint and the rest of the journal give what the whole journal
gives. Money is integers in minor units throughout; only :attr:`Figures.rounds_per_hour` is a
fraction (a rate, not money).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Microseconds in an hour. Open table time is counted in microseconds, as journal times are
#: written, so it adds up exactly; rounds per hour are ``rounds * HOUR_US / open_us``.
HOUR_US = 3_600_000_000
#: The least open time a rate is given for (a minute).
RATE_FROM_US = 60_000_000


@dataclass
class RegionFigures:
    """The bets on one betting region (``banker``, ``player``, ``tie``, ``war``, ...) of the
    rounds settled: how many, their stakes, and what the house won on them (commission included,
    a loss negative)."""

    bets: int = 0
    stakes: int = 0
    house: int = 0

    def add(self, other: RegionFigures) -> None:
        self.bets += other.bets
        self.stakes += other.stakes
        self.house += other.house

    def to_json(self) -> dict[str, int]:
        return {"bets": self.bets, "stakes": self.stakes, "house": self.house}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RegionFigures:
        return cls(int(data["bets"]), int(data["stakes"]), int(data["house"]))


def _add_counts(into: dict[str, int], other: dict[str, int]) -> None:
    for key, count in other.items():
        into[key] = into.get(key, 0) + count


@dataclass
class Figures:
    """What the meters count for one stretch of play (docs/meters.md says each figure's rule).

    ``rounds`` counts every round that ended, settled or voided; ``voided_rounds`` those voided,
    whose bets all went back (``voided_returned``) and are in no region. The regions hold the
    bets of the rounds settled, as last corrected; ``void_parts_returned`` is the void part of
    Banker bets (rule 5.13). ``corrections`` counts the corrections made to the rounds here and
    ``corrected_house`` how far they moved the house's result (already in ``house``).
    """

    rounds: int = 0
    voided_rounds: int = 0
    open_us: int = 0
    first_round: str = ""  # journal time (UTC) the first round here ended; "" for none
    last_round: str = ""
    regions: dict[str, RegionFigures] = field(default_factory=dict)
    commission: int = 0
    void_parts_returned: int = 0
    voided_returned: int = 0
    corrections: int = 0
    corrected_house: int = 0
    refusals: int = 0
    irregularities: dict[str, int] = field(default_factory=dict)  # reason -> raised
    integrity_alarms: dict[str, int] = field(default_factory=dict)  # code -> raised
    integrity_alerts: dict[str, int] = field(default_factory=dict)  # code -> raised (severity "alert")
    #: Rounds ended under each table minimum and maximum, "<min>-<max>" in minor units (docs/limits.md).
    rounds_by_limits: dict[str, int] = field(default_factory=dict)
    #: The chip tray's entries by kind (opener, fill, credit, closer, drop): their values, as
    #: corrected, and how many (docs/tray.md).
    tray: dict[str, int] = field(default_factory=dict)
    tray_entries: dict[str, int] = field(default_factory=dict)
    #: Of those entries, how many of each kind the tray antenna counted (``counted_by`` reader).
    tray_by_reader: dict[str, int] = field(default_factory=dict)
    #: Ratings ended here, by their number (docs/ratings.md), and cash bought in by player
    #: (their card when rated, else "box <n> <player>").
    ratings: dict[str, dict[str, Any]] = field(default_factory=dict)
    cash: dict[str, int] = field(default_factory=dict)
    #: The progressive (docs/progressive.md): what this table's wagers gave the meter
    #: (``contributed``), jackpots signed off (``jackpots``) and what they paid (``paid``), what
    #: the casino put in to bring the meter back to its seed (``topped``), resets (``resets``)
    #: and what they took away (``removed``; below 0: what they added).
    progressive: dict[str, int] = field(default_factory=dict)
    #: A table that knows its chips (docs/chips.md; :mod:`station.meters.chips` names the keys):
    #: chips moved after no more bets (``past_posting``, ``pinching``) and losing chips left on a
    #: spot (``left_on_losing_spot``), each with what they were worth (``<kind>_amount``), wrong
    #: payments that held the table (``wrong_payments``) with what was paid over (``paid_over``)
    #: and under (``paid_under``), and those a supervisor accepted (``payments_accepted``).
    chips: dict[str, int] = field(default_factory=dict)

    # --- the figures people read -----------------------------------------------------------

    @property
    def bets(self) -> int:
        return sum(r.bets for r in self.regions.values())

    @property
    def stakes(self) -> int:
        return sum(r.stakes for r in self.regions.values())

    @property
    def house(self) -> int:
        """The house's result: what it won on every bet settled, less what it paid."""
        return sum(r.house for r in self.regions.values())

    @property
    def rounds_per_hour(self) -> float | None:
        """Rounds per hour of open table time, to one decimal; None with less than a minute of
        it (a demo at full speed deals 82 rounds in a fifth of a second: a rate of 1.5 million
        an hour says nothing a pit can use)."""
        if self.open_us < RATE_FROM_US:
            return None
        return round(self.rounds * HOUR_US / self.open_us, 1)

    # --- adding up -------------------------------------------------------------------------

    def region(self, name: str) -> RegionFigures:
        found = self.regions.get(name)
        if found is None:
            found = self.regions[name] = RegionFigures()
        return found

    def saw_round(self, time: str) -> None:
        """A round ended at journal time ``time`` (times are UTC in one format, so text order
        is time order)."""
        if not self.first_round or time < self.first_round:
            self.first_round = time
        self.last_round = max(self.last_round, time)

    def add(self, other: Figures) -> None:
        """Add ``other``'s figures to these."""
        self.rounds += other.rounds
        self.voided_rounds += other.voided_rounds
        self.open_us += other.open_us
        if other.first_round:
            self.saw_round(other.first_round)
            self.saw_round(other.last_round)
        for name, region in other.regions.items():
            self.region(name).add(region)
        self.commission += other.commission
        self.void_parts_returned += other.void_parts_returned
        self.voided_returned += other.voided_returned
        self.corrections += other.corrections
        self.corrected_house += other.corrected_house
        self.refusals += other.refusals
        _add_counts(self.irregularities, other.irregularities)
        _add_counts(self.integrity_alarms, other.integrity_alarms)
        _add_counts(self.integrity_alerts, other.integrity_alerts)
        _add_counts(self.rounds_by_limits, other.rounds_by_limits)
        _add_counts(self.tray, other.tray)
        _add_counts(self.tray_entries, other.tray_entries)
        _add_counts(self.tray_by_reader, other.tray_by_reader)
        self.ratings.update(other.ratings)  # a rating ends once: in one part only
        _add_counts(self.cash, other.cash)
        _add_counts(self.progressive, other.progressive)
        _add_counts(self.chips, other.chips)

    def played_under(self, limits: tuple[int, int]) -> None:
        """A round ended that was played under these table limits (min, max; (0, 0) unknown)."""
        if limits != (0, 0):
            key = f"{limits[0]}-{limits[1]}"
            self.rounds_by_limits[key] = self.rounds_by_limits.get(key, 0) + 1

    @classmethod
    def total(cls, parts: list[Figures]) -> Figures:
        whole = cls()
        for part in parts:
            whole.add(part)
        return whole

    # --- as JSON ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The state form (a checkpoint's): the counted figures, nothing worked out from them."""
        return {
            "rounds": self.rounds, "voided_rounds": self.voided_rounds, "open_us": self.open_us,
            "first_round": self.first_round, "last_round": self.last_round,
            "regions": {name: self.regions[name].to_json() for name in sorted(self.regions)},
            "commission": self.commission, "void_parts_returned": self.void_parts_returned,
            "voided_returned": self.voided_returned, "corrections": self.corrections,
            "corrected_house": self.corrected_house, "refusals": self.refusals,
            "irregularities": dict(sorted(self.irregularities.items())),
            "integrity_alarms": dict(sorted(self.integrity_alarms.items())),
            "integrity_alerts": dict(sorted(self.integrity_alerts.items())),
            "rounds_by_limits": dict(sorted(self.rounds_by_limits.items())),
            "tray": dict(sorted(self.tray.items())), "tray_entries": dict(sorted(self.tray_entries.items())),
            "tray_by_reader": dict(sorted(self.tray_by_reader.items())),
            "ratings": {key: dict(self.ratings[key]) for key in sorted(self.ratings, key=int)},
            "cash": dict(sorted(self.cash.items())),
            "progressive": dict(sorted(self.progressive.items())),
            "chips": dict(sorted(self.chips.items())),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        return cls(
            rounds=int(data["rounds"]), voided_rounds=int(data["voided_rounds"]), open_us=int(data["open_us"]),
            first_round=str(data["first_round"]), last_round=str(data["last_round"]),
            regions={str(name): RegionFigures.from_json(r) for name, r in data["regions"].items()},
            commission=int(data["commission"]), void_parts_returned=int(data["void_parts_returned"]),
            voided_returned=int(data["voided_returned"]), corrections=int(data["corrections"]),
            corrected_house=int(data["corrected_house"]), refusals=int(data["refusals"]),
            irregularities={str(k): int(v) for k, v in data["irregularities"].items()},
            integrity_alarms={str(k): int(v) for k, v in data["integrity_alarms"].items()},
            integrity_alerts={str(k): int(v) for k, v in data["integrity_alerts"].items()},
            # A checkpoint of meters written before limits changed by an event has none.
            rounds_by_limits={str(k): int(v) for k, v in data.get("rounds_by_limits", {}).items()},
            tray={str(k): int(v) for k, v in data.get("tray", {}).items()},
            tray_entries={str(k): int(v) for k, v in data.get("tray_entries", {}).items()},
            # Meters written before the tray antenna counted have none: every entry was by hand.
            tray_by_reader={str(k): int(v) for k, v in data.get("tray_by_reader", {}).items()},
            ratings={str(k): dict(v) for k, v in data.get("ratings", {}).items()},
            cash={str(k): int(v) for k, v in data.get("cash", {}).items()},
            progressive={str(k): int(v) for k, v in data.get("progressive", {}).items()},
            chips={str(k): int(v) for k, v in data["chips"].items()},
        )

    def report(self) -> dict[str, Any]:
        """The report form (``station meters --json``): the state form with the totals and the
        rate worked out, and without a region a correction emptied."""
        regions = {name: r.to_json() for name, r in sorted(self.regions.items()) if r.bets or r.stakes or r.house}
        return {**self.to_json(), "regions": regions, "bets": self.bets, "stakes": self.stakes, "house": self.house,
                "rounds_per_hour": self.rounds_per_hour, **self.inventory()}

    def inventory(self) -> dict[str, Any]:
        """The table's result by its chip inventory (docs/tray.md): the drop, the win (closer -
        opener + credits - fills + drop; None unless an opener and a closer were counted here),
        the hold (win / drop, percent to two decimals; None without a drop) and the variance
        from the house's result of the rounds (win - house)."""
        t = self.tray
        drop = t.get("drop", 0)
        counted = self.tray_entries.get("opener", 0) and self.tray_entries.get("closer", 0)
        win = (t.get("closer", 0) - t.get("opener", 0) + t.get("credit", 0) - t.get("fill", 0) + drop
               if counted else None)
        hold = round(win * 100 / drop, 2) if win is not None and drop else None
        return {"drop": drop, "win": win, "hold_percent": hold,
                "variance": None if win is None else win - self.house}
