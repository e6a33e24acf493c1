"""Integrity in the core: the register of alarms and alerts, the account of the cards out of the
shoe, and the supervisor's decisions on a card set or a shoe the integrity checks proved wrong.

Alerts enter the register in two ways, both deterministic under replay:

- **the core's own checks**, raised while it applies the input that shows the problem (a deck
  check short or over, a set that lost its shuffled status, a continuous shuffler counting a
  different number of cards back, a card beyond the shoe's decks, a shoe that reports empty with
  cards unaccounted for); the journaled input is the record, and replay raises them again;
- **the integrity monitor** (:mod:`station.integrity`), which posts an
  :class:`~station.events.IntegrityAlert` input: journaled, then applied here. An alert whose
  key is already in the register is refused, so a finding is raised once.

An alarm with ``stop`` stops the round for a supervisor (``integrity_alarm``), as the draw
checks do. A supervisor acknowledges an alert with :class:`~station.events.AlertAcknowledged`.
Nothing here is shown to players: the publisher does not subscribe to these outputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from station.cards import FULL_DECK
from station.core import irregularities as irr
from station.core import outputs as out
from station.core import states as st
from station.core.irregularities import HeldCard, Irregularity
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.core.options import CoreOptions
from station.events import AlertAcknowledged, IntegrityAlert, SupervisorDecision

SEVERITIES = ("alarm", "alert")
#: Acknowledged alerts the register keeps, newest first, besides every open one: a table's
#: alerts grow with its age, and the register is in every checkpoint (a year of alerts made
#: each checkpoint 1.5 MB). The older ones are in the journal, where the integrity report and
#: recall find them (docs/integrity.md, "The register").
ACKNOWLEDGED_KEPT = 100

#: Outputs after which the cards out of the shoe are accounted (see :class:`out.CardsAccounted`).
_ACCOUNTED: dict[type[out.Output], str] = {
    out.ShoeStarted: "start", out.RoundSettled: "round", out.RoundVoided: "round", out.ShoeEnded: "end",
}


@dataclass(frozen=True)
class Alert:
    """One alarm or alert in the register; replaced whole when acknowledged."""

    ident: int
    code: str
    severity: str
    detail: str
    key: str
    shoe: int
    round_id: str
    stop: bool
    source: str
    data: dict[str, Any] = field(default_factory=dict)
    acknowledged: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ident": self.ident, "code": self.code, "severity": self.severity, "detail": self.detail,
            "key": self.key, "shoe": self.shoe, "round_id": self.round_id, "stop": self.stop,
            "source": self.source, "data": self.data, "acknowledged": self.acknowledged,
        }


class IntegritySteps(MachineBase):
    """The alert register, the card account and the integrity decisions."""

    def __init__(self, options: CoreOptions | None = None) -> None:
        super().__init__(options)
        #: The register: every open alert and the last :data:`ACKNOWLEDGED_KEPT` acknowledged,
        #: oldest first.
        self.alerts: list[Alert] = []
        #: Alerts raised in the table's life: the next one's number is one more.
        self.alerts_raised = 0
        self.alert_counts: dict[str, int] = {}  # "<severity>:<code>" -> raised (what metrics will read)
        self._alert_keys: set[str] = set()
        #: Raised plus acknowledged in this machine's life: tells the loop's snapshot when the
        #: open alerts changed without looking through them all (station/core/snapshot.py).
        self.alert_changes = 0

    # --- the register -------------------------------------------------------------------------

    def _register_alert(self, code: str, severity: str, detail: str, *, key: str = "", stop: bool = False,
                        source: str = "core", data: dict[str, Any] | None = None, shoe: int | None = None,
                        round_id: str | None = None) -> Alert:
        self.alerts_raised += 1
        ident = self.alerts_raised
        if shoe is None:
            shoe = self.shoe.number
        if round_id is None:
            round_id = self.round.round_id if self.round is not None else ""
        alert = Alert(ident, code, severity, detail, key or f"{code}:{ident}", shoe, round_id, stop, source,
                      dict(data or {}))
        self.alerts.append(alert)
        self.alert_changes += 1
        self._alert_keys.add(alert.key)
        counter = f"{severity}:{code}"
        self.alert_counts[counter] = self.alert_counts.get(counter, 0) + 1
        self._emit(out.AlertRaised(ident, code, severity, detail, shoe, round_id, stop, source))
        return alert

    def _on_integrity_alert(self, ev: IntegrityAlert) -> None:
        if ev.severity not in SEVERITIES:
            self._refuse(ev, f"an integrity alert is an alarm or an alert, not {ev.severity!r}")
            return
        if ev.key and ev.key in self._alert_keys:
            self._refuse(ev, f"{ev.key} has been raised already")
            return
        in_play = bool(ev.shoe) and ev.shoe == self.shoe.number and self.shoe.progress is not None \
            and not self.shoe.ended
        stop = ev.stop and in_play
        alert = self._register_alert(ev.code, ev.severity, ev.detail, key=ev.key, stop=stop, source="monitor",
                                     data=ev.data, shoe=ev.shoe, round_id=ev.round_id)
        if stop:
            self._stop_for(alert)

    def _stop_for(self, alert: Alert) -> None:
        words = f"alert {alert.ident}: {alert.detail}"
        problem = self.irregularity
        if self.state == st.IRREGULARITY and problem is not None:
            # Already stopped: the supervisor's decision must weigh this too.
            problem.detail = f"{problem.detail}; then {words}"[:600]
            self._emit(out.IrregularityRaised(problem.ident, problem.reason, problem.detail, problem.round_id,
                                              problem.decisions))
        elif self.state in st.RETURNABLE:
            self._raise("integrity_alarm", words)

    def _on_alert_acknowledged(self, ev: AlertAcknowledged) -> None:
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor may acknowledge an alert")
            return
        if not 1 <= ev.ident <= self.alerts_raised:
            self._refuse(ev, f"there is no alert {ev.ident}")
            return
        index = next((i for i, a in enumerate(self.alerts) if a.ident == ev.ident), None)
        if index is None:  # only an acknowledged alert leaves the register
            self._refuse(ev, f"alert {ev.ident} was acknowledged long ago (station integrity report shows by whom)")
            return
        alert = self.alerts[index]
        if alert.acknowledged is not None:
            self._refuse(ev, f"alert {ev.ident} was acknowledged by {alert.acknowledged['who'] or 'a supervisor'}")
            return
        seen = {"role": ev.actor.role, "who": ev.actor.who, "note": ev.note}
        self.alerts[index] = replace(alert, acknowledged=seen)
        self.alert_changes += 1
        self._emit(out.AlertCleared(alert.ident, alert.code, ev.actor.role, ev.actor.who, ev.note))
        self._forget_old_alerts()

    def _forget_old_alerts(self) -> None:
        """Keep the newest :data:`ACKNOWLEDGED_KEPT` acknowledged alerts (and every open one).
        A forgotten alert's key is forgotten with it once its shoe is over, so the register of
        a year-old table is as small as a new one's; a key of the shoe in play is kept, so a
        finding of it is never raised twice."""
        acknowledged = [a for a in self.alerts if a.acknowledged is not None]
        if len(acknowledged) <= ACKNOWLEDGED_KEPT:
            return
        gone = {a.ident for a in acknowledged[:len(acknowledged) - ACKNOWLEDGED_KEPT]}
        for alert in self.alerts:
            if alert.ident in gone and alert.shoe < self.shoe.number:
                self._alert_keys.discard(alert.key)
        self.alerts = [a for a in self.alerts if a.ident not in gone]

    def open_alerts(self) -> list[Alert]:
        """Alerts no supervisor has acknowledged yet, oldest first."""
        return [a for a in list(self.alerts) if a.acknowledged is None]

    # --- the core's own card checks -----------------------------------------------------------

    def _raise(self, reason: str, detail: str, held: HeldCard | None = None, device: str = "",
               decisions: tuple[str, ...] = ()) -> None:
        super()._raise(reason, detail, held, device, decisions)
        problem = self.irregularity
        if reason == "impossible_card" and held is not None and problem is not None:
            card = held.card.code
            decks = self.options.decks
            self._register_alert(
                "card_beyond_decks", "alarm",
                f"{card} read once more than {decks} decks hold (a duplicate, a card from another set, or a "
                "card read twice)", key=f"card_beyond_decks:{self.shoe.number}:{problem.ident}", stop=True,
                data={"card": card, "decks": decks, "seen": decks + 1},
            )

    # --- decisions ----------------------------------------------------------------------------

    def _decide_integrity(self, ev: SupervisorDecision, problem: Irregularity) -> None:
        shoe = self.shoe
        if ev.decision == irr.REJECT:
            self._trigger("resolve")
            shoe.ready_set = ""
            shoe.ready_check = None
        elif ev.decision == irr.RECHECK:
            self._trigger("resolve")
            check = shoe.ready_check or {}
            device = str(check.get("device", ""))
            shoe.ready_check = {"status": "pending", "device": device, "set": shoe.ready_set}
            self._emit(out.DeckCheckWanted(device, shoe.ready_set))
        elif ev.decision == irr.END_SHOE:
            r = self.round
            held = [h.card for h in problem.held]
            if r is not None and not r.settled:
                r.burned.extend(held)
                self._void_round(f"the shoe was ended by {ev.actor.who or 'a supervisor'}: {problem.words}")
                self._trigger("void")
            else:
                if r is not None:
                    r.burned.extend(held)
                else:
                    self.discarded.extend(held)
                self._trigger("resolve")
            shoe.closed = True

    # --- the account of the cards out of the shoe ----------------------------------------------

    def _account(self, mark: int) -> None:
        """After an event applied live: follow each shoe start, round end and shoe end among its
        outputs with the account of the cards out of the shoe (:class:`out.CardsAccounted`)."""
        box = self.outbox
        tail = box[mark:]
        if not any(type(o) in _ACCOUNTED for o in tail):
            return
        rebuilt: list[out.Output] = []
        for output in tail:
            rebuilt.append(output)
            stage = _ACCOUNTED.get(type(output))
            if stage is not None:
                rebuilt.append(self._cards_accounted(stage, output))
        box[mark:] = rebuilt

    def _cards_accounted(self, stage: str, output: out.Output) -> out.CardsAccounted:
        shoe = self.shoe
        comp = shoe.composition
        left = tuple(comp.count(card) for card in FULL_DECK) if comp is not None else ()
        cards, shoe.drawn = tuple(shoe.drawn), []
        round_id = getattr(output, "round_id", "")
        return out.CardsAccounted(shoe.number, round_id, stage, cards, left, self.options.decks, shoe.empty,
                                  shoe.set_in_shoe, shoe.ended)
