"""``station diag deck-check``: the shuffler's count of its set, per rank and suit.

The shuffler counts what it holds (``RequestDeckCheck``) and says itself which cards are
missing or extra against the number of decks it was set up for. The grid shows every rank
and suit with the count, marking a cell that is short (``-``) or over (``+``), so a
technician can see at a glance which card to look for before the set goes into play.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from station.cards import Rank, Suit
from station.events import DeckCheck

RANKS: tuple[str, ...] = tuple(r.value for r in Rank)
SUITS: tuple[str, ...] = tuple(s.value for s in Suit)


def grid(check: DeckCheck) -> dict[str, dict[str, int]]:
    """``{rank: {suit: count}}`` for all 52 cards, zero where the shuffler counted none."""
    counts = Counter(dict(check.counts))
    return {rank: {suit: counts.get(rank + suit, 0) for suit in SUITS} for rank in RANKS}


def deck_report(check: DeckCheck) -> dict[str, Any]:
    counted = sum(n for _, n in check.counts)
    return {
        "device": check.device,
        "decks": check.decks,
        "expected": check.decks * 52,
        "counted": counted,
        "complete": check.complete,
        "grid": grid(check),
        "missing": list(check.missing),
        "extra": list(check.extra),
    }


def format_deck(report: dict[str, Any], where: str) -> str:
    decks = report["decks"]
    lines = [
        f"{where}: {decks} deck(s), {report['expected']} cards expected, {report['counted']} counted",
        "",
        "rank " + "".join(f"{suit:>6}" for suit in SUITS),
    ]
    for rank, row in report["grid"].items():
        cells = []
        for suit in SUITS:
            n = row[suit]
            mark = "-" if n < decks else "+" if n > decks else " "
            cells.append(f"{n:>5}{mark}")
        lines.append(f"  {rank}  " + "".join(cells))
    lines.append("")
    lines.append(f"missing ({len(report['missing'])}): {' '.join(report['missing']) or 'none'}")
    lines.append(f"extra ({len(report['extra'])}): {' '.join(report['extra']) or 'none'}")
    lines.append("deck complete" if report["complete"] else "DECK NOT COMPLETE: do not put this set into play")
    return "\n".join(lines)
