"""Game recall: the rounds of a journal, with their cards, bets, decisions and settlement.

Surveillance and supervisors ask "what happened in round 12-34?", "the last ten rounds", "the
rounds of Saturday's gaming day". Each answer reads the journal read-only through the one reader
of history (:class:`~station.core.history.History`), and only the stretch it shows: it starts at
the newest checkpoint before that stretch (:class:`~station.core.landmarks.Landmarks`) and reads
on until the last round shown can no longer be corrected, so a recall costs the same on a
year-old table as on a new one. Only :func:`recall_rounds` (every round; ``station recall
--last 0``) reads the whole history.

Each round's record comes with the :class:`~station.core.outputs.RoundClosed` that says it left
the table (its bets, every card, the decisions, the settlement, the journal time it opened and
the inputs refused while it was open); a round still on the table is included and marked
``in_progress``. Whatever stretch it is read from, a round is the same (tests/core/
test_recall_bounded.py compares each answer with a reading of the whole journal).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from station.core import outputs as out
from station.core.chip_recall import describe_chips
from station.core.history import History
from station.core.landmarks import Landmarks
from station.core.options import CoreOptions
from station.core.projection import ProjectedRecord
from station.core.rounds import RoundId
from station.events import BetCorrected
from station.games.limits import chip_words, limits_words
from station.games.registry import region_words
from station.money import Money


class HeardRounds:
    """The rounds a stretch of history shows, as recall keeps them: each that left the table
    in it, with the opening of its shoe and its corrections, then the round on the table at
    its end. A round already open where the stretch starts is heard too, but its shoe's
    opening (before the stretch) is not: :attr:`open_at_start` names it."""

    def __init__(self, history: History) -> None:
        self.history = history
        started = history.round_in_play()
        self.open_at_start: str | None = started.round_id if started is not None else None
        self.closed: list[dict[str, Any]] = []
        self._openings: dict[str, dict[str, Any]] = {}  # first round of each shoe -> exposed and burned cards
        self._corrections: dict[str, list[dict[str, Any]]] = {}  # round id -> its corrections
        self._jackpots: dict[str, dict[str, Any]] = {}  # round id -> its progressive jackpot and sign-off
        #: Whether the stretch starts at the journal's first record (nothing before it to read).
        self.from_first_record = history.seq == 0
        #: The journal time of the last record taken.
        self.last_time = ""

    def read(self, enough: Callable[[HeardRounds], bool] | None = None, *, until: int | None = None) -> HeardRounds:
        """Take the records to the end of the history (or record ``until``), or until
        ``enough`` says so (asked after each record)."""
        for step in self.history.steps(until):
            self.take(step)
            if enough is not None and enough(self):
                break
        return self

    def take(self, step: ProjectedRecord) -> None:
        record = step.record
        self.last_time = record.time
        for output in step.outputs:
            if isinstance(output, out.RoundClosed):
                self.closed.append({**output.record, "closed_at": record.time, "in_progress": False,
                                    "shoe": output.round_id.shoe})
            elif isinstance(output, out.ShoeStarted) and (opened := self.history.round_in_play()) is not None:
                # The shoe's first round opens with it: the card exposed and the cards burned.
                self._openings[opened.round_id] = {
                    "exposed": output.exposed.code if output.exposed is not None else None,
                    "burned": [card.code for card in output.burned],
                }
            elif isinstance(output, out.ProgressiveHit):
                self._jackpots[output.round_id] = {"meter": output.meter, "awards": [dict(a) for a in output.awards],
                                                   "signed_off": None}
            elif isinstance(output, out.ProgressivePaid) and output.round_id in self._jackpots:
                self._jackpots[output.round_id]["signed_off"] = {
                    "time": record.time, "seq": record.seq, "total": output.total, "topped": output.topped,
                    "role": output.role, "who": output.who, "note": output.note}
            elif isinstance(output, out.RoundCorrected):
                self._corrections.setdefault(output.round_id, []).append(
                    {"time": record.time, "seq": record.seq, **correction_record(output)})

    def read_on_for_corrections(self, marks: Landmarks, round_ids: set[str]) -> None:
        """Having read past the rounds ``round_ids``, hear the corrections a supervisor made of
        them later, without replaying the rounds between: the correction inputs naming them are
        looked for, record by record, up to the first checkpoint at which none of them can be
        corrected any more (:data:`~station.core.payout_steps.CORRECTABLE_ROUNDS` rounds later
        at most), and only when there is one is the history read on to the last of them."""
        still = {r for r in round_ids if self.history.correctable(r)}
        if not still:
            return
        index = marks.first_after(self.history.seq)
        while index < len(marks):
            correctable = marks.correctable(index)
            if correctable is not None and not still & correctable:
                break
            index += 1
        before = marks.marks[index].seq if index < len(marks) else None
        found = marks.inputs_naming(BetCorrected.kind, still, self.history.seq, before)
        if found:
            self.read(until=found[-1])

    def rounds(self) -> list[dict[str, Any]]:
        """The rounds heard, oldest first, the one still on the table last."""
        rounds = list(self.closed)
        current = self.history.round_in_play()
        if current is not None:
            projection = self.history.projection
            rounds.append({**current.to_json(),
                           "opened_at": projection.opened_at(current.round_id) or self.last_time,
                           "refused": list(projection.refused), "closed_at": "", "in_progress": True,
                           "shoe": current.round_id.shoe})
        return [{**item, "shoe_opening": self._openings.get(item["round_id"]),
                 "corrections": list(self._corrections.get(item["round_id"], [])),
                 **({"jackpot": self._jackpots[item["round_id"]]} if item["round_id"] in self._jackpots else {})}
                for item in rounds]


def recall_rounds(path: str | os.PathLike[str], options: CoreOptions | None = None, *,
                  progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Every round in the journal at ``path``, oldest first, read from its first record (the
    archives of its first records too). Each is as :meth:`Round.to_json` gives it, with
    ``opened_at``/``closed_at`` journal times, ``shoe``, ``refused`` (the inputs refused while
    it was open) and ``in_progress``; the first round of each shoe also has ``shoe_opening``:
    the card exposed at the start of the shoe and the cards burned after it (None on the other
    rounds); every round has ``corrections``: a supervisor's corrections of its bets
    (:class:`~station.core.outputs.RoundCorrected`), each with the bet before and after, both
    settlements, the differences, who, why, and the journal time and record (its bets and
    settlement are those of the round when it left the table)."""
    return HeardRounds(History(path, options, progress=progress)).read().rounds()


def recall_last(path: str | os.PathLike[str], options: CoreOptions | None, last: int) -> list[dict[str, Any]]:
    """The last ``last`` rounds (``last`` > 0; as :func:`recall_rounds` gives them), read
    from the newest checkpoint that leaves that many rounds after it: a stretch twice as long
    back each time it does not."""
    if last <= 0:
        raise ValueError(f"the last {last} rounds: ask for 1 or more, or every round (recall_rounds)")
    with Landmarks(path, options) as marks:
        index, back = len(marks) - 1, 1
        while True:
            heard = HeardRounds(marks.history(index)).read()
            rounds = heard.rounds()[-last:]
            if heard.from_first_record or (len(rounds) == last and rounds[0]["round_id"] != heard.open_at_start):
                return rounds
            index, back = max(-1, index - back), back * 2


def recall_round(path: str | os.PathLike[str], options: CoreOptions | None, round_id: str) -> dict[str, Any] | None:
    """Round ``round_id`` (``<shoe>-<round>``; ValueError for another text), or None when the
    journal has none: read from the newest checkpoint before it opened until it leaves the
    table (or a later round shows there is none), with the corrections made of it later
    (:meth:`HeardRounds.read_on_for_corrections`)."""
    target = RoundId.parse(round_id)
    wanted = (target.shoe, target.number)

    def enough(heard: HeardRounds) -> bool:
        if not heard.closed:
            return False
        last = RoundId.parse(heard.closed[-1]["round_id"])
        return (last.shoe, last.number) >= wanted

    with Landmarks(path, options) as marks:
        heard = HeardRounds(marks.history(marks.before_round(target.shoe, target.number))).read(enough)
        heard.read_on_for_corrections(marks, {target})
    return next((r for r in heard.rounds() if r["round_id"] == target), None)


def recall_between(path: str | os.PathLike[str], options: CoreOptions | None, start: str,
                   end: str) -> list[dict[str, Any]]:
    """The rounds opened at journal times from ``start`` up to (not including) ``end`` (a
    gaming day's bounds), oldest first: read from the newest checkpoint before ``start`` until
    the table has passed ``end`` and every one of them has left it, with the corrections made
    of them later (:meth:`HeardRounds.read_on_for_corrections`)."""

    def enough(heard: HeardRounds) -> bool:
        if heard.last_time < end:
            return False
        current = heard.history.round_in_play()
        return current is None or (heard.history.projection.opened_at(current.round_id) or end) >= end

    with Landmarks(path, options) as marks:
        heard = HeardRounds(marks.history(marks.before_time(start))).read(enough)
        heard.read_on_for_corrections(marks, {r["round_id"] for r in heard.closed if start <= r["opened_at"] < end})
    return [r for r in heard.rounds() if start <= (r["opened_at"] or "") < end]


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
    amounts in the table's ``money`` (the journal's table options' when not given), each
    region in its words ("Banker", "Dragon 7": :func:`~station.games.registry.region_words`)."""
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
    if round_.get("limits"):
        lines.append(f"  limits       {limits_words(round_['limits'], amount, chips=False)}")
        lines.append(f"  {chip_words(round_['limits'], amount)}")
    settled = {(s["box"], s["player"], s["region"]): s for s in round_["settlement"] or []}
    for bet in round_["bets"]:
        line = f"  bet          box {bet['box']} {bet['player']} {region_words(bet['region'])} {amount(bet['amount'])}"
        s = settled.get((bet["box"], bet["player"], bet["region"]))
        if s is not None:
            line += f" -> {s['outcome']} {signed(s['net'])}" + (f" (void {amount(s['void'])})" if s["void"] else "")
        lines.append(line)
    for s in round_["settlement"] or []:  # wagers added during the round (Go to War)
        placed = (s["box"], s["player"], s["region"])
        if not any((b["box"], b["player"], b["region"]) == placed for b in round_["bets"]):
            wager = f"box {s['box']} {s['player']} {region_words(s['region'])} {amount(s['stake'])}"
            lines.append(f"  bet          {wager} -> {s['outcome']} {signed(s['net'])}")
    jackpot = round_.get("jackpot")
    for award in (jackpot or {}).get("awards", []):
        lines.append(f"  jackpot      box {award['box']} {award['player']} {region_words(award['region'])} "
                     f"{award['hand'].replace('_', ' ')}: {award['percent']}% of the meter, {amount(award['amount'])}")
    if jackpot:
        off = jackpot["signed_off"]
        lines.append("  jackpot      waits for a supervisor's sign-off" if off is None else
                     f"  jackpot      #{off['seq']} signed off by {off['role']} {off['who']}: paid "
                     f"{amount(off['total'])}" + (f" ({off['note']})" if off["note"] else ""))
    lines += describe_chips(round_, amount)
    for decision in round_["decisions"]:
        lines.append("  decision     " + ", ".join(f"{k}={v}" for k, v in decision.items() if v not in ("", [], None)))
    for c in round_.get("corrections", []):
        before, after = c["bet_before"], c["bet_after"]
        changes = ", ".join(f"box {b} {p} {region_words(g)} {signed(d)}" for b, p, g, d in c["differences"]) or "none"
        lines.append(f"  correction   #{c['seq']} {c.get('local_time') or c['time']} by {c['role']} {c['who']} "
                     f"({c['reason']}): box {before[0]} {before[1]} {region_words(before[2])} {amount(before[3])} "
                     f"-> box {after[0]} {after[1]} {region_words(after[2])} {amount(after[3])}; differences "
                     f"{changes}; house "
                     f"{signed(c['house_before'])} -> {signed(c['house_after'])}")
    if round_["in_progress"]:
        lines.append("  (round still on the table)")
    return "\n".join(lines)
