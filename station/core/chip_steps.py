"""A table that knows its chips (docs/chips.md): the chip reader's stable reads become bets,
catch chips moved after no more bets, and check what the dealer pays.

- **Betting open.** Each read of a betting spot proposes its bet (:class:`ChipBetsProposed`
  lists each spot's chips against what is bet). With ``confirm = "tap"`` the dealer's one tap
  (:class:`~station.chip_inputs.ChipBetsConfirmed`) makes the chips the bets; with
  ``as_read`` a spot's bet follows its chips at once. Either way the bet enters through the
  same step as a keyed one (limits, refusals and all).
- **Betting closed, round not settled.** A spot whose chips are not those locked at no more
  bets stops the round (``chips_moved``): past-posting or pinching, naming the spot, the chips
  and the read. Each chip moved is reported once.
- **Paying.** Each payout zone's latest chips are checked against what its box is owed, as
  they are read (the console shows right, over or under at once). "Next round" checks them all:
  a wrong payment holds it (when the table says so) until the zone is right or a supervisor
  accepts it (:class:`~station.chip_inputs.ChipPaymentAccepted`); losing chips still on a spot
  are shown.
- **Everywhere.** A chip that does not count (unknown, flagged, retired) raises an integrity
  alarm naming the place and the chip, once while it lies there.
"""

from __future__ import annotations

from typing import Any

from station.chip_inputs import ChipBetsConfirmed, ChipPaymentAccepted, ChipRegistryInForce, ChipsOnPlace, ChipStatusSet
from station.chips.places import ChipPlace, PlaceKind
from station.chips.registry import ChipStatus
from station.core import outputs as out
from station.core import states as st
from station.core.chip_table import ChipLayout
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.core.rounds import Round
from station.events import Actor, BetChanged, BetPlaced, BetWithdrawn, Event
from station.games.layout import SettledBet

CHIPS_MOVED = "chips_moved"
#: What the table expects of people while a wrong payment holds it.
WRONG_PAYMENT_WORDS = "put the wrong payment right in the payout zone or a supervisor accepts it"
_STATUSES = {ChipStatus.ACTIVE.value, ChipStatus.FLAGGED.value, ChipStatus.RETIRED.value}
_FINAL = ChipStatus.RETIRED.value


class ChipSteps(MachineBase):
    """The chips of the layout; nothing at a table without ``[table.chips]``."""

    # -- inputs ---------------------------------------------------------------------------------

    def _chip_layout_or_refuse(self, ev: Event) -> ChipLayout | None:
        if self.chip_layout is None:
            self._refuse(ev, "this table reads no chips ([table.chips] is not configured)")
        return self.chip_layout

    def _on_chips_on_place(self, ev: ChipsOnPlace) -> None:
        layout = self._chip_layout_or_refuse(ev)
        if layout is None:
            return
        layout.touch()
        try:
            place = ChipPlace.parse(ev.place)
        except ValueError as exc:
            self._refuse(ev, str(exc))
            return
        if place.is_spot and place.region not in self.rules.regions_of(self.table):
            self._refuse(ev, f"{place.region!r} is not a bet of this table")
            return
        layout.seen[ev.place] = ev.chips
        chips = layout.chips(ev.place)
        self._chip_alarms(layout, place)
        amount = sum(c.value for c in chips if c.counts)
        self._emit(out.ChipsSeen(ev.place, place.words(), tuple(
            {"uid": c.uid, "status": c.status.value, "value": c.value} for c in chips), amount))
        state = self.paused_from if self.state == st.PAUSED else self.state
        r = self.round
        if state == st.BETTING and r is not None and not r.bets_closed:
            if place.is_spot and self.options.chips is not None and self.options.chips.confirm == "as_read":
                self._bet_from_chips(place, amount, Actor("dealer", ev.device))
            self._propose_chip_bets()
        elif place.is_spot and layout.lock is not None and r is not None and not r.settled:
            self._watch_spot(layout, place, ev)
        elif layout.owed is not None and place.kind is PlaceKind.PAYOUT and chips:
            layout.paid[place.box] = ev.chips
            kept = self._round_chips()
            for check in layout.payout_checks(self.table.money, (place.box,)):
                text = check.text(self.table.money)
                if kept is not None:
                    kept["payment"] = [p for p in kept["payment"] if p["box"] != check.box] + [
                        {"box": check.box, "owed": check.owed, "paid": check.paid, "verdict": check.verdict.value,
                         "text": text}]
                self._emit(out.ChipPaymentChecked(layout.owed_round, check.box, check.owed, check.paid,
                                                  check.verdict.value, text))
            if layout.hold and not layout.payment_wrong(self.table.money):
                layout.hold = ""

    def _on_chip_bets_confirmed(self, ev: ChipBetsConfirmed) -> None:
        layout = self._chip_layout_or_refuse(ev)
        if layout is None:
            return
        r = self.round
        if self.state != st.BETTING or r is None or r.bets_closed:
            self._refuse(ev, "chip bets are confirmed while betting is open")
            return
        boxes = set(ev.boxes)
        kept = self._round_chips()
        assert kept is not None
        kept["confirmed"].append({"boxes": sorted(boxes), "role": ev.actor.role, "who": ev.actor.who})
        for spot in self._chip_spots(layout):
            place = ChipPlace.parse(spot["place"])
            if (not boxes or place.box in boxes) and not spot["agrees"]:
                self._bet_from_chips(place, spot["chips"], ev.actor)
        self._propose_chip_bets()

    def _on_chip_status_set(self, ev: ChipStatusSet) -> None:
        layout = self._chip_layout_or_refuse(ev)
        if layout is None:
            return
        problem = ""
        if ev.actor.role not in SUPERVISOR_ROLES:
            problem = "only a supervisor changes a chip's status"
        elif ev.status not in _STATUSES:
            problem = f"a chip is made active, flagged or retired, not {ev.status!r}"
        elif not ev.reason.strip():
            problem = "a change of a chip's status says why"
        elif layout.statuses.get(ev.uid) == _FINAL:
            problem = f"chip {ev.uid} is retired: a retired chip never goes back into play"
        if problem:
            self._refuse(ev, problem)
            return
        layout.touch()
        layout.statuses[ev.uid] = ev.status
        self._emit(out.ChipStatusChanged(ev.uid, ev.status, ev.reason, ev.actor.role, ev.actor.who))
        for place in sorted(layout.seen):
            if any(c.uid == ev.uid for c in layout.seen[place]):
                self._chip_alarms(layout, ChipPlace.parse(place))

    def _on_chip_payment_accepted(self, ev: ChipPaymentAccepted) -> None:
        layout = self._chip_layout_or_refuse(ev)
        if layout is None:
            return
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor accepts a wrong payment")
        elif not layout.hold or layout.hold != ev.round_id:
            self._refuse(ev, f"no wrong payment of round {ev.round_id} holds the table")
        else:
            layout.touch()
            layout.accepted = layout.hold
            layout.hold = ""
            kept = self._round_chips()
            if kept is not None:
                kept["accepted"] = {"role": ev.actor.role, "who": ev.actor.who, "note": ev.note}
            self._emit(out.ChipPaymentWasAccepted(ev.round_id, ev.actor.role, ev.actor.who, ev.note))

    def _on_chip_registry(self, ev: ChipRegistryInForce) -> None:
        """The registry the reads are valued by: the journal names it; nothing else changes."""
        self._chip_layout_or_refuse(ev)

    def _round_chips(self) -> dict[str, Any] | None:
        """What the round on the table keeps of its chips (None between rounds)."""
        r = self.round
        if r is None:
            return None
        if not r.chips:
            r.chips.update({"proposed": [], "confirmed": [], "moved": [], "payment": [], "held": None,
                            "accepted": None, "alarms": []})
        return r.chips

    # -- betting --------------------------------------------------------------------------------

    def _chip_spots(self, layout: ChipLayout) -> list[dict[str, Any]]:
        r = self.round
        assert r is not None
        proposed = layout.proposal(self.table.money).amounts()
        keyed: dict[ChipPlace, int] = {}
        for (box, _player, region), amount in r.bets.items():
            place = ChipPlace.spot(box, region)
            keyed[place] = keyed.get(place, 0) + amount
        read = {ChipPlace.parse(p) for p in layout.seen if ChipPlace.parse(p).is_spot}
        spots = []
        for place in sorted(read | keyed.keys(), key=ChipPlace.order):
            chips, bet = proposed.get(place, 0), keyed.get(place, 0)
            spots.append({"place": str(place), "box": place.box, "region": place.region, "chips": chips,
                          "keyed": bet, "player": self._chip_player(place), "read": place in read,
                          "agrees": place not in read or chips == bet})
        return spots

    def _chips_round_opened(self) -> None:
        """Betting opens on the chips already on the spots (a Tie's bets left on, chips put down
        early): they propose the round's bets at once, and are its bets at a table that takes
        them as read."""
        layout, rules = self.chip_layout, self.options.chips
        if layout is None or rules is None:
            return
        if rules.confirm == "as_read":
            for spot in self._chip_spots(layout):
                if not spot["agrees"]:
                    self._bet_from_chips(ChipPlace.parse(spot["place"]), spot["chips"], Actor("dealer", "chipreader"))
        self._propose_chip_bets()

    def _propose_chip_bets(self) -> None:
        layout, r, rules = self.chip_layout, self.round, self.options.chips
        assert layout is not None and r is not None and rules is not None
        spots = tuple(self._chip_spots(layout))
        kept = self._round_chips()
        assert kept is not None
        kept["proposed"] = [dict(spot) for spot in spots]
        self._emit(out.ChipBetsProposed(str(r.round_id), spots, rules.confirm))

    def _chip_player(self, place: ChipPlace) -> str:
        """Whose chips lie on ``place``: the one player betting at its box, or rated there."""
        r = self.round
        players = sorted({player for (box, player, _region) in (r.bets if r else {}) if box == place.box}
                         | {rating["player"] for rating in self.ratings.values() if rating["box"] == place.box})
        return players[0] if len(players) == 1 else ("" if players else "P1")

    def _bet_from_chips(self, place: ChipPlace, amount: int, actor: Actor) -> None:
        """The spot's bet becomes ``amount`` through the keyed bets' own steps."""
        r = self.round
        assert r is not None
        player = self._chip_player(place)
        if not player:
            self._emit(out.Refused("ChipBetsConfirmed", f"{place.words()}: several players bet at box {place.box}; "
                                   "the dealer keys whose chips these are"))
            return
        current = r.bets.get((place.box, player, place.region))
        if amount and current is None:
            self._on_bet_placed(BetPlaced(place.box, player, place.region, amount, actor))
        elif amount and current != amount:
            self._on_bet_changed(BetChanged(place.box, player, place.region, amount, actor))
        elif not amount and current is not None:
            self._on_bet_withdrawn(BetWithdrawn(place.box, player, place.region, actor))

    # -- after no more bets ---------------------------------------------------------------------

    def _chips_bets_closed(self) -> None:
        if self.chip_layout is not None:
            self.chip_layout.touch()
            self.chip_layout.lock_bets()

    def _watch_spot(self, layout: ChipLayout, place: ChipPlace, ev: ChipsOnPlace) -> None:
        r = self.round
        round_id = str(r.round_id) if r is not None else ""
        moved = [fresh for f in layout.findings(place, ev.read, ev.at_ms, self.table.money)
                 if (fresh := layout.first_report(f)) is not None]
        kept = self._round_chips()
        for finding in moved:
            layout.count(finding.kind.value)
            text = finding.text(self.table.money)
            if kept is not None:
                kept["moved"].append({"found": finding.kind.value, "place": str(finding.place), "text": text,
                                      "amount": finding.amount, "chips": [c.uid for c in finding.chips],
                                      "read": ev.read, "at_ms": ev.at_ms})
            self._emit(out.ChipsMoved(finding.kind.value, str(finding.place), text, finding.amount,
                                      tuple(c.uid for c in finding.chips), round_id, ev.read, ev.at_ms))
        if moved and self.state not in (st.IRREGULARITY, st.PAUSED):
            self._raise(CHIPS_MOVED, "; ".join(f.text(self.table.money) for f in moved))

    # -- paying ---------------------------------------------------------------------------------

    def _chips_settled(self, r: Round, bets: tuple[SettledBet, ...]) -> None:
        layout = self.chip_layout
        if layout is None:
            return
        layout.touch()
        owed: dict[str, int] = {}
        for bet in bets:
            owed[bet.box] = owed.get(bet.box, 0) + (bet.net if bet.outcome == "win" else 0)
        layout.owed, layout.owed_round, layout.paid = owed, str(r.round_id), {}
        layout.losing = sorted({str(ChipPlace.spot(b.box, b.region)) for b in bets if b.outcome == "lose"})

    def chip_payment_hold(self) -> str:
        """Why "next round" waits for a wrong payment ("" when it need not). Asked when the
        dealer calls the next round: the payment is checked then, and held if wrong."""
        layout, rules = self.chip_layout, self.options.chips
        if layout is None or rules is None or layout.owed is None or layout.accepted == layout.owed_round:
            return ""
        money = self.table.money
        layout.touch()
        wrong = layout.payment_wrong(money)
        if not wrong:
            layout.hold = ""
            return ""
        if layout.noted != layout.owed_round:  # counted once a round, held or not
            layout.noted = layout.owed_round
            over = sum(c.difference for c in wrong if c.difference > 0)
            under = -sum(c.difference for c in wrong if c.difference < 0)
            layout.count("wrong_payments")
            layout.count("wrong_payment_amount", over + under)
            held = rules.hold_wrong_payment
            kept = self._round_chips()
            if kept is not None:
                kept["held"] = {"wrong": [c.text(money) for c in wrong], "difference": over - under, "over": over,
                                "under": under, "held": held}
            self._emit(out.ChipPaymentHeld(layout.owed_round, tuple(c.text(money) for c in wrong), over - under,
                                           over, under, held))
        if not rules.hold_wrong_payment:
            return ""
        layout.hold = layout.owed_round
        return (f"a wrong payment of round {layout.owed_round}: {'; '.join(c.text(money) for c in wrong)}. "
                "Put it right in the payout zone, or a supervisor accepts it")

    def _chips_round_over(self) -> None:
        """The round leaves the table: losing chips still on a spot are shown; the lock and the
        payment are forgotten."""
        layout = self.chip_layout
        if layout is None:
            return
        layout.touch()
        if layout.owed is not None:
            losing = [ChipPlace.parse(p) for p in layout.losing]
            for finding in layout.losing_left(losing, 0, 0, self.table.money):
                layout.count(finding.kind.value)
                self._emit(out.ChipsMoved(finding.kind.value, str(finding.place), finding.text(self.table.money),
                                          finding.amount, tuple(c.uid for c in finding.chips), layout.owed_round,
                                          0, 0))
        layout.round_over()

    def chip_view(self) -> dict[str, Any] | None:
        """The chips as ``station ctl status`` and the console show them (None: no reader):
        each place's chips and what they count for, the payment of the round being paid box by
        box, a wrong payment holding the table, and the counts of the meters."""
        layout, rules = self.chip_layout, self.options.chips
        if layout is None or rules is None:
            return None
        money = self.table.money
        places = {}
        for place in sorted(layout.seen, key=lambda p: ChipPlace.parse(p).order()):
            chips = layout.chips(place)
            places[place] = {"words": ChipPlace.parse(place).words(), "amount": sum(c.value for c in chips if c.counts),
                             "chips": [{"uid": c.uid, "status": c.status.value, "value": c.value} for c in chips]}
        return {"confirm": rules.confirm, "places": places, "locked": layout.lock is not None,
                "payment": [{"box": c.box, "owed": c.owed, "paid": c.paid, "verdict": c.verdict.value,
                             "text": c.text(money)} for c in layout.payout_checks(money)],
                "hold": layout.hold, "counts": dict(sorted(layout.counts.items())),
                "statuses": dict(sorted(layout.statuses.items()))}

    # -- alarms ---------------------------------------------------------------------------------

    def _chip_alarms(self, layout: ChipLayout, place: ChipPlace) -> None:
        """Raise an alarm for each chip on ``place`` that does not count and was not raised
        there yet; a chip gone from ``place`` may be raised again if it comes back."""
        here = layout.chips(str(place))
        prefix = f"{place}|"
        present = {f"{prefix}{c.uid}|{c.status.value}" for c in here if not c.counts}
        layout.alarmed -= {key for key in layout.alarmed if key.startswith(prefix) and key not in present}
        for chip in here:
            key = f"{prefix}{chip.uid}|{chip.status.value}"
            if chip.counts or key in layout.alarmed:
                continue
            layout.alarmed.add(key)
            layout.count(f"chip_{chip.status.value}")
            detail = f"{place.words()}: chip {chip.uid} is {chip.status_words()}"
            kept = self._round_chips()
            if kept is not None:
                kept["alarms"].append({"code": f"chip_{chip.status.value}", "detail": detail})
            self._register_alert(
                f"chip_{chip.status.value}", "alarm", detail,
                data={"place": str(place), "uid": chip.uid, "status": chip.status.value, "value": chip.value})
