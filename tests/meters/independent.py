"""The meters worked out again, from ``station journal export`` alone, by other code.

Nothing here comes from the station: no projection, no state machine, no game rules. It
reads the exported records (the inputs the table journaled) and follows the play the way a
person with the rule book would (RULES.md): the exposed card and its burn start a shoe, bets
over the table maximum are refused, the cards of a round are Player, Banker, Player, Banker and
third cards by the tableau, Banker wins pay 95% (5% commission), Ties pay ``tie_pays`` to 1 and
push Banker and Player, a device fault in a round is an irregularity, the supervisor's "void"
hands every bet back, a correction re-settles its round. It knows only what the generated week
does (tests/meters/week.py) and what the simulated dealer of ``station run`` does after it (a
pedal is the action the configuration maps it to): refusals of any other kind would not be seen
here, so a test comparing the two fails if either ever produces one.

The result has the shape of ``station meters --json --day all``'s figures, keyed the same way:
per gaming day, per (day, dealer session) and per (day, shoe).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

Counts = dict[str, int]


def _money_figures() -> dict[str, Any]:
    return {"rounds": 0, "voided_rounds": 0, "open_us": 0, "first_round": "", "last_round": "", "regions": {},
            "commission": 0, "void_parts_returned": 0, "voided_returned": 0, "corrections": 0,
            "corrected_house": 0, "refusals": 0, "irregularities": {}, "integrity_alarms": {},
            "integrity_alerts": {}, "rounds_by_limits": {}, "tray": {}, "tray_entries": {}, "tray_by_reader": {},
            "ratings": {}, "cash": {}, "progressive": {},  # no table here offers a progressive
            "chips": {}}  # nor reads its chips


def point(code: str) -> int:
    rank = code[:-1]
    if rank == "A":
        return 1
    if rank in ("10", "T", "J", "Q", "K"):
        return 0
    return int(rank)


def burn_count(code: str) -> int:
    """How many cards the exposed first card of a shoe has burned after it (ten and faces: 10)."""
    rank = code[:-1]
    return 1 if rank == "A" else 10 if rank in ("10", "T", "J", "Q", "K") else int(rank)


def hands_if_complete(cards: list[str]) -> tuple[list[str], list[str]] | None:
    """(player, banker) once ``cards`` (in dealing order) make a finished round, else None."""
    if len(cards) < 4:
        return None
    player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
    p, b = sum(map(point, player)) % 10, sum(map(point, banker)) % 10
    if p >= 8 or b >= 8:
        return player, banker
    if p <= 5:
        if len(cards) < 5:
            return None
        player.append(cards[4])
        x = point(cards[4])
        draws = b <= 2 or (b == 3 and x != 8) or (b == 4 and 2 <= x <= 7) or (b == 5 and 4 <= x <= 7) or (
            b == 6 and x in (6, 7))
        if not draws:
            return player, banker
        if len(cards) < 6:
            return None
        banker.append(cards[5])
        return player, banker
    if b <= 5:
        if len(cards) < 5:
            return None
        banker.append(cards[4])
    return player, banker


def winner(player: list[str], banker: list[str]) -> str:
    p, b = sum(map(point, player)) % 10, sum(map(point, banker)) % 10
    return "player" if p > b else "banker" if b > p else "tie"


@dataclass
class Bet:
    box: str
    player: str
    region: str
    amount: int


def settle(bets: Iterable[Bet], result: str, tie_pays: int) -> list[tuple[str, int, int, int]]:
    """Each bet as (region, stake, net for the player, commission)."""
    settled = []
    for bet in bets:
        a = bet.amount
        if bet.region == "tie":
            settled.append(("tie", a, tie_pays * a if result == "tie" else -a, 0))
        elif result == "tie":
            settled.append((bet.region, a, 0, 0))
        elif bet.region == result:
            commission = a * 5 // 100 if bet.region == "banker" else 0
            settled.append((bet.region, a, a - commission, commission))
        else:
            settled.append((bet.region, a, -a, 0))
    return settled


@dataclass
class Round:
    key: tuple[str, int, int]
    bets: list[Bet]
    result: str


@dataclass
class Independent:
    """The figures, keyed by gaming day, (day, session) and (day, shoe)."""

    zone: ZoneInfo
    start: timedelta
    tie_pays: int
    max_bet: int
    parts: dict[tuple[str, int, int], dict[str, Any]] = field(default_factory=dict)
    sessions: dict[int, str] = field(default_factory=dict)

    def day(self, time: str) -> str:
        moment = datetime.fromisoformat(time[:-1]).replace(tzinfo=UTC)
        wall = moment.astimezone(self.zone).replace(tzinfo=None)
        return (wall - self.start).date().isoformat()

    def figures(self, key: tuple[str, int, int]) -> dict[str, Any]:
        return self.parts.setdefault(key, _money_figures())

    def count_settlement(self, key: tuple[str, int, int], settled: list[tuple[str, int, int, int]], sign: int) -> None:
        f = self.figures(key)
        for region, stake, net, commission in settled:
            r = f["regions"].setdefault(region, {"bets": 0, "stakes": 0, "house": 0})
            r["bets"] += sign
            r["stakes"] += sign * stake
            r["house"] -= sign * net
            f["commission"] += sign * commission


def _micros(a: str, b: str) -> int:
    da = datetime.fromisoformat(a[:-1])
    db = datetime.fromisoformat(b[:-1])
    return max(0, (db - da) // timedelta(microseconds=1))


def compute(lines: Iterable[str]) -> Independent:
    """Read exported JSON lines and work the meters out."""
    records = [json.loads(line) for line in lines if line.strip()]
    config = next(r for r in records if r["kind"] == "Configuration")["payload"]["table"]
    hours, minutes = (int(x) for x in config["gaming_day_start"].split(":"))
    ind = Independent(ZoneInfo(config["timezone"]), timedelta(hours=hours, minutes=minutes), int(config["tie_pays"]),
                      int(config["max_bet"]))
    shoe = 0
    session, dealer = 0, ""  # the dealer signed in, and their session
    relieved = (0, "")  # the session before, and its dealer
    round_dealer = ""  # who deals the round in play
    phase = "shuffling"  # shuffling, cutting, exposing, burning, betting, dealing, paying, irregularity
    burn_left = 0
    paused = False
    open_since, banked = "", 0
    bets: dict[tuple[str, str, str], int] = {}
    cards: list[str] = []
    cut_seen = False
    after_this: int | None = None  # rounds still to come after the current one, once the cut card is out
    shoe_over = False
    carried: dict[tuple[str, str, str], int] = {}  # Banker and Player bets left on after a Tie
    return_to = ""
    settled: dict[str, Round] = {}  # "<shoe>-<n>" -> the round as settled (for corrections)
    number = 0  # rounds of this shoe
    # The table minimum and maximum of the round in play, and those a change left for the next one.
    limits = next_limits = (int(config["min_bet"]), int(config["max_bet"]))

    def open_round() -> None:
        nonlocal limits
        limits = next_limits
        ind.max_bet = limits[1]

    def in_play(time: str) -> dict[str, Any]:
        return ind.figures((ind.day(time), session, shoe))

    def round_ended(time: str) -> tuple[str, int, int]:
        nonlocal open_since, banked
        # A round under way when its dealer was relieved stays in the relieved dealer's session.
        whose = relieved[0] if round_dealer != dealer and round_dealer == relieved[1] else session
        key = (ind.day(time), whose, shoe)
        f = ind.figures(key)
        f["open_us"] += banked + (_micros(open_since, time) if open_since else 0)
        banked, open_since = 0, time
        f["rounds"] += 1
        played = f"{limits[0]}-{limits[1]}"
        f["rounds_by_limits"][played] = f["rounds_by_limits"].get(played, 0) + 1
        f["first_round"] = f["first_round"] or time
        f["last_round"] = time
        return key

    buttons: dict[str, str] = {}
    for index, record in enumerate(records):
        kind, p, time = record["kind"], record["payload"], record["time"]
        previous_time = records[index - 1]["time"] if index else time
        if kind == "Configuration":
            buttons = dict(p.get("buttons", {}))
        if kind == "ButtonPressed" and not p.get("long_press") and p["button"] in buttons:
            kind, p = "DealerAction", {"action": buttons[p["button"]]}  # a pedal is its mapped action
        if kind == "StationStarted" and open_since:
            banked += _micros(open_since, previous_time)  # the table was not open while the station was not
            open_since = time
        elif kind == "DealerSignedIn":
            if p["dealer"].strip() == dealer:
                in_play(time)["refusals"] += 1  # the dealer already at the table
            else:
                relieved, dealer = (session, dealer), p["dealer"].strip()
                session += 1
                ind.sessions[session] = dealer
                in_play(time)
                if phase == "betting" or (phase == "dealing" and not cards):
                    round_dealer = dealer  # the round in play, no card out yet, becomes theirs
        elif kind == "DealerAction":
            action = p["action"]
            if action == "shuffle_done" and phase == "shuffling":
                phase, shoe, number = "cutting", shoe + 1, 0
                cut_seen, after_this, shoe_over = False, None, False
                open_since, banked = "", 0
            elif action == "confirm_cut" and phase == "cutting":
                phase = "exposing"
            elif action == "no_more_bets" and phase == "betting":
                phase, cards = "dealing", []
            elif action == "next_round" and phase == "paying":
                if shoe_over:
                    phase, carried = "shuffling", {}  # bets left on go back to their owners
                else:
                    phase, bets, carried, round_dealer = "betting", dict(carried), {}, dealer
                    open_round()
        elif kind == "CutCardSeen":
            if not cut_seen:
                cut_seen = True
                # Out where the round's first card would be: this round is the last; else one more.
                after_this = 0 if phase == "dealing" and not cards else 1
        elif kind == "CardDrawn":
            code = p["card"]
            if phase == "exposing":
                phase, burn_left = "burning", burn_count(code)
            elif phase == "burning":
                burn_left -= 1
                if burn_left == 0:
                    phase, bets, round_dealer = "betting", {}, dealer
                    open_round()
                    open_since = "" if paused else time
            elif phase == "dealing":
                cards.append(code)
                hands = hands_if_complete(cards)
                if hands is not None:
                    number += 1
                    key = round_ended(time)
                    result = winner(*hands)
                    round_bets = [Bet(b, pl, r, a) for (b, pl, r), a in bets.items()]
                    ind.count_settlement(key, settle(round_bets, result, ind.tie_pays), 1)
                    settled[f"{shoe}-{number}"] = Round(key, round_bets, result)
                    phase = "paying"
                    if result == "tie":
                        carried = {k: a for k, a in bets.items() if k[2] in ("banker", "player")}
                    shoe_over, after_this = ended_one(after_this)
        elif kind == "BetPlaced":
            k = (p["box"], p["player"], p["region"])
            if phase == "betting" and p["amount"] <= ind.max_bet:
                bets[k] = bets.get(k, 0) + p["amount"]
            else:
                in_play(time)["refusals"] += 1
        elif kind == "LimitsChanged" and p["actor"]["role"] == "supervisor":
            # The week's changes are all ones a table takes: from the next round to open.
            changes = p["changes"]
            next_limits = (int(changes.get("min_bet", next_limits[0])), int(changes.get("max_bet", next_limits[1])))
        elif kind in ("TrayCounted", "DropCounted") and p["actor"]["role"] == "supervisor":
            # The week's tray entries are all ones a table takes (docs/tray.md).
            what = p.get("what", "drop")
            worth = p["amount"] if what == "drop" else sum(d * n for d, n in p["chips"])
            f = in_play(time)
            f["tray"][what] = f["tray"].get(what, 0) + worth
            f["tray_entries"][what] = f["tray_entries"].get(what, 0) + 1
        elif kind == "DeviceFault":
            if phase == "dealing":
                counts: Counts = in_play(time)["irregularities"]
                counts["device_fault"] = counts.get("device_fault", 0) + 1
                return_to, phase = phase, "irregularity"
        elif kind == "SupervisorDecision" and phase == "irregularity":
            if p["decision"] == "void":
                number += 1
                key = round_ended(time)
                f = ind.figures(key)
                f["voided_rounds"] += 1
                f["voided_returned"] += sum(bets.values())
                phase = "paying"
                shoe_over, after_this = ended_one(after_this)
            else:
                phase = return_to
        elif kind == "PauseRequested" and phase in ("betting", "paying", "shuffling"):
            paused = True
            if open_since:
                banked += _micros(open_since, time)
                open_since = ""
        elif kind == "ResumeRequested" and paused:
            paused = False
            if phase in ("betting", "paying", "dealing"):
                open_since = time
        elif kind == "IntegrityAlert":
            counts = in_play(time)["integrity_alarms" if p["severity"] == "alarm" else "integrity_alerts"]
            counts[p["code"]] = counts.get(p["code"], 0) + 1
        elif kind == "BetCorrected":
            corrected = settled[p["round_id"]]
            before = settle(corrected.bets, corrected.result, ind.tie_pays)
            old_key = (p["box"], p["player"], p["region"])
            new_bets = [b for b in corrected.bets if (b.box, b.player, b.region) != old_key]
            if p["new_amount"]:
                new_bets.append(Bet(p["new_box"], p["new_player"], p["new_region"], p["new_amount"]))
            after = settle(new_bets, corrected.result, ind.tie_pays)
            ind.count_settlement(corrected.key, before, -1)
            ind.count_settlement(corrected.key, after, 1)
            f = ind.figures(corrected.key)
            f["corrections"] += 1
            f["corrected_house"] += -sum(n for _, _, n, _ in after) + sum(n for _, _, n, _ in before)
            corrected.bets = new_bets
            old = (p["box"], p["player"], p["region"])
            if phase == "paying" and p["round_id"] == f"{shoe}-{number}" and old in carried:
                del carried[old]  # a bet left on after a Tie follows its correction
                if p["new_amount"] and p["new_region"] in ("banker", "player"):
                    carried[(p["new_box"], p["new_player"], p["new_region"])] = p["new_amount"]
    return ind


def ended_one(after_this: int | None) -> tuple[bool, int | None]:
    """A round ended: (was it the shoe's last, rounds still to come after the next one)."""
    if after_this is None:
        return False, None
    if after_this == 0:
        return True, None
    return False, after_this - 1


def totals(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Figures of several parts added up, with the worked-out totals the report shows."""
    whole = _money_figures()
    for f in parts:
        for name in ("rounds", "voided_rounds", "open_us", "commission", "void_parts_returned", "voided_returned",
                     "corrections", "corrected_house", "refusals"):
            whole[name] += f[name]
        if f["first_round"] and (not whole["first_round"] or f["first_round"] < whole["first_round"]):
            whole["first_round"] = f["first_round"]
        whole["last_round"] = max(whole["last_round"], f["last_round"])
        for region, r in f["regions"].items():
            into = whole["regions"].setdefault(region, {"bets": 0, "stakes": 0, "house": 0})
            for name in ("bets", "stakes", "house"):
                into[name] += r[name]
        whole["ratings"].update(f["ratings"])
        for name in ("irregularities", "integrity_alarms", "integrity_alerts", "rounds_by_limits", "tray",
                     "tray_entries", "cash", "progressive"):
            for code, count in f[name].items():
                whole[name][code] = whole[name].get(code, 0) + count
    whole["regions"] = {k: v for k, v in sorted(whole["regions"].items()) if v["bets"] or v["stakes"] or v["house"]}
    whole["bets"] = sum(r["bets"] for r in whole["regions"].values())
    whole["stakes"] = sum(r["stakes"] for r in whole["regions"].values())
    whole["house"] = sum(r["house"] for r in whole["regions"].values())
    tray, drop = whole["tray"], whole["tray"].get("drop", 0)
    counted = whole["tray_entries"].get("opener") and whole["tray_entries"].get("closer")
    win = (tray.get("closer", 0) - tray.get("opener", 0) + tray.get("credit", 0) - tray.get("fill", 0) + drop
           if counted else None)
    whole.update({"drop": drop, "win": win, "hold_percent": round(win * 100 / drop, 2) if win is not None and drop
                  else None, "variance": None if win is None else win - whole["house"]})
    whole["rounds_per_hour"] = (round(whole["rounds"] * 3_600_000_000 / whole["open_us"], 1)
                                if whole["open_us"] >= 60_000_000 else None)  # no rate under a minute
    return whole


def by_day(ind: Independent) -> dict[str, dict[str, Any]]:
    """Per gaming day: its totals, its sessions' and its shoes' figures."""
    days: dict[str, dict[str, Any]] = {}
    for day in sorted({key[0] for key in ind.parts}):
        mine = {key: f for key, f in ind.parts.items() if key[0] == day}
        days[day] = {
            "totals": totals(mine.values()),
            "sessions": {s: totals(f for k, f in mine.items() if k[1] == s) for s in sorted({k[1] for k in mine})},
            "shoes": {s: totals(f for k, f in mine.items() if k[2] == s) for s in sorted({k[2] for k in mine})},
        }
    return days
