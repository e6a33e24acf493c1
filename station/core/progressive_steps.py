"""The table's progressive: its meter fed by every progressive wager settled, its jackpots
signed off by a supervisor before the next round, and its resets (docs/progressive.md).

The game says which bets won a share of the meter (``Settlement.meter_awards``); this step
values and pays them, so the core knows no game's hands. A jackpot holds the table: "next
round" is refused until a supervisor signs it off (``ProgressiveSignOff``), and the amount
paid is the meter's at that moment, which the journal derives again on every replay. A void
round gives the meter nothing; a correction of a progressive wager gives or takes back its
share as the running total does (:class:`~station.core.progressive.ProgressiveLedger`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from station.core import outputs as out
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.core.rounds import Round
from station.events import ProgressivePoolHeard, ProgressiveReset, ProgressiveSignOff
from station.games.interface import MeterAward
from station.games.layout import SettledBet

#: What the table expects of people while a jackpot waits (the simulated dealer waits for it).
JACKPOT_WORDS = "a supervisor signs the progressive jackpot off"


class ProgressiveSteps(MachineBase):
    """The meter, its jackpots and its resets; nothing at a table without a progressive."""

    def _progressive_stakes(self, bets: Iterable[SettledBet]) -> int:
        settings = self.options.progressive
        return 0 if settings is None else sum(b.valid for b in bets if b.region == settings.region)

    def _meter_output(self, why: str, added: int = 0, round_id: str = "") -> None:
        ledger, settings = self.progressive, self.options.progressive
        assert ledger is not None and settings is not None
        self._emit(out.ProgressiveMeter(settings.pool, ledger.meter, why, added, round_id, ledger.pending is not None))

    def _progressive_round(self, r: Round, bets: tuple[SettledBet, ...], awards: tuple[MeterAward, ...]) -> None:
        """A round settled: its progressive wagers feed the meter; its awards wait for a supervisor."""
        ledger, settings = self.progressive, self.options.progressive
        if ledger is None or settings is None:
            return
        added = ledger.wager(self._progressive_stakes(bets), settings.share_bp)
        self._meter_output("round", added, str(r.round_id))
        if not awards:
            return
        ledger.pending = {"round_id": str(r.round_id), "awards": ledger.value_awards([
            {"box": a.key[0], "player": a.key[1], "region": a.key[2], "hand": a.hand, "percent": a.percent}
            for a in awards])}
        self._emit(out.ProgressiveHit(str(r.round_id), settings.pool, ledger.meter, self._awards_now()))

    def _progressive_corrected(self, before: Iterable[SettledBet], after: Iterable[SettledBet], round_id: str) -> None:
        """A correction changed a settled round's bets: its progressive wagers as they really were."""
        ledger, settings = self.progressive, self.options.progressive
        if ledger is None or settings is None:
            return
        change = self._progressive_stakes(after) - self._progressive_stakes(before)
        if change:
            added = ledger.wager(change, settings.share_bp)
            self._meter_output("correction", added, round_id)

    def _awards_now(self) -> tuple[dict[str, Any], ...]:
        ledger = self.progressive
        assert ledger is not None and ledger.pending is not None
        return tuple(dict(award) for award in ledger.pending["awards"])

    def jackpot_hold(self) -> str:
        """Why "next round" waits for the progressive ("" when it need not)."""
        ledger = self.progressive
        if ledger is None or ledger.pending is None:
            return ""
        return (f"the progressive jackpot of round {ledger.pending['round_id']} waits for a supervisor's sign-off "
                "(Sign off jackpot)")

    def _on_progressive_sign_off(self, ev: ProgressiveSignOff) -> None:
        ledger, settings = self.progressive, self.options.progressive
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor signs a progressive jackpot off")
            return
        if ledger is None or settings is None:
            self._refuse(ev, "this table has no progressive")
            return
        if ledger.pending is None or ledger.pending["round_id"] != ev.round_id:
            waiting = f"round {ledger.pending['round_id']}'s" if ledger.pending else "none"
            self._refuse(ev, f"no jackpot of round {ev.round_id} waits for a sign-off (waiting: {waiting})")
            return
        round_id, awards = ledger.pending["round_id"], self._awards_now()
        amounts, topped = ledger.pay()
        ledger.last_paid = {"round_id": round_id, "total": sum(amounts), "who": ev.actor.who}
        self._emit(out.ProgressivePaid(round_id, settings.pool, awards, sum(amounts), topped, ledger.meter,
                                       ev.actor.role, ev.actor.who, ev.note))
        self._meter_output("paid", round_id=round_id)

    def _on_progressive_reset(self, ev: ProgressiveReset) -> None:
        ledger, settings = self.progressive, self.options.progressive
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor resets the progressive's meter")
            return
        if ledger is None or settings is None:
            self._refuse(ev, "this table has no progressive")
            return
        if ledger.pending is not None:
            self._refuse(ev, f"sign the jackpot of round {ledger.pending['round_id']} off first")
            return
        if not ev.reason.strip():
            self._refuse(ev, "a reset of the meter needs its reason")
            return
        amount = settings.seed if ev.amount < 0 else ev.amount
        before = ledger.meter
        ledger.reset(amount)
        self._emit(out.ProgressiveWasReset(settings.pool, before, ledger.meter, ev.reason.strip(), ev.actor.role,
                                           ev.actor.who))
        self._meter_output("reset")

    def _on_pool_heard(self, ev: ProgressivePoolHeard) -> None:
        """Another table of the pool said what it gave and its latest jackpot or reset (the
        floor broker's retained message, journaled as it came): the meter as the pool's."""
        ledger, settings = self.progressive, self.options.progressive
        if ledger is None or settings is None or ev.pool != settings.pool:
            return  # another pool's, or a table without one: nothing of this table's
        if ledger.hear(ev.table, ev.contributed, dict(ev.rebase) if ev.rebase else None):
            self._meter_output("linked")

    def progressive_view(self) -> dict[str, Any] | None:
        """The progressive as ``station ctl status`` shows it (None at a table without one)."""
        ledger, settings = self.progressive, self.options.progressive
        if ledger is None or settings is None:
            return None
        return {"pool": settings.pool, "member": settings.member, "meter": ledger.meter,
                "contributed": ledger.contributed, "rebase": ledger.rebase,
                "tables": sorted(ledger.heard), "latest": ledger.latest(), "seed": settings.seed,
                "share_bp": settings.share_bp,
                "pending": None if ledger.pending is None else {"round_id": ledger.pending["round_id"],
                                                                "awards": list(self._awards_now())},
                "jackpots": ledger.jackpots, "paid": ledger.paid, "last_paid": ledger.last_paid}
