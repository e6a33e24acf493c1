"""The one reader of a table's history (station/core/history.py), on real journals written by
the real core loop, archived by the real archive: every record once and in order from the first
record, across the archive; from a checkpoint, the same table; an archive that is gone named."""

from __future__ import annotations

from pathlib import Path

import pytest

from station.cards import parse_card
from station.core.checkpoints import CHECKPOINT
from station.core.history import History
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.events import BetPlaced, CardDrawn, DealerAction
from station.journal import Journal, JournalError, JournalReader
from station.journal.archive import archive


def natural(number: int) -> list[str]:
    """Round ``number``'s four cards in dealing order (Player, Banker, Player, Banker): a
    natural nine for the Player, so each round settles on them; the suits go round, so no card
    is drawn more often than the shoe's eight decks hold it."""
    suit, face = "SHDC"[number % 4], "KQJT"[number // 4 % 4]
    return [f"9{suit}", f"2{suit}", f"{face}{suit}", f"3{suit}"]


def played(path: Path, rounds: int) -> CoreOptions:
    """A journal of ``rounds`` settled rounds, checkpointed every 20 records."""
    options = CoreOptions()
    with CoreLoop(path, options, checkpoint_every=20) as loop:
        for action in ("shuffle_done", "confirm_cut"):
            loop.post(DealerAction(action))
        for code in ["2S", "2C", "2D"]:
            loop.post(CardDrawn("shoe", parse_card(code)))
        for number in range(rounds):
            loop.post(BetPlaced("1", "p1", "banker", 2000))
            loop.post(DealerAction("no_more_bets"))
            for code in natural(number):
                loop.post(CardDrawn("shoe", parse_card(code)))
            loop.post(DealerAction("next_round"))
            loop.run_pending()
    return options


def test_from_the_first_record_every_record_once_in_order(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    options = played(path, 12)
    history = History(path, options)
    seqs = [step.record.seq for step in history.steps()]
    with JournalReader(path) as reader:
        assert seqs == [record.seq for record in reader.records()] and seqs[0] == 1
    assert history.seq == seqs[-1] and history.checkpoint_seq == 0
    assert history.table.rounds_in_shoe >= 12 and history.round_in_play() is not None


def test_steps_stop_at_the_record_asked_and_go_on_from_there(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    options = played(path, 6)
    history = History(path, options)
    assert [step.record.seq for step in history.steps(until=10)] == list(range(1, 11))
    rest = [step.record.seq for step in history.steps()]
    assert rest[0] == 11 and history.seq == rest[-1]


def test_from_a_checkpoint_the_table_is_the_one_from_the_first_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    options = played(path, 12)
    whole = History(path, options)
    whole.replay()
    resumed = History.resumed(path, options)
    assert resumed.checkpoint_seq > 0 and resumed.seq > 0  # it did not read from the first record
    read = resumed.replay()
    assert read < whole.seq and resumed.table == whole.table
    at_most = History.resumed(path, options, at_most=30)
    with JournalReader(path) as reader:
        checkpoint = reader.get(at_most.checkpoint_seq)
    assert checkpoint is not None and checkpoint.kind == CHECKPOINT and at_most.seq <= 30
    at_most.replay()
    assert at_most.table == whole.table


def test_across_an_archive_and_with_the_archive_gone(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    options = played(path, 12)
    before = History(path, options)
    before.replay()
    with JournalReader(path) as reader:
        cut = next(record.seq for record in reader.records() if record.kind == CHECKPOINT and record.seq > 40)
    with Journal(path) as journal:
        moved = archive(journal, cut, None)
    after = History(path, options)
    seqs = [step.record.seq for step in after.steps()]
    assert seqs == list(range(1, before.seq + 1)) and after.table == before.table  # the archive first
    moved.path.rename(tmp_path / "elsewhere.sqlite3")
    with pytest.raises(JournalError, match=moved.path.name):
        list(History(path, options).steps())
