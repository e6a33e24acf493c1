"""The commands of the control socket: who may run each, the arguments it takes, the event it
posts. docs/control.md describes them for people; this module is what the station enforces.

Each command's arguments are a strict pydantic model: a missing, unknown or wrongly typed
argument is refused with its name and what it should be, before any event exists. Money is
whole minor units (a JSON integer, never a float or a string).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Annotated, Any, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from station.core.loop import Verdict
from station.events import (
    Actor,
    AlertAcknowledged,
    BetPlaced,
    DealerAction,
    Event,
    LateBetOverride,
    PauseRequested,
    PayoutOptionChanged,
    ResumeRequested,
    SupervisorDecision,
)
from station.service.config import DealerActionName
from station.service.control import Command, ControlError

ANY_ROLE = frozenset({"dealer", "supervisor", "technician"})
SUPERVISOR = frozenset({"supervisor"})
DEALER_OR_SUPERVISOR = frozenset({"dealer", "supervisor"})
#: The largest stake the socket takes, in minor units: far above any table's maximum, far
#: below anything that could overflow a report or a display.
MAX_AMOUNT = 10**12

Name = Annotated[str, StringConstraints(min_length=1, max_length=32, strip_whitespace=True)]
Reason = Annotated[str, StringConstraints(max_length=200)]


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class PauseArguments(_Arguments):
    reason: Reason = Field("", description="why, in a few words, for the journal")


class DecideArguments(_Arguments):
    decision: Name = Field(description="one of the decisions the irregularity offers, as `status` lists them")
    detail: Reason = Field("", description="a note for the journal")


class BetArguments(_Arguments):
    box: Name = Field(description="the betting box, e.g. 1")
    player: Name = Field(description="who bets in that box, e.g. P1")
    region: Name = Field(description="banker, player or tie; in Casino War war or tie")
    amount: int = Field(gt=0, le=MAX_AMOUNT, description="whole minor units, e.g. 2500 for 25.00")


class ActionArguments(_Arguments):
    action: DealerActionName = Field(description="a dealer's action: " + ", ".join(get_args(DealerActionName)))
    box: Annotated[str, StringConstraints(max_length=32)] = Field("", description="the box it is for, when it is")
    player: Annotated[str, StringConstraints(max_length=32)] = Field("", description="the player, when it is")


class PayoutOptionArguments(_Arguments):
    option: Annotated[str, StringConstraints(pattern="^(commission|no_commission)$")] = Field(
        description="commission or no_commission")


class AckArguments(_Arguments):
    ident: int = Field(ge=1, le=10**9, description="the alert's number, as `status` lists it")
    note: Reason = Field("", description="what was done about it, for the journal")


#: How long a command waits for the table to apply or refuse its event before answering.
REPLY_WAIT_S = 2.0

#: Posts an event for the table; the callback hears its verdict (see ``CoreLoop.post``).
Post = Callable[[Event, Callable[[Verdict], None]], None]


def control_commands(post: Post, status: Callable[[], dict[str, Any]],
                     wait_s: float = REPLY_WAIT_S) -> dict[str, Command]:
    """The command table: each turns a checked request into an event posted for the table
    (journaled with the role and name of who asked) and answers what became of it, except
    ``status``, which reads."""

    def posting(make: Callable[[Actor, dict[str, Any]], Event]) -> Callable[[Actor, dict[str, Any]], str]:
        def run(actor: Actor, args: dict[str, Any]) -> str:
            event = make(actor, args)
            heard = threading.Event()
            verdicts: list[Verdict] = []

            def done(verdict: Verdict) -> None:
                verdicts.append(verdict)
                heard.set()

            post(event, done)
            if not heard.wait(wait_s):
                return (f"{event.kind} journaled for the table ({actor.role} {actor.who}); it has not been applied "
                        f"within {wait_s:g} s: see status")
            if not verdicts[0].applied:
                raise ControlError(f"refused: {verdicts[0].reason}")
            return f"applied: {event.kind} (journaled with {actor.role} {actor.who})"
        return run

    return {
        "status": Command(ANY_ROLE, lambda actor, args: status(), "table state"),
        "pause": Command(SUPERVISOR, posting(lambda a, args: PauseRequested(a, args["reason"])),
                         "pause the table after the current round", PauseArguments),
        "resume": Command(SUPERVISOR, posting(lambda a, args: ResumeRequested(a)), "resume a paused table"),
        "decide": Command(SUPERVISOR, posting(lambda a, args: SupervisorDecision(args["decision"], a, args["detail"])),
                          "decide an irregularity", DecideArguments),
        "late-bets": Command(SUPERVISOR, posting(lambda a, args: LateBetOverride(a)),
                             "allow bets after no more bets while no card is revealed"),
        # The dealer's terminal: bets as placed on the layout, and screen actions.
        "bet": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: BetPlaced(
            args["box"], args["player"], args["region"], args["amount"], a)), "place a bet", BetArguments),
        "action": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: DealerAction(
            args["action"], args["box"], args["player"], a)), "a dealer's screen action", ActionArguments),
        "payout-option": Command(SUPERVISOR, posting(lambda a, args: PayoutOptionChanged(args["option"], a)),
                                 "switch the Banker payout (rule 5.11)", PayoutOptionArguments),
        "ack": Command(SUPERVISOR, posting(lambda a, args: AlertAcknowledged(args["ident"], a, args["note"])),
                       "acknowledge an integrity alert (docs/integrity.md)", AckArguments),
    }
