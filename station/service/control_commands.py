"""The commands of the control socket: who may run each, the arguments it takes, the event it
posts. docs/control.md describes them for people; this module is what the station enforces.

Each command's arguments are a strict pydantic model: a missing, unknown or wrongly typed
argument is refused with its name and what it should be, before any event exists. Money is
whole minor units (a JSON integer, never a float or a string).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from station.config.dealer import DealerActionName
from station.core.loop import Verdict
from station.events import (
    Actor,
    AlertAcknowledged,
    BetChanged,
    BetCorrected,
    BetPlaced,
    BetWithdrawn,
    BuyIn,
    ChipBetsConfirmed,
    ChipPaymentAccepted,
    ChipStatusSet,
    DealerAction,
    DealerSignedIn,
    DropCounted,
    Event,
    LateBetOverride,
    LimitsChanged,
    PauseRequested,
    PayoutOptionChanged,
    PayoutsConfirmed,
    ProgressiveReset,
    ProgressiveSignOff,
    RatingClosed,
    RatingOpened,
    ResumeRequested,
    SupervisorDecision,
    TrayCorrected,
    TrayCounted,
)
from station.service.control import Command, ControlError
from station.service.dealer_doors import dealer_problem

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
    region: Name = Field(description="banker, player or tie, or a side bet the table offers (dragon_7 ...); "
                                     "in Casino War war or tie")
    amount: int = Field(gt=0, le=MAX_AMOUNT, description="whole minor units, e.g. 2500 for 25.00")


class WithdrawArguments(_Arguments):
    box: Name = Field(description="the betting box, e.g. 1")
    player: Name = Field(description="whose bet, e.g. P1")
    region: Name = Field(description="banker, player or tie, or a side bet the table offers (dragon_7 ...); "
                                     "in Casino War war or tie")


class ConfirmPayoutsArguments(_Arguments):
    round_id: Annotated[str, StringConstraints(max_length=32)] = Field(
        "", description="the round being paid, e.g. 1-12 (empty: whichever is being paid)")
    box: Annotated[str, StringConstraints(max_length=32)] = Field("", description="one box (empty: every box left)")


class CorrectArguments(_Arguments):
    round_id: Name = Field(description="the settled round, e.g. 1-12")
    box: Name = Field(description="the box the bet was recorded on")
    player: Name = Field(description="the player it was recorded for")
    region: Name = Field(description="the region it was recorded on")
    new_box: Name = Field(description="the box it was really on")
    new_player: Name = Field(description="whose it really was")
    new_region: Name = Field(description="the region it was really on")
    new_amount: int = Field(ge=0, le=MAX_AMOUNT, description="what was really bet, whole minor units (0: no bet)")
    reason: Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)] = Field(
        description="why, for the journal")


class ActionArguments(_Arguments):
    action: DealerActionName = Field(description="a dealer's action: " + ", ".join(get_args(DealerActionName)))
    box: Annotated[str, StringConstraints(max_length=32)] = Field("", description="the box it is for, when it is")
    player: Annotated[str, StringConstraints(max_length=32)] = Field("", description="the player, when it is")


class PayoutOptionArguments(_Arguments):
    option: Annotated[str, StringConstraints(pattern="^(commission|no_commission|ez)$")] = Field(
        description="commission, no_commission or ez (EZ Baccarat)")


Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]


class LimitsArguments(_Arguments):
    """The limits to change (docs/limits.md); each left out stays as it is. Amounts in whole
    minor units; 0 for an optional limit (differential, Tie, Pair, box or player maximum)
    means none."""

    min_bet: Amount | None = Field(None, description="the table minimum")
    max_bet: Amount | None = Field(None, description="the table maximum")
    chips: list[Amount] | None = Field(None, min_length=1, max_length=20,
                                       description="every chip denomination in play, e.g. [100,500,2500]")
    differential: Amount | None = Field(None, description="largest Banker-Player difference (baccarat; 0: none)")
    tie_min: Amount | None = Field(None, description="Tie minimum on the limits sign")
    tie_max: Amount | None = Field(None, description="Tie maximum on the limits sign")
    pair_min: Amount | None = Field(None, description="Pair minimum on the limits sign (baccarat)")
    pair_max: Amount | None = Field(None, description="Pair maximum on the limits sign (baccarat)")
    box_max: Amount | None = Field(None, description="all wagers on one box (Casino War; 0: none)")
    player_max: Amount | None = Field(None, description="one player's wagers (Casino War; 0: none)")
    reason: Reason = Field("", description="why, for the journal")


def limit_changes(args: Mapping[str, Any]) -> dict[str, Any]:
    """The limits a ``limits`` command names (those it leaves out stay as they are)."""
    return {key: value for key, value in args.items() if key != "reason" and value is not None}


ChipCount = Annotated[list[Amount], Field(min_length=2, max_length=2)]


class TrayArguments(_Arguments):
    what: Annotated[str, StringConstraints(pattern="^(opener|fill|credit|closer)$")] = Field(
        description="opener, fill, credit or closer")
    chips: list[ChipCount] = Field([], max_length=30,
                                   description="[denomination, count] pairs in minor units: [[2500,40],[10000,10]]; "
                                               "left out when the tray antenna counts")
    witness: Name = Field(description="the second signature: the dealer, or the runner of a fill or credit")
    slip: Annotated[str, StringConstraints(max_length=32, strip_whitespace=True)] = Field(
        "", description="the fill or credit slip's number")
    counted_by: Literal["hand", "reader"] = Field(
        "hand", description="hand (the chips given), or reader: an opener or closer counted by the tray antenna")


class DropArguments(_Arguments):
    amount: Amount = Field(description="the drop box's count, whole minor units")
    note: Reason = Field("", description="e.g. count room")


class TrayCorrectArguments(_Arguments):
    entry: int = Field(ge=1, le=10**9, description="the entry's number, as `status` and the meters list it")
    reason: Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)] = Field(
        description="why, for the journal")
    chips: list[ChipCount] = Field([], max_length=30, description="a count as it really was")
    amount: Amount = Field(0, description="a drop as it really was")


def chip_counts(rows: list[list[int]]) -> tuple[tuple[int, int], ...]:
    return tuple((row[0], row[1]) for row in rows)


class RateArguments(_Arguments):
    box: Name = Field(description="the box the player sits at, e.g. 1")
    player: Name = Field(description="the player, as their bets name them, e.g. P1")
    card: Annotated[str, StringConstraints(max_length=64, strip_whitespace=True)] = Field(
        "", description="the player card's number (a supervisor types it); empty: the card just read")


class UnrateArguments(_Arguments):
    box: Name = Field(description="the box the rated player sits at")
    player: Name = Field(description="the rated player, as their bets name them")


class BuyInArguments(_Arguments):
    box: Name = Field(description="the box the player sits at")
    player: Name = Field(description="the player, as their bets name them")
    amount: int = Field(gt=0, le=MAX_AMOUNT, description="cash bought in, whole minor units")


def now() -> str:
    """The time a rating opens or closes, as the journal writes times (the door stamps it)."""
    from station.journal.records import format_time, utc_now

    return format_time(utc_now())


class SignOffArguments(_Arguments):
    round_id: Name = Field(description="the round whose progressive jackpot is signed off, as `status` lists it")
    note: Reason = Field("", description="how it was paid, for the journal (a cheque's number)")


class ProgressiveResetArguments(_Arguments):
    amount: int = Field(-1, ge=-1, le=MAX_AMOUNT, description="what the meter shows from now, whole minor "
                                                                "units; left out: its seed")
    reason: Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)] = Field(
        description="why, for the journal")


class ChipStatusArguments(_Arguments):
    uid: Annotated[str, StringConstraints(pattern=r"^[0-9A-F]{16}$")] = Field(
        description="the chip's UID, 16 hexadecimal digits in capitals, as an alarm names it")
    status: Literal["active", "flagged", "retired"] = Field(description="what the chip is from now")
    reason: Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)] = Field(
        description="why, for the journal")


class AcceptPaymentArguments(_Arguments):
    round_id: Name = Field(description="the round whose wrong payment holds the table, as `status` lists it")
    note: Reason = Field("", description="how it was settled otherwise, for the journal")


class ChipBetsArguments(_Arguments):
    box: Annotated[str, StringConstraints(max_length=32)] = Field(
        "", description="the box whose chips become its bets; left out: every box")


class DealerArguments(_Arguments):
    name: Name = Field(description="the dealer who takes the table, as [[control.users]] names them")


class AckArguments(_Arguments):
    ident: int = Field(ge=1, le=10**9, description="the alert's number, as `status` lists it")
    note: Reason = Field("", description="what was done about it, for the journal")


#: Each command's arguments, by the command's name (commands without arguments are absent).
ARGUMENTS: dict[str, type[_Arguments]] = {
    "pause": PauseArguments, "decide": DecideArguments, "bet": BetArguments, "action": ActionArguments,
    "payout-option": PayoutOptionArguments, "ack": AckArguments, "withdraw": WithdrawArguments,
    "confirm-payouts": ConfirmPayoutsArguments, "correct": CorrectArguments, "dealer": DealerArguments,
    "limits": LimitsArguments, "rate": RateArguments, "unrate": UnrateArguments, "buy-in": BuyInArguments,
    "tray": TrayArguments, "drop": DropArguments, "tray-correct": TrayCorrectArguments,
    "progressive-sign-off": SignOffArguments, "progressive-reset": ProgressiveResetArguments,
    "chip-bets": ChipBetsArguments, "chip-status": ChipStatusArguments, "accept-payment": AcceptPaymentArguments,
}


def typed_arguments(command: str, texts: dict[str, str]) -> dict[str, Any]:
    """Arguments typed on a command line (``--set box=1 --set amount=500``) as the command's
    own schema takes them: text where it takes text (``box`` ``"1"``), a whole number where it
    takes one (``amount`` ``500``). A value a whole-number argument cannot take, an argument
    the command does not have, and every argument of an unknown command go as they are typed
    (text, or JSON when it is JSON), for the station to accept or refuse with its reason: the
    station is the one place that decides. A text argument written as a JSON string
    (``box='"1"'``, the old way round) is that string."""
    model = ARGUMENTS.get(command)
    typed: dict[str, Any] = {}
    for name, text in texts.items():
        field = model.model_fields.get(name) if model is not None else None
        if field is None:
            typed[name] = _as_written(text)
        elif field.annotation is int:
            typed[name] = int(text) if _WHOLE_NUMBER.fullmatch(text.strip()) else text
        elif field.annotation is not str and not _is_text(field.annotation):
            typed[name] = _as_written(text)  # a number or a list of numbers, written as JSON
        else:
            decoded = _as_written(text)
            typed[name] = decoded if isinstance(decoded, str) and text.lstrip().startswith('"') else text
    return typed


_WHOLE_NUMBER = re.compile(r"[+-]?\d+")


def _is_text(annotation: Any) -> bool:
    """Does an argument take text (``Name``, ``Reason``: ``str`` with constraints)?"""
    return annotation is str or (get_args(annotation)[:1] == (str,))


def _as_written(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


#: How long a command waits for the table to apply or refuse its event before answering.
REPLY_WAIT_S = 2.0

#: Posts an event for the table; the callback hears its verdict (see ``CoreLoop.post``).
Post = Callable[[Event, Callable[[Verdict], None]], None]


def control_commands(post: Post, status: Callable[[], dict[str, Any]],
                     wait_s: float = REPLY_WAIT_S, dealers: Mapping[str, str] | None = None,
                     card_read: Callable[[], str] = str, tray_antenna: bool = False) -> dict[str, Command]:
    """The command table: each turns a checked request into an event posted for the table
    (journaled with the role and name of who asked) and answers what became of it, except
    ``status``, which reads. ``dealers``: the users who may deal, by name, with their role.
    ``tray_antenna``: the station's chip reader has an antenna under the tray (a count by it is
    refused before anything is journaled when it has none)."""

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

    post_dealer = posting(lambda a, args: DealerSignedIn(args["name"], a, "control"))

    def rate(actor: Actor, args: dict[str, Any]) -> str:
        """A typed card is a supervisor's; without one, the card the reader read last."""
        if args["card"]:
            return posting(lambda a, _: RatingOpened(args["box"], args["player"], args["card"], a, now()))(actor, args)
        read = card_read()
        if not read:
            raise ControlError("refused: no card has been read: swipe the player's card, or type its number (card=)")
        return posting(lambda a, _: RatingOpened(args["box"], args["player"], read, a, now(), "reader"))(actor, args)

    post_tray = posting(lambda a, args: TrayCounted(
        args["what"], chip_counts(args["chips"]), args["witness"], a, args["slip"], args["counted_by"]))

    def count_tray(actor: Actor, args: dict[str, Any]) -> str:
        """A count by the tray antenna needs one: said at once at a table without it (the
        configuration is not the journal's, so the core cannot say it on a replay)."""
        if args["counted_by"] == "reader" and not tray_antenna:
            raise ControlError("refused: no chip reader's antenna is under this table's tray "
                               "([chip_reader.antennas] names no \"tray\"): count the tray by hand")
        return post_tray(actor, args)

    def sign_in_dealer(actor: Actor, args: dict[str, Any]) -> str:
        problem = dealer_problem(actor, args["name"], dealers or {})
        if problem:
            raise ControlError(f"refused: {problem}")
        return post_dealer(actor, args)

    return {
        "status": Command(ANY_ROLE, lambda actor, args: status(), "table state"),
        "pause": Command(SUPERVISOR, posting(lambda a, args: PauseRequested(a, args["reason"])),
                         "pause the table after the current round", ARGUMENTS["pause"]),
        "resume": Command(SUPERVISOR, posting(lambda a, args: ResumeRequested(a)), "resume a paused table"),
        "decide": Command(SUPERVISOR, posting(lambda a, args: SupervisorDecision(args["decision"], a, args["detail"])),
                          "decide an irregularity", ARGUMENTS["decide"]),
        "late-bets": Command(SUPERVISOR, posting(lambda a, args: LateBetOverride(a)),
                             "allow bets after no more bets while no card is revealed"),
        # The dealer's terminal: bets as placed on the layout, and screen actions.
        "bet": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: BetPlaced(
            args["box"], args["player"], args["region"], args["amount"], a)), "place a bet", ARGUMENTS["bet"]),
        "action": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: DealerAction(
            args["action"], args["box"], args["player"], a)), "a dealer's screen action", ARGUMENTS["action"]),
        "change-bet": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: BetChanged(
            args["box"], args["player"], args["region"], args["amount"], a)),
            "make a bet this whole amount (the table judges the whole bet: chips stacked one by one)",
            ARGUMENTS["bet"]),
        "withdraw": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: BetWithdrawn(
            args["box"], args["player"], args["region"], a)), "take a bet off the layout", ARGUMENTS["withdraw"]),
        "confirm-payouts": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: PayoutsConfirmed(
            args["round_id"], (args["box"],) if args["box"] else (), a)),
            "the payouts of a box, or of every box, are paid and collected", ARGUMENTS["confirm-payouts"]),
        "correct": Command(SUPERVISOR, posting(lambda a, args: BetCorrected(
            args["round_id"], args["box"], args["player"], args["region"], args["new_box"], args["new_player"],
            args["new_region"], args["new_amount"], args["reason"], a)),
            "correct a bet recorded wrongly in a settled round", ARGUMENTS["correct"]),
        "limits": Command(SUPERVISOR, posting(lambda a, args: LimitsChanged(limit_changes(args), a, args["reason"])),
                          "change the table's limits or chips from the next round (docs/limits.md)",
                          ARGUMENTS["limits"]),
        "rate": Command(DEALER_OR_SUPERVISOR, rate, "rate the player at a box by the card just read, or by the "
                        "number a supervisor types (docs/ratings.md)", ARGUMENTS["rate"]),
        "unrate": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: RatingClosed(
            args["box"], args["player"], a, now())), "end a player's rating", ARGUMENTS["unrate"]),
        "buy-in": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: BuyIn(
            args["box"], args["player"], args["amount"], a)), "cash bought in at the table", ARGUMENTS["buy-in"]),
        "tray": Command(SUPERVISOR, count_tray, "the chip tray counted and signed: opener, fill, credit or closer, "
                        "by hand or by the tray antenna (docs/tray.md)", ARGUMENTS["tray"]),
        "drop": Command(SUPERVISOR, posting(lambda a, args: DropCounted(args["amount"], a, args["note"])),
                        "the drop box's count (docs/tray.md)", ARGUMENTS["drop"]),
        "tray-correct": Command(SUPERVISOR, posting(lambda a, args: TrayCorrected(
            args["entry"], args["reason"], a, chip_counts(args["chips"]), args["amount"])),
            "correct an entry of the chip tray's ledger (docs/tray.md)", ARGUMENTS["tray-correct"]),
        "progressive-sign-off": Command(SUPERVISOR, posting(lambda a, args: ProgressiveSignOff(
            args["round_id"], a, args["note"])), "sign off a progressive jackpot: paid from the meter, which goes "
            "back to its seed (docs/progressive.md)", ARGUMENTS["progressive-sign-off"]),
        "progressive-reset": Command(SUPERVISOR, posting(lambda a, args: ProgressiveReset(
            args["amount"], args["reason"], a)), "set the progressive's meter (docs/progressive.md)",
            ARGUMENTS["progressive-reset"]),
        # A table that reads its chips (docs/chips.md).
        "chip-bets": Command(DEALER_OR_SUPERVISOR, posting(lambda a, args: ChipBetsConfirmed(
            a, (args["box"],) if args["box"] else ())), "the chips on the layout become the bets (one tap)",
            ARGUMENTS["chip-bets"]),
        "chip-status": Command(SUPERVISOR, posting(lambda a, args: ChipStatusSet(
            args["uid"], args["status"], args["reason"], a)), "flag, retire or put back in play one chip",
            ARGUMENTS["chip-status"]),
        "accept-payment": Command(SUPERVISOR, posting(lambda a, args: ChipPaymentAccepted(
            args["round_id"], a, args["note"])), "accept a wrong payment as the payout zones hold it",
            ARGUMENTS["accept-payment"]),
        "payout-option": Command(SUPERVISOR, posting(lambda a, args: PayoutOptionChanged(args["option"], a)),
                                 "switch the Banker payout (rule 5.11)", ARGUMENTS["payout-option"]),
        "ack": Command(SUPERVISOR, posting(lambda a, args: AlertAcknowledged(args["ident"], a, args["note"])),
                       "acknowledge an integrity alert (docs/integrity.md)", ARGUMENTS["ack"]),
        "dealer": Command(DEALER_OR_SUPERVISOR, sign_in_dealer, "a dealer takes the table, relieving the one "
                          "before (docs/dealers.md)", ARGUMENTS["dealer"]),
    }
