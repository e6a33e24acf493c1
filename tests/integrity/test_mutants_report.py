"""The integrity report in words (``station integrity report`` without ``--json``): what a
supervisor reads at a terminal. Mutation testing (tools/mutate.py, docs/testing.md) found no
test of it."""

from __future__ import annotations

from station.integrity.report import describe_shoe


def test_a_shoe_in_play_with_every_part_of_the_report() -> None:
    # 26 points of the edge curve: every second one is shown, the last, and where each wager was
    # best for the players (the Banker at 3-7).
    edges = [
        {
            "round_id": "" if i == 0 else f"3-{i}",
            "cards_left": 400 - 5 * i,
            "house_edge_percent": {
                "banker_commission": 0.5 if i == 7 else round(1.0 + i / 100, 4),
                "tie_8_to_1": round(14.0 - i / 10, 4),
            },
        }
        for i in range(26)
    ]
    shoe = {
        "shoe": 3,
        "set_colour": "red",
        "ended": False,
        "account": {"read": 120, "expected": 416, "left_unread": 296, "emptied": True, "beyond_decks": {"AS": 9}},
        "deck_checks": [
            {"set": "red", "passed": False, "detail": "short 7H"},
            {"set": "", "passed": True, "detail": "complete"},
        ],
        "first_cards": ["AS", "2S", "3S"],
        "order": {
            "suited_steps": 2,
            "rank_steps_up": 3,
            "rank_steps_down": 1,
            "suit_cycles": {"1": 4, "2": 5, "3": 2, "4": 6},
            "found": ["x found", "y found"],
        },
        "repeat": {"length": 9, "shoe": 2},
        "results": ["banker", "", "player", "banker", "tie"],
        "edges": edges,
        "tests": [
            {"test": "outcomes (shoe 3)", "statistic": 1.5, "p_value": 0.000123456, "note": "4 results, df 2"},
            {"test": "streaks (shoe 3)", "statistic": 0.0, "p_value": None, "note": "too few"},
        ],
        "alerts": [
            {
                "severity": "alarm",
                "ident": 4,
                "code": "shoe_repeated",
                "round_id": "3-2",
                "detail": "repeats",
                "acknowledged": {"who": "sam", "role": "supervisor", "note": "seen"},
            },
            {"severity": "alert", "ident": 5, "code": "tie", "round_id": "", "detail": "edge", "acknowledged": None},
            {
                "severity": "alert",
                "ident": 6,
                "code": "z",
                "round_id": "3-4",
                "detail": "q",
                "acknowledged": {"who": "", "role": "supervisor", "note": ""},
            },
        ],
    }

    assert describe_shoe(shoe).split("\n") == [
        "Shoe 3 (red set)  (in play)",
        "  cards        120 read of 416, 296 left unread, the shoe reported empty",
        "  beyond decks {'AS': 9}",
        "  deck check   red: FAILED: short 7H",
        "  deck check   set: passed: complete",
        "  first cards  AS 2S 3S",
        "  order        suited steps 2, rank steps up 3 down 1, suit cycles 1:4 2:5 3:2 4:6: x found; y found",
        "  repeat       9 cards as in shoe 2",
        "  results      4 rounds: banker 2, player 1, tie 1",
        "  edges (house edge %, after each round; - favours the players)",
        "    round    left     banker_commission            tie_8_to_1",
        "    start     400                1.0000               14.0000",
        "    3-2       390                1.0200               13.8000",
        "    3-4       380                1.0400               13.6000",
        "    3-6       370                1.0600               13.4000",
        "    3-7       365                0.5000               13.3000",
        "    3-8       360                1.0800               13.2000",
        "    3-10      350                1.1000               13.0000",
        "    3-12      340                1.1200               12.8000",
        "    3-14      330                1.1400               12.6000",
        "    3-16      320                1.1600               12.4000",
        "    3-18      310                1.1800               12.2000",
        "    3-20      300                1.2000               12.0000",
        "    3-22      290                1.2200               11.8000",
        "    3-24      280                1.2400               11.6000",
        "    3-25      275                1.2500               11.5000",
        "  test         outcomes (shoe 3): statistic 1.5, p = 0.0001235 (4 results, df 2)",
        "  test         streaks (shoe 3): statistic 0.0, not made (too few)",
        "  ALARM        #4 shoe_repeated (3-2): repeats; acknowledged by sam: seen",
        "  ALERT        #5 tie (-): edge; not acknowledged",
        "  ALERT        #6 z (3-4): q; acknowledged by supervisor",
    ]


def test_a_finished_shoe_with_nothing_to_show() -> None:
    plain = {
        "shoe": 1,
        "set_colour": "",
        "ended": True,
        "account": {"read": 416, "expected": 416, "left_unread": None, "emptied": False, "beyond_decks": {}},
        "deck_checks": [],
        "first_cards": [],
        "order": None,
        "repeat": None,
        "results": ["", ""],
        "edges": [],
        "tests": [],
        "alerts": [],
    }

    assert describe_shoe(plain) == "Shoe 1\n  cards        416 read of 416\n  first cards  "


def test_a_shoe_with_one_point_of_its_edge_curve() -> None:
    """The edges of its start only (the station stopped before the first round was settled)."""
    shoe = {
        "shoe": 2,
        "set_colour": "",
        "ended": False,
        "account": {"read": 4, "expected": 416, "left_unread": None, "emptied": False, "beyond_decks": {}},
        "deck_checks": [],
        "first_cards": ["AS", "2S", "3S", "4S"],
        "order": None,
        "repeat": None,
        "results": [],
        "edges": [{"round_id": "", "cards_left": 412, "house_edge_percent": {"player": 1.2351}}],
        "tests": [],
        "alerts": [],
    }
    words = describe_shoe(shoe)
    assert "edges (house edge %, after each round; - favours the players)" in words
    assert "player" in words and "1.2351" in words


def _curve(points: int) -> dict[str, object]:
    """A shoe whose house edge rises after each round: best for the players at its start."""
    edges = [{"round_id": "" if i == 0 else f"1-{i}", "cards_left": 400 - 5 * i,
              "house_edge_percent": {"player": round(1.0 + i / 100, 4)}} for i in range(points)]
    return {"shoe": 1, "set_colour": "", "ended": True,
            "account": {"read": 5 * points, "expected": 416, "left_unread": None, "emptied": False,
                        "beyond_decks": {}},
            "deck_checks": [], "first_cards": [], "order": None, "repeat": None, "results": [],
            "edges": edges, "tests": [], "alerts": []}


def _rounds_shown(words: str) -> list[str]:
    lines = words.split("\n")
    start = lines.index("    round    left                player") + 1
    return [line.split()[0] for line in lines[start:]]


def test_a_short_edge_curve_is_shown_whole_and_a_longer_one_by_every_second_point() -> None:
    """Up to 23 points every point; from 24 on, every (points // 12)th, and always the last."""
    assert _rounds_shown(describe_shoe(_curve(10))) == ["start", *(f"1-{i}" for i in range(1, 10))]
    assert _rounds_shown(describe_shoe(_curve(24))) == ["start", *(f"1-{i}" for i in range(2, 24, 2)), "1-23"]
