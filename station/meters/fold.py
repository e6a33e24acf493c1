"""The meters' fold: the projection's typed outputs in, figures per part of play out.

Every reader of the journal hears the same outputs for the same record
(:mod:`station.core.projection`); the meters add up the few that carry money and events:
a round settled or voided, a correction, a refusal, an irregularity, an integrity alarm, a shoe
started or ended, a pause, a dealer taking the table, chips moved after no more bets and
wrong payments (:mod:`station.meters.chips`). Each is counted in one *part*: the play of
one gaming day, in one dealer session, from one shoe (:data:`PartKey`). A day's, a session's
and a shoe's figures are the sums of their parts (:mod:`station.meters.report`).

Which part a figure goes to:

- a round goes to the gaming day of the journal time it was settled or voided, to the session
  of the dealer who dealt it and to its shoe;
- a correction re-settles its round where the round was counted: the round's part loses the
  settlement it had and gains the corrected one;
- a refusal, an irregularity, an alarm or what the chips showed goes to the part in play when
  it happened: the gaming day of its time, the session signed in, the shoe in play (shoe 0
  before the first).

Open table time runs from a shoe's start (its first card exposed and burned) to its last
round's end, without the pauses and without the time the station was not running: each round
ending counts the open time since the round before it ended (for the shoe's first round, since
the shoe started) to the round's own part. Time after a shoe's last round, until the next shoe
starts, is not open time.

The fold sees only the journal: the same records give the same figures whether they are read
live, after a restart from a checkpoint (:mod:`station.meters.checkpoint`), or from the first
record. Parts can be *sealed* once nothing can reach them any more (checkpoints keep only what
is still open); a part sealed too early is no error, as figures of the same key add up.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from station.core import outputs as out
from station.core.payout_steps import CORRECTABLE_ROUNDS
from station.core.rounds import RoundId
from station.core.states import IRREGULARITY, PAUSED
from station.events import Event, StationStarted
from station.games.layout import SettledBet
from station.journal import JournalRecord
from station.localtime import (
    DEFAULT_GAMING_DAY_START,
    DEFAULT_TIMEZONE,
    day_start,
    gaming_day,
    gaming_day_bounds,
    zone,
)
from station.meters.chips import CHIP_OUTPUTS, count_chips
from station.meters.figures import Figures

#: A part of play: (gaming day ``YYYY-MM-DD``, dealer session number, shoe number).
PartKey = tuple[str, int, int]

#: The kind of the journal record holding the configuration (station/service/setup.py).
CONFIGURATION = "Configuration"
#: Rounds whose part the fold remembers after they are settled, so a correction finds where its
#: round was counted: the table corrects only the round being paid and the last
#: ``CORRECTABLE_ROUNDS`` settled before it.
REMEMBERED_ROUNDS = CORRECTABLE_ROUNDS + 1


@dataclass(frozen=True)
class DealerSession:
    """A dealer's time at the table: from the journal time ``began`` they signed in until the
    next dealer relieved them. Session 0 is the table's time before anybody signed in (its
    ``dealer`` and ``began`` are empty)."""

    number: int
    dealer: str
    began: str

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "dealer": self.dealer, "began": self.began}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealerSession:
        return cls(int(data["number"]), str(data["dealer"]), str(data["began"]))


NOBODY = DealerSession(0, "", "")


@dataclass
class Part:
    """The figures of one part of play."""

    day: str
    session: DealerSession
    shoe: int
    figures: Figures

    @property
    def key(self) -> PartKey:
        return (self.day, self.session.number, self.shoe)

    def to_json(self) -> dict[str, Any]:
        return {"day": self.day, "session": self.session.to_json(), "shoe": self.shoe,
                "figures": self.figures.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Part:
        return cls(str(data["day"]), DealerSession.from_json(data["session"]), int(data["shoe"]),
                   Figures.from_json(data["figures"]))


def parse_time(text: str) -> datetime:
    """A journal time (``2026-12-01T20:45:12.000123Z``) as an aware UTC datetime."""
    return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)


def journal_time(moment: datetime) -> str:
    """An aware datetime written as the journal writes times."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def micros_between(start: str, end: str) -> int:
    """Microseconds from journal time ``start`` to ``end`` (0 when the clock went back)."""
    return max(0, (parse_time(end) - parse_time(start)) // timedelta(microseconds=1))


class GamingDays:
    """Which gaming day a journal time belongs to, under a table's zone and day start; the
    bounds of the last day asked are kept, so the next time of the same day costs a comparison."""

    def __init__(self, timezone: str, start: str) -> None:
        self.timezone = timezone
        self.start = start
        self._zone = zone(timezone)
        self._start = day_start(start)
        self._bounds = ("", "", "")  # (first time, first time of the next day, the day)

    def day_of(self, time: str) -> str:
        first, after, day = self._bounds
        if first <= time < after:
            return day
        found = gaming_day(time, self._zone, self._start)
        begins, ends = gaming_day_bounds(found, self._zone, self._start)
        self._bounds = (journal_time(begins), journal_time(ends), found.isoformat())
        return found.isoformat()

    def bounds(self, day: str) -> tuple[str, str]:
        """The journal times a gaming day begins and ends (the end excluded)."""
        begins, ends = gaming_day_bounds(date.fromisoformat(day), self._zone, self._start)
        return journal_time(begins), journal_time(ends)


class MetersFold:
    """Adds up the projection's outputs into parts, record by record (:meth:`take`).

    ``timezone`` and ``day_start`` are those of the table when the journal does not say (a
    journal written before its configuration named them); a ``Configuration`` record that
    names them takes over from its record on.
    """

    def __init__(self, timezone: str = DEFAULT_TIMEZONE, day_start: str = DEFAULT_GAMING_DAY_START) -> None:
        self.default_timezone, self.default_day_start = timezone, day_start
        self.days = GamingDays(timezone, day_start)
        self.at = 0  # the last record taken
        self.last_time = ""  # its journal time
        self.session = NOBODY
        self.relieved: DealerSession | None = None  # the session before, for a round dealt across the change
        self.shoe = 0
        self.shoe_in_play = False
        self.paused = False
        self.open_since = ""  # journal time from which open table time runs ("" while it does not)
        self.banked_us = 0  # open time before a pause (or a stop), for the next round that ends
        self.parts: dict[PartKey, Part] = {}  # open parts
        self.sealed: list[Part] = []  # parts sealed since the fold was made or last emptied
        self.rounds: OrderedDict[str, PartKey] = OrderedDict()  # round id -> its part, the last rounds settled

    # --- records in -------------------------------------------------------------------------

    def take(self, record: JournalRecord, event: Event | None, outputs: Sequence[out.Output]) -> None:
        """One record as the projection took it: the input it holds (None for the station's own
        records) and the outputs it gave."""
        time = record.time
        if record.kind == CONFIGURATION:
            self._configured(record.payload)
        elif type(event) is StationStarted and self.last_time:
            self._restarted(time)
        for output in outputs:
            handler = _HANDLERS.get(type(output))
            if handler is not None:
                handler(self, output, time)
        self.at = record.seq
        self.last_time = time

    def take_all(self, steps: Iterable[tuple[JournalRecord, Event | None, Sequence[out.Output]]]) -> None:
        for record, event, outputs in steps:
            self.take(record, event, outputs)

    def _configured(self, payload: dict[str, Any]) -> None:
        table = payload.get("table")
        if not isinstance(table, dict):
            return
        timezone = table.get("timezone", self.default_timezone)
        start = table.get("gaming_day_start", self.default_day_start)
        if isinstance(timezone, str) and isinstance(start, str) and (timezone, start) != (
                self.days.timezone, self.days.start):
            self.days = GamingDays(timezone, start)

    # --- where a figure goes ----------------------------------------------------------------

    def part(self, day: str, session: DealerSession, shoe: int) -> Figures:
        key = (day, session.number, shoe)
        found = self.parts.get(key)
        if found is None:
            found = self.parts[key] = Part(day, session, shoe, Figures())
        return found.figures

    def _in_play(self, time: str) -> Figures:
        """The part in play at ``time``: its gaming day, the session signed in, the shoe."""
        return self.part(self.days.day_of(time), self.session, self.shoe)

    def _session_of(self, dealer: str) -> DealerSession:
        """The session a round dealt by ``dealer`` belongs to: the one signed in, or the one it
        relieved when the round was already under way at the change."""
        if dealer != self.session.dealer and self.relieved is not None and self.relieved.dealer == dealer:
            return self.relieved
        return self.session

    def _accrue(self, time: str, figures: Figures) -> None:
        """A round ended at ``time``: count the open table time since the last round to it."""
        figures.open_us += self.banked_us + (micros_between(self.open_since, time) if self.open_since else 0)
        self.banked_us = 0
        self.open_since = time

    def _restarted(self, time: str) -> None:
        """The station started again: while it was not running the table was not open (from
        the last record of the run before to this one)."""
        if self.open_since:
            self._stop_the_clock(self.last_time)
            self.open_since = time

    def _stop_the_clock(self, time: str) -> None:
        """Open time stops at ``time`` (a pause, the station stopped): bank what ran."""
        if self.open_since:
            self.banked_us += micros_between(self.open_since, time)
            self.open_since = ""

    def _round_part(self, round_id: RoundId, dealer: str, time: str) -> tuple[PartKey, Figures]:
        """The part of a round ending at ``time``: its gaming day, its dealer's session, its shoe."""
        session = self._session_of(dealer)
        day = self.days.day_of(time)
        figures = self.part(day, session, round_id.shoe)
        return (day, session.number, round_id.shoe), figures

    def _remember(self, round_id: str, key: PartKey) -> None:
        self.rounds[round_id] = key
        self.rounds.move_to_end(round_id)
        while len(self.rounds) > REMEMBERED_ROUNDS:
            self.rounds.popitem(last=False)

    # --- the outputs ------------------------------------------------------------------------

    def _settled(self, output: out.RoundSettled, time: str) -> None:
        key, figures = self._round_part(output.round_id, output.dealer, time)
        self._accrue(time, figures)
        figures.rounds += 1
        figures.saw_round(time)
        figures.played_under(output.limits)
        _count_bets(figures, output.bets, 1)
        self._remember(output.round_id, key)

    def _voided(self, output: out.RoundVoided, time: str) -> None:
        _, figures = self._round_part(output.round_id, output.dealer, time)
        self._accrue(time, figures)
        figures.rounds += 1
        figures.voided_rounds += 1
        figures.saw_round(time)
        figures.played_under(output.limits)
        figures.voided_returned += sum(bet.stake for bet in output.returned)
        self.rounds.pop(output.round_id, None)

    def _corrected(self, output: out.RoundCorrected, time: str) -> None:
        key = self.rounds.get(output.round_id)
        if key is None:  # not among the rounds remembered: counted where the correction was made
            figures = self._in_play(time)
        else:
            day, number, shoe = key
            found = self.parts.get(key)
            session = found.session if found is not None else self._session_numbered(number)
            figures = self.part(day, session, shoe)
        _count_bets(figures, output.before, -1)
        _count_bets(figures, output.after, 1)
        figures.corrections += 1
        figures.corrected_house += output.house_after - output.house_before

    def _session_numbered(self, number: int) -> DealerSession:
        for session in (self.session, self.relieved):
            if session is not None and session.number == number:
                return session
        for part in self.parts.values():
            if part.session.number == number:
                return part.session
        return self.session

    def _dealer_changed(self, output: out.DealerChanged, time: str) -> None:
        """A dealer took the table: their session begins (numbered in journal order). A dealer
        who signed out leaves a session of nobody's (``dealer`` empty) until the next."""
        self.relieved = self.session
        self.session = DealerSession(self.session.number + 1, output.dealer, time)
        self._in_play(time)  # the session has a part from its first moment, played in or not

    def _refused(self, output: out.Refused, time: str) -> None:
        self._in_play(time).refusals += 1

    def _tray(self, output: out.TrayRecorded, time: str) -> None:
        """A tray entry counts in the part in play when it was entered; a correction adds its
        change there too (docs/tray.md)."""
        figures = self._in_play(time)
        figures.tray[output.what] = figures.tray.get(output.what, 0) + (output.change if output.corrects
                                                                        else output.value)
        if not output.corrects:
            figures.tray_entries[output.what] = figures.tray_entries.get(output.what, 0) + 1
        if not output.corrects and output.counted_by == "reader":
            figures.tray_by_reader[output.what] = figures.tray_by_reader.get(output.what, 0) + 1

    def _rating_ended(self, output: out.RatingEnded, time: str) -> None:
        """A rating counts in the part in play when it ended (docs/ratings.md)."""
        self._in_play(time).ratings[str(output.rating)] = rating_record(output)

    def _buy_in(self, output: out.CashBuyIn, time: str) -> None:
        cash = self._in_play(time).cash
        who = output.card or f"box {output.box} {output.player}"
        cash[who] = cash.get(who, 0) + output.amount

    def _irregular(self, output: out.IrregularityRaised, time: str) -> None:
        counts = self._in_play(time).irregularities
        counts[output.reason] = counts.get(output.reason, 0) + 1

    def _alert(self, output: out.AlertRaised, time: str) -> None:
        figures = self._in_play(time)
        counts = figures.integrity_alarms if output.severity == "alarm" else figures.integrity_alerts
        counts[output.code] = counts.get(output.code, 0) + 1

    def _shoe_started(self, output: out.ShoeStarted, time: str) -> None:
        self.shoe = output.shoe
        self.shoe_in_play = True
        self.banked_us = 0
        self.open_since = "" if self.paused else time

    def _shoe_ended(self, output: out.ShoeEnded, time: str) -> None:
        self.shoe_in_play = False
        self.banked_us = 0
        self.open_since = ""

    def _state(self, output: out.StateChanged, time: str) -> None:
        paused = output.state == PAUSED or (self.paused and output.state == IRREGULARITY)
        if paused and not self.paused:
            self._stop_the_clock(time)
        elif self.paused and not paused and self.shoe_in_play:
            self.open_since = time
        self.paused = paused

    # --- sealing and state ------------------------------------------------------------------

    def seal(self) -> list[Part]:
        """Move to :attr:`sealed` the open parts of the gaming days before the one in play that
        no remembered round belongs to (nothing is expected to reach them any more). Returns
        those moved. Parts are sealed a day at a time, not as each shoe ends: a chain of
        checkpoints then has a link per gaming day, and a reading follows a few dozen links
        rather than thousands (:mod:`station.meters.checkpoint`)."""
        if not self.last_time:
            return []
        today = self.days.day_of(self.last_time)
        keep = set(self.rounds.values())
        moved = [part for key, part in self.parts.items() if part.day < today and key not in keep]
        for part in moved:
            del self.parts[part.key]
        self.sealed.extend(moved)
        return moved

    def every_part(self) -> list[Part]:
        """The parts sealed since this fold was made, then the open ones."""
        return [*self.sealed, *self.parts.values()]

    def state(self) -> dict[str, Any]:
        """The fold's state as plain JSON, without :attr:`sealed` (a checkpoint says those)."""
        return {
            "at": self.at, "last_time": self.last_time,
            "timezone": self.days.timezone, "gaming_day_start": self.days.start,
            "session": self.session.to_json(),
            "relieved": self.relieved.to_json() if self.relieved is not None else None,
            "shoe": self.shoe, "shoe_in_play": self.shoe_in_play, "paused": self.paused,
            "open_since": self.open_since, "banked_us": self.banked_us,
            "parts": [part.to_json() for part in self.parts.values()],
            "rounds": _grouped(self.rounds),
        }

    @classmethod
    def restore(cls, state: dict[str, Any], timezone: str = DEFAULT_TIMEZONE,
                day_start: str = DEFAULT_GAMING_DAY_START) -> MetersFold:
        """The fold :meth:`state` describes (raises KeyError/ValueError/TypeError for a state
        that is not one)."""
        fold = cls(timezone, day_start)
        fold.days = GamingDays(str(state["timezone"]), str(state["gaming_day_start"]))
        fold.at, fold.last_time = int(state["at"]), str(state["last_time"])
        fold.session = DealerSession.from_json(state["session"])
        fold.relieved = DealerSession.from_json(state["relieved"]) if state["relieved"] is not None else None
        fold.shoe, fold.shoe_in_play = int(state["shoe"]), bool(state["shoe_in_play"])
        fold.paused, fold.open_since = bool(state["paused"]), str(state["open_since"])
        fold.banked_us = int(state["banked_us"])
        for data in state["parts"]:
            part = Part.from_json(data)
            fold.parts[part.key] = part
        for day, number, shoe, ids in state["rounds"]:
            for round_id in ids:
                fold.rounds[str(round_id)] = (str(day), int(number), int(shoe))
        return fold


def rating_record(o: out.RatingEnded) -> dict[str, Any]:
    """What a rating rated, as the meters keep it and the floor feed sends it (docs/ratings.md)."""
    return {"card": o.card, "box": o.box, "player": o.player, "opened_at": o.opened_at, "closed_at": o.closed_at,
            "played_us": o.played_us, "hands": o.hands, "bets": o.bets, "stakes": o.stakes, "theo": o.theo,
            "theo_exact": o.theo_exact}


def _grouped(rounds: OrderedDict[str, PartKey]) -> list[list[Any]]:
    """The remembered rounds in order, a run of rounds of one part written once with its key:
    ``[[day, session, shoe, [round ids]], ...]`` (a checkpoint is written every few hundred
    records; its size is mostly this)."""
    runs: list[list[Any]] = []
    for round_id, key in rounds.items():
        if not runs or tuple(runs[-1][:3]) != key:
            runs.append([*key, []])
        runs[-1][3].append(round_id)
    return runs


def _count_bets(figures: Figures, bets: Iterable[SettledBet], sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) a settlement's bets."""
    for bet in bets:
        region = figures.region(bet.region)
        region.bets += sign
        region.stakes += sign * bet.stake
        region.house -= sign * bet.net
        figures.commission += sign * bet.commission
        figures.void_parts_returned += sign * bet.void


def _progressive(fold: MetersFold, output: out.Output, time: str) -> None:
    """The progressive's money (docs/progressive.md), counted where play is when it moves."""
    figures, counts = fold._in_play(time), {}
    if isinstance(output, out.ProgressiveMeter) and output.added:
        counts = {"contributed": output.added}
    elif isinstance(output, out.ProgressivePaid):
        counts = {"jackpots": 1, "paid": output.total, "topped": output.topped}
    elif isinstance(output, out.ProgressiveWasReset):
        counts = {"resets": 1, "removed": output.before - output.meter}
    for key, amount in counts.items():
        figures.progressive[key] = figures.progressive.get(key, 0) + amount


def _chips(fold: MetersFold, output: out.Output, time: str) -> None:
    """What a table that knows its chips found (:mod:`station.meters.chips`), counted where
    play is when the table said it."""
    count_chips(fold._in_play(time), output)


_HANDLERS: dict[type[out.Output], Any] = {
    **dict.fromkeys(CHIP_OUTPUTS, _chips),
    out.ProgressiveMeter: _progressive,
    out.ProgressivePaid: _progressive,
    out.ProgressiveWasReset: _progressive,
    out.RoundSettled: MetersFold._settled,
    out.RoundVoided: MetersFold._voided,
    out.RoundCorrected: MetersFold._corrected,
    out.Refused: MetersFold._refused,
    out.TrayRecorded: MetersFold._tray,
    out.RatingEnded: MetersFold._rating_ended,
    out.CashBuyIn: MetersFold._buy_in,
    out.IrregularityRaised: MetersFold._irregular,
    out.AlertRaised: MetersFold._alert,
    out.ShoeStarted: MetersFold._shoe_started,
    out.ShoeEnded: MetersFold._shoe_ended,
    out.StateChanged: MetersFold._state,
    out.DealerChanged: MetersFold._dealer_changed,
}
