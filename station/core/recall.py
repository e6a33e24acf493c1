"""Game recall: every round in a journal, with its cards, bets, decisions and settlement.

Surveillance and supervisors ask "what happened in round 12-34?". The answer is the journal's
history from its first record (:class:`~station.core.history.History`), read-only:
each round's record comes with the :class:`~station.core.outputs.RoundClosed` that says it left
the table (its bets, every card, the decisions, the settlement, the journal time it opened and
the inputs refused while it was open); a round still on the table is included and marked
``in_progress``.
"""

from __future__ import annotations

import os
from typing import Any

from station.core import outputs as out
from station.core.history import History
from station.core.options import CoreOptions
from station.money import Money


def recall_rounds(path: str | os.PathLike[str], options: CoreOptions | None = None) -> list[dict[str, Any]]:
    """Every round in the journal at ``path``, oldest first (see :meth:`Round.to_json`), each
    with ``opened_at``/``closed_at`` journal times, ``shoe``, ``refused`` (the inputs refused
    while it was open) and ``in_progress``; the first round of each shoe also has
    ``shoe_opening``: the card exposed at the start of the shoe and the cards burned after it
    (None on the other rounds); every round has ``corrections``: a supervisor's corrections of
    its bets (:class:`~station.core.outputs.RoundCorrected`), each with the bet before and after,
    both settlements, the differences, who, why, and the journal time and record (its bets and
    settlement are those of the round when it left the table)."""
    history = History(path, options)  # from the first record, the archives of its first records too
    rounds: list[dict[str, Any]] = []
    openings: dict[str, dict[str, Any]] = {}  # first round of each shoe -> its exposed and burned cards
    corrections: dict[str, list[dict[str, Any]]] = {}  # round id -> its corrections, with when and which record
    last_time = ""
    for step in history.steps():
        record = step.record
        last_time = record.time
        for output in step.outputs:
            if isinstance(output, out.RoundClosed):
                rounds.append({**output.record, "closed_at": record.time, "in_progress": False,
                               "shoe": output.round_id.shoe})
            elif isinstance(output, out.ShoeStarted) and (opened := history.round_in_play()) is not None:
                # The shoe's first round opens with it: the card exposed and the cards burned.
                openings[opened.round_id] = {
                    "exposed": output.exposed.code if output.exposed is not None else None,
                    "burned": [card.code for card in output.burned],
                }
            elif isinstance(output, out.RoundCorrected):
                corrections.setdefault(output.round_id, []).append(
                    {"time": record.time, "seq": record.seq, **correction_record(output)})
    current = history.round_in_play()
    if current is not None:
        projection = history.projection
        rounds.append({**current.to_json(), "opened_at": projection.opened_at(current.round_id) or last_time,
                       "refused": list(projection.refused), "closed_at": "", "in_progress": True,
                       "shoe": current.round_id.shoe})
    for item in rounds:
        item["shoe_opening"] = openings.get(item["round_id"])
        item["corrections"] = corrections.get(item["round_id"], [])
    return rounds


def correction_record(output: out.RoundCorrected) -> dict[str, Any]:
    """A correction as recall keeps it: the bet before and after, why and by whom, both
    settlements (each bet as a dict), the house's result before and after, the differences."""
    return {
        "bet_before": list(output.bet_before), "bet_after": list(output.bet_after),
        "reason": output.reason, "role": output.role, "who": output.who,
        "before": [vars(b).copy() for b in output.before], "after": [vars(b).copy() for b in output.after],
        "house_before": output.house_before, "house_after": output.house_after,
        "differences": [list(d) for d in output.differences],
    }


def describe(round_: dict[str, Any], money: Money | None = None) -> str:
    """A round in words for a terminal: cards by position, totals, bets and decisions, the
    amounts in the table's ``money`` (the journal's table options' when not given)."""
    amount = money or Money()
    signed = amount.signed
    lines = [f"Round {round_['round_id']} ({round_['game']})"
             f"  {round_['opened_at'] or '?'} .. {round_['closed_at'] or 'in progress'}"]
    opening = round_.get("shoe_opening")
    if opening and (opening["exposed"] or opening["burned"]):
        lines.append(f"  shoe {round_.get('shoe', '?')} opened: exposed {opening['exposed'] or '-'}, "
                     f"burned {len(opening['burned'])}: {' '.join(opening['burned']) or '-'}")
    if round_.get("dealer"):
        lines.append(f"  dealer       {round_['dealer']}")
    positions: dict[str, list[str]] = {}
    for position, code in round_["dealt"]:
        positions.setdefault(position, []).append(code)
    result = round_.get("result") or {}
    for position, codes in positions.items():
        total = (result.get("totals") or {}).get(position)
        lines.append(f"  {position:<12} {' '.join(codes):<12}" + (f" = {total}" if total is not None else ""))
    if round_["burned"]:
        lines.append(f"  burned       {' '.join(round_['burned'])}")
    if round_["dummy"]:
        lines.append(f"  dummy hand   {' '.join(round_['dummy'])}")
    if round_["voided"]:
        lines.append(f"  VOID: {round_['void_reason']}")
    elif result:
        extras = [k for k in ("natural", "player_pair", "banker_pair") if result.get(k)]
        lines.append(f"  result       {result['outcome']}" + (f" ({', '.join(extras)})" if extras else ""))
    for refusal in round_.get("refused", []):
        sender = " ".join(part for part in (refusal.get("role"), refusal.get("who")) if part)
        by = f" ({sender})" if sender else ""
        lines.append(f"  refused      #{refusal['seq']} {refusal['input']}{by}: {refusal['reason']}")
    if round_.get("software"):
        lines.append(f"  software     dealing-station {round_['software']}")
    if round_["payout_option"]:
        lines.append(f"  payout       {round_['payout_option']}")
    settled = {(s["box"], s["player"], s["region"]): s for s in round_["settlement"] or []}
    for bet in round_["bets"]:
        line = f"  bet          box {bet['box']} {bet['player']} {bet['region']} {amount(bet['amount'])}"
        s = settled.get((bet["box"], bet["player"], bet["region"]))
        if s is not None:
            line += f" -> {s['outcome']} {signed(s['net'])}" + (f" (void {amount(s['void'])})" if s["void"] else "")
        lines.append(line)
    for s in round_["settlement"] or []:  # wagers added during the round (Go to War)
        placed = (s["box"], s["player"], s["region"])
        if not any((b["box"], b["player"], b["region"]) == placed for b in round_["bets"]):
            wager = f"box {s['box']} {s['player']} {s['region']} {amount(s['stake'])}"
            lines.append(f"  bet          {wager} -> {s['outcome']} {signed(s['net'])}")
    for decision in round_["decisions"]:
        lines.append("  decision     " + ", ".join(f"{k}={v}" for k, v in decision.items() if v not in ("", [], None)))
    for c in round_.get("corrections", []):
        before, after = c["bet_before"], c["bet_after"]
        changes = ", ".join(f"box {b} {p} {g} {signed(d)}" for b, p, g, d in c["differences"]) or "none"
        lines.append(f"  correction   #{c['seq']} {c.get('local_time') or c['time']} by {c['role']} {c['who']} "
                     f"({c['reason']}): box {before[0]} {before[1]} {before[2]} {amount(before[3])} -> box "
                     f"{after[0]} {after[1]} {after[2]} {amount(after[3])}; differences {changes}; house "
                     f"{signed(c['house_before'])} -> {signed(c['house_after'])}")
    if round_["in_progress"]:
        lines.append("  (round still on the table)")
    return "\n".join(lines)
