"""The workers beside the core loop (the shuffler agent, the monitor service) at their
edges, found unguarded by mutation testing (tools/mutate.py, docs/testing.md): each test here
fails on a mutant that survived the rest of the tests."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from drivers.devices.errors import DeviceError
from station.cards import Card, Rank, Suit
from station.core import outputs as out
from station.core.loop import CoreLoop
from station.core.options import CoreOptions
from station.events import CardDrawn, CutCardSeen, DealerAction, DeckCheckUnanswered, Event, IntegrityAlert
from station.integrity import shuffler
from station.integrity.monitor import IntegritySettings
from station.integrity.service import IntegrityService
from station.integrity.shuffler import DECK_CHECK_ATTEMPTS, RETRY_PAUSE_S, ShufflerAgent

from ..drivers.helpers import WAIT, Recorder


def test_a_shuffler_that_is_not_configured_is_reported_missing_once_and_never_asked() -> None:
    posted = Recorder()
    none: dict[str, Any] = {}
    agent = ShufflerAgent(posted, none.get)
    agent.start()
    try:
        with capture_logs() as logs:
            agent.on_output(out.DeckCheckWanted("csm", "red"))
            agent.ask_state("csm")  # nothing to ask
            assert agent.wait_idle(WAIT)
    finally:
        agent.stop()
    assert posted.events == [DeckCheckUnanswered("csm", "no shuffler named 'csm' is configured")]
    assert [e["event"] for e in logs if e["log_level"] in ("error", "critical")] == []


class SilentShuffler:
    """A shuffler driver whose every deck check fails as a silent shuffler's does (no real
    shuffler is needed to count the agent's attempts)."""

    def __init__(self) -> None:
        self.asked = 0

    def deck_check(self) -> None:
        self.asked += 1
        raise DeviceError("no reply from shuffler")


def test_the_agent_pauses_between_attempts_and_reports_right_after_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two attempts, one pause between them; none after the last: the count is reported missing
    at once (a set waits for it)."""
    pauses: list[float] = []
    monkeypatch.setattr(shuffler, "time", type("Clock", (), {"sleep": staticmethod(pauses.append)}))
    driver, posted = SilentShuffler(), Recorder()
    agent = ShufflerAgent(posted, {"shuffler": driver}.get)
    agent.start()
    try:
        agent.on_output(out.DeckCheckWanted("shuffler", "red"))
        assert agent.wait_idle(WAIT)
    finally:
        agent.stop()
    assert driver.asked == DECK_CHECK_ATTEMPTS == 2
    assert pauses == [RETRY_PAUSE_S] * (DECK_CHECK_ATTEMPTS - 1)
    assert posted.events == [DeckCheckUnanswered("shuffler", "no reply from shuffler")]


def test_a_worker_never_holds_the_station_s_process_up_at_its_end() -> None:
    """The workers' threads are daemons: a station that ends without stopping one (an error on
    the way out) still ends."""
    none: dict[str, Any] = {}
    agent = ShufflerAgent(Recorder(), none.get)
    agent.start()
    try:
        [thread] = [t for t in threading.enumerate() if t.name == ShufflerAgent.THREAD_NAME]
        assert thread.daemon
    finally:
        agent.stop()
    assert not [t for t in threading.enumerate() if t.name == ShufflerAgent.THREAD_NAME]


def _ordered_shoe(journal: Path, *, end: bool) -> int:
    """A shoe of cards in new-deck order dealt with no monitor running (a station stopped
    before its monitor posted anything): four rounds, and with ``end`` the cut card in the
    third so that the shoe ends after the fourth. The journal's head."""
    ordered = [Card(rank, suit) for suit in (Suit.SPADES, Suit.HEARTS, Suit.CLUBS) for rank in Rank]
    with CoreLoop(journal, CoreOptions()) as loop:
        loop.post(DealerAction("shuffle_done"))
        loop.post(DealerAction("confirm_cut"))
        for card in ordered[:2]:  # an Ace exposed: one card burned
            loop.post(CardDrawn("shoe", card))
        loop.run_pending()
        position = 2
        for rounds in range(1, 5):
            loop.post(DealerAction("no_more_bets"))
            loop.run_pending()
            while loop.state == "dealing":
                loop.post(CardDrawn("shoe", ordered[position]))
                position += 1
                loop.run_pending()
            if end and rounds == 3:
                loop.post(CutCardSeen("shoe"))
            loop.post(DealerAction("next_round"))
            loop.run_pending()
        assert position >= 16 and loop.machine.alerts == [] and loop.machine.shoe.ended is end
        return loop.journal.head()[0]


def test_a_finding_missed_before_a_restart_is_raised_only_while_its_shoe_is_in_play(tmp_path: Path) -> None:
    """The monitor catching up finds the shoe's ordered first cards. Still in play: the alarm
    is posted now (it was missed). Ended: nothing is posted, that shoe's cards are gone."""
    for end, expected in ((False, [("shoe_unshuffled", "unshuffled:1")]), (True, [])):
        journal = tmp_path / f"journal-{end}.sqlite3"
        head = _ordered_shoe(journal, end=end)
        posted: list[Event] = []
        service = IntegrityService(posted.append, CoreOptions(), IntegritySettings(), journal, head)
        service.start()
        try:
            assert service.caught_up.wait(WAIT) and service.wait_idle(WAIT)
        finally:
            service.stop()
        assert [(e.code, e.key) for e in posted if isinstance(e, IntegrityAlert)] == expected
        assert len(posted) == len(expected)


class UnreachableShuffler:
    """A shuffler driver whose every state query fails (no real shuffler is needed for it)."""

    stats = None

    def status(self) -> None:
        raise DeviceError("no reply from shuffler")


def test_a_state_the_shuffler_does_not_give_is_logged_and_nothing_is_posted() -> None:
    posted = Recorder()
    agent = ShufflerAgent(posted, {"shuffler": UnreachableShuffler()}.get)
    agent.start()
    try:
        with capture_logs() as logs:
            agent.ask_state("shuffler")
            assert agent.wait_idle(WAIT)
    finally:
        agent.stop()
    assert posted.events == []
    assert [e["event"] for e in logs] == ["shuffler_state_unknown"]


def test_a_journal_of_one_record_is_caught_up_with(tmp_path: Path) -> None:
    from station.journal import Journal

    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        journal.append("DealerAction", {"type": "DealerAction", "action": "shuffle_done"})
    service = IntegrityService(Recorder(), CoreOptions(), IntegritySettings(), path, 1)
    with capture_logs() as logs:
        service.start()
        try:
            assert service.caught_up.wait(WAIT) and service.wait_idle(WAIT)
        finally:
            service.stop()
    assert [(e["event"], e.get("records")) for e in logs if e["event"] == "integrity_caught_up"] == [
        ("integrity_caught_up", 1)]


def test_the_monitor_service_posts_a_finding_once_even_when_the_monitor_meets_it_again() -> None:
    """A finding has one key for good (IntegrityFinding): shoe 1's ordered first cards seen
    again under the same shoe number (a shoe counter started over) are not posted again."""
    from station.integrity.service import IntegrityService

    posted: list[Event] = []
    service = IntegrityService(posted.append, CoreOptions(), IntegritySettings(), None)
    service.start()
    ordered = tuple(Card(rank, Suit.SPADES) for rank in Rank) + tuple(Card(r, Suit.HEARTS) for r in Rank)[:3]
    try:
        for shoe in (1, 2, 1):
            service.on_output(out.CardsAccounted(shoe, f"{shoe}-1", "round", ordered, (), 8))
        assert service.wait_idle(WAIT)
    finally:
        service.stop()
    keys = [e.key for e in posted if isinstance(e, IntegrityAlert) and e.code == "shoe_unshuffled"]
    assert keys == ["unshuffled:1", "unshuffled:2"]
    assert service.posted == len(posted) == len({e.key for e in posted if isinstance(e, IntegrityAlert)})
