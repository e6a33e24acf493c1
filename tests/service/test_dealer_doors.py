"""The dealers' configuration is judged like every other key (a wrong one names the key and the
file), and the doors' own rules: the button box's sign-in, the dealer command's checks, the
journaled refusals folded to one a second (docs/dealers.md). No process is started: the doors
are fed events and a clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.config.errors import ConfigError
from station.config.file import DEFAULT_CONFIG
from station.events import Actor, ButtonPressed, DealerSignedIn, Event, SignInRefused
from station.service.config import load_config
from station.service.dealer_doors import (
    ENTRY_TIMEOUT_S,
    REFUSAL_INTERVAL_S,
    ButtonBoxSignIn,
    RefusalRecorder,
    dealer_problem,
)

BOX = "buttonbox"
NUMBERS = {"deal": 1, "confirm": 2, "cancel": 3, "call": 4}


def problems(tmp_path: Path, change: str, add: str = "") -> list[tuple[str, str]]:
    path = tmp_path / "station.toml"
    old, _, new = change.partition("=>")
    path.write_text((DEFAULT_CONFIG.read_text().replace(old, new) if change else DEFAULT_CONFIG.read_text()) + add)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value)
    return info.value.problems


def test_a_wrong_burn_option_names_its_key_and_the_file(tmp_path: Path) -> None:
    found = problems(tmp_path, 'burn_on_dealer_change = false=>burn_on_dealer_change = "yes"')
    assert [key for key, _ in found] == ["table.burn_on_dealer_change"]


def test_dealer_ids_and_the_sign_in_button_are_judged(tmp_path: Path) -> None:
    ids = ('name = "dana"\nrole = "dealer"\n=>name = "dana"\nrole = "dealer"\ndealer_id = "12"\n')
    ben = '\n[[control.users]]\nname = "ben"\nrole = "technician"\ntoken_sha256 = "' + "1" * 64 + '"\n'
    said = [message for key, message in problems(tmp_path, ids, add=ben + 'dealer_id = "124"\n')
            if key == "control.users[2].dealer_id"]
    assert len(said) == 2 and "technician" in said[0] and "begin another's" in said[1]
    found = dict(problems(tmp_path, ids.replace('dealer_id = "12"', 'dealer_id = "19"')))
    assert "buttons 1 to 4" in found["control.users[0].dealer_id"]
    found = dict(problems(tmp_path, ids.replace('dealer_id = "12"', 'dealer_id = "1"')))
    assert "control.users[0].dealer_id" in found  # 2 to 8 numbers
    found = dict(problems(tmp_path, "bets = { banker = 2000, player = 1000 }\n=>bets = { banker = 2000, player = "
                                    "1000 }\nsign_in_button = \"call\"\n"))
    assert found == {"dealer.sign_in_button": "no [devices.buttonbox] is configured to sign in on"}
    box = '[devices.pedals]\nurl = "sim:"\n=>[devices.pedals]\nurl = "sim:"\n\n[devices.buttonbox]\nurl = "sim:"\n'
    path = tmp_path / "box.toml"
    bets = "bets = { banker = 2000, player = 1000 }\n"
    old, _, new = box.partition("=>")
    path.write_text(DEFAULT_CONFIG.read_text().replace(old, new).replace(
        bets, bets + 'sign_in_button = "hold"\n'))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert [key for key, _ in info.value.problems] == ["dealer.sign_in_button"]
    assert "deal, confirm, cancel, call" in info.value.problems[0][1]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def a_box(clock: Clock) -> tuple[ButtonBoxSignIn, list[Event]]:
    posted: list[Event] = []
    ids = {"12": Actor("dealer", "dana"), "34": Actor("dealer", "ben")}
    refusals = RefusalRecorder(posted.append, clock)
    return ButtonBoxSignIn(posted.append, button="call", numbers=NUMBERS, dealer_ids=ids, refusals=refusals,
                           clock=clock), posted


def test_the_box_signs_in_by_id_and_its_presses_never_reach_the_table() -> None:
    clock = Clock()
    box, posted = a_box(clock)
    deal = ButtonPressed(BOX, "deal")
    box(deal)  # a press like any other
    box(ButtonPressed("pedals", "call", long_press=True))  # another device's long press is the table's
    box(ButtonPressed(BOX, "call", long_press=True))
    box(ButtonPressed(BOX, "deal"))
    box(ButtonPressed(BOX, "confirm"))
    assert posted == [deal, ButtonPressed("pedals", "call", long_press=True),
                      DealerSignedIn("dana", Actor("dealer", "dana"), BOX)]
    posted.clear()
    box(ButtonPressed(BOX, "call", long_press=True))
    box(ButtonPressed(BOX, "call"))  # no id begins with 4
    assert posted == [SignInRefused(BOX, "no dealer has the id entered on the button box", "", 1)]


def test_an_entry_left_or_dropped_gives_the_presses_back_to_the_table() -> None:
    clock = Clock()
    box, posted = a_box(clock)
    box(ButtonPressed(BOX, "call", long_press=True))
    box(ButtonPressed(BOX, "cancel"))
    box(ButtonPressed(BOX, "deal", long_press=True))  # leaves the entry
    box(ButtonPressed(BOX, "confirm"))
    assert posted == [ButtonPressed(BOX, "confirm")]
    posted.clear()
    box(ButtonPressed(BOX, "call", long_press=True))
    box(ButtonPressed(BOX, "cancel"))
    clock.now += ENTRY_TIMEOUT_S + 1
    box(ButtonPressed(BOX, "call"))  # too late for the entry: a press again
    assert posted == [ButtonPressed(BOX, "call")]


def test_refusals_are_journaled_at_most_once_a_second_per_door_with_their_count() -> None:
    clock = Clock()
    posted: list[Event] = []
    recorder = RefusalRecorder(posted.append, clock)
    for _ in range(5):
        recorder.refused("control", "unknown token")
    recorder.refused("console", "wrong name or PIN", "dana")
    clock.now += REFUSAL_INTERVAL_S
    recorder.refused("control", "unknown token")
    assert posted == [SignInRefused("control", "unknown token", "", 1),
                      SignInRefused("console", "wrong name or PIN", "dana", 1),
                      SignInRefused("control", "unknown token", "", 5)]


def test_who_may_sign_in_whom() -> None:
    dealers = {"dana": "dealer", "ben": "dealer", "sue": "supervisor"}
    assert dealer_problem(Actor("dealer", "dana"), "dana", dealers) is None
    assert dealer_problem(Actor("supervisor", "sue"), "ben", dealers) is None
    assert "only themselves" in str(dealer_problem(Actor("dealer", "dana"), "ben", dealers))
    assert "not a dealer of this station" in str(dealer_problem(Actor("supervisor", "sue"), "zed", dealers))
