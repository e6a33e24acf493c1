"""Bad ``station analyze`` input: a clear one-line error and exit status 2, nothing printed."""

from __future__ import annotations

import pytest

from station.cards import FULL_DECK
from station.cli.main import main


def run_failing(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["analyze", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def test_unparseable_card_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    err = run_failing(capsys, "--remove", "AS,ZZ,9C")
    assert "'ZZ'" in err and err.startswith("station analyze: --remove:")


def test_card_removed_more_often_than_the_shoe_holds(capsys: pytest.CaptureFixture[str]) -> None:
    err = run_failing(capsys, "--decks", "4", "--remove", ",".join(["KH"] * 5))
    assert "KH cannot come out of this shoe" in err and "4" in err


def test_deck_count_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert "4 to 8 decks" in run_failing(capsys, "--decks", "3")


def test_shoe_too_small_for_a_round(capsys: pytest.CaptureFixture[str]) -> None:
    seen = [card.code for card in FULL_DECK for _ in range(4)][:-5]
    assert "5 cards left" in run_failing(capsys, "--decks", "4", "--remove", ",".join(seen))
    assert "a round with a war needs 7" in run_failing(
        capsys, "--game", "war", "--decks", "4", "--remove", ",".join(seen)
    )


def test_negative_payout(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--tie-pays cannot be negative" in run_failing(capsys, "--game", "war", "--tie-pays", "-1")
