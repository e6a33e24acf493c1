"""The table as the console shows it: one picture, folded from the core loop's typed outputs.

The station keeps a :class:`ConsoleView` and folds into it every output the console shows
(:data:`KINDS`), each with the round on the table when it was published; the console's
process receives the whole picture as JSON whenever it changes, so a console that starts
(or starts again) is complete at once. After a restart of the station, outputs are not
replayed: the picture starts from the machine's state as the journal's replay left it
(:meth:`ConsoleView.resume`), as the display board's does.

What is shown: the table's layout (boxes, regions, chips, limits), the state and the dealer's
line, the shoe and round, the round's cards as they are turned, the bets on the layout with
their players, the last round's payouts (each bet's line, the boxes still to confirm, the
confirmations with who), a war decision's boxes, the active irregularity with what each of
its decisions does, the open integrity alerts, device faults, the Banker payout option, the
last correction with its differences, a progressive's meter with its jackpot waiting, and the
chips a chip reader reads on the layout (:mod:`station.console.chip_panel`).
Words come from :mod:`station.console.words`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from station.config.chip_colours import chip_colour, ink_for
from station.console.chip_panel import ChipPanelPicture
from station.console.progressive import ProgressivePicture
from station.console.words import (
    box_name,
    card_text,
    decision_words,
    difference_words,
    region_label,
    settled_lines,
    tray_entry_words,
)
from station.core import outputs as out
from station.core import states as st
from station.core.payout_steps import box_order
from station.core.rounds import BetKey, RoundId, round_id
from station.games.layout import SettledBet
from station.games.limits import limits_words
from station.games.registry import region_words
from station.money import Money

#: Every output the console folds in.
KINDS: tuple[type[out.Output], ...] = (
    out.StateChanged, out.ExpectationChanged, out.ShoeStarted, out.ShoeEnded, out.CardRevealed, out.RoundResult,
    out.RoundSettled, out.RoundVoided, out.BetAccepted, out.BetRemoved, out.BetsReduced, out.WarDecisionNeeded,
    out.IrregularityRaised, out.IrregularityResolved, out.DeviceFaulted, out.DeviceBack, out.AlertRaised,
    out.AlertCleared, out.PayoutOptionScheduled, out.PayoutOptionApplied, out.PayoutsDue, out.PayoutsConfirmation,
    out.RoundCorrected, out.JournalUnwritable, out.JournalWritable, out.LimitsScheduled, out.LimitsApplied,
    out.PlayerCardPresented, out.RatingStarted, out.RatingEnded, out.TrayRecorded, out.TrayReconciled,
    out.ProgressiveMeter, out.ProgressiveHit, out.ProgressivePaid, out.ProgressiveWasReset,
    # The chip table's: each brings the core's chips when a step touched the layout (launch.py).
    out.ChipsSeen, out.ChipBetsProposed, out.ChipsMoved, out.ChipPaymentChecked, out.ChipPaymentHeld,
    out.ChipPaymentWasAccepted, out.ChipStatusChanged,
)


@dataclass(frozen=True)
class TableLayout:
    """The fixed part: which table, its boxes and regions, chips, limits, money and time."""

    name: str
    game: str
    title: str
    variant: str
    boxes: tuple[str, ...]
    regions: tuple[str, ...]
    carry_regions: tuple[str, ...]
    players_per_box: int
    chips: tuple[int, ...]
    min_bet: int
    max_bet: int
    money: Money
    timezone: str
    choices: tuple[str, ...] = ()
    betting_choices: tuple[str, ...] = ()
    payout_options: tuple[str, ...] = ()
    late_bets: bool = False
    #: The console's shade of each chip (``#rrggbb``), in the order of ``chips``.
    chip_shades: tuple[str, ...] = ()
    #: ``[table] chip_colours``: the shades of chips put into play later are found with them.
    chip_colours: Mapping[str, str] = field(default_factory=dict)
    #: ``[table.progressive] seed``: the table has a progressive (docs/progressive.md); None: none.
    progressive_seed: int | None = None
    #: The chip reader has an antenna under the tray: the tray form offers a count by it (docs/tray.md).
    tray_antenna: bool = False

    def with_limits(self, limits: Mapping[str, Any]) -> TableLayout:
        """The layout under new limits (docs/limits.md): its chips, each in its colour, and its
        minimum and maximum."""
        chips = tuple(sorted(limits["chips"]))
        shades = tuple(chip_colour(chip, self.money.digits, self.chip_colours) for chip in chips)
        return replace(self, chips=chips, min_bet=limits["min_bet"], max_bet=limits["max_bet"], chip_shades=shades)

    def offered_chips(self) -> list[dict[str, Any]]:
        """The chips a dealer taps bets with: every chip of the table up to its maximum (a chip
        under the minimum still builds amounts: 25.00 is 20.00 and 5.00), each in its colour."""
        shades = self.chip_shades or ("#8a8f98",) * len(self.chips)
        return [{"amount": chip, "text": self.money(chip), "colour": shade, "ink": ink_for(shade)}
                for chip, shade in zip(self.chips, shades, strict=True) if chip <= self.max_bet]

    def to_json(self) -> dict[str, Any]:
        m = self.money
        return {
            "name": self.name, "game": self.game, "title": self.title, "variant": self.variant,
            "boxes": [{"box": b, "name": box_name(b),
                       "regions": [region_label(r) for r in self.regions]} for b in self.boxes],
            "players_per_box": self.players_per_box,
            "chips": self.offered_chips(),
            "limits": f"{m(self.min_bet)} \u2013 {m(self.max_bet)} {m.currency}".strip(),
            "limit_values": {"min_bet": self.min_bet, "max_bet": self.max_bet, "chips": list(self.chips)},
            "currency": m.currency, "digits": m.digits, "timezone": self.timezone,
            "choices": list(self.choices), "betting_choices": list(self.betting_choices),
            "payout_options": list(self.payout_options), "late_bets": self.late_bets,
            "tray_antenna": self.tray_antenna,
        }


@dataclass
class Payouts:
    """The payouts of the round last settled or voided, as the dealer confirms them."""

    round_id: RoundId
    lines: list[dict[str, Any]]
    house_net: int
    pending: list[str] = field(default_factory=list)
    confirmations: list[dict[str, Any]] = field(default_factory=list)
    voided: bool = False


class ConsoleView:
    """The console's picture of the table; :meth:`apply` each output, :meth:`encode` to send."""

    def __init__(self, layout: TableLayout) -> None:
        self.layout = layout
        self.version = 0
        self.state = "starting"
        self.expecting = ""
        self.shoe = 0
        self.round_id = ""
        self.bets: dict[str, dict[BetKey, int]] = {}  # round id -> the bets on the layout
        self.cards: list[dict[str, Any]] = []
        self.cards_round = ""
        self.result: dict[str, Any] | None = None
        self.payouts: Payouts | None = None
        self.war: list[str] = []
        self.irregularity: dict[str, Any] | None = None
        self.alerts: dict[int, dict[str, Any]] = {}
        self.faults: dict[str, str] = {}
        self.payout_option = ""
        self.pending_option = ""
        self.correction: dict[str, Any] | None = None
        self.journal_problem = ""
        self.confirm_payouts = False
        self.next_limits = ""  # limits waiting for the next round, in words
        #: The players rated now, by "<box>|<player>", and the card read and not yet used
        #: (docs/ratings.md); a card is shown by its last four characters only.
        self.ratings: dict[str, dict[str, str]] = {}
        self.card_read = ""
        #: The chip tray's last opening as the supervisor's form shows it (docs/tray.md).
        self.tray: dict[str, Any] | None = None
        #: The progressive's meter and its jackpot waiting (station/console/progressive.py).
        seed = layout.progressive_seed
        self.progressive = None if seed is None else ProgressivePicture(layout.money, seed, seed)
        #: The chips on the layout, at a table with a chip reader (station/console/chip_panel.py).
        self.chip_panel: ChipPanelPicture | None = None
        self._layout_json = layout.to_json()

    def _new_limits(self, limits: Mapping[str, Any]) -> None:
        self.layout = self.layout.with_limits(limits)
        self._layout_json = self.layout.to_json()

    # --- after a restart ---------------------------------------------------------------

    def resume(self, machine: Any) -> None:
        """The picture as the machine stands after the journal's replay (before the loop runs)."""
        self.state, self.expecting = machine.state, machine.announced_expectation
        self.shoe = machine.shoe.number
        self.payout_option = machine.payout_option
        self.pending_option = (machine.pending_payout or {}).get("option", "")
        self.faults = dict(machine.faulted)
        self.confirm_payouts = machine.confirm_payouts
        self._new_limits(machine.limits_json)
        self.card_read = machine.card_read
        progressive = machine.progressive_view()
        if progressive is not None:
            self.progressive = ProgressivePicture.resumed(self.layout.money, progressive)
        self.ratings = {key: _rated(r["box"], r["player"], r["card"]) for key, r in machine.ratings.items()}
        chips = machine.chip_view()
        if chips is not None:
            self.chips_seen(chips)
        if machine.tray_ledgers:
            from station.core.tray_steps import tray_summary

            summary = tray_summary(machine.tray_ledgers[-1], machine.house_net)
            self.tray = {key: value for key, value in summary.items() if key not in ("entries", "house")}
            self.tray["entries"] = [tray_entry_words(e["entry"], e["kind"], e["counted_by"])
                                    for e in summary["entries"]]
        pending = machine.pending_limits
        if pending is not None:
            self.next_limits = self._next_words(pending["limits"], pending["role"], pending["who"])
        r = machine.round
        if r is not None:
            self.round_id = r.round_id
            self.bets[r.round_id] = dict(r.bets)
            seen: dict[str, int] = {}
            for position, card in r.dealt[:r.revealed]:
                seen[position] = seen.get(position, 0) + 1
                self._card(r.round_id, position, seen[position], card)
            if r.settlement is not None:
                self._settled(r.round_id, r.settlement, -sum(b.net for b in r.settlement))
            elif r.voided:
                self._settled(r.round_id, r.returned(), 0, voided=True)
            if self.payouts is not None:
                self.payouts.pending = machine.pending_payouts() if machine.confirm_payouts else []
                self.payouts.confirmations = [dict(c) for c in r.confirmations]
        if machine.carried:
            self.bets[round_id(self.shoe, machine.shoe.rounds + 1)] = dict(machine.carried)
        i = machine.irregularity
        if i is not None:
            self._irregularity(i.ident, i.reason, i.detail, i.round_id, i.decisions)
        for alert in machine.open_alerts():
            self._alert(alert.ident, alert.code, alert.severity, alert.detail, alert.round_id)
        self.version += 1

    # --- folding outputs ---------------------------------------------------------------

    def apply(self, output: out.Output, current_round: str, chips: Mapping[str, Any] | None = None) -> None:
        """One output, published while ``current_round`` was on the table ("" between rounds);
        ``chips``: the core's chips as they stood once it was published (None: not taken)."""
        if current_round and current_round != self.round_id:
            self._new_round(current_round)
        handler = getattr(self, f"_on_{type(output).__name__}", None)
        if handler is not None:
            handler(output)
        if chips is not None:
            self.chips_seen(chips)
        if handler is not None or chips is not None:
            self.version += 1

    def chips_seen(self, chips: Mapping[str, Any]) -> None:
        """The core's chips on the layout (``chip_view``), as they stand now."""
        if self.chip_panel is None:
            self.chip_panel = ChipPanelPicture(self.layout.money, chips)
        else:
            self.chip_panel.seen(chips)

    def _new_round(self, rid: str) -> None:
        self.round_id = rid
        self.cards, self.cards_round, self.result, self.war = [], rid, None, []
        self.correction = None
        if self.progressive is not None:
            self.progressive.new_round()
        if self.chip_panel is not None:
            self.chip_panel.new_round()
        if self.payouts is not None and self.payouts.round_id != rid and not self.payouts.pending:
            self.payouts = None
        self.bets = {k: v for k, v in self.bets.items() if k == rid}

    def _on_StateChanged(self, o: out.StateChanged) -> None:
        self.state = o.state
        if o.previous == st.WAR_DECISION and o.state != st.IRREGULARITY:
            self.war = []

    def _on_ExpectationChanged(self, o: out.ExpectationChanged) -> None:
        self.expecting = o.text

    def _on_ShoeStarted(self, o: out.ShoeStarted) -> None:
        self.shoe = o.shoe

    def _on_ShoeEnded(self, o: out.ShoeEnded) -> None:
        self.bets = {}

    def _card(self, rid: str, position: str, index: int, card: Any) -> None:
        if rid != self.cards_round:
            self.cards, self.cards_round = [], rid
        self.cards.append({"position": position, "index": index, "card": card.code, "text": card_text(card)})

    def _on_CardRevealed(self, o: out.CardRevealed) -> None:
        self._card(o.round_id, o.position, o.index, o.card)

    def _on_RoundResult(self, o: out.RoundResult) -> None:
        self.result = {"round_id": o.round_id, "outcome": o.outcome, "natural": o.natural,
                       "hands": [{"position": p, "cards": " ".join(card_text(c) for c in cards),
                                  "total": dict(o.totals).get(p)} for p, cards in o.hands]}

    def _on_RoundSettled(self, o: out.RoundSettled) -> None:
        if self.result is None or self.result["round_id"] != o.round_id:
            self._on_RoundResult(out.RoundResult(o.round_id, o.game, o.hands, o.totals, o.outcome, o.natural,
                                                 o.player_pair, o.banker_pair))
        self._settled(o.round_id, o.bets, o.house_net)
        if o.carried:  # the core says which bets stay on for the next round
            self.bets.setdefault(o.round_id.following(), {}).update(dict(o.carried))

    def _settled(self, rid: RoundId, bets: Iterable[SettledBet], house_net: int, voided: bool = False) -> None:
        self.payouts = Payouts(rid, settled_lines(bets, self.layout.money, self.layout.chips), house_net, voided=voided)

    def _on_RoundVoided(self, o: out.RoundVoided) -> None:
        self._settled(o.round_id, o.returned, 0, voided=True)
        self.result = {"round_id": o.round_id, "outcome": f"void: {o.reason}", "natural": False, "hands": []}

    def _on_BetAccepted(self, o: out.BetAccepted) -> None:
        self.bets.setdefault(o.round_id, {})[(o.box, o.player, o.region)] = o.amount

    def _on_BetRemoved(self, o: out.BetRemoved) -> None:
        self.bets.get(o.round_id, {}).pop((o.box, o.player, o.region), None)

    def _on_BetsReduced(self, o: out.BetsReduced) -> None:
        layout = self.bets.setdefault(o.round_id, {})
        for box, player, region, _old, new in o.reductions:
            if new:
                layout[(box, player, region)] = new
            else:
                layout.pop((box, player, region), None)

    def _on_WarDecisionNeeded(self, o: out.WarDecisionNeeded) -> None:
        self.war = list(o.boxes)

    def _irregularity(self, ident: int, reason: str, detail: str, rid: str, decisions: Iterable[str]) -> None:
        self.irregularity = {"ident": ident, "reason": reason, "detail": detail, "round_id": rid,
                             "decisions": [{"decision": d, "words": decision_words(d, reason)} for d in decisions]}

    def _on_IrregularityRaised(self, o: out.IrregularityRaised) -> None:
        self._irregularity(o.ident, o.reason, o.detail, o.round_id, o.decisions)

    def _on_IrregularityResolved(self, o: out.IrregularityResolved) -> None:
        self.irregularity = None

    def _on_DeviceFaulted(self, o: out.DeviceFaulted) -> None:
        self.faults[o.device] = o.reason

    def _on_DeviceBack(self, o: out.DeviceBack) -> None:
        self.faults.pop(o.device, None)

    def _alert(self, ident: int, code: str, severity: str, detail: str, rid: str) -> None:
        self.alerts[ident] = {"ident": ident, "code": code, "severity": severity, "detail": detail, "round_id": rid}

    def _on_AlertRaised(self, o: out.AlertRaised) -> None:
        self._alert(o.ident, o.code, o.severity, o.detail, o.round_id)

    def _on_AlertCleared(self, o: out.AlertCleared) -> None:
        self.alerts.pop(o.ident, None)

    def _on_PayoutOptionScheduled(self, o: out.PayoutOptionScheduled) -> None:
        self.pending_option = o.option

    def _on_PayoutOptionApplied(self, o: out.PayoutOptionApplied) -> None:
        self.payout_option, self.pending_option = o.option, ""

    def _next_words(self, limits: Mapping[str, Any], role: str, who: str) -> str:
        return f"From the next round: {limits_words(limits, self.layout.money)} (by {who or role})"

    def _on_LimitsScheduled(self, o: out.LimitsScheduled) -> None:
        self.next_limits = self._next_words(o.limits, o.role, o.who)

    def _on_LimitsApplied(self, o: out.LimitsApplied) -> None:
        self._new_limits(o.limits)
        self.next_limits = ""

    def _on_PlayerCardPresented(self, o: out.PlayerCardPresented) -> None:
        self.card_read = o.card

    def _on_RatingStarted(self, o: out.RatingStarted) -> None:
        self.ratings[f"{o.box}|{o.player}"] = _rated(o.box, o.player, o.card)
        if o.door == "reader":
            self.card_read = ""

    def _on_RatingEnded(self, o: out.RatingEnded) -> None:
        self.ratings.pop(f"{o.box}|{o.player}", None)

    def _on_TrayRecorded(self, o: out.TrayRecorded) -> None:
        if o.what == "opener" and not o.corrects:
            self.tray = {"ledger": o.ledger, "open": True, "opener": 0, "fill": 0, "credit": 0, "closer": 0,
                         "drop": 0, "drop_counted": False, "win": None, "variance": None, "entries": []}
        tray = self.tray
        if tray is None or tray["ledger"] != o.ledger:
            return  # a correction of an earlier opening: the form shows the last one
        tray[o.what] += o.change if o.corrects else o.value
        tray["entries"].append(tray_entry_words(o.entry, o.what, o.counted_by, o.corrects))
        if o.what == "closer":
            tray["open"] = False
        if o.what == "drop":
            tray["drop_counted"] = True

    def _on_TrayReconciled(self, o: out.TrayReconciled) -> None:
        if self.tray is not None and self.tray["ledger"] == o.ledger:
            self.tray.update(win=o.win, variance=o.variance)

    def _on_PayoutsDue(self, o: out.PayoutsDue) -> None:
        self.confirm_payouts = True
        if self.payouts is not None and self.payouts.round_id == o.round_id:
            self.payouts.pending = list(o.boxes)

    def _on_PayoutsConfirmation(self, o: out.PayoutsConfirmation) -> None:
        p = self.payouts
        if p is not None and p.round_id == o.round_id:
            p.pending = list(o.remaining)
            p.confirmations.append({"boxes": list(o.boxes), "role": o.role, "who": o.who})

    def _on_RoundCorrected(self, o: out.RoundCorrected) -> None:
        m = self.layout.money
        before, after = o.bet_before, o.bet_after
        self.correction = {
            "round_id": o.round_id, "reason": o.reason, "who": o.who,
            "before": f"{box_name(before[0])} \u00b7 {before[1]} \u00b7 {region_words(before[2])} {m(before[3])}",
            "after": (f"{box_name(after[0])} \u00b7 {after[1]} \u00b7 {region_words(after[2])} {m(after[3])}"
                      if after[3] else "no bet"),
            "differences": [difference_words(b, p, r, change, m) for b, p, r, change in o.differences],
            "house": f"house result {m(o.house_before)} \u2192 {m(o.house_after)}",
        }
        if self.payouts is not None and self.payouts.round_id == o.round_id:
            self.payouts.lines = settled_lines(o.after, m, self.layout.chips)
            self.payouts.house_net = o.house_after

    def _on_ProgressiveMeter(self, o: out.ProgressiveMeter) -> None:
        self._progressive().metered(o)

    def _on_ProgressiveHit(self, o: out.ProgressiveHit) -> None:
        self._progressive().hit(o)

    def _on_ProgressivePaid(self, o: out.ProgressivePaid) -> None:
        self._progressive().paid(o)

    def _on_ProgressiveWasReset(self, o: out.ProgressiveWasReset) -> None:
        self._progressive().was_reset(o)

    def _progressive(self) -> ProgressivePicture:
        if self.progressive is None:  # a picture made without the layout's seed: the meter as it comes
            self.progressive = ProgressivePicture(self.layout.money, 0, 0)
        return self.progressive

    def _on_ChipStatusChanged(self, o: out.ChipStatusChanged) -> None:
        if self.chip_panel is not None:
            self.chip_panel.status_changed(o)

    def _on_ChipPaymentWasAccepted(self, o: out.ChipPaymentWasAccepted) -> None:
        if self.chip_panel is not None:
            self.chip_panel.payment_accepted(o)

    def _on_JournalUnwritable(self, o: out.JournalUnwritable) -> None:
        self.journal_problem = o.reason

    def _on_JournalWritable(self, o: out.JournalWritable) -> None:
        self.journal_problem = ""

    # --- the picture -------------------------------------------------------------------

    def _layout_bets(self) -> list[dict[str, Any]]:
        m = self.layout.money
        bets = self.bets.get(self.round_id, {})
        if self.state == st.PAYING and self.payouts is not None:
            bets = self.bets.get(self.payouts.round_id.following(), bets)
        ordered = sorted(bets.items(), key=lambda kv: (box_order(kv[0][0]), kv[0][1], kv[0][2]))
        return [{"box": b, "player": p, "region": r, "amount": a, "text": f"{region_words(r)} {m(a)}"}
                for (b, p, r), a in ordered]

    def to_json(self) -> dict[str, Any]:
        p = self.payouts
        m = self.layout.money
        return {
            "version": self.version, "table": self._layout_json, "state": self.state, "expecting": self.expecting,
            "shoe": self.shoe, "round": self.round_id, "cards": list(self.cards), "result": self.result,
            "bets": self._layout_bets(),
            "payouts": None if p is None else {
                "round_id": p.round_id, "lines": p.lines, "pending": p.pending, "voided": p.voided,
                "confirmations": p.confirmations, "house": m.with_currency(p.house_net),
                "confirm_required": self.confirm_payouts,
            },
            "war": self.war, "irregularity": self.irregularity,
            "alerts": [self.alerts[k] for k in sorted(self.alerts)], "faults": dict(self.faults),
            "payout_option": self.payout_option, "pending_option": self.pending_option,
            "next_limits": self.next_limits,
            "ratings": [self.ratings[key] for key in sorted(self.ratings)],
            "card_read": _tail(self.card_read),
            "tray": self.tray,
            "progressive": None if self.progressive is None else self.progressive.to_json(),
            "chips": None if self.chip_panel is None else self.chip_panel.to_json(
                self.state, self.bets.get(self.round_id, {})),
            "correction": self.correction, "journal_problem": self.journal_problem,
        }

    def encode(self) -> bytes:
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


def _tail(card: str) -> str:
    """A card as the screen shows it: its last four characters ("…6789"); empty for none."""
    return f"\u2026{card[-4:]}" if card else ""


def _rated(box: str, player: str, card: str) -> dict[str, str]:
    return {"box": box, "name": box_name(box), "player": player, "card": _tail(card)}
