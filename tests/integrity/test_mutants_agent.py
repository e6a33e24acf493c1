"""The shuffler agent (station/integrity/shuffler.py) between the core's requests and a real
shuffler driver on a pty to the simulated shuffler: counts asked, states asked, and a shuffler
that stops answering. Mutation testing (tools/mutate.py, docs/testing.md) found these paths
run by no test of their own."""

from __future__ import annotations

import threading
from typing import Any

from structlog.testing import capture_logs

from drivers.devices import ShufflerDriver
from drivers.simulators import start_simulator
from station.cards import Card, Rank, Suit
from station.core import outputs as out
from station.events import (
    DeckCheck,
    DeckCheckUnanswered,
    DeviceBooted,
    Event,
    IntegrityAlert,
    ShufflerState,
    ShufflerStatus,
)
from station.integrity.shuffler import DECK_CHECK_ATTEMPTS, ShufflerAgent

from ..drivers.helpers import FAST, WAIT, Recorder


def test_the_agent_asks_the_shuffler_and_says_when_it_gives_no_count() -> None:
    running = start_simulator("shuffler", decks=6, set_colour="blue", seed=3, ack_timeout=0.05)
    heard, posted = Recorder(), Recorder()
    driver = ShufflerDriver("shuffler", running.simulator.url, heard, settings=FAST)
    assert driver.start(WAIT)
    heard.wait_kind(DeviceBooted)  # the shuffler's own report after power-on, first
    agent = ShufflerAgent(posted, {"shuffler": driver}.get)
    agent.start()
    try:
        agent.on_output(out.DeckCheckWanted("shuffler", "blue"))
        agent.on_output(out.DeckCheckWanted("csm", "red"))  # no shuffler of that name
        agent.on_output(out.ShufflerStateWanted("csm"))  # nothing to ask
        assert agent.wait_idle(WAIT) and agent.done == 3
        [count] = heard.wait_kind(DeckCheck)
        assert count.device == "shuffler" and sum(n for _, n in count.counts) == 6 * 52
        agent.ask_state("shuffler")  # once the shuffler is quiet: its answer is posted
        assert agent.wait_idle(WAIT) and agent.done == 4
        assert posted.events == [DeckCheckUnanswered("csm", "no shuffler named 'csm' is configured"),
                                 ShufflerStatus("shuffler", ShufflerState.IDLE, 0, "blue", "")]
        running.stop()  # the shuffler goes silent
        with capture_logs() as logs:
            agent.on_output(out.DeckCheckWanted("shuffler", "blue"))
            agent.ask_state("shuffler")
            assert agent.wait_idle(WAIT) and agent.done == 6
        unanswered = posted.events[2:]
        assert len(unanswered) == 1 and isinstance(unanswered[0], DeckCheckUnanswered)
        assert unanswered[0].device == "shuffler" and unanswered[0].reason
        tries = [e for e in logs if e["event"] == "deck_check_failed"]
        assert [e["attempt"] for e in tries] == list(range(1, DECK_CHECK_ATTEMPTS + 1)) == [1, 2]
        assert [e["event"] for e in logs if e["event"] == "shuffler_state_unknown"] == ["shuffler_state_unknown"]
    finally:
        agent.stop()
        driver.stop()


def _service(journal: Any = None, head: int | None = None) -> tuple[Any, list[Event]]:
    """A monitor service; ``head`` None: none given (the service's own default)."""
    from station.core.options import CoreOptions
    from station.integrity.monitor import IntegritySettings
    from station.integrity.service import IntegrityService

    posted: list[Event] = []
    if head is None:
        return IntegrityService(posted.append, CoreOptions(), IntegritySettings(), journal), posted
    return IntegrityService(posted.append, CoreOptions(), IntegritySettings(), journal, head), posted


def test_the_monitor_service_feeds_the_monitor_only_what_it_reads() -> None:
    service, posted = _service()
    service.start()
    try:
        service.on_output(out.AlertRaised(1, "shoe_unshuffled", "alarm", "d", 1, "1-1", True, "monitor"))
        service.on_output(out.AlertCleared(1, "shoe_unshuffled", "supervisor", "sam", ""))
        service.on_output(out.CardsAccounted(1, "", "start", (), (), 8))
        assert service.wait_idle(WAIT)
        assert service.processed == 1 and posted == [] and service.summary["shoe"] == 1
        assert service.posted == 0
        ordered = tuple(Card(rank, Suit.SPADES) for rank in Rank) + tuple(Card(r, Suit.HEARTS) for r in Rank)[:3]
        account = out.CardsAccounted(2, "2-1", "round", ordered, (), 8)
        service.on_output(account)
        service.on_output(account)  # the same finding again: raised once
        assert service.wait_idle(WAIT)
        alerts = [e for e in posted if isinstance(e, IntegrityAlert)]
        assert len(posted) == 1
        assert [(e.code, e.key, e.stop) for e in alerts] == [("shoe_unshuffled", "unshuffled:2", True)]
        assert service.posted == 1 and service.processed == 3
    finally:
        service.stop()
    service.stop()  # stopping a stopped service is nothing


def test_a_catch_up_with_no_journal_to_read_is_no_failure(tmp_path: Any) -> None:
    """No journal, one that is not there, or none of it replayed by the core (a new station:
    no head given) is nothing to catch up with."""
    from station.journal import Journal

    with Journal(tmp_path / "new.sqlite3") as new:
        new.append("DealerAction", {"type": "DealerAction", "action": "shuffle_done"})
    for journal, head in ((None, 3), (tmp_path / "missing.sqlite3", 5), (tmp_path / "missing.sqlite3", 0),
                          (tmp_path / "new.sqlite3", None)):
        service, _ = _service(journal, head)
        with capture_logs() as logs:
            service.start()
            assert service.caught_up.wait(WAIT) and service.wait_idle(WAIT)
            service.stop()
        assert [e["event"] for e in logs if "catch_up" in e["event"] or "caught_up" in e["event"]] == []


def test_a_catch_up_that_meets_a_broken_record_goes_on_without_the_history(tmp_path: Any) -> None:
    from station.journal import Journal

    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        journal.append("DealerAction", {"type": "DealerAction", "action": "shuffle_done"})
        journal.append("CardDrawn", {"type": "CardDrawn", "device": "shoe", "card": "not a card"})
    service, _ = _service(path, 2)
    with capture_logs() as logs:
        service.start()
        assert service.caught_up.wait(WAIT) and service.wait_idle(WAIT)
        service.stop()
    assert [e["event"] for e in logs if "catch_up" in e["event"] or "caught_up" in e["event"]] == [
        "integrity_catch_up_failed"]


def test_stopping_the_agent_waits_for_the_request_in_hand() -> None:
    """stop() returns once the request being handled is done (a count may take seconds): the
    station does not close the shuffler's driver under it."""
    release, finished = threading.Event(), threading.Event()

    def slow_driver(device: str) -> Any:
        release.wait(30)
        finished.set()
        return None  # no such shuffler: the agent reports the count unanswered

    posted = Recorder()
    agent = ShufflerAgent(posted, slow_driver)
    agent.start()
    agent.on_output(out.DeckCheckWanted("shuffler", "red"))
    threading.Timer(0.3, release.set).start()
    agent.stop(timeout=30)
    assert finished.is_set() and [type(e) for e in posted.events] == [DeckCheckUnanswered]
