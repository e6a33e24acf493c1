"""The significant events a journal record gives: a reading of the journal, never a store.

:class:`SignificantDeriver` is fed each record with the input it holds and the outputs the
table's rules gave for it (what the projection of the journal says), and answers the
significant events in it, in order. The same journal always gives the same events, so
``station events``, the floor feed and the station's metrics agree.

Most events are one record's own: a lid opened, a start with what it found of the run before,
a refused PIN. Only the devices need a memory, and it is the table's: a device that faults
while already faulted is not lost twice, and what brings it back (its door closed, its link
up) depends on what took it away. A deriver starting in the middle of a journal takes that
memory from where the table stood (:meth:`SignificantDeriver.resumed`, from a snapshot).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from station.core import outputs as out
from station.core.stop_steps import SELF_TEST
from station.events import (
    AccessDenied,
    DeviceBooted,
    DeviceEvent,
    DiskSpace,
    Event,
    JournalOutage,
    LidClosed,
    LidOpened,
    ShufflerState,
    ShufflerStatus,
    SignInRefused,
    StationStarted,
    StationStopped,
)
from station.journal import JournalRecord
from station.significant.codes import CODES

if TYPE_CHECKING:
    from station.core.snapshot import TableSnapshot

#: The journal record a new journal starts with (station/service/setup.py).
CONFIGURATION = "Configuration"
#: The fault a shuffler's open door is (station/core/shoe_steps.py words it so).
DOOR_OPEN = f"shuffler {ShufflerState.DOOR_OPEN.value}"


@dataclass(frozen=True)
class SignificantEvent:
    """One event of the log: ``seq`` is the journal record it comes from, ``time`` when it
    happened (UTC; the record's own time, or the moment the record says, such as the start of
    a journal outage), ``device`` the part of the station it concerns."""

    seq: int
    time: str
    code: str
    device: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def family(self) -> str:
        return CODES[self.code].family

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "time": self.time, "code": self.code, "family": self.family,
                "device": self.device, "text": self.text, "data": dict(self.data)}


class SignificantDeriver:
    """Significant events from records, in journal order; see the module's description."""

    def __init__(self, faulted: Mapping[str, str] | None = None) -> None:
        #: Devices lost or faulted now: the fault each went down with.
        self._faulted: dict[str, str] = dict(faulted or {})

    @classmethod
    def resumed(cls, table: TableSnapshot) -> SignificantDeriver:
        """A deriver for the records after the table stands as ``table`` says (the devices down
        then, and what took each down)."""
        return cls(dict(table.faulted))

    def take(self, record: JournalRecord, event: Event | None,
             outputs: Iterable[out.Output]) -> list[SignificantEvent]:
        found: list[SignificantEvent] = []

        def add(code: str, device: str, text: str, time: str = "", data: dict[str, Any] | None = None,
                **fields: Any) -> None:
            found.append(SignificantEvent(record.seq, time or record.time, code, device, text,
                                          {**(data or {}), **fields}))

        if event is None:
            if record.kind == CONFIGURATION:
                table = record.payload.get("table")
                rules: dict[str, Any] = {k: table.get(k) for k in ("game", "variant", "equipment", "decks")} \
                    if isinstance(table, dict) else {}
                add("configuration_opened", "station", "a journal begun under the table's configuration: "
                    + ", ".join(f"{k} {v}" for k, v in rules.items() if v is not None), data=rules)
            return found
        self._from_input(event, add)
        for output in outputs:
            self._from_output(output, event, add)
        return found

    # --- inputs that are events in themselves ---------------------------------------------

    def _from_input(self, event: Event, add: Any) -> None:
        if isinstance(event, StationStarted):
            _started(event, add)
        elif isinstance(event, StationStopped):
            add("station_stopped", "station", f"the station stopped in order ({event.reason})", reason=event.reason)
        elif isinstance(event, LidOpened):
            add("shoe_lid_opened", event.device, f"the {event.device}'s lid was opened")
        elif isinstance(event, LidClosed):
            add("shoe_lid_closed", event.device, f"the {event.device}'s lid was closed")
        elif isinstance(event, DeviceBooted):
            why = f": {event.reason}" if event.reason else ""
            add("device_rebooted", event.device, f"the {event.device} started afresh{why}", reason=event.reason)
        elif isinstance(event, JournalOutage):
            seconds = event.waited_ms / 1000
            add("journal_unwritable", "journal", f"the journal could not be written: {event.reason}",
                time=event.since, reason=event.reason)
            add("journal_writable", "journal", f"the journal could be written again after {seconds:.1f} s",
                waited_ms=event.waited_ms)
        elif isinstance(event, DiskSpace):
            data = {"free_mb": event.free_mb, "threshold_mb": event.threshold_mb}
            if event.low:
                add("disk_low", "journal", f"{event.free_mb} MB free for the journal (warning below "
                    f"{event.threshold_mb} MB)", time=event.at, data=data)
            else:
                add("disk_space_back", "journal", f"{event.free_mb} MB free for the journal again", time=event.at,
                    data=data)
        elif isinstance(event, SignInRefused):
            who = f" for {event.claimed!r}" if event.claimed else ""
            times = f" ({event.attempts} refusals)" if event.attempts > 1 else ""
            add("access_denied", event.door, f"refused at the {event.door}{who}: {event.reason}{times}",
                reason=event.reason, claimed=event.claimed, attempts=event.attempts, role="", who="", command="")
        elif isinstance(event, AccessDenied):
            actor = event.actor
            add("access_denied", "control", f"{actor.role} {actor.who} may not use '{event.command}'",
                reason="role", claimed=actor.who, attempts=1, role=actor.role, who=actor.who, command=event.command)

    # --- what the table's rules made of an input ------------------------------------------

    def _from_output(self, output: out.Output, event: Event, add: Any) -> None:
        if isinstance(output, out.DeviceFaulted):
            if output.device in self._faulted:
                return  # faulted already: the same outage, not a new one
            self._faulted[output.device] = output.reason
            device = output.device
            if output.reason == DOOR_OPEN:
                add("shuffler_door_opened", device, f"the {device}'s door was opened")
            elif isinstance(event, ShufflerStatus) or output.code == SELF_TEST:
                add("device_fault", device, f"the {device} is not working: {output.reason}", reason=output.reason,
                    fault=output.code)
            else:
                add("device_lost", device, f"the {device} was lost: {output.reason}", reason=output.reason,
                    fault=output.code)
        elif isinstance(output, out.DeviceBack):
            reason = self._faulted.pop(output.device, None)
            if reason == DOOR_OPEN:
                add("shuffler_door_closed", output.device, f"the {output.device}'s door was closed")
            elif reason is not None:
                add("device_back", output.device, f"the {output.device} works again (it had: {reason})",
                    reason=reason)
        elif isinstance(output, out.AlertRaised):
            device = event.device if isinstance(event, DeviceEvent) else ("monitor" if output.source == "monitor"
                                                                         else "station")
            code = "deck_check_failed" if output.code == "deck_check_failed" else (
                "integrity_alarm" if output.severity == "alarm" else "integrity_alert")
            add(code, device, output.detail, alert=output.code, ident=output.ident, severity=output.severity,
                stopped=output.stop, alert_round=output.round_id)
        elif isinstance(output, out.RoundCorrected):
            add("correction", "control", f"round {output.round_id} corrected by {output.role} {output.who}: "
                f"{output.reason}", corrected_round=output.round_id, house_before=output.house_before,
                house_after=output.house_after, role=output.role, who=output.who)
        elif isinstance(output, out.DealerChanged):
            relieved = f", relieving {output.relieved}" if output.relieved else ""
            burn = "; one card to burn before their first round" if output.burn else ""
            text = f"{output.dealer} took the table{relieved}{burn}" if output.dealer else \
                f"{output.relieved} left the table; nobody deals until the next sign-in"
            add("dealer_change", output.door or "control", text,
                dealer=output.dealer, relieved=output.relieved, round_id=output.round_id, burn=output.burn,
                role=output.role, who=output.who)


def _started(event: StationStarted, add: Any) -> None:
    """A start: how the run before ended, and what changed since."""
    rebooted = bool(event.previous_boot_id) and event.boot_id != event.previous_boot_id
    data: dict[str, Any] = {"version": event.version, "pid": event.pid,
                            "power_loss": event.previous_stop == "unclean" and rebooted}
    if event.previous_stop == "none":
        add("start_new_journal", "station", f"dealing-station {event.version} started on a new journal", data=data)
    elif event.previous_stop == "clean":
        add("start_after_clean_stop", "station", f"dealing-station {event.version} started; the last run had "
            "stopped in order", data=data)
    elif event.previous_stop == "unclean":
        how = ("the PC itself restarted (a power loss or a reset)" if rebooted
               else "the station's process ended without stopping (killed or crashed)")
        add("start_after_unclean_stop", "station", f"dealing-station {event.version} started after an unclean stop: "
            f"{how}", data=data)
    else:
        add("start_after_unknown_stop", "station", f"dealing-station {event.version} started; how the last run "
            "ended was not journaled", data=data)
    if event.previous_version and event.previous_version != event.version:
        add("software_version_changed", "station", f"software {event.previous_version} -> {event.version}",
            previous=event.previous_version, version=event.version)
    if event.previous_configuration_sha256 and event.previous_configuration_sha256 != event.configuration_sha256:
        add("configuration_changed", "station", "the configuration file differs from the last run's",
            previous_sha256=event.previous_configuration_sha256, sha256=event.configuration_sha256)


def feed_body(event: SignificantEvent, zone_name: str) -> dict[str, Any]:
    """The event as the floor feed's ``significant`` message says it (its schema:
    ``station/floor/schemas/significant.schema.json``): ``at`` is when it happened, in UTC and
    in the table's zone (``local_time``, ``timezone``)."""
    from station.localtime import local_time, timezone_problem, zone

    name = zone_name if zone_name and not timezone_problem(zone_name) else "UTC"
    return {"code": event.code, "family": event.family, "device": event.device, "text": event.text,
            "at": event.time, "local_time": local_time(event.time, zone(name)), "timezone": name,
            "data": dict(event.data)}
