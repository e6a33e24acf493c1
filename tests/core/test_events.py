"""Every input event, including the table-people events, survives the journal round trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as s

from station.cards import FULL_DECK
from station.event_codec import event_from_dict, event_to_dict
from station.events import (
    Actor,
    BetChanged,
    BetPlaced,
    BetWithdrawn,
    CardDrawn,
    DealerAction,
    Event,
    EventError,
    LateBetOverride,
    PauseRequested,
    PayoutOptionChanged,
    ResumeRequested,
    SupervisorDecision,
)

text = s.text(max_size=12)
actors = s.builds(Actor, role=s.sampled_from(["dealer", "supervisor", "technician"]), who=text)
amounts = s.integers(min_value=-(10**12), max_value=10**12)

table_events = s.one_of(
    s.builds(BetPlaced, box=text, player=text, region=text, amount=amounts, actor=actors),
    s.builds(BetChanged, box=text, player=text, region=text, amount=amounts, actor=actors),
    s.builds(BetWithdrawn, box=text, player=text, region=text, actor=actors),
    s.builds(DealerAction, action=text, box=text, player=text, actor=actors),
    s.builds(SupervisorDecision, decision=text, actor=actors, detail=text),
    s.builds(PayoutOptionChanged, option=text, actor=actors),
    s.builds(LateBetOverride, actor=actors, reason=text),
    s.builds(PauseRequested, actor=actors, reason=text),
    s.builds(ResumeRequested, actor=actors),
    s.builds(CardDrawn, device=text, card=s.sampled_from(FULL_DECK)),
)


@given(table_events)
def test_every_table_event_round_trips_through_json(event: Event) -> None:
    data = json.loads(json.dumps(event_to_dict(event)))
    assert event_from_dict(data) == event


def test_defaults_are_a_dealer_with_no_name() -> None:
    assert event_from_dict({"type": "DealerAction", "action": "reveal"}) == DealerAction("reveal", actor=Actor())


@pytest.mark.parametrize(
    "data",
    [
        {"type": "BetPlaced", "box": "1", "player": "a", "region": "tie", "amount": "100"},
        {"type": "BetPlaced", "box": "1", "player": "a", "region": "tie", "amount": 1.5},
        {"type": "SupervisorDecision", "decision": "void", "actor": "sam"},
        {"type": "DealerAction", "action": "reveal", "colour": "red"},
    ],
)
def test_malformed_table_events_are_refused(data: dict[str, object]) -> None:
    with pytest.raises(EventError):
        event_from_dict(data)
