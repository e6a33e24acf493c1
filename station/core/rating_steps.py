"""Rated play: a player's card tied to a box while they play, and what their play is worth
(docs/ratings.md).

A rating opens with the card just read by the table's card reader (the dealer may do that) or
with a number a supervisor types, and closes when the player leaves. While it is open, each
round settled adds the player's bets: the hands they had a bet in, how many bets and what they
staked, and the theoretical win, each bet's stake times the exact house edge of its wager
under the table's rules for a full shoe (:mod:`station.analysis`: the same enumeration as
``station analyze``), kept as an exact fraction until it is written. The times a rating opens
and closes are stamped by the door that sends them (the machine reads no clock), so the time
played replays the same.

Cash bought in at the table is journaled with the player's card when they are rated.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

from station.analysis.full_shoe import full_shoe_edges
from station.core import outputs as out
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.core.rounds import Round
from station.events import BuyIn, Event, PlayerCardRead, RatingClosed, RatingOpened
from station.games.layout import SettledBet

#: Who may open or close a rating, and record a buy-in.
RATING_ROLES = ("dealer", *SUPERVISOR_ROLES)



def _moment(text: str) -> datetime | None:
    """A time as the journal writes it (``2026-12-06T20:15:00.000000Z``), or None."""
    if not isinstance(text, str) or not text.endswith("Z"):
        return None
    try:
        return datetime.fromisoformat(text[:-1])
    except ValueError:
        return None


def _rounded(value: Fraction) -> int:
    """To the nearest minor unit, half to even (as Python rounds)."""
    return round(value)


class RatingSteps(MachineBase):
    """Card reads, ratings opened and closed, buy-ins."""

    def _rating_problem(self, ev: Event, box: str, player: str) -> str:
        actor = getattr(ev, "actor", None)
        if actor is None or actor.role not in RATING_ROLES:
            return "only a dealer or a supervisor rates a player"
        boxes = [str(n) for n in range(1, self.table.boxes + 1)]
        boxes += [f"S{n}" for n in range(1, int(getattr(self.table, "standing_regions", 0)) + 1)]
        if box not in boxes:
            return f"there is no box {box!r} on this table: {', '.join(boxes)}"
        if not player.strip():
            return "name the player, as their bets name them"
        return ""

    def _on_card_read(self, ev: PlayerCardRead) -> None:
        card = ev.card.strip()
        if not card:
            self._refuse(ev, "an empty card read: swipe or scan it again")
            return
        self.card_read = card
        self._emit(out.PlayerCardPresented(ev.device, card))

    def _on_rating_opened(self, ev: RatingOpened) -> None:
        problem = self._rating_problem(ev, ev.box, ev.player)
        card, key = ev.card.strip(), f"{ev.box}|{ev.player.strip()}"
        if not problem and not card:
            problem = "name the player's card"
        if not problem and ev.door == "reader" and card != self.card_read:
            problem = f"card {card} is not the card last read ({self.card_read or 'none read'}): swipe it again"
        if not problem and ev.door != "reader" and ev.actor.role not in SUPERVISOR_ROLES:
            problem = "a dealer rates a player by their card: swipe it, or a supervisor types its number"
        if not problem and ev.door not in ("reader", "typed"):
            problem = f"a card is read or typed, not {ev.door!r}"
        if not problem and _moment(ev.at) is None:
            problem = f"{ev.at!r} is not a time as the journal writes it"
        if not problem and key in self.ratings:
            problem = f"{ev.player} at box {ev.box} is rated already (card {self.ratings[key]['card']})"
        if not problem and any(r["card"] == card for r in self.ratings.values()):
            problem = f"card {card} is rated at another box: close that rating first"
        if problem:
            self._refuse(ev, problem)
            return
        self.ratings_opened += 1
        self.ratings[key] = {"rating": self.ratings_opened, "box": ev.box, "player": ev.player.strip(), "card": card,
                             "opened_at": ev.at, "hands": 0, "bets": 0, "stakes": 0, "theo": "0",
                             "since": self._last_round_settled()}
        if ev.door == "reader":
            self.card_read = ""
        self._emit(out.RatingStarted(self.ratings_opened, ev.box, ev.player.strip(), card, ev.at, ev.door,
                                     ev.actor.role, ev.actor.who))

    def _on_rating_closed(self, ev: RatingClosed) -> None:
        problem = self._rating_problem(ev, ev.box, ev.player)
        rating = self.ratings.get(f"{ev.box}|{ev.player.strip()}")
        closed, opened = _moment(ev.at), _moment(rating["opened_at"]) if rating else None
        if not problem and rating is None:
            problem = f"{ev.player} at box {ev.box} is not rated"
        if not problem and (closed is None or opened is None or closed < opened):
            problem = f"{ev.at!r} is not a time after the rating opened"
        if problem:
            self._refuse(ev, problem)
            return
        assert rating is not None and closed is not None and opened is not None
        del self.ratings[f"{ev.box}|{ev.player.strip()}"]
        played = closed - opened
        theo = Fraction(rating["theo"])
        self._emit(out.RatingEnded(
            rating["rating"], rating["box"], rating["player"], rating["card"], rating["opened_at"], ev.at,
            (played.days * 86_400 + played.seconds) * 1_000_000 + played.microseconds, rating["hands"],
            rating["bets"], rating["stakes"], _rounded(theo), f"{theo.numerator}/{theo.denominator}",
            ev.actor.role, ev.actor.who))

    def _on_buy_in(self, ev: BuyIn) -> None:
        problem = self._rating_problem(ev, ev.box, ev.player)
        if not problem and ev.amount <= 0:
            problem = f"a buy-in of {ev.amount}: it is more than 0"
        if problem:
            self._refuse(ev, problem.replace("rates a player", "records a buy-in"))
            return
        rating = self.ratings.get(f"{ev.box}|{ev.player.strip()}")
        self._emit(out.CashBuyIn(ev.box, ev.player.strip(), rating["card"] if rating else "", ev.amount,
                                 ev.actor.role, ev.actor.who))

    def _wager_edge(self, region: str, payout_option: str) -> Fraction:
        """The house edge of a bet on ``region`` under the table's rules (0 for a region whose
        wager the analysis does not price)."""
        edges = full_shoe_edges(self.rules.name, self.options.decks, self.table)
        key = self.rules.wager_keys(self.table, payout_option).get(region, "")
        return edges.get(key, Fraction(0))

    def _rate_round(self, r: Round, bets: tuple[SettledBet, ...]) -> None:
        """A settled round's bets added to the ratings open at its boxes."""
        if self.ratings:
            self._add_bets(r, bets, 1)

    def _rerate_round(self, r: Round, before: tuple[SettledBet, ...], after: tuple[SettledBet, ...]) -> None:
        """A correction of a settled round: the ratings open while it was played count it as
        corrected (a rating opened after the round never counted it, and does not now)."""
        if self.ratings:
            self._add_bets(r, before, -1)
            self._add_bets(r, after, 1)

    def _last_round_settled(self) -> list[int]:
        """(shoe, round) of the last round settled: a rating opened now counts the rounds after it."""
        in_play = self.round is not None and not self.round.settled
        return [self.shoe.number, self.shoe.rounds - (1 if in_play else 0)]

    def _add_bets(self, r: Round, bets: tuple[SettledBet, ...], sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) a round's bets from the ratings open while it was
        played (those opened after it never count it)."""
        hands: set[str] = set()
        played = [r.round_id.shoe, r.round_id.number]
        for bet in bets:
            key = f"{bet.box}|{bet.player}"
            rating = self.ratings.get(key)
            if rating is None or not bet.stake or played <= rating["since"]:
                continue
            edge = self._wager_edge(bet.region, r.payout_option)
            rating["bets"] += sign
            rating["stakes"] += sign * bet.stake
            theo = Fraction(rating["theo"]) + sign * bet.stake * edge
            rating["theo"] = f"{theo.numerator}/{theo.denominator}"
            hands.add(key)
        for key in hands:
            self.ratings[key]["hands"] += sign
