"""Game recall: every round in a journal, with its cards, bets, decisions and settlement.

Surveillance and supervisors ask "what happened in round 12-34?". The answer is rebuilt the
same way the table rebuilds its state after a restart: by replaying the journal into a fresh
machine (read-only: the journal is opened with :class:`~station.journal.JournalReader`). Each
round is captured when it leaves the table, with the journal times of its first and last
events; a round still on the table is included and marked ``in_progress``.
"""

from __future__ import annotations

import os
from typing import Any

from station.core.machine import TableMachine
from station.core.options import CoreOptions
from station.core.replay import replay
from station.journal import JournalReader, JournalRecord


def recall_rounds(path: str | os.PathLike[str], options: CoreOptions | None = None) -> list[dict[str, Any]]:
    """Every round in the journal at ``path``, oldest first (see :meth:`Round.to_json`), each
    with ``opened_at``/``closed_at`` journal times, ``shoe`` and ``in_progress``; the first
    round of each shoe also has ``shoe_opening``: the card exposed at the start of the shoe
    and the cards burned after it (None on the other rounds)."""
    machine = TableMachine(options)
    machine.refusal_log = []
    rounds: list[dict[str, Any]] = []
    opened: dict[str, str] = {}
    refused: dict[str, list[dict[str, Any]]] = {}  # round id -> the inputs refused while it was open
    clock = {"time": "", "round": ""}
    shoes_opened: set[int] = set()
    openings: dict[str, dict[str, Any]] = {}  # first round of each shoe -> its exposed and burned cards

    def closed(record: dict[str, Any]) -> None:
        rid = record["round_id"]
        rounds.append({**record, "opened_at": opened.get(rid, ""), "closed_at": clock["time"], "in_progress": False})

    def now(record: JournalRecord) -> None:
        clock["time"] = record.time
        clock["round"] = machine.round.round_id if machine.round is not None else ""

    def opened_by(record: JournalRecord) -> None:
        current = machine.round
        if current is not None and current.round_id not in opened:
            opened[current.round_id] = record.time
            shoe = machine.shoe
            if shoe.number not in shoes_opened:
                # The shoe's first round: the card exposed and the cards burned before it.
                shoes_opened.add(shoe.number)
                openings[current.round_id] = {
                    "exposed": shoe.exposed.code if shoe.exposed is not None else None,
                    "burned": [card.code for card in shoe.burned],
                }
        log = machine.refusal_log
        if log:
            # A refusal belongs to the round it arrived in (or, between rounds, the next).
            rid = clock["round"] or (current.round_id if current is not None else "")
            refused.setdefault(rid, []).extend({"seq": record.seq, "time": record.time, **item} for item in log)
            log.clear()

    machine.on_round_closed = closed
    with JournalReader(path) as reader:
        replay(machine, reader.records(), before_apply=now, after_apply=opened_by)
    if machine.round is not None:
        current = machine.round.to_json()
        rid = current["round_id"]
        rounds.append({**current, "opened_at": opened.get(rid, clock["time"]), "closed_at": "", "in_progress": True})
    for item in rounds:
        item["shoe"] = int(item["round_id"].split("-")[0])
        item["refused"] = refused.get(item["round_id"], [])
        item["shoe_opening"] = openings.get(item["round_id"])
    return rounds


def describe(round_: dict[str, Any]) -> str:
    """A round in words for a terminal: cards by position, totals, bets and decisions."""
    lines = [f"Round {round_['round_id']} ({round_['game']})"
             f"  {round_['opened_at'] or '?'} .. {round_['closed_at'] or 'in progress'}"]
    opening = round_.get("shoe_opening")
    if opening and (opening["exposed"] or opening["burned"]):
        lines.append(f"  shoe {round_.get('shoe', '?')} opened: exposed {opening['exposed'] or '-'}, "
                     f"burned {len(opening['burned'])}: {' '.join(opening['burned']) or '-'}")
    positions: dict[str, list[str]] = {}
    for position, code in round_["dealt"]:
        positions.setdefault(position, []).append(code)
    result = round_.get("result") or {}
    for position, codes in positions.items():
        total = result.get(f"{position}_total")
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
        by = f" ({refusal['role']} {refusal['who']})".rstrip() if refusal.get("role") else ""
        lines.append(f"  refused      #{refusal['seq']} {refusal['input']}{by}: {refusal['reason']}")
    if round_.get("software"):
        lines.append(f"  software     dealing-station {round_['software']}")
    if round_["payout_option"]:
        lines.append(f"  payout       {round_['payout_option']}")
    settled = {(s["box"], s["player"], s["region"]): s for s in round_["settlement"] or []}
    for bet in round_["bets"]:
        line = f"  bet          box {bet['box']} {bet['player']} {bet['region']} {bet['amount']}"
        s = settled.get((bet["box"], bet["player"], bet["region"]))
        if s is not None:
            line += f" -> {s['outcome']} {s['net']:+d}" + (f" (void {s['void']})" if s["void"] else "")
        lines.append(line)
    for s in round_["settlement"] or []:  # wagers added during the round (Go to War)
        placed = (s["box"], s["player"], s["region"])
        if not any((b["box"], b["player"], b["region"]) == placed for b in round_["bets"]):
            wager = f"box {s['box']} {s['player']} {s['region']} {s['stake']}"
            lines.append(f"  bet          {wager} -> {s['outcome']} {s['net']:+d}")
    for decision in round_["decisions"]:
        lines.append("  decision     " + ", ".join(f"{k}={v}" for k, v in decision.items() if v not in ("", [], None)))
    if round_["in_progress"]:
        lines.append("  (round still on the table)")
    return "\n".join(lines)
