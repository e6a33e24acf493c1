"""Side bets through the real station (RULES "Baccarat side bets", docs/side-bets.md):
``station run`` in a subprocess against simulators over ptys (tests/service/conftest.py), the
bets placed through the control socket as a dealer's terminal sends them, the cards slid out
of a stacked shoe one by one; then what the journal holds, read back by ``station recall``,
checked to the minor unit, and the journal verified by a deep replay.

One shoe deals a Dragon 7 (with a Banker pair), a Panda 8, a Dragon Bonus won by 9 points
without a natural (30:1) and a tie of two suited pairs (Perfect Pair 200:1, a Dragon 7 lost);
an EZ Baccarat table pushes the Banker on a three-card 7 while its Dragon 7 pays 40:1.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from typing import Any

import pytest

from station.service.control import ControlError

from ..waiting import wait_until
from .test_rule_corners_e2e import action, bet, draw, open_stacked_shoe, recalled

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)

SIDE_BETS = """
[table.side_bets.dragon_7]
min = 500
max = 10000
[table.side_bets.panda_8]
min = 500
max = 10000
[table.side_bets.player_pair]
min = 500
max = 10000
[table.side_bets.banker_pair]
min = 500
max = 10000
[table.side_bets.perfect_pair]
min = 500
max = 5000
[table.side_bets.dragon_bonus_player]
pays = "dragon_bonus_player_a"
min = 500
max = 10000
[table.side_bets.dragon_bonus_banker]
pays = "dragon_bonus_banker_b"
min = 500
max = 10000
"""

#: The rounds of the stacked shoe (dealt Player, Banker, Player, Banker, then the third cards).
ROUNDS = (
    # Player K 6 stands on 6; Banker 2 2 draws a 3: a three-card 7, and the Banker's pair.
    "KH 2D 6S 2C 3H",
    # Player 3 2 draws a 3: a three-card 8; Banker 4 3 stands on 7 after a Player's 3.
    "3H 4D 2S 3C 3S",
    # Player K 4 draws a 5: 9; Banker K Q draws a J: 0. A win by 9 without a natural.
    "KH KD 4S QC 5H JD",
    # Suited pairs in both hands: Player 7S 7S draws a 2, Banker 7H 7H draws a 2: a tie at 6.
    "7S 7H 7S 7H 2C 2D",
)
#: Each round's side bets (box, player, region, amount) and what each settles to (outcome, net).
EXPECTED: tuple[tuple[tuple[str, str, str, int, str, int], ...], ...] = (
    (("1", "ann", "dragon_7", 1000, "win", 40_000), ("1", "ann", "banker_pair", 500, "win", 5500),
     ("2", "bob", "panda_8", 500, "lose", -500), ("2", "bob", "dragon_bonus_banker", 1000, "lose", -1000),
     ("1", "ann", "player", 1000, "lose", -1000)),
    (("2", "bob", "panda_8", 1000, "win", 25_000), ("1", "ann", "dragon_7", 500, "lose", -500),
     ("2", "bob", "dragon_bonus_player", 1000, "lose", -1000), ("1", "ann", "player", 1000, "win", 1000)),
    (("2", "bob", "dragon_bonus_player", 1000, "win", 30_000), ("1", "ann", "dragon_bonus_banker", 500, "lose", -500),
     ("3", "cat", "player_pair", 500, "lose", -500)),
    (("1", "ann", "perfect_pair", 500, "win", 100_000), ("3", "cat", "player_pair", 500, "win", 5500),
     ("2", "bob", "banker_pair", 1000, "win", 11_000), ("1", "ann", "dragon_7", 1000, "lose", -1000),
     ("2", "bob", "dragon_bonus_player", 500, "lose", -500), ("1", "ann", "player", 1000, "push", 0)),
)


def verified_deep(journal: Any) -> str:
    done = subprocess.run([sys.executable, "-m", "station", "journal", "verify", "--deep", "--journal", str(journal)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "intact" in done.stdout and "match" in done.stdout, done.stdout + done.stderr
    return done.stdout


def play_round(table: Any, cards: str, bets: tuple[tuple[str, str, str, int, str, int], ...]) -> None:
    for box, player, region, amount, _, _ in bets:
        bet(table, region, amount, box=box, player=player)
    action(table, "no_more_bets")
    draw(table, len(cards.split()))
    table.wait_for(lambda s: s["state"] == "paying")
    action(table, "next_round")
    table.wait_for(lambda s: s["state"] == "betting")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _snapshot(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/snapshot", timeout=10) as response:
        data: dict[str, Any] = json.loads(response.read())
    return data


def test_each_winning_hand_of_the_side_bets_is_settled_to_the_minor_unit(external_table: Any) -> None:
    port = _free_port()
    table = external_table(table_extra=SIDE_BETS, web_port=port)
    table.start_station()
    open_stacked_shoe(table, "  ".join(ROUNDS))
    # Refused at the table, in words naming the side bet and its own limits.
    with pytest.raises(ControlError, match=r"^refused: Dragon 7 bet of 2.00 on box 1 is below the Dragon 7 "
                                           r"minimum of 5.00$"):
        bet(table, "dragon_7", 200, box="1", player="ann")
    with pytest.raises(ControlError, match=r"^refused: Perfect Pair bet of 60.00 takes player ann's Perfect Pair on "
                                           r"box 1 to 60.00, over the Perfect Pair maximum of 50.00"):
        bet(table, "perfect_pair", 6000, box="1", player="ann")
    with pytest.raises(ControlError, match=r"^refused: this table offers no Either Pair bet$"):
        bet(table, "either_pair", 500, box="1", player="ann")
    for cards, bets in zip(ROUNDS, EXPECTED, strict=True):
        play_round(table, cards, bets)
    # The web scoreboard marks the Dragon 7 round and the Panda 8 round on the bead plate.
    shown = wait_until(lambda: (s := _snapshot(port))["roads"] and len(s["roads"]["bead_plate"]) == 4 and s, 30,
                       "the four rounds on the scoreboard", ignoring=(OSError,))
    beads = shown["roads"]["bead_plate"]
    assert [(b["result"], b["dragon_7"], b["panda_8"]) for b in beads] == [
        ("B", True, False), ("P", False, True), ("P", False, False), ("T", False, False)]
    assert (shown["roads"]["stats"]["dragon_7s"], shown["roads"]["stats"]["panda_8s"]) == (1, 1)
    assert shown["last_result"]["dragon_7"] is False and shown["last_result"]["outcome"] == "T"
    assert table.stop_station() == 0
    rounds = recalled(table)
    assert len(rounds) == len(ROUNDS) + 1  # and the fifth, open for bets
    for number, (recall, bets) in enumerate(zip(rounds, EXPECTED, strict=False), start=1):
        assert recall["round_id"] == f"1-{number}"
        settled = [(b["box"], b["player"], b["region"], b["stake"], b["valid"], b["void"], b["outcome"], b["net"],
                    b["commission"]) for b in recall["settlement"]]
        assert settled == [(box, player, region, amount, amount, 0, outcome, net, 0)
                           for box, player, region, amount, outcome, net in bets], number
    assert rounds[3]["result"]["outcome"] == "tie"
    verified_deep(table.journal)
    # The meters count each side bet in its own region.
    done = subprocess.run([sys.executable, "-m", "station", "meters", "--day", "all", "--json", "--config",
                           str(table.config)], capture_output=True, text=True, timeout=120, check=True)
    regions = json.loads(done.stdout)["days"][0]["totals"]["regions"]
    assert regions["dragon_7"] == {"bets": 3, "stakes": 2500, "house": -40_000 + 1500}
    assert regions["perfect_pair"] == {"bets": 1, "stakes": 500, "house": -100_000}
    # On paper, each region in its words.
    words = subprocess.run([sys.executable, "-m", "station", "meters", "--day", "all", "--config", str(table.config)],
                           capture_output=True, text=True, timeout=120, check=True).stdout
    assert "  Dragon 7: 3 bets, stakes 25.00, house -385.00" in words, words
    assert "  Perfect Pair: 1 bets, stakes 5.00, house -1,000.00" in words, words
    assert "  Dragon Bonus Player: " in words and "dragon_" not in words, words
    told = subprocess.run([sys.executable, "-m", "station", "recall", "--round", "1-1", "--config", str(table.config)],
                          capture_output=True, text=True, timeout=120, check=True).stdout
    assert "bet          box 1 ann Dragon 7 10.00 -> win +400.00" in told, told
    assert "bet          box 2 bob Dragon Bonus Banker 10.00 -> lose -10.00" in told, told


def test_ez_baccarat_pushes_the_banker_on_a_three_card_7_while_the_dragon_7_pays(external_table: Any) -> None:
    table = external_table(table_extra='banker_payout = "ez"\n' + SIDE_BETS)
    table.start_station()
    open_stacked_shoe(table, ROUNDS[0])
    # No commission: a Banker bet need not be a multiple of 20.00 (5.12 does not apply).
    bets = (("1", "ann", "banker", 1700, "push", 0), ("1", "ann", "dragon_7", 500, "win", 20_000),
            ("2", "bob", "player", 1000, "lose", -1000))
    play_round(table, ROUNDS[0], bets)
    assert table.stop_station() == 0
    first = recalled(table)[0]
    assert first["payout_option"] == "ez"
    assert [(b["region"], b["stake"], b["valid"], b["outcome"], b["net"], b["commission"])
            for b in first["settlement"]] == [(region, amount, amount, outcome, net, 0)
                                              for _, _, region, amount, outcome, net in bets]
    verified_deep(table.journal)
