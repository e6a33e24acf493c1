"""Injected cases through the real station (``station demo``: the service, the simulated shoe and
shuffler on ptys, the simulated dealer), read back with ``station integrity report``.

Before this work none of them was caught: the short and over-full sets were dealt (the station
never asked for a count), a shoe in new-deck order or repeating the last one was dealt to the
end, the Tie's advantage and the unread card went unnoticed; only the card beyond the decks
stopped the round, with no alarm on record."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.cards import FULL_DECK, Card, Rank, Suit, parse_card
from station.games.baccarat.rules import Hand, next_hand

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]
BATCH = REPO / "config" / "examples" / "batch-shuffler.toml"


def demo(tmp: Path, cards: list[str], *args: str, config: Path | None = None) -> tuple[int, list[dict[str, Any]],
                                                                                         dict[str, Any]]:
    shoe = tmp / "shoe.txt"
    shoe.write_text(" ".join(cards))
    journal = tmp / "journal.sqlite3"
    command = [sys.executable, "-m", "station", "demo", "--fast", "--json", "--journal", str(journal),
               "--shoe-file", str(shoe), *args]
    if config is not None:
        command += ["-c", str(config)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=REPO)
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    report = subprocess.run([sys.executable, "-m", "station", "integrity", "report", "--journal", str(journal),
                             "--json"], capture_output=True, text=True, timeout=120, cwd=REPO, check=True)
    return run.returncode, lines, json.loads(report.stdout)


def alerts(report: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [a for shoe in report["shoes"] for a in shoe["alerts"]] + report["other_alerts"]
    return found


def shuffled(seed: int, decks: int = 8) -> list[Card]:
    cards = [c for _ in range(decks) for c in FULL_DECK]
    random.Random(seed).shuffle(cards)
    return cards


def with_cut(cards: list[Card]) -> list[str]:
    codes = [c.code for c in cards]
    codes.insert(len(codes) - 15, "CUT")
    return codes


def test_a_batch_set_one_card_short_is_never_dealt(tmp_path: Path) -> None:
    cards = shuffled(1)
    cards.remove(parse_card("7H"))
    code, lines, report = demo(tmp_path, [c.code for c in cards], config=BATCH)
    assert code == 1 and not [line for line in lines if line["type"] == "round"]
    [alarm] = alerts(report)
    assert alarm["code"] == "deck_check_failed" and "short 7H" in alarm["detail"] and "7: 31 of 32" in alarm["detail"]


def test_a_batch_set_with_a_foreign_card_is_never_dealt(tmp_path: Path) -> None:
    cards = [*shuffled(2), parse_card("AS")]
    code, lines, report = demo(tmp_path, [c.code for c in cards], config=BATCH)
    assert code == 1 and not [line for line in lines if line["type"] == "round"]
    assert "over AS" in alerts(report)[0]["detail"]


def test_a_card_duplicated_beyond_the_decks_stops_the_round_with_an_alarm(tmp_path: Path) -> None:
    cards = shuffled(3)
    kings = [c for c in cards if c == parse_card("KH")]
    rest = [c for c in cards if c != parse_card("KH")]
    for position in range(6, 6 + 3 * 9, 3):  # nine Kings of hearts early in the shoe: one too many
        rest.insert(position, kings[0])
    code, _lines, report = demo(tmp_path, with_cut(rest))
    assert code == 1
    codes = [a["code"] for a in alerts(report)]
    assert codes[0] == "card_beyond_decks" and alerts(report)[0]["detail"].startswith("KH read once more")


def new_deck_order() -> list[Card]:
    one = [Card(rank, suit) for suit in (Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS) for rank in Rank]
    return one * 8


def test_a_shoe_in_new_deck_order_is_stopped(tmp_path: Path) -> None:
    code, lines, report = demo(tmp_path, with_cut(new_deck_order()))
    assert code == 1
    [alarm] = [a for a in alerts(report) if a["severity"] == "alarm"]
    assert alarm["code"] == "shoe_unshuffled" and alarm["stop"]
    # Found once its first 16 cards were out (round 3: the exposed Ace, one burned, three rounds);
    # at full speed the dealer is a few rounds ahead when the table stops, never at the shoe's end.
    assert alarm["round_id"] == "1-3"
    assert len([line for line in lines if line["type"] == "round"]) < 60


def test_a_shoe_that_repeats_the_last_one_is_stopped(tmp_path: Path) -> None:
    code, lines, report = demo(tmp_path, with_cut(shuffled(4)), "--shoes", "2")
    assert code == 1
    assert [line["shoe"] for line in lines if line["type"] == "shoe_end"] == [1]
    [alarm] = [a for a in alerts(report) if a["severity"] == "alarm"]
    assert alarm["code"] == "shoe_repeated" and alarm["shoe"] == 2 and "repeats shoe 1" in alarm["detail"]


def test_a_stacked_end_of_shoe_that_favours_the_tie_is_an_advantage_alert(tmp_path: Path) -> None:
    cards = shuffled(5)
    zeros = [i for i, c in enumerate(cards) if c.rank.baccarat_value == 0][:70]
    tens = [cards[i] for i in zeros]
    others = [c for i, c in enumerate(cards) if i not in set(zeros)]
    code, lines, report = demo(tmp_path, with_cut(others + tens))
    assert code == 0, lines[-1:]
    tie = [a for a in alerts(report) if a["code"] == "advantage_situation" and a["data"]["wager"] == "tie_8_to_1"]
    assert tie and tie[0]["severity"] == "alert" and tie[0]["data"]["player_edge_percent"] > 1
    assert tie[0]["data"]["ranks"]  # the remaining composition is in the alert
    shoe = report["shoes"][0]
    assert min(p["house_edge_percent"]["tie_8_to_1"] for p in shoe["edges"]) < -1


def dealt_exactly(cards: list[Card], rng: random.Random) -> list[Card] | None:
    """Rearrange the last cards so that the last round takes the shoe's last card."""
    i = 1 + cards[0].rank.pip
    while len(cards) - i >= 14:
        player: list[Card] = []
        banker: list[Card] = []
        while (hand := next_hand(tuple(player), tuple(banker))) is not None:
            (player if hand is Hand.PLAYER else banker).append(cards[i])
            i += 1
    head, tail = cards[:i], cards[i:]
    for _ in range(20000):
        rng.shuffle(tail)
        j = 0
        while j < len(tail):
            player, banker = [], []
            while (hand := next_hand(tuple(player), tuple(banker))) is not None and j < len(tail):
                (player if hand is Hand.PLAYER else banker).append(tail[j])
                j += 1
            if next_hand(tuple(player), tuple(banker)) is not None:
                break
        else:
            return head + tail
    return None


def test_a_shoe_missing_one_card_is_reported_when_it_runs_out(tmp_path: Path) -> None:
    rng = random.Random(6)
    cards = shuffled(6)
    cards.remove(parse_card("7H"))
    exact = dealt_exactly(cards, rng)
    assert exact is not None
    code, lines, report = demo(tmp_path, [c.code for c in exact])  # no cut card: dealt to the last card
    assert code == 0, lines[-1:]
    [alert] = [a for a in alerts(report) if a["code"] == "cards_unaccounted"]
    assert "1 card(s)" in alert["detail"] and alert["data"]["missing"] == ["7H"]
    assert report["shoes"][0]["account"]["emptied"]


def test_properly_shuffled_shoes_raise_no_alarm(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite3"
    run = subprocess.run([sys.executable, "-m", "station", "demo", "--fast", "--json", "--shoes", "3", "--seed",
                          "11", "--journal", str(journal), "-c", str(BATCH)], capture_output=True, text=True,
                         timeout=240, cwd=REPO)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(subprocess.run([sys.executable, "-m", "station", "integrity", "report", "--journal",
                                        str(journal), "--json"], capture_output=True, text=True, timeout=120,
                                       cwd=REPO, check=True).stdout)
    assert len(report["shoes"]) == 3 and all(s["order"] is not None for s in report["shoes"])
    assert not [a for a in alerts(report) if a["severity"] == "alarm"]
