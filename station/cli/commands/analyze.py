"""``station analyze``: exact odds and house edges for any shoe composition.

Examples::

    station analyze                          # 8-deck baccarat
    station analyze --decks 6 --remove 9S,9H,TD --json
    station analyze --game war --decks 6 --tie-pays 10 --war-tie-bonus 1
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from station.analysis.baccarat_odds import (
    DEFAULT_PAIR_PAYS,
    DEFAULT_TIE_PAYOUTS,
    BaccaratAnalysis,
    CompositionTooSmall,
    analyse_baccarat,
)
from station.analysis.edges import BetEdge, fraction_text, percent
from station.analysis.side_bet_odds import SideBetAnalysis, analyse_side_bets, break_even_meter
from station.analysis.war_odds import DEFAULT_TIE_PAYS, WarAnalysis, WarShoeTooSmall, analyse_war
from station.cards import MAX_DECKS, MIN_DECKS, Card, CardError, ImpossibleComposition, ShoeComposition, parse_cards
from station.cli.main import CliError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="exact odds and house edges of a shoe, by complete enumeration",
        description=(
            "Print exact probabilities and house edges for the cards left in a shoe, "
            "enumerating every round without replacement."
        ),
    )
    parser.add_argument("--game", choices=tuple(ANALYSES), default="baccarat")
    parser.add_argument(
        "--decks", type=int, default=MAX_DECKS, help=f"decks in the shoe, {MIN_DECKS}-{MAX_DECKS} (default {MAX_DECKS})"
    )
    parser.add_argument(
        "--remove",
        default="",
        metavar="CARDS",
        help="cards already seen, comma-separated codes such as AS,TD,9C",
    )
    parser.add_argument(
        "--tie-pays",
        type=int,
        default=None,
        metavar="N",
        help=(
            f"Tie payout N:1. War: the Tie Wager (default {DEFAULT_TIE_PAYS}). Baccarat: shown "
            f"besides {' and '.join(f'{p}:1' for p in DEFAULT_TIE_PAYOUTS)}"
        ),
    )
    parser.add_argument(
        "--war-tie-bonus",
        type=int,
        default=0,
        metavar="N",
        help="war only: the Casino War Wager wins N:1 when the war cards tie too (default 0, off)",
    )
    parser.add_argument(
        "--pair-pays",
        type=int,
        default=DEFAULT_PAIR_PAYS,
        metavar="N",
        help=f"baccarat only: Player/Banker pair payout N:1 (default {DEFAULT_PAIR_PAYS})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def shoe_after(decks: int, removed: Sequence[Card]) -> ShoeComposition:
    """The composition left after ``removed``; any impossible card is a :class:`CliError`."""
    try:
        shoe = ShoeComposition(decks)
        shoe.remove_all(removed)
    except ImpossibleComposition as exc:
        raise CliError(str(exc), 2) from None
    return shoe


def run(args: argparse.Namespace) -> int:
    for name in ("tie_pays", "war_tie_bonus", "pair_pays"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise CliError(f"--{name.replace('_', '-')} cannot be negative, got {value}", 2)
    try:
        removed = parse_cards(args.remove)
    except CardError as exc:
        raise CliError(f"--remove: {exc}", 2) from None
    shoe = shoe_after(args.decks, removed)
    header = {"decks": args.decks, "removed": [card.code for card in removed], "cards": len(shoe)}
    try:
        document, text = ANALYSES[args.game](shoe, args, header)
    except (CompositionTooSmall, WarShoeTooSmall) as exc:
        raise CliError(str(exc), 2) from None
    print(json.dumps(document, indent=2) if args.json else text)
    return 0


def _baccarat(shoe: ShoeComposition, args: argparse.Namespace, header: dict[str, Any]) -> tuple[dict[str, Any], str]:
    payouts = tuple(DEFAULT_TIE_PAYOUTS) + (() if args.tie_pays is None else (args.tie_pays,))
    analysis = analyse_baccarat(shoe, tie_payouts=payouts, pair_pays=args.pair_pays)
    sides = analyse_side_bets(shoe)
    document = baccarat_json(analysis, header)
    document["house_edges"][sides.ez_banker.key] = sides.ez_banker.as_json()
    document["side_bets"] = side_bets_json(sides)
    return document, baccarat_text(analysis, header) + "\n\n" + side_bets_text(sides)


def _war(shoe: ShoeComposition, args: argparse.Namespace, header: dict[str, Any]) -> tuple[dict[str, Any], str]:
    tie_pays = DEFAULT_TIE_PAYS if args.tie_pays is None else args.tie_pays
    analysis = analyse_war(shoe, tie_pays=tie_pays, war_tie_bonus=args.war_tie_bonus)
    return war_json(analysis, header), war_text(analysis, header)


#: Each game's analysis, by the game's configured name: (JSON document, text) for a shoe.
ANALYSES: dict[str, Callable[[ShoeComposition, argparse.Namespace, dict[str, Any]], tuple[dict[str, Any], str]]] = {
    "baccarat": _baccarat,
    "war": _war,
}


def _probability(count: int, total: int) -> dict[str, Any]:
    exact = Fraction(count, total)
    return {"count": count, "probability": fraction_text(exact), "percent": percent(exact)}


def baccarat_json(analysis: BaccaratAnalysis, header: dict[str, Any]) -> dict[str, Any]:
    counts, total = analysis.counts, analysis.total
    return {
        "game": "baccarat",
        **header,
        "normalisation": "ordered sequences of 6 distinct cards; rounds of k cards x ways to draw the 6-k unused",
        "total": total,
        "outcomes": {
            "banker": _probability(counts.banker, total),
            "player": _probability(counts.player, total),
            "tie": _probability(counts.tie, total),
            "banker_on_six": _probability(counts.banker_on_six, total),
            "player_pair": _probability(analysis.pair, total),
            "banker_pair": _probability(analysis.pair, total),
        },
        "house_edges": {edge.key: edge.as_json() for edge in analysis.edges},
    }


def side_bets_json(sides: SideBetAnalysis) -> dict[str, Any]:
    """Each pay table of each side bet: its edge and the probability of every hand it names."""
    return {
        odds.table.name: {
            **odds.edge.as_json(), "side_bet": odds.table.bet.value,
            "hands": {hand: _probability(count, odds.total) for hand, count in sorted(odds.hands.items())},
            **({"meter": dict(odds.table.meter), "break_even_meter_in_stakes": break_even_meter(odds, 1)}
               if odds.table.meter else {}),
        }
        for odds in sides.odds
    }


def side_bets_text(sides: SideBetAnalysis) -> str:
    rows = [("Side bet", "Pay table", "Payout", "House edge")]
    rows += [(o.edge.bet, o.table.name, o.edge.payout, percent(o.edge.house_edge) + "%") for o in sides.odds]
    ez = sides.ez_banker
    lines = _table(rows, (False, False, False, True))
    lines.append(f"{ez.bet} ({ez.payout}): {percent(ez.house_edge)}%")
    for o in sides.odds:
        stakes = break_even_meter(o, 1)
        if stakes is not None:
            lines.append(f"{o.edge.bet} ({o.table.name}): the edge above leaves out the meter; the bet returns "
                         f"what is staked once the meter is at least {stakes:,} times the stake")
    return "\n".join(lines)


def war_json(analysis: WarAnalysis, header: dict[str, Any]) -> dict[str, Any]:
    c = analysis.counts
    return {
        "game": "war",
        **header,
        "normalisation": "ordered sequences of 4 distinct cards (player, dealer, player war, dealer war)",
        "total": c.total,
        "outcomes": {
            "player_higher": _probability(c.player_higher, c.total),
            "dealer_higher": _probability(c.dealer_higher, c.total),
            "tie": _probability(c.tie, c.total),
            "tie_then_player_higher": _probability(c.war_player_higher, c.total),
            "tie_then_dealer_higher": _probability(c.war_dealer_higher, c.total),
            "tie_then_tie": _probability(c.war_tie, c.total),
        },
        "house_edges": {edge.key: edge.as_json() for edge in analysis.edges},
        "go_to_war_per_total_wagered": {
            "percent": percent(analysis.go_to_war_per_total_wagered),
            "exact": fraction_text(analysis.go_to_war_per_total_wagered),
        },
        "war_tie_bonus": {
            "pays": analysis.war_tie_bonus,
            "edge_reduction_percent": percent(analysis.war_tie_bonus_effect),
            "edge_reduction": fraction_text(analysis.war_tie_bonus_effect),
        },
    }


def _table(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(row, widths, right, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return lines


def _outcome_rows(named_counts: Sequence[tuple[str, int]], total: int) -> list[str]:
    rows = [("Outcome", "Ordered sequences", "Probability")]
    rows += [(name, f"{count:,}", percent(Fraction(count, total)) + "%") for name, count in named_counts]
    rows.append(("Total", f"{total:,}", "100.0000%"))
    return _table(rows, (False, True, True))


def _edge_rows(edges: Sequence[BetEdge]) -> list[str]:
    rows = [("Bet", "Payout", "House edge")]
    rows += [(edge.bet, edge.payout, percent(edge.house_edge) + "%") for edge in edges]
    return _table(rows, (False, False, True))


def _title(game: str, header: dict[str, Any]) -> str:
    removed = len(header["removed"])
    plural = "s" if removed != 1 else ""
    return f"{game}, {header['decks']} decks, {removed} card{plural} removed, {header['cards']} left"


def baccarat_text(analysis: BaccaratAnalysis, header: dict[str, Any]) -> str:
    counts = analysis.counts
    named = [
        ("Banker wins", counts.banker),
        ("  of which on 6", counts.banker_on_six),
        ("Player wins", counts.player),
        ("Tie", counts.tie),
    ]
    lines = [_title("Baccarat", header), ""]
    lines += _outcome_rows(named, analysis.total)
    lines.append(f"Player pair and Banker pair, each: {percent(Fraction(analysis.pair, analysis.total))}%")
    lines.append("")
    lines += _edge_rows(analysis.edges)
    return "\n".join(lines)


def war_text(analysis: WarAnalysis, header: dict[str, Any]) -> str:
    c = analysis.counts
    named = [
        ("Player card higher", c.player_higher),
        ("Dealer card higher", c.dealer_higher),
        ("Tie", c.tie),
        ("  then war: player higher", c.war_player_higher),
        ("  then war: dealer higher", c.war_dealer_higher),
        ("  then war: tie", c.war_tie),
    ]
    lines = [_title("Casino War", header), ""]
    lines += _outcome_rows(named, c.total)
    lines.append(f"First-card tie: {fraction_text(analysis.tie_probability)}")
    lines.append("")
    lines += _edge_rows(analysis.edges)
    lines.append(f"Go to war, per total amount wagered: {percent(analysis.go_to_war_per_total_wagered)}%")
    if analysis.war_tie_bonus:
        lines.append(
            f"The {analysis.war_tie_bonus}:1 war tie bonus lowers the go-to-war edge by "
            f"{percent(analysis.war_tie_bonus_effect)} points"
        )
    return "\n".join(lines)
