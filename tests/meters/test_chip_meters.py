"""The meters of a table that knows its chips (docs/meters.md, docs/chips.md): chips past-posted
and pinched after no more bets, losing chips left on a spot, wrong payments (how many, what was
paid over and under) and those a supervisor accepted, counted per gaming day, dealer session
and shoe from a real journal of the shipped chip table (tests/meters/chip_play.py), the same
from the meters' checkpoints as from every record; a checkpoint written before the meters
counted chips (layout 1) is passed over; and a journal of ``station demo`` of the shipped chip
table, played on with mistakes, is counted as the play says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from station.cli.main import main
from station.config.options import journal_options
from station.core import outputs as out
from station.core.history import History
from station.core.loop import CoreLoop
from station.journal import Journal, JournalReader
from station.meters.checkpoint import METERS_CHECKPOINT, METERS_FORMAT, checkpoint_payload
from station.meters.chips import CHIP_FIGURES, count_chips
from station.meters.figures import Figures
from station.meters.fold import MetersFold
from station.meters.service import MetersService

from .chip_play import EXAMPLE, ChipPlayer, Expected, play_chip_journal, play_mistakes
from .conftest import WithMeters
from .test_meters_week import SCHEMA

Played = tuple[Path, Expected, MetersService]


@pytest.fixture(scope="module")
def chip_journal(tmp_path_factory: pytest.TempPathFactory) -> Played:
    meters = WithMeters()
    path, expected = play_chip_journal(tmp_path_factory.mktemp("chips"), prepare=meters)
    assert meters.service is not None
    return path, expected, meters.service


def report(capsys: pytest.CaptureFixture[str], journal: Path, *extra: str) -> dict[str, Any]:
    assert main(["meters", "--journal", str(journal), "--day", "all", "--json", *extra]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def text(capsys: pytest.CaptureFixture[str], journal: Path) -> list[str]:
    assert main(["meters", "--journal", str(journal), "--day", "all"]) == 0
    return capsys.readouterr().out.splitlines()


def added(*counts: dict[str, int]) -> dict[str, int]:
    whole: dict[str, int] = {}
    for figures in counts:
        for key, value in figures.items():
            whole[key] = whole.get(key, 0) + value
    return dict(sorted(whole.items()))


def test_each_dealer_s_session_counts_the_chips_moved_and_the_wrong_payments_of_its_rounds(
        chip_journal: Played, capsys: pytest.CaptureFixture[str]) -> None:
    path, expected, service = chip_journal
    assert service.checkpoints > 0
    quick = report(capsys, path)
    assert quick["read"]["checkpoint"] is not None  # read from the meters' checkpoints
    jsonschema.validate(quick, json.loads(SCHEMA.read_text()))
    [day] = quick["days"]
    sessions = {s["dealer"]: s["figures"]["chips"] for s in day["sessions"] if s["dealer"]}
    assert sessions == {dealer: dict(sorted(c.items())) for dealer, c in expected.by_dealer.items()}
    whole = added(*expected.by_dealer.values())
    assert whole == {"past_posting": 1, "past_posting_amount": 500, "pinching": 1, "pinching_amount": 1000,
                     "left_on_losing_spot": 1, "left_on_losing_spot_amount": 1000, "wrong_payments": 3,
                     "paid_over": 1000, "paid_under": 1800, "payments_accepted": 2}
    assert set(whole) == set(CHIP_FIGURES)  # the play has every figure
    assert day["totals"]["chips"] == whole
    assert [s["figures"]["chips"] for s in day["shoes"]] == [whole]
    assert {d["dealer"]: d["figures"]["chips"] for d in day["dealers"] if d["dealer"]} == sessions
    assert all(isinstance(v, int) for v in whole.values())
    # chips past-posted and pinched stop the round: irregularities, as before
    assert day["totals"]["irregularities"] == {"chips_moved": 2}
    slow = report(capsys, path, "--from-start")
    assert slow["read"]["checkpoint"] is None
    assert {**quick, "read": None} == {**slow, "read": None}


def test_the_text_says_the_chips_in_words_for_the_day_and_each_session_and_shoe(
        chip_journal: Played, capsys: pytest.CaptureFixture[str]) -> None:
    path, _, _ = chip_journal
    lines = text(capsys, path)
    start = lines.index("chips moved and payments checked:")
    block = lines[start:lines.index("irregularities: chips_moved 2")]
    assert block[1:3] == [
        "  day: past-posting 1 (5.00), pinching 1 (10.00), left on a losing spot 1 (10.00),",
        "    wrong payments 3 (paid over 10.00, under 18.00), accepted by a supervisor 2",
    ]
    ann = next(i for i, line in enumerate(block) if line.startswith("  session 1 ann "))
    assert block[ann].endswith(": past-posting 1 (5.00),")
    assert block[ann + 1] == "    wrong payments 1 (paid over 0.00, under 9.00), accepted by a supervisor 1"
    bob = next(i for i, line in enumerate(block) if line.startswith("  session 2 bob "))
    assert block[bob].endswith(": pinching 1 (10.00), left on a losing spot 1 (10.00),")
    assert block[bob + 1] == "    wrong payments 2 (paid over 10.00, under 9.00), accepted by a supervisor 1"
    assert block[-2:] == [
        "  shoe 1: past-posting 1 (5.00), pinching 1 (10.00), left on a losing spot 1 (10.00),",
        "    wrong payments 3 (paid over 10.00, under 18.00), accepted by a supervisor 2",
    ]
    assert max(len(line) for line in block) <= 100


def _without_chips(payload: dict[str, Any]) -> dict[str, Any]:
    """A meters checkpoint as a station that did not count chips wrote it: layout 1, no
    ``chips`` in any part's figures."""
    def part(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "figures": {k: v for k, v in data["figures"].items() if k != "chips"}}

    return {**payload, "format": 1, "sealed": [part(p) for p in payload["sealed"]],
            "fold": {**payload["fold"], "parts": [part(p) for p in payload["fold"]["parts"]]}}


def _copy(journal: Path, folder: Path) -> Path:
    folder.mkdir()
    target = folder / journal.name
    target.write_bytes(journal.read_bytes())
    return target


def test_a_checkpoint_of_the_layout_before_chips_were_counted_is_passed_over(
        chip_journal: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A station that did not count chips wrote meters checkpoints of layout 1: their figures
    lack what the chips showed before them. A reader passes them over for the newest of this
    layout or, with none, reads from the first record: the chips are counted either way."""
    assert METERS_FORMAT == 2
    path, _, _ = chip_journal
    expected = report(capsys, path)
    with JournalReader(path) as reader:
        newest = next(iter(reader.of_kind(METERS_CHECKPOINT)))
    beside = _copy(path, tmp_path / "beside")
    with Journal(beside) as writer:
        writer.append(METERS_CHECKPOINT, _without_chips(newest.payload))
    got = report(capsys, beside)
    assert got["read"]["checkpoint"] == newest.seq
    assert got["days"] == expected["days"]

    # A journal whose only meters checkpoint is of layout 1, standing after its last round.
    alone = tmp_path / "alone"
    alone.mkdir()
    journal, _ = play_chip_journal(alone)  # no meters service: no meters checkpoint
    capsys.readouterr()  # what the core loop logged
    options = journal_options(journal, journal)
    fold, checkpoint = MetersFold("UTC", "06:00"), 0
    for step in History(journal, options).steps():
        fold.take(step.record, step.event, step.outputs)
        checkpoint = step.record.seq if step.record.kind == "Checkpoint" else checkpoint
    assert checkpoint and any(part.figures.chips for part in fold.every_part())
    with Journal(journal) as writer:
        writer.append(METERS_CHECKPOINT, _without_chips(checkpoint_payload(fold, checkpoint, 0)))
    got = report(capsys, journal)
    assert got["read"]["checkpoint"] is None
    assert got["days"][0]["totals"]["chips"] == expected["days"][0]["totals"]["chips"]


@pytest.mark.e2e  # starts processes (tests/conftest.py)
def test_a_demo_of_the_shipped_chip_table_played_on_with_mistakes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``station demo`` of the shipped chip table writes three rounds, its simulated dealer
    betting, paying and clearing with chips on the simulated layout: it pays every box right
    and clears every spot, so its rounds count no chip figure. Played on by the station's core
    loop, with the meters following as ``station run`` has them (catching up from the journal's
    first record), the mistakes are counted in the sessions of the dealers who made them."""
    journal = tmp_path / "demo.sqlite3"
    ran = subprocess.run([sys.executable, "-m", "station", "demo", "-c", str(EXAMPLE), "--rounds", "3", "--fast",
                          "--journal", str(journal)], capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    options = journal_options(journal, journal)
    demo = [o for step in History(journal, options).steps() for o in step.outputs]
    checked = [o for o in demo if isinstance(o, out.ChipPaymentChecked)]
    assert checked and {o.verdict for o in checked} == {"right"}
    assert not [o for o in demo if isinstance(o, (out.ChipsMoved, out.ChipPaymentHeld))]
    before = report(capsys, journal)
    assert all(not day["totals"]["chips"] for day in before["days"])
    assert sum(day["totals"]["rounds"] for day in before["days"]) == 3

    loop = CoreLoop(journal, options, checkpoint_every=10)
    assert options is not None
    meters = MetersService(options, "UTC", "06:00", journal, loop.journal.head()[0], note=loop.note)
    loop.hear_records(meters.put)
    meters.start()
    try:
        player = ChipPlayer(loop)
        if player.state == "paying":  # the demo ended with its last round on the layout, maybe unpaid
            player.pay_what_is_owed()
            player.clear()
            player.act("next_round")
        player.clear()
        assert player.state == "betting", player.state
        expected = play_mistakes(player)
        assert meters.wait_idle(30)
        loop.run_pending()  # the meters' last checkpoint journaled
    finally:
        meters.stop()
        loop.close()
    assert meters.checkpoints > 0
    capsys.readouterr()  # what the core loop and the meters logged
    quick = report(capsys, journal)
    assert quick["read"]["checkpoint"] is not None
    slow = report(capsys, journal, "--from-start")
    assert {**quick, "read": None} == {**slow, "read": None}
    dealers: dict[str, dict[str, int]] = {}
    for day in quick["days"]:  # (the play may run across the start of a gaming day)
        for d in day["dealers"]:
            dealers[d["dealer"]] = added(dealers.get(d["dealer"], {}), d["figures"]["chips"])
    assert dealers.pop("") == {}  # the demo's rounds: nobody signed in, nothing wrong
    assert dealers == {dealer: dict(sorted(c.items())) for dealer, c in expected.by_dealer.items()}
    assert added(*(day["totals"]["chips"] for day in quick["days"])) == added(*expected.by_dealer.values())
    jsonschema.validate(quick, json.loads(SCHEMA.read_text()))


def test_a_wrong_payment_s_over_and_under_are_counted_apart() -> None:
    figures = Figures()
    count_chips(figures, out.ChipPaymentHeld("1-1", ("Box 1 paid 10.00, owed 19.00: under by 9.00",
                                                      "Box 2 paid 5.00, owed 0.00: over by 5.00"), -400, 500, 900))
    count_chips(figures, out.ChipPaymentHeld("1-2", ("Box 3 paid 1.00, owed 0.00: over by 1.00",), 100, 100, 0,
                                             held=False))
    assert figures.chips == {"wrong_payments": 2, "paid_over": 600, "paid_under": 900}
