"""A progressive's meter as a ledger of integers: every amount that enters it and every one
that leaves it, so that the meter is derived, never stored on its own (docs/progressive.md).

**Contributions.** The meter grows by a share of every progressive wager settled (``share_bp``
basis points of it). The share is taken of the running total of wagers, not of each one, so no
fraction of a minor unit is ever lost or invented: after wagers ``W`` in all a table has given
exactly ``W * share_bp // 10_000``.

**Rebases.** A jackpot paid, or a supervisor's reset, starts the meter again from a *base* (the
seed after a jackpot; the amount set by a reset). A rebase records what it took: ``counted``,
every table's contributions up to then, as the table that made it knew them. The meter is

    base of the latest rebase + Σ over the pool's tables of (contributions - counted)

so a contribution the rebase did not know of (a table offline at the time) is never lost: it
is in the meter after it. The latest rebase is the one of the highest ``(epoch, table)``; a
rebase takes the epoch after the latest it knew, and ``counted`` is taken, table by table, as
the largest of every rebase's, so every table of a pool that has heard the same messages shows
the same meter, in whatever order it heard them.

**A table alone** has only itself in its pool; then, at every moment,

    seeded + contributed == paid + meter + removed

which the tests check after every step and every restart.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Basis points in a whole (15% is 1500).
WHOLE_BP = 10_000


@dataclass(frozen=True)
class ProgressiveSettings:
    """A table's progressive, as its configuration says (``[table.progressive]``); ``member`` is
    this table's name in the pool (its floor id)."""

    pool: str
    seed: int
    share_bp: int
    region: str = "progressive"
    member: str = "table"

    def __post_init__(self) -> None:
        for name, value, low, high in (("seed", self.seed, 0, None), ("share_bp", self.share_bp, 1, WHOLE_BP)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low or (high and value > high):
                raise ValueError(f"progressive {name} must be a whole number from {low}"
                                 f"{f' to {high}' if high else ''}, got {value!r}")


def _order(rebase: dict[str, Any]) -> tuple[int, str]:
    return int(rebase["epoch"]), str(rebase["table"])


@dataclass
class ProgressiveLedger:
    """Everything the meter is made of (minor units), and the jackpot waiting for its sign-off."""

    member: str
    seed: int
    seeded: int
    wagered: int = 0
    contributed: int = 0
    paid: int = 0
    removed: int = 0
    jackpots: int = 0
    resets: int = 0
    #: This table's latest rebase: {"epoch", "table", "kind", "base", "counted": {table: amount}}.
    rebase: dict[str, Any] | None = None
    #: What the other tables of the pool said last: {table: {"contributed", "rebase"}}.
    heard: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The round whose bets won a share of the meter, waiting for a supervisor: {"round_id",
    #: "awards": [{"box", "player", "region", "hand", "percent", "amount"}]}, valued at the hit.
    pending: dict[str, Any] | None = None
    last_paid: dict[str, Any] | None = None

    @classmethod
    def starting(cls, settings: ProgressiveSettings) -> ProgressiveLedger:
        return cls(member=settings.member, seed=settings.seed, seeded=settings.seed)

    # --- the meter ---------------------------------------------------------------------------

    def contributions(self) -> dict[str, int]:
        """Every table's contributions as this one knows them (itself included)."""
        return {**{table: int(h["contributed"]) for table, h in self.heard.items()}, self.member: self.contributed}

    def rebases(self) -> list[dict[str, Any]]:
        return [r for r in (self.rebase, *(h.get("rebase") for h in self.heard.values())) if r]

    def latest(self) -> dict[str, Any] | None:
        rebases = self.rebases()
        return max(rebases, key=_order) if rebases else None

    def counted(self) -> dict[str, int]:
        """Table by table, the most any rebase took of its contributions."""
        counted: dict[str, int] = {}
        for rebase in self.rebases():
            for table, amount in rebase["counted"].items():
                counted[table] = max(counted.get(table, 0), int(amount))
        return counted

    @property
    def meter(self) -> int:
        """What the meter shows now."""
        latest, counted = self.latest(), self.counted()
        base = self.seed if latest is None else int(latest["base"])
        return base + sum(max(0, amount - counted.get(table, 0)) for table, amount in self.contributions().items())

    # --- what changes it ---------------------------------------------------------------------

    def wager(self, amount: int, share_bp: int) -> int:
        """Wagers of ``amount`` in all settled (less when a correction takes some back): the
        meter's share of them, as the running total gives it; returns what it added."""
        before = self.contributed
        self.wagered += amount
        self.contributed = self.wagered * share_bp // WHOLE_BP
        return self.contributed - before

    def value_awards(self, awards: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Awards of a round valued at the meter now: its share (``percent``), split evenly
        between the round's awards (the remainder of the split stays in the meter)."""
        meter = self.meter
        return [{**award, "amount": meter * award["percent"] // (100 * len(awards))} for award in awards]

    def pay(self) -> tuple[list[int], int]:
        """The awards waiting are paid at their amounts: returns them, and what the casino put
        in to bring the meter back to its seed (more when another table of the pool paid a
        jackpot of the same meter meanwhile)."""
        assert self.pending is not None
        amounts = [int(award["amount"]) for award in self.pending["awards"]]
        left = self.meter - sum(amounts)
        base = max(self.seed, left)
        self.paid += sum(amounts)
        self.seeded += base - left
        self._rebase("jackpot", base)
        self.jackpots += 1
        self.pending = None
        return amounts, base - left

    def reset(self, amount: int) -> int:
        """The meter set to ``amount`` by a supervisor: returns what that took away (less than
        0: what the casino put in)."""
        change = self.meter - amount
        if change >= 0:
            self.removed += change
        else:
            self.seeded -= change
        self._rebase("reset", amount)
        self.resets += 1
        return change

    def _rebase(self, kind: str, base: int) -> None:
        latest, counted = self.latest(), self.counted()
        taken = {table: max(amount, counted.get(table, 0)) for table, amount in self.contributions().items()}
        epoch = 1 if latest is None else int(latest["epoch"]) + 1
        self.rebase = {"epoch": epoch, "table": self.member, "kind": kind, "base": base, "counted": taken}

    def hear(self, table: str, contributed: int, rebase: dict[str, Any] | None) -> bool:
        """Another table of the pool says what it gave and its latest rebase: kept when newer
        than what was heard of it (a repeat or an older message changes nothing). True when
        anything changed."""
        if table == self.member:
            return False
        was = self.heard.get(table, {"contributed": 0, "rebase": None})
        rebase = rebase if rebase and (was["rebase"] is None or _order(rebase) > _order(was["rebase"])) \
            else was["rebase"]
        now = {"contributed": max(int(was["contributed"]), contributed), "rebase": rebase}
        if now == was:
            return False
        self.heard[table] = now
        return True

    def balanced(self) -> bool:
        """A table alone: every minor unit that entered is paid, shown or taken away."""
        return self.seeded + self.contributed == self.paid + self.meter + self.removed

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProgressiveLedger:
        return cls(**data)
