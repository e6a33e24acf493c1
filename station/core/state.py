"""The table's whole state as JSON, and back: what a checkpoint of the projection keeps.

:meth:`TableMachine.snapshot` is for comparing states; :func:`machine_state` is for carrying
one on: every attribute a later input may read (the shoe's composition and procedure, the
round with the game's own play, the irregularity and its held cards, the alert register, the
payout history, what the last expectation said...), so that :func:`restore_machine` gives a
machine that answers every later input exactly as the one it was taken from. The tests hold
that to account: a replay from any checkpoint gives, record by record, the outputs of a replay
from the start (``tests/core/test_checkpoints.py``).

Plain JSON only (cards as codes, bets as ordered lists: the order of a layout decides the
order of a settlement), so a checkpoint is journaled and hashed like any record.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import fields
from typing import Any

from station.cards import Card, ShoeComposition, parse_card
from station.core.chip_table import ChipLayout
from station.core.integrity_steps import Alert
from station.core.irregularities import HeldCard, Irregularity
from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.progressive import ProgressiveLedger
from station.core.rounds import BetKey, Round, RoundId
from station.core.shoe import ShoeTracking
from station.games.layout import SettledBet
from station.games.shoe_procedure import ShoeMode, ShoePhase, ShoeProgress

#: Changes whenever the layout below changes: a checkpoint of another layout is not read (the
#: station replays from an older checkpoint, or from the start, and writes one of its own).
#: 2: the pause asked for mid-round, the payout-confirmation rule and each round's
#: confirmations, the rounds a supervisor may still correct (with their plays) and the count
#: of corrections. 3: those rounds kept as a correction reads them (:func:`_closed_round`).
#: 4: the dealer at the table and a burn card owed by a new dealer, each round's dealer and
#: the card burned for them (docs/dealers.md). 5: the shoe's results cut to the latest
#: ``RESULTS_KEPT`` (a checkpoint of a continuous shuffler's table kept them all). 6: the alert
#: register cut to the open alerts and the latest ``ACKNOWLEDGED_KEPT`` acknowledged ones, with
#: the count of alerts raised (a year's register made each checkpoint 1.5 MB). 7: the limits in
#: force, waiting and last configured, and each round's limits (docs/limits.md). 8: the chip
#: tray's last ledgers (docs/tray.md). 9: the ratings open, their count, the card last read
#: (docs/ratings.md).
#: 10: the progressive's ledger (docs/progressive.md). 11: the chips on the layout, the bets
#: locked at no more bets and the payment being checked, and what each round's chips said
#: (docs/chips.md). 12: each entry of the chip tray's ledgers says who counted it (``counted_by``:
#: ``hand``, or ``reader`` for the tray antenna; docs/tray.md).
STATE_FORMAT = 12


def _codes(cards: Any) -> list[str]:
    return [card.code for card in cards]


def _cards(codes: Any) -> list[Card]:
    return [parse_card(code) for code in codes]


def _card(code: str | None) -> Card | None:
    return None if code is None else parse_card(code)


def _bets(bets: dict[BetKey, int]) -> list[list[Any]]:
    return [[box, player, region, amount] for (box, player, region), amount in bets.items()]


def _bets_back(items: Any) -> dict[BetKey, int]:
    return {(box, player, region): amount for box, player, region, amount in items}


# --- the shoe ------------------------------------------------------------------------------


def _progress(p: ShoeProgress | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"mode": p.mode.value, "rounds_after_cut": p.rounds_after_cut, "phase": p.phase.value,
            "exposed": p.exposed.code if p.exposed is not None else None, "burns_due": p.burns_due,
            "burned": p.burned, "rounds_started": p.rounds_started, "rounds_completed": p.rounds_completed,
            "cut_card_round": p.cut_card_round, "cut_mid_round": p.cut_mid_round, "rounds_left": p.rounds_left,
            "cut_cards": p.cut_cards, "out_of_cards": p.out_of_cards}


def _progress_back(d: dict[str, Any] | None) -> ShoeProgress | None:
    if d is None:
        return None
    return ShoeProgress(ShoeMode(d["mode"]), d["rounds_after_cut"], ShoePhase(d["phase"]), _card(d["exposed"]),
                        d["burns_due"], d["burned"], d["rounds_started"], d["rounds_completed"], d["cut_card_round"],
                        d["cut_mid_round"], d["rounds_left"], d["cut_cards"], d["out_of_cards"])


def _shoe(shoe: ShoeTracking) -> dict[str, Any]:
    comp = shoe.composition
    return {
        "number": shoe.number, "rounds": shoe.rounds,
        "composition": None if comp is None else [[card.code, n] for card, n in comp],
        "progress": _progress(shoe.progress), "burned": _codes(shoe.burned), "empty": shoe.empty,
        "set_in_shoe": shoe.set_in_shoe, "set_in_shuffler": shoe.set_in_shuffler, "ready_set": shoe.ready_set,
        "awaiting_return": _codes(shoe.awaiting_return), "drawn": _codes(shoe.drawn), "ready_check": shoe.ready_check,
        "closed": shoe.closed, "returned_ahead": _codes(shoe.returned_ahead), "cut_by": list(shoe.cut_by),
    }


def _shoe_back(shoe: ShoeTracking, d: dict[str, Any]) -> None:
    shoe.number, shoe.rounds = d["number"], d["rounds"]
    comp = d["composition"]
    shoe.composition = None if comp is None else ShoeComposition(
        shoe.decks, Counter({parse_card(code): n for code, n in comp}))
    shoe.progress = _progress_back(d["progress"])
    shoe.burned = _cards(d["burned"])
    shoe.empty = d["empty"]
    shoe.set_in_shoe, shoe.set_in_shuffler, shoe.ready_set = d["set_in_shoe"], d["set_in_shuffler"], d["ready_set"]
    shoe.awaiting_return = _cards(d["awaiting_return"])
    shoe.drawn = _cards(d["drawn"])
    shoe.ready_check = d["ready_check"]
    shoe.closed = d["closed"]
    shoe.returned_ahead = _cards(d["returned_ahead"])
    shoe.cut_by = list(d["cut_by"])


# --- the round, the irregularity, the alerts ---------------------------------------------


def _round(machine: TableMachine, r: Round) -> dict[str, Any]:
    return {
        "round_id": r.round_id, "game": r.game, "play": machine.rules.play_state(r.play), "bets": _bets(r.bets),
        "dealt": [[position, card.code] for position, card in r.dealt], "revealed": r.revealed,
        "burned": _codes(r.burned), "dummy": _codes(r.dummy), "decisions": r.decisions,
        "payout_option": r.payout_option, "result": r.result,
        "settlement": None if r.settlement is None else [vars(s) for s in r.settlement],
        "voided": r.voided, "void_reason": r.void_reason, "bets_closed": r.bets_closed,
        "confirmations": [dict(c) for c in r.confirmations], "dealer": r.dealer,
        "dealer_burned": r.dealer_burned.code if r.dealer_burned is not None else None, "limits": r.limits,
        "chips": r.chips,
    }


def _round_back(machine: TableMachine, d: dict[str, Any]) -> Round:
    settlement = d["settlement"]
    return Round(
        RoundId.parse(d["round_id"]), d["game"], machine.rules.restore_play(d["play"]), _bets_back(d["bets"]),
        [(position, parse_card(code)) for position, code in d["dealt"]], d["revealed"], _cards(d["burned"]),
        _cards(d["dummy"]), list(d["decisions"]), d["payout_option"], d["result"],
        None if settlement is None else tuple(SettledBet(**s) for s in settlement), d["voided"], d["void_reason"],
        d["bets_closed"], [dict(c) for c in d["confirmations"]], d["dealer"], _card(d["dealer_burned"]),
        dict(d["limits"]), copy.deepcopy(d["chips"]),
    )


def _closed_round(machine: TableMachine, r: Round) -> list[Any]:
    """A round that has left the table, as a correction reads it (its id, game, play, bets,
    payout option, settlement and limits; ``PayoutSteps._on_bet_corrected``) and no more: up to
    ``CORRECTABLE_ROUNDS`` of them are in every checkpoint, so each is kept small (the
    settlement's bets as rows in the order of :class:`SettledBet`'s fields)."""
    settlement = [[getattr(s, name) for name in _SETTLED_FIELDS] for s in r.settlement or ()]
    return [r.round_id, r.game, machine.rules.play_state(r.play), _bets(r.bets), r.payout_option, settlement,
            r.limits]


def _closed_round_back(machine: TableMachine, row: list[Any]) -> Round:
    round_id, game, play, bets, payout_option, settlement, limits = row
    return Round(RoundId.parse(round_id), game, machine.rules.restore_play(play), _bets_back(bets),
                 payout_option=payout_option, settlement=tuple(SettledBet(*bet) for bet in settlement),
                 limits=dict(limits))


_SETTLED_FIELDS = tuple(f.name for f in fields(SettledBet))


def _irregularity(i: Irregularity) -> dict[str, Any]:
    return {"ident": i.ident, "reason": i.reason, "detail": i.detail, "round_id": i.round_id,
            "return_state": i.return_state, "decisions": list(i.decisions), "device": i.device,
            "held": [h.to_json() for h in i.held]}


def _irregularity_back(d: dict[str, Any]) -> Irregularity:
    held = [HeldCard(parse_card(h["card"]), h["in_shoe"], h["device"]) for h in d["held"]]
    return Irregularity(d["ident"], d["reason"], d["detail"], d["round_id"], d["return_state"], tuple(d["decisions"]),
                        d["device"], held)


def _alert_back(d: dict[str, Any]) -> Alert:
    return Alert(d["ident"], d["code"], d["severity"], d["detail"], d["key"], d["shoe"], d["round_id"], d["stop"],
                 d["source"], dict(d["data"]), d["acknowledged"])


# --- the machine -------------------------------------------------------------------------


def machine_state(machine: TableMachine) -> dict[str, Any]:
    """Everything ``machine`` holds between two inputs, as plain JSON."""
    m = machine
    return {
        "state": m.state, "previous_state": m._previous_state, "return_state": m._return_state,
        "pause_return": m._pause_return, "shoe": _shoe(m.shoe),
        "round": _round(m, m.round) if m.round is not None else None,
        "irregularity": _irregularity(m.irregularity) if m.irregularity is not None else None,
        "irregularities_raised": m.irregularities_raised, "faulted": dict(m.faulted),
        "faulted_by_status": sorted(m._faulted_by_status), "paused_by": dict(m.paused_by),
        "pause_pending": dict(m.pause_pending),
        "payout_option": m.payout_option, "pending_payout": m.pending_payout, "payout_history": m.payout_history,
        "carried": None if m.carried is None else _bets(m.carried), "shoe_results": m.shoe_results,
        "rounds_settled": m.rounds_settled, "rounds_voided": m.rounds_voided, "house_net": m.house_net,
        "discarded": _codes(m.discarded), "deck_check": m.deck_check, "alerts": [a.to_json() for a in m.alerts],
        "alerts_raised": m.alerts_raised,
        "alert_counts": dict(m.alert_counts), "alert_keys": sorted(m._alert_keys),
        "betting_openings": m.betting_openings, "events_applied": m.events_applied,
        "expectation": m.announced_expectation, "last_round_bets": m.last_round_bets,
        "confirm_payouts": m.confirm_payouts, "corrections": m.corrections,
        "dealer": m.dealer, "dealer_burn_due": m.dealer_burn_due,
        "limits": m.limits_json, "pending_limits": m.pending_limits, "configured_limits": m.configured_limits.to_json(),
        "tray": {"ledgers": m.tray_ledgers, "ledger_count": m.tray_ledger_count, "entries": m.tray_entries},
        "ratings": {"open": m.ratings, "opened": m.ratings_opened, "card_read": m.card_read},
        "progressive": None if m.progressive is None else m.progressive.to_json(),
        "chips": None if m.chip_layout is None else m.chip_layout.to_json(),
        # Oldest first, as the machine drops them; each with its play, which a correction settles again.
        "correctable": [_closed_round(m, r) for r in m.correctable.values()],
    }


def restore_machine(options: CoreOptions | None, state: dict[str, Any]) -> TableMachine:
    """A machine in the state :func:`machine_state` wrote (raises KeyError, ValueError or
    TypeError for a state that is not one: the caller falls back to an older checkpoint)."""
    m = TableMachine(options)
    m._machine.set_state(state["state"], model=m._model)
    m._previous_state, m._return_state, m._pause_return = (state["previous_state"], state["return_state"],
                                                           state["pause_return"])
    _shoe_back(m.shoe, state["shoe"])
    m.round = _round_back(m, state["round"]) if state["round"] is not None else None
    m.irregularity = _irregularity_back(state["irregularity"]) if state["irregularity"] is not None else None
    m.irregularities_raised = state["irregularities_raised"]
    m.faulted = dict(state["faulted"])
    m._faulted_by_status = set(state["faulted_by_status"])
    m.paused_by = dict(state["paused_by"])
    m.pause_pending = dict(state["pause_pending"])
    m.payout_option, m.pending_payout = state["payout_option"], state["pending_payout"]
    m.payout_history = list(state["payout_history"])
    m.carried = None if state["carried"] is None else _bets_back(state["carried"])
    m.shoe_results = [{**result, "round_id": RoundId.parse(result["round_id"])} for result in state["shoe_results"]]
    m.rounds_settled, m.rounds_voided, m.house_net = state["rounds_settled"], state["rounds_voided"], state["house_net"]
    m.discarded = _cards(state["discarded"])
    m.deck_check = state["deck_check"]
    m.alerts = [_alert_back(a) for a in state["alerts"]]
    m.alerts_raised = int(state["alerts_raised"])
    m.alert_counts = dict(state["alert_counts"])
    m._alert_keys = set(state["alert_keys"])
    m.betting_openings, m.events_applied = state["betting_openings"], state["events_applied"]
    m._last_expectation, m._last_round_bets = state["expectation"], state["last_round_bets"]
    m.confirm_payouts, m.corrections = state["confirm_payouts"], state["corrections"]
    m.dealer, m.dealer_burn_due = state["dealer"], state["dealer_burn_due"]
    m.restore_limits(state)
    tray = state["tray"]
    m.tray_ledgers = [dict(ledger, entries=[dict(e) for e in ledger["entries"]]) for ledger in tray["ledgers"]]
    m.tray_ledger_count, m.tray_entries = int(tray["ledger_count"]), int(tray["entries"])
    ratings = state["ratings"]
    m.ratings = {str(key): dict(rating) for key, rating in ratings["open"].items()}
    m.ratings_opened, m.card_read = int(ratings["opened"]), str(ratings["card_read"])
    if m.progressive is not None and state["progressive"] is not None:
        m.progressive = ProgressiveLedger.from_json(dict(state["progressive"]))
    if m.chip_layout is not None and state["chips"] is not None:
        m.chip_layout = ChipLayout.from_json(state["chips"])
    correctable = (_closed_round_back(m, row) for row in state["correctable"])
    m.correctable = {r.round_id: r for r in correctable}
    return m
