"""``station analyze`` against the published figures and the exact war formulas.

The published numbers live here, in the tests, and nowhere in ``station/analysis``: the
analyser has to compute them (the last test makes sure it does not contain them).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from station.analysis.edges import percent
from station.cli.main import main

# Published 8-deck baccarat figures: ordered card sequences and house edges.
TOTAL_8 = 4_998_398_275_503_360
BANKER_8 = 2_292_252_566_437_888
PLAYER_8 = 2_230_518_282_592_256
TIE_8 = 475_627_426_473_216
EDGES_8 = {
    "banker_commission": "1.0579",
    "player": "1.2351",
    "tie_8_to_1": "14.3596",
    "tie_9_to_1": "4.8440",
    "banker_no_commission": "1.4581",
}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    status = main(["analyze", *args, "--json"])
    assert status == 0
    figures: dict[str, Any] = json.loads(capsys.readouterr().out)
    return figures


def test_eight_decks_reproduce_the_published_counts_and_edges(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--decks", "8")
    outcomes = doc["outcomes"]
    assert doc["total"] == TOTAL_8
    assert outcomes["banker"]["count"] == BANKER_8
    assert outcomes["player"]["count"] == PLAYER_8
    assert outcomes["tie"]["count"] == TIE_8
    for key, figure in EDGES_8.items():
        assert doc["house_edges"][key]["house_edge_percent"] == figure, key


def test_banker_on_six_is_what_the_no_commission_edge_implies(capsys: pytest.CaptureFixture[str]) -> None:
    # No commission: EV = (B - S) + S/2 - P, so S = 2 (B - P + edge * total); with the
    # commissioned edge known exactly this pins the Banker-wins-on-6 count.
    doc = run_json(capsys, "--decks", "8")
    six = doc["outcomes"]["banker_on_six"]["count"]
    no_commission = Fraction(doc["house_edges"]["banker_no_commission"]["house_edge"])
    assert no_commission == Fraction(six, 2 * TOTAL_8) - Fraction(BANKER_8 - PLAYER_8, TOTAL_8)
    assert 0 < six < BANKER_8


def test_six_decks_print_exact_integers_on_the_six_card_denominator(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--decks", "6")
    counts = {key: doc["outcomes"][key]["count"] for key in ("banker", "player", "tie", "banker_on_six")}
    assert all(type(value) is int for value in counts.values())
    assert doc["total"] == 312 * 311 * 310 * 309 * 308 * 307
    assert counts["banker"] + counts["player"] + counts["tie"] == doc["total"]
    # Widely published 6-deck edges, to two decimals.
    edges = {key: Fraction(edge["house_edge"]) for key, edge in doc["house_edges"].items()}
    assert percent(edges["banker_commission"], 2) == "1.06"
    assert percent(edges["player"], 2) == "1.24"
    assert percent(edges["tie_8_to_1"], 2) == "14.44"


def test_pairs_at_eleven_to_one(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--decks", "8")
    # Two given positions pair with probability 13 * 32 * 31 / (416 * 415).
    pair = Fraction(13 * 32 * 31, 416 * 415)
    assert Fraction(doc["outcomes"]["player_pair"]["probability"]) == pair
    assert Fraction(doc["house_edges"]["player_pair_11_to_1"]["house_edge"]) == 1 - 12 * pair


@pytest.mark.e2e
def test_cli_as_a_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "station", "analyze", "--decks", "8", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    doc = json.loads(done.stdout)
    assert (doc["total"], doc["outcomes"]["banker"]["count"]) == (TOTAL_8, BANKER_8)


def test_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze"]) == 0
    out = capsys.readouterr().out
    assert f"{TOTAL_8:,}" in out and f"{TIE_8:,}" in out
    assert "1.0579%" in out and "14.3596%" in out and "4.8440%" in out


@pytest.mark.parametrize(("decks", "tie"), [("8", "31/415"), ("6", "23/311")])
def test_war_first_card_tie(capsys: pytest.CaptureFixture[str], decks: str, tie: str) -> None:
    doc = run_json(capsys, "--game", "war", "--decks", decks)
    assert doc["outcomes"]["tie"]["probability"] == tie


def test_war_six_deck_edges(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--game", "war", "--decks", "6")
    edges = {key: Fraction(edge["house_edge"]) for key, edge in doc["house_edges"].items()}
    tie = Fraction(23, 311)
    assert percent(edges["casino_war_go_to_war"], 2) == "2.88"  # published
    assert edges["casino_war_surrender"] == tie / 2
    assert edges["tie_wager_10_to_1"] == (1 - tie) - 10 * tie
    # After a first-card tie 310 cards remain, 22 of the tied rank and 24 of each other.
    war_tie = Fraction(22 * 21 + 12 * 24 * 23, 310 * 309)
    assert edges["casino_war_go_to_war"] == -tie * ((1 + war_tie) / 2 - 2 * (1 - war_tie) / 2)


def test_war_tie_payout_and_tie_after_tie_bonus(capsys: pytest.CaptureFixture[str]) -> None:
    plain = run_json(capsys, "--game", "war", "--decks", "6")
    bonus = run_json(capsys, "--game", "war", "--decks", "6", "--tie-pays", "11", "--war-tie-bonus", "1")
    tie = Fraction(23, 311)
    assert Fraction(bonus["house_edges"]["tie_wager_11_to_1"]["house_edge"]) == 1 - 12 * tie
    war_tie = Fraction(22 * 21 + 12 * 24 * 23, 310 * 309)
    before = Fraction(plain["house_edges"]["casino_war_go_to_war"]["house_edge"])
    after = Fraction(bonus["house_edges"]["casino_war_go_to_war"]["house_edge"])
    assert before - after == tie * war_tie == Fraction(bonus["war_tie_bonus"]["edge_reduction"])
    assert plain["war_tie_bonus"]["edge_reduction"] == "0/1"


def test_removed_cards_change_the_odds(capsys: pytest.CaptureFixture[str]) -> None:
    full = run_json(capsys, "--decks", "8")
    fewer = run_json(capsys, "--decks", "8", "--remove", "9S,9H,8D,10C")
    assert fewer["cards"] == 412 and fewer["removed"] == ["9S", "9H", "8D", "TC"]
    assert fewer["total"] == 412 * 411 * 410 * 409 * 408 * 407
    # Fewer naturals-making cards: the Tie and Banker/Player balance move.
    assert fewer["outcomes"]["tie"]["probability"] != full["outcomes"]["tie"]["probability"]


def test_analyser_source_does_not_contain_the_published_figures() -> None:
    package = Path(__file__).resolve().parents[2] / "station" / "analysis"
    source = "".join(path.read_text() for path in package.glob("*.py")).replace("_", "").replace(",", "")
    for figure in (TOTAL_8, BANKER_8, PLAYER_8, TIE_8, *EDGES_8.values(), "31/415", "23/311", "2.88"):
        assert str(figure) not in source
