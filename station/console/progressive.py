"""The progressive jackpot as the console shows it (docs/progressive.md, docs/console.md).

A table with a progressive shows its meter over the felt, in the table's money ("Progressive
Jackpot 10,000.00 EUR"). While a jackpot waits for a supervisor's sign-off (the next round
waits with it), the sign becomes the jackpot's panel: who won what ("Jackpot! Box 1 ann wins
20,003.75 EUR — waiting for a supervisor"), and for a supervisor the sign-off. What happened
last (a jackpot paid, the meter reset) is said under the meter until the next round opens.

The picture is folded from the core's progressive outputs, and after a restart it starts from
the machine's own view of its ledger (``progressive_view``, what ``station ctl status`` shows);
every amount is the core's, only the words are the console's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from station.console.words import box_name
from station.core import outputs as out
from station.money import Money


class ProgressivePicture:
    """The meter, the jackpot waiting, and the last thing done to the meter, in words."""

    def __init__(self, money: Money, seed: int, meter: int) -> None:
        self.money = money
        self.seed = seed
        self.meter = meter
        self.jackpots = 0
        #: The jackpot waiting for a sign-off: {"round_id", "awards": [{"box", "player", "amount", ...}]}.
        self.pending: dict[str, Any] | None = None
        #: What was last done to the meter (paid, reset), until the next round opens.
        self.news = ""

    @classmethod
    def resumed(cls, money: Money, status: Mapping[str, Any]) -> ProgressivePicture:
        """The picture from the machine's ``progressive_view`` after the journal's replay."""
        picture = cls(money, int(status["seed"]), int(status["meter"]))
        picture.jackpots = int(status.get("jackpots", 0))
        pending = status.get("pending")
        if pending is not None:
            picture.pending = {"round_id": str(pending["round_id"]), "awards": _awards(pending["awards"])}
        return picture

    # --- the core's outputs ----------------------------------------------------------------

    def metered(self, o: out.ProgressiveMeter) -> None:
        self.meter = o.meter

    def hit(self, o: out.ProgressiveHit) -> None:
        self.meter = o.meter
        self.pending = {"round_id": o.round_id, "awards": _awards(o.awards)}

    def paid(self, o: out.ProgressivePaid) -> None:
        m = self.money
        self.meter = o.meter
        self.pending = None
        self.jackpots += 1
        how = f" ({o.note})" if o.note else ""
        self.news = (f"Jackpot of round {o.round_id} paid: {m.with_currency(o.total)}, signed off by "
                     f"{o.who or o.role}{how}")

    def was_reset(self, o: out.ProgressiveWasReset) -> None:
        m = self.money
        self.meter = o.meter
        self.news = (f"Meter reset from {m.with_currency(o.before)} to {m.with_currency(o.meter)} by "
                     f"{o.who or o.role} ({o.reason})")

    def new_round(self) -> None:
        self.news = ""

    # --- the picture -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        m = self.money
        p = self.pending
        return {
            "meter": self.meter, "seed": self.seed, "jackpots": self.jackpots,
            "meter_words": f"Progressive Jackpot {m.with_currency(self.meter)}",
            "meter_text": m.with_currency(self.meter),
            "seed_words": m.with_currency(self.seed), "seed_text": m(self.seed), "news": self.news,
            "pending": None if p is None else {
                "round_id": p["round_id"], "awards": p["awards"],
                "words": "Jackpot! " + ", ".join(
                    f"{box_name(a['box'])} {a['player']} wins {m.with_currency(a['amount'])}" for a in p["awards"])
                + " \u2014 waiting for a supervisor",
                "detail": f"Round {p['round_id']}: the next round waits until a supervisor signs the jackpot off",
            },
        }


def _awards(awards: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"box": str(a["box"]), "player": str(a["player"]), "hand": str(a.get("hand", "")),
             "percent": int(a.get("percent", 0)), "amount": int(a["amount"])} for a in awards]
