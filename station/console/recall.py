"""Recall on the console: the last rounds, or any round, as ``station recall`` finds them.

The rounds come from :func:`station.core.recall.recall_last` and
:func:`~station.core.recall.recall_round`, read-only from the journal and only the stretch of it
they were dealt in (the functions ``station recall`` uses; the console adds no replay of its
own), so a recall takes as long on a year-old table as on a new one. They are read on a
thread of the console's process, so a recall never takes a moment from the table. This
module only words them for the screen: times in the table's zone, cards, bets with their
settlement, decisions, refusals and corrections, amounts in the table's currency. It works
in any state of the table, an irregularity included: it reads the journal, not the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from station.console.words import box_name, card_text, difference_words, input_words
from station.games.registry import region_words
from station.localtime import local_time, zone
from station.money import Money, format_amount


def recall_for_console(settings: dict[str, Any], last: int, round_id: str) -> dict[str, Any]:
    """The rounds recall shows: ``round_id`` alone when given, else the last ``last``."""
    from station.config.errors import ConfigError
    from station.config.options import journal_options
    from station.core.recall import recall_last, recall_round
    from station.core.rounds import RoundId
    from station.journal import JournalError

    path = Path(settings["journal"])
    if round_id:
        try:
            RoundId.parse(round_id)
        except ValueError:
            return {"ok": True, "rounds": [], "message": f"{round_id!r} is not a round id: <shoe>-<round>, e.g. 12-34"}
    try:
        # The station journals its configuration before the console starts: a journal without
        # one has no rounds either.
        options = journal_options(path, Path(settings["config"]))
        if options is None:
            return {"ok": True, "rounds": [], "message": "no rounds yet"}
        if round_id:
            found = recall_round(path, options, round_id)
            if found is None:
                return {"ok": True, "rounds": [], "message": f"no round {round_id} in this journal"}
            rounds = [found]
        else:
            rounds = recall_last(path, options, max(1, last))
    except (ConfigError, JournalError, OSError) as exc:
        return {"ok": False, "error": f"recall: {exc}"}
    money = Money(int(settings["digits"]), str(settings["currency"]))
    tz = zone(str(settings["timezone"]))
    shown = [_round(r, money, tz) for r in reversed(rounds)]
    return {"ok": True, "rounds": shown, "message": "" if shown else "no rounds yet"}


def warm_recall(settings: dict[str, Any]) -> None:
    """What the first recall would spend before it reads a record: the imports of the table's
    rules and of the reader of history, and the journal's list of checkpoints (its pages then
    in the operating system's cache). Nothing is kept; a failure here is the first recall's to
    report."""
    from station.core.landmarks import Landmarks
    from station.core.recall import recall_last  # noqa: F401  (its imports are the point)

    try:
        with Landmarks(Path(settings["journal"]), None):
            pass
    except Exception:  # the journal as the first recall will find it: it says what is wrong
        return


def _round(r: dict[str, Any], money: Money, tz: Any) -> dict[str, Any]:
    lines: list[str] = []
    opening = r.get("shoe_opening")
    if opening and (opening["exposed"] or opening["burned"]):
        exposed = card_text(opening["exposed"]) if opening["exposed"] else "-"
        lines.append(f"Shoe {r['shoe']} opened: exposed {exposed}, burned {len(opening['burned'])}")
    positions: dict[str, list[str]] = {}
    for position, code in r["dealt"]:
        positions.setdefault(position, []).append(card_text(code))
    result = r.get("result") or {}
    for position, cards in positions.items():
        total = (result.get("totals") or {}).get(position)
        lines.append(f"{position.capitalize()}: {' '.join(cards)}" + (f" = {total}" if total is not None else ""))
    if r["burned"]:
        lines.append(f"Burned: {' '.join(card_text(c) for c in r['burned'])}")
    if r["dummy"]:
        lines.append(f"Dummy hand: {' '.join(card_text(c) for c in r['dummy'])}")
    if r["voided"]:
        lines.append(f"VOID: {r['void_reason']}")
    elif result:
        lines.append(f"Result: {result['outcome']}")
    for decision in r["decisions"]:
        lines.append("Decision: " + ", ".join(f"{k} {v}" for k, v in decision.items() if v not in ("", [], None)))
    for confirmation in r.get("confirmations", []):
        who = confirmation["who"] or "the dealer (no name recorded)"
        lines.append(f"Payouts of box {', '.join(confirmation['boxes'])} confirmed by {who}")
    for refusal in r.get("refused", []):
        who = f" by {refusal['who']}" if refusal.get("who") else ""
        lines.append(f"Not applied: {input_words(refusal['input']).lower()}{who}: {refusal['reason']}")
    if r["in_progress"]:
        lines.append("(the round is still on the table)")
    settled = {(s["box"], s["player"], s["region"]): s for s in r["settlement"] or []}
    bets = []
    for bet in r["bets"]:
        key = (bet["box"], bet["player"], bet["region"])
        s = settled.get(key)
        outcome = f": {s['outcome']} {format_amount(s['net'], money.digits)}" if s is not None else ""
        bets.append({
            "box": bet["box"], "player": bet["player"], "region": bet["region"], "amount": bet["amount"],
            "box_name": box_name(bet["box"]), "region_name": region_words(bet["region"]),
            "amount_text": money(bet["amount"]),
            "text": f"{box_name(bet['box'])} · {bet['player']} · {region_words(bet['region'])} "
                    f"{money(bet['amount'])}{outcome}",
        })
    corrections = []
    for c in r.get("corrections", []):
        before, after = c["bet_before"], c["bet_after"]
        was = f"{box_name(before[0])} · {before[1]} · {region_words(before[2])} {money(before[3])}"
        now = (f"{box_name(after[0])} · {after[1]} · {region_words(after[2])} {money(after[3])}" if after[3]
               else "no bet")
        changes = "; ".join(difference_words(b, p, g, d, money) for b, p, g, d in c["differences"]) or "no change"
        corrections.append(f"Corrected {local_time(c['time'], tz)} by {c['who']} ({c['reason']}): {was} → {now}; "
                           f"{changes}; house result {money(c['house_before'])} → {money(c['house_after'])}")
    return {
        "round_id": r["round_id"], "opened_at": local_time(r["opened_at"], tz),
        "closed_at": local_time(r["closed_at"], tz), "lines": lines, "bets": bets, "corrections": corrections,
        "correctable": bool(r["settlement"]) and not r["voided"],
    }
