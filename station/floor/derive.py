"""What the floor feed says about each journal record: deterministic, from the journal alone.

The journal holds inputs; a settled round, an irregularity or a refusal is what replaying
those inputs under the table's rules gives (docs/journal.md). So the feed reads the journal
through the one reader of history (:class:`~station.core.history.TableReading`: the projection, as
the core loop and recall have it, and the table's snapshot after each record), and turns the
outputs of each record into messages stamped with that record's ``seq``, ``time`` and
``hash``. Replaying
the same journal always gives the same messages, so after a crash the publisher derives again
exactly what it had sent, and a consumer recognises a repeat by its numbers.

Two kinds of messages form the table's *sequenced* feed, each numbered on its own: ``round``
(a settled or voided round) and ``event`` (irregularities, decisions with who, refusals,
device faults and recoveries, shoe starts and ends, payout and late-bet decisions, pauses, the
configuration and software records, the chips moved and the payments checked:
:mod:`station.floor.chip_feed`). ``n`` counts a kind's messages in this journal (1, 2, 3,
... with no gap) and ``prev`` is the ``seq`` of the kind's previous message (0 before the
first), so a consumer drops what it has seen and notices what it has not. ``state`` (the
table's state now) is a snapshot, not numbered. The payloads are described by the JSON
Schemas in ``station/floor/schemas/`` (docs/floor.md).

No clock, no I/O: :class:`FeedDeriver` is fed records and answers messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from station.core import outputs as out
from station.core.history import TableReading
from station.core.options import CoreOptions
from station.core.projection import UNJOURNALABLE_INPUT, Projection
from station.event_codec import to_plain
from station.floor.chip_feed import CHIP_FEED_OUTPUTS, chip_body
from station.journal import JournalRecord
from station.significant.derive import SignificantDeriver, feed_body

#: The version of the payloads (``v`` in every message); docs/floor.md says what changes it.
PAYLOAD_VERSION = 1
#: Journal records that are not input events but belong on the feed (station/service/setup.py
#: and station/core/loop.py write them).
CONFIGURATION, SOFTWARE = "Configuration", "Software"
SEQUENCED = ("round", "event", "significant")


@dataclass
class Counter:
    """A sequenced kind's position: messages so far (``n``) and the seq of the last one."""

    n: int = 0
    prev: int = 0

    def to_json(self) -> dict[str, int]:
        return {"n": self.n, "prev": self.prev}


@dataclass(frozen=True)
class FeedMessage:
    """One message of the sequenced feed: its kind (topic), the journal record it came from,
    its number among its kind, and its payload (a JSON object)."""

    kind: str
    seq: int
    n: int
    payload: dict[str, Any]


@dataclass
class FeedPosition:
    """Where a deriver stands: the last record it has taken and each kind's counter."""

    seq: int = 0
    counters: dict[str, Counter] = field(default_factory=lambda: {kind: Counter() for kind in SEQUENCED})
    #: Kinds a stored cursor had no counter for (it was written before they existed): counted
    #: again while the records up to it are skipped (:meth:`FeedDeriver.skip`).
    recount: tuple[str, ...] = ()

    def copy(self) -> FeedPosition:
        return FeedPosition(self.seq, {k: Counter(c.n, c.prev) for k, c in self.counters.items()}, self.recount)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, **{kind: c.to_json() for kind, c in self.counters.items()}}


def _bets(bets: Iterable[Any]) -> list[dict[str, Any]]:
    return [{"box": b.box, "player": b.player, "region": b.region, "stake": b.stake, "valid": b.valid,
             "void": b.void, "outcome": b.outcome, "net": b.net} for b in bets]


def pool_share(progressive: Any) -> dict[str, Any]:
    """What the other tables of a progressive's pool read of this one (docs/progressive.md):
    its name in the pool, what it gave the meter in all, its latest jackpot or reset, the
    meter as it shows it and whether a jackpot waits."""
    return {"pool": progressive["pool"], "member": progressive["member"],
            "contributed": progressive["contributed"], "rebase": to_plain(progressive["rebase"]),
            "meter": progressive["meter"], "pending": progressive["pending"] is not None}


class FeedDeriver:
    """Takes a journal's records through the projection and derives the feed's messages.

    Records up to a cursor are *skipped* (taken without messages, as crash recovery replays);
    from then on each record is *derived*. ``position`` says how far it has come and how many
    messages of each kind there have been."""

    def __init__(self, options: CoreOptions | None, *, table: str, journal_id: str, currency: str | None = None,
                 devices: Iterable[str] = (), position: FeedPosition | None = None,
                 projection: Projection | None = None) -> None:
        """``projection``: where to start (restored from a checkpoint; by default the start of
        the journal). The records after it up to ``position`` are then skipped."""
        self.reading = TableReading(options, start=projection)
        self.started_after = self.reading.seq  # the record it started after (a checkpoint's, or 0)
        self.table = table
        self.journal_id = journal_id
        self.currency = currency
        self.minor_digits = 2  # where the point goes in an amount (the Configuration record says)
        self.devices = tuple(devices)
        self.position = position.copy() if position is not None else FeedPosition()
        self.last_time = ""
        self._significant: SignificantDeriver | None = None  # from the first record derived
        self.timezone = "UTC"  # the table's, as its configuration record names it

    @property
    def seq(self) -> int:
        """The last record taken (skipped or derived)."""
        return self.reading.seq

    # --- feeding -----------------------------------------------------------------------

    def skip(self, record: JournalRecord) -> None:
        """Take a record that was published before (at or below the cursor): no message."""
        recount = self.position.recount
        if recount:  # derived to count the kinds the cursor lacks, the others left as stored
            kept = {k: Counter(c.n, c.prev) for k, c in self.position.counters.items() if k not in recount}
            self.derive(record)
            self.position.counters.update(kept)
            self.position.recount = recount
            return
        self.learn_currency(record)
        self.reading.take(record)
        self.position.seq = record.seq
        self.last_time = record.time

    def derive(self, record: JournalRecord) -> list[FeedMessage]:
        """Take a record and return the messages it gives, in order (most give none): what its
        outputs say, then the inputs it refused, then who took a decision the outputs name."""
        if self._significant is None:  # the devices down as the table stands before this record
            self._significant = SignificantDeriver.resumed(self.reading.table)
        self.position.recount = ()
        self.learn_currency(record)
        before = self.reading.round_in_play()
        step = self.reading.take(record)
        bodies: list[tuple[str, dict[str, Any]]] = []
        if step.event is None:
            bodies.extend(self._record_note(record))
        else:
            refusals: list[tuple[str, dict[str, Any]]] = []
            decisions: list[tuple[str, dict[str, Any]]] = []
            for output in step.outputs:
                if isinstance(output, out.Refused):
                    refusals.append(("event", {"type": "refusal", "input": output.what, "reason": output.reason,
                                               "role": output.role, "who": output.who}))
                elif isinstance(output, _DECISIONS):
                    decisions.append(("event", _decision(output)))
                else:
                    body = self._from_output(output, before)
                    if body is not None:
                        bodies.append(body)
            bodies += refusals + decisions
        bodies += [("significant", feed_body(e, self.timezone))
                   for e in self._significant.take(record, step.event, step.outputs)]
        self.position.seq = record.seq
        self.last_time = record.time
        return [self._stamp(kind, body, record) for kind, body in bodies]

    # --- the state snapshot ------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The table as of the last record taken: the retained ``state`` message."""
        table = self.reading.table
        irregularity = table.irregularity
        faulted = dict(table.faulted)
        return {
            "v": PAYLOAD_VERSION, "kind": "state", "table": self.table, "journal_id": self.journal_id,
            "seq": self.position.seq, "time": self.last_time, "game": table.game, "state": table.state,
            "expectation": table.expecting, "shoe": table.shoe, "round_id": table.round_id,
            "rounds_in_shoe": table.rounds_in_shoe,
            "irregularity": None if irregularity is None else {
                "ident": irregularity.ident, "reason": irregularity.reason, "detail": irregularity.detail,
                "decisions": list(irregularity.decisions), "round_id": irregularity.round_id},
            "paused_by": dict(table.paused_by) if table.paused_by else None,
            "faulted": faulted,
            "devices": {name: ("faulted" if name in faulted else "ok") for name in self.devices},
            "last_result": None if table.last_result is None else to_plain(dict(table.last_result)),
            "currency": self.currency,
            "dealer": table.dealer or None,
            "minor_digits": self.minor_digits,
            "limits": dict(table.limits) or None,
            "tray": None if table.tray is None else {key: value for key, value in table.tray.items()
                                                     if key != "entries"},
            "rated": sorted(rating["card"] for rating in table.ratings),
            "progressive": None if table.progressive is None else pool_share(table.progressive),
        }

    # --- internals ---------------------------------------------------------------------

    def _context(self) -> dict[str, Any]:
        current = self.reading.round_in_play()
        return {"shoe": self.reading.table.shoe, "round_id": current.round_id if current else None}

    def _stamp(self, kind: str, body: dict[str, Any], record: JournalRecord) -> FeedMessage:
        counter = self.position.counters[kind]
        counter.n += 1
        payload = {"v": PAYLOAD_VERSION, "kind": kind, "table": self.table, "journal_id": self.journal_id,
                   "seq": record.seq, "n": counter.n, "prev": counter.prev, "time": record.time, "hash": record.hash}
        counter.prev = record.seq
        if kind != "round":
            payload.update(self._context())
        payload.update(body)
        return FeedMessage(kind, record.seq, counter.n, payload)

    def learn_currency(self, record: JournalRecord) -> None:
        """What the journal's configuration record says of how people read the table: its time
        zone (the significant messages' local time), and without a currency given (a journal
        derived offline) its currency (``[table] currency``; journals written before that key
        have none)."""
        if record.kind == CONFIGURATION:
            table = record.payload.get("table")
            zone = table.get("timezone") if isinstance(table, dict) else None
            self.timezone = zone if isinstance(zone, str) and zone else self.timezone
            digits = table.get("minor_digits") if isinstance(table, dict) else None
            self.minor_digits = digits if isinstance(digits, int) and not isinstance(digits, bool) else 2
        if self.currency is None and record.kind == CONFIGURATION:
            table = record.payload.get("table")
            currency = table.get("currency") if isinstance(table, dict) else None
            self.currency = currency if isinstance(currency, str) and currency else None

    def _record_note(self, record: JournalRecord) -> list[tuple[str, dict[str, Any]]]:
        """Records that are not input events: the configuration, the software, a refused input."""
        payload = record.payload
        if record.kind == CONFIGURATION:
            return [("event", {"type": "configuration", "configuration": payload})]
        if record.kind == SOFTWARE:
            return [("event", {"type": "software", "software": payload})]
        if record.kind == UNJOURNALABLE_INPUT:
            return [("event", {"type": "refusal", "input": str(payload.get("kind", "")),
                               "reason": str(payload.get("reason", "")), "role": "", "who": ""})]
        return []

    def _round(self, output: out.RoundSettled | out.RoundVoided, before: Any) -> dict[str, Any]:
        current = self.reading.round_in_play()
        if current is None or current.round_id != output.round_id:
            current = before if before is not None and before.round_id == output.round_id else None
        body: dict[str, Any] = {
            "round_id": output.round_id, "shoe": output.round_id.shoe, "round": output.round_id.number,
            "opened_at": self.reading.opened_at(output.round_id),
            "burned": [c.code for c in current.burned] if current else [],
            "dummy": [c.code for c in current.dummy] if current else [],
            "decisions": to_plain(current.decisions) if current else [],
            "payout_option": current.payout_option if current else "",
            **({"limits": current.limits} if current and current.limits else {}),
            "currency": self.currency,
            "dealer": output.dealer,
            "dealer_burned": current.dealer_burned.code if current and current.dealer_burned else None,
        }
        if isinstance(output, out.RoundSettled):
            body.update({
                "status": "settled", "game": output.game,
                "hands": [{"position": position, "cards": [c.code for c in cards]} for position, cards in output.hands],
                "totals": dict(output.totals),
                "outcome": output.outcome, "natural": output.natural, "player_pair": output.player_pair,
                "banker_pair": output.banker_pair, "bets": _bets(output.bets), "house_net": output.house_net,
                "void_reason": "",
            })
        else:
            body.update({
                "status": "voided", "game": self.reading.table.game,
                "hands": _hands(current.dealt) if current else [], "totals": {}, "outcome": "void",
                "natural": False, "player_pair": False, "banker_pair": False, "bets": _bets(output.returned),
                "house_net": 0, "void_reason": output.reason,
            })
        return body

    def _from_output(self, output: out.Output, before: Any) -> tuple[str, dict[str, Any]] | None:
        if isinstance(output, (out.RoundSettled, out.RoundVoided)):
            return "round", self._round(output, before)
        if isinstance(output, out.ShoeStarted):
            return "event", {"type": "shoe_start", "shoe_number": output.shoe,
                             "exposed": output.exposed.code if output.exposed else None,
                             "burned": [c.code for c in output.burned], "set_colour": output.set_colour}
        if isinstance(output, out.ShoeEnded):
            return "event", {"type": "shoe_end", "shoe_number": output.shoe, "rounds": output.rounds}
        if isinstance(output, out.IrregularityRaised):
            return "event", {"type": "irregularity", "ident": output.ident, "reason": output.reason,
                             "detail": output.detail, "irregular_round": output.round_id,
                             "decisions": list(output.decisions)}
        if isinstance(output, out.IrregularityResolved):
            return "event", {"type": "decision", "ident": output.ident, "reason": output.reason,
                             "decision": output.decision, "role": output.role, "who": output.who,
                             "detail": output.note}
        if isinstance(output, out.DeviceFaulted):
            return "event", {"type": "device_fault", "device": output.device, "reason": output.reason,
                             "code": output.code}
        if isinstance(output, out.DeviceBack):
            return "event", {"type": "device_recovered", "device": output.device}
        if isinstance(output, out.PayoutOptionScheduled):
            return "event", {"type": "payout_option", "option": output.option, "applies": output.applies_from,
                             "role": output.role, "who": output.who}
        if isinstance(output, out.PayoutOptionApplied):
            return "event", {"type": "payout_option_applied", "option": output.option,
                             "from_round": output.from_round}
        if isinstance(output, out.LimitsScheduled):
            return "event", {"type": "limits", "limits": output.limits, "changed": list(output.changed),
                             "applies": output.applies_from, "reason": output.reason, "currency": self.currency,
                             "role": output.role, "who": output.who}
        if isinstance(output, out.LimitsApplied):
            return "event", {"type": "limits_applied", "limits": output.limits, "changed": list(output.changed),
                             "from_round": output.from_round, "currency": self.currency, "role": output.role,
                             "who": output.who}
        if isinstance(output, out.RatingStarted):
            return "event", {"type": "rating_started", "rating": output.rating, "box": output.box,
                             "player": output.player, "card": output.card, "at": output.at, "door": output.door,
                             "role": output.role, "who": output.who}
        if isinstance(output, out.RatingEnded):
            return "event", {"type": "rating", **rating_body(output), "currency": self.currency}
        if isinstance(output, out.CashBuyIn):
            return "event", {"type": "buy_in", "box": output.box, "player": output.player, "card": output.card,
                             "amount": output.amount, "currency": self.currency, "role": output.role,
                             "who": output.who}
        if isinstance(output, out.TrayRecorded):
            return "event", {"type": "tray", "ledger": output.ledger, "entry": output.entry, "what": output.what,
                             "value": output.value, "chips": [list(c) for c in output.chips], "slip": output.slip,
                             "signed": list(output.signed), "corrects": output.corrects, "change": output.change,
                             "reason": output.reason, "counted_by": output.counted_by, "currency": self.currency}
        if isinstance(output, out.TrayReconciled):
            return "event", {"type": "tray_reconciled", "ledger": output.ledger, "opener": output.opener,
                             "fills": output.fills, "credits": output.credits, "closer": output.closer,
                             "drop": output.drop, "win": output.win, "house": output.house,
                             "variance": output.variance, "currency": self.currency}
        if isinstance(output, out.AlertRaised):
            return "event", {"type": "integrity_alert", "ident": output.ident, "code": output.code,
                             "severity": output.severity, "detail": output.detail, "alert_shoe": output.shoe,
                             "alert_round": output.round_id, "stopped": output.stop, "source": output.source}
        if isinstance(output, out.AlertCleared):
            return "event", {"type": "alert_acknowledged", "ident": output.ident, "code": output.code,
                             "role": output.role, "who": output.who, "note": output.note}
        if isinstance(output, out.RoundCorrected):
            return "event", {"type": "correction", "corrected_round": output.round_id, "currency": self.currency,
                             "bet_before": _layout_bet(output.bet_before), "bet_after": _layout_bet(output.bet_after),
                             "before": _bets(output.before), "after": _bets(output.after),
                             "differences": [{"box": b, "player": p, "region": r, "change": change}
                                             for b, p, r, change in output.differences],
                             "house_before": output.house_before, "house_after": output.house_after,
                             "reason": output.reason, "role": output.role, "who": output.who}
        if isinstance(output, (out.ProgressiveHit, out.ProgressivePaid, out.ProgressiveWasReset)):
            return "event", {**progressive_body(output), "currency": self.currency}
        if isinstance(output, out.BetsReduced):
            return "event", {"type": "bets_reduced", "reduced_round": output.round_id, "currency": self.currency,
                             "reductions": [{"box": box, "player": player, "region": region, "from": old, "to": new}
                                            for box, player, region, old, new in output.reductions]}
        chips = chip_body(output, self.reading.table, self.currency) if isinstance(output, CHIP_FEED_OUTPUTS) else None
        return None if chips is None else ("event", chips)



#: Outputs of a decision whose messages follow the record's refusals (see ``FeedDeriver.derive``).
_DECISIONS = (out.TablePaused, out.TableResumed, out.LateBetsAllowed, out.AccessRefused)


def progressive_body(o: out.ProgressiveHit | out.ProgressivePaid | out.ProgressiveWasReset) -> dict[str, Any]:
    """A jackpot won, a jackpot paid, a meter reset (docs/progressive.md), as the feed says them."""
    awards = [] if isinstance(o, out.ProgressiveWasReset) else [dict(a) for a in o.awards]
    if isinstance(o, out.ProgressiveHit):
        return {"type": "progressive_jackpot", "jackpot_round": o.round_id, "pool": o.pool, "meter": o.meter,
                "awards": awards}
    if isinstance(o, out.ProgressivePaid):
        return {"type": "progressive_paid", "jackpot_round": o.round_id, "pool": o.pool, "awards": awards,
                "total": o.total, "topped": o.topped, "meter": o.meter, "note": o.note, "role": o.role, "who": o.who}
    return {"type": "progressive_reset", "pool": o.pool, "before": o.before, "meter": o.meter, "reason": o.reason,
            "role": o.role, "who": o.who}


def rating_body(o: out.RatingEnded) -> dict[str, Any]:
    """A rating as the feed and the meters give it (docs/ratings.md)."""
    from station.meters.fold import rating_record
    from station.meters.report import rated_play

    return {"rating": o.rating, **rated_play(rating_record(o)), "role": o.role, "who": o.who}


def _decision(output: out.Output) -> dict[str, Any]:
    """Decisions whose other outputs do not say who took them."""
    if isinstance(output, out.TablePaused):
        return {"type": "pause", "reason": output.reason, "role": output.role, "who": output.who}
    if isinstance(output, out.TableResumed):
        return {"type": "resume", "role": output.role, "who": output.who}
    if isinstance(output, out.LateBetsAllowed):
        return {"type": "late_bets", "reason": output.reason, "role": output.role, "who": output.who}
    assert isinstance(output, out.AccessRefused)
    return {"type": "access_denied", "command": output.command, "role": output.role, "who": output.who}


def _layout_bet(bet: tuple[str, str, str, int]) -> dict[str, Any]:
    return {"box": bet[0], "player": bet[1], "region": bet[2], "amount": bet[3]}


def _hands(dealt: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    hands: dict[str, list[str]] = {}
    for position, card in dealt:
        hands.setdefault(position, []).append(card.code)
    return [{"position": position, "cards": cards} for position, cards in hands.items()]


def derive_all(records: Iterable[JournalRecord], options: CoreOptions | None, *, table: str, journal_id: str,
               currency: str | None = None, devices: Iterable[str] = ()) -> Iterator[FeedMessage]:
    """Every sequenced message a journal's records give, in order (tests, tools)."""
    deriver = FeedDeriver(options, table=table, journal_id=journal_id, currency=currency, devices=devices)
    for record in records:
        yield from deriver.derive(record)
