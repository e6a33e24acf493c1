"""``station diag deck-check`` and ``display-test`` through the real CLI, against simulators on
real ptys; the simulators record what they were asked, so the tests check the wire too."""

from __future__ import annotations

import json
from pathlib import Path

from drivers.codec import display as wire
from station.cards import parse_cards
from station.cli.main import main

from .helpers import write_config


def test_complete_deck_exits_zero_with_a_full_grid(sim, capsys) -> None:
    shuffler = sim("shuffler", decks=6)
    assert main(["diag", "deck-check", "--url", shuffler.url, "--kind", "shuffler"]) == 0
    out = capsys.readouterr().out
    assert "6 deck(s), 312 cards expected, 312 counted" in out
    rows = [line for line in out.splitlines() if line.startswith("  ") and line.strip()[:1] in "A23456789TJQK"]
    assert len(rows) == 13
    assert all(line.split()[1:] == ["6", "6", "6", "6"] for line in rows)
    assert "missing (0): none" in out and "extra (0): none" in out and "deck complete" in out


def test_short_and_over_deck_is_shown_per_cell_and_exits_one(sim, tmp_path: Path, capsys) -> None:
    shuffler = sim("shuffler", decks=8)
    shuffler.simulator.remove_cards(parse_cards("2H 2H KC"))
    shuffler.simulator.add_cards(parse_cards("AS"))
    config = write_config(tmp_path / "station.toml", {"shuffler": shuffler.url})
    assert main(["diag", "-c", str(config), "deck-check"]) == 1
    out = capsys.readouterr().out
    grid = {
        line.split()[0]: line.split()[1:]
        for line in out.splitlines()
        if line.startswith("  ") and len(line.split()) == 5
    }
    assert grid["2"] == ["8", "6-", "8", "8"]  # columns S H D C
    assert grid["K"] == ["8", "8", "8", "7-"]
    assert grid["A"] == ["9+", "8", "8", "8"]
    assert "missing (3): 2H 2H KC" in out
    assert "extra (1): AS" in out
    assert "DECK NOT COMPLETE" in out
    assert "414 counted" in out


def test_deck_check_json(sim, capsys) -> None:
    shuffler = sim("shuffler", decks=8)
    shuffler.simulator.remove_cards(parse_cards("QD"))
    assert main(["diag", "deck-check", "--url", shuffler.url, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["complete"] is False and report["missing"] == ["QD"] and report["extra"] == []
    assert report["grid"]["Q"]["D"] == 7 and report["grid"]["Q"]["S"] == 8
    assert report["counted"] == 415 and report["expected"] == 416


def test_a_silent_shuffler_is_reported_unreachable(sim, capsys) -> None:
    shuffler = sim("shuffler")
    shuffler.simulator.mute()
    assert main(["diag", "deck-check", "--url", shuffler.url, "--wait", "0.5"]) == 1
    assert "not reachable" in capsys.readouterr().err


def test_deck_check_needs_a_shuffler(sim, capsys) -> None:
    shoe = sim("shoe")
    assert main(["diag", "deck-check", "--url", shoe.url, "--kind", "shoe"]) == 2
    assert "needs a shuffler" in capsys.readouterr().err


def test_display_test_sends_the_whole_sequence_each_acked(sim, tmp_path: Path, capsys) -> None:
    display = sim("display")
    config = write_config(tmp_path / "station.toml", {"display": display.url})
    assert main(["diag", "-c", str(config), "display-test", "--pause", "0"]) == 0
    out = capsys.readouterr().out
    assert "display test passed" in out and "FAILED" not in out
    names = [type(c).__name__ for c in display.simulator.commands()]
    assert names == [
        "ShowLimits", "ShowResult", "ShowRoads", "ShowWarResult", "ShowExpected", "ShowMessage",
        "SetBrightness", "SetBrightness", "SetBrightness", "SetBrightness", "SetBrightness", "Clear",
    ]
    limits = display.simulator.commands(wire.ShowLimits)[0]
    assert (limits.table_min, limits.table_max) == (1000, 200000)  # from the configuration
    assert limits.minor_digits == 2  # minor units, with the currency's digits
    levels = [c.level for c in display.simulator.commands(wire.SetBrightness)]
    assert levels == [25, 50, 75, 100, 80]  # steps, then back to what the board had
    result = display.simulator.commands(wire.ShowResult)[0]
    assert (result.player_total, result.banker_total) == (9, 7)
    roads = display.simulator.commands(wire.ShowRoads)[0]
    assert len(roads.bead_plate) == 16
    assert display.simulator.screen.result is None  # cleared at the end


def test_display_test_fails_when_the_panel_is_broken(sim, capsys) -> None:
    display = sim("display")
    display.simulator.panel_fault()
    assert main(["diag", "display-test", "--url", display.url, "--pause", "0", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    steps = {s["name"]: s for s in report["steps"]}
    assert report["passed"] is False
    assert steps["self-test pattern"]["passed"] is False
    assert "panel 2 test pattern not confirmed" in steps["self-test pattern"]["detail"]
    assert steps["status"]["passed"] is False and "error code" in steps["status"]["detail"]
    assert steps["clear"]["passed"] is True  # the other steps still ran


def test_display_test_skips_the_rest_when_the_board_stops_answering(sim, capsys) -> None:
    display = sim("display")
    # The board answers until the status request, then hangs (still plugged in): that step
    # times out after its retransmissions, and the rest are skipped rather than each timed out
    # in turn. The simulator hangs at that request itself, whatever the machine's load.
    display.simulator.hang_at(wire.DisplayGetStatus)
    code = main(["diag", "display-test", "--url", display.url, "--pause", "0"])
    out = capsys.readouterr().out
    assert code == 1
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    verdicts = [line.split()[0] for line in lines]
    assert len(lines) == 14
    failed = verdicts.index("FAILED")
    assert failed >= 1  # the self-test pattern was shown before the board hung
    assert "no answer" in lines[failed]
    assert verdicts[:failed] == ["ok"] * failed
    assert verdicts[failed + 1:] == ["SKIP"] * (13 - failed)
