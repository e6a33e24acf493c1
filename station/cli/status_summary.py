"""``station ctl status`` for a person: a few lines saying where the table is and what is wrong.

The station answers ``status`` with one JSON object of every reading (``--json`` prints it
as it is, for programs). A supervisor at the table wants to know, at a glance: the state and
what the station expects next, the shoe and round, which devices are there, and anything open
(an irregularity, a fault, an integrity alarm, a journal that cannot be written, a disk
running out). Times are shown in the table's zone (``[table] timezone``, read from the
Configuration record of the journal the station writes, as ``station recall`` reads it);
where that journal cannot be read, in UTC, saying so, never as a local time guessed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from station.games.limits import limits_words
from station.localtime import local_time, timezone_problem, zone
from station.money import Money

UTC_ZONE = ZoneInfo("UTC")


def _table_section(journal: str) -> dict[str, Any]:
    """The ``[table]`` section of the configuration the journal was written under ({} when
    it cannot be read)."""
    from station.config.options import CONFIGURATION_RECORD
    from station.journal.store import JournalError, JournalReader

    try:
        with JournalReader(Path(journal)) as reader:
            record = reader.last_of_kind(CONFIGURATION_RECORD)
    except (JournalError, OSError):
        return {}
    table = record.payload.get("table") if record is not None else None
    return table if isinstance(table, dict) else {}


def table_zone(journal: str) -> ZoneInfo:
    """The zone the journal's table is configured in (UTC when it cannot be read)."""
    name = _table_section(journal).get("timezone")
    if not isinstance(name, str) or timezone_problem(name) is not None:
        return UTC_ZONE
    return zone(name)


def table_money(journal: str) -> Money:
    """How the journal's table writes amounts (two digits, no currency when it cannot be read)."""
    table = _table_section(journal)
    digits, currency = table.get("minor_digits", 2), table.get("currency", "")
    return Money(digits if isinstance(digits, int) else 2, currency if isinstance(currency, str) else "")


def summary(status: dict[str, Any], tz: ZoneInfo | None = None, now: datetime | None = None) -> str:
    """The status in a few lines, worst news included, times in ``tz`` (the table's zone)."""
    tz = tz if tz is not None else table_zone(str(status.get("journal") or ""))
    moment = (now or datetime.now(UTC)).astimezone(UTC).isoformat().replace("+00:00", "Z")
    lines = [f"{status.get('table', 'table')}: {status.get('state', '?')} (as of {local_time(moment, tz)})",
             f"  expects:  {status.get('expecting') or '-'}",
             f"  shoe {status.get('shoe') or '-'}, round {status.get('round') or '-'}",
             f"  dealer:   {status.get('dealer') or 'nobody signed in'}"]
    lines.extend(_limits_lines(status))
    paused = status.get("paused_by")
    if paused:
        who = " ".join(part for part in (paused.get("role"), paused.get("who")) if part) or "a supervisor"
        lines.append(f"  PAUSED by {who}" + (f": {paused['reason']}" if paused.get("reason") else ""))
    devices = status.get("devices") or {}
    faulted = status.get("faulted") or {}
    lines.append("  devices:  " + (", ".join(
        f"{name} {'connected' if state == 'connected' else state.upper()}"
        + (f" (fault: {faulted[name]})" if name in faulted else "")
        for name, state in sorted(devices.items())) or "none"))
    irregularity = status.get("irregularity")
    if irregularity:
        lines.append(f"  IRREGULARITY: {irregularity.get('reason')}: {irregularity.get('detail')}; "
                     f"decide: {', '.join(irregularity.get('decisions') or []) or '-'}")
    alerts = (status.get("integrity") or {}).get("alerts") or []
    open_count = (status.get("integrity") or {}).get("alerts_open", len(alerts))
    if open_count:
        shown = "; ".join(f"#{a.get('ident')} {a.get('severity')} {a.get('code')}: {a.get('detail')}"
                          for a in alerts[-3:])
        lines.append(f"  ALARMS:   {open_count} open ({shown}); `station ctl send ack --set ident=N` after checking")
    lines.extend(_journal_lines(status, tz))
    return "\n".join(lines)


def _limits_lines(status: dict[str, Any]) -> list[str]:
    """The limits in force, and those waiting for the next round (docs/limits.md)."""
    limits, waiting = status.get("limits"), status.get("next_limits")
    if not isinstance(limits, dict) or "min_bet" not in limits:
        return []
    money = table_money(str(status.get("journal") or ""))
    lines = [f"  limits:   {limits_words(limits, money)}"]
    if isinstance(waiting, dict) and "min_bet" in waiting:
        lines.append(f"  NEXT ROUND limits: {limits_words(waiting, money)} (by {waiting.get('by') or '-'})")
    tray = status.get("tray")
    if isinstance(tray, dict) and "ledger" in tray:
        state = "open" if tray.get("open") else "closed"
        drop = f"drop {money(tray.get('drop', 0))}" if tray.get("drop_counted") else "drop not counted"
        by_antenna = [str(e.get("kind")) for e in tray.get("entries") or () if e.get("counted_by") == "reader"]
        lines.append(f"  tray:     opening {tray['ledger']} {state}: opener {money(tray.get('opener', 0))}, fills "
                     f"{money(tray.get('fill', 0))}, credits {money(tray.get('credit', 0))}, closer "
                     f"{money(tray.get('closer', 0))}, {drop}"
                     + (f"; {' and '.join(by_antenna)} counted by the tray antenna" if by_antenna else ""))
    progressive = status.get("progressive")
    if isinstance(progressive, dict) and "meter" in progressive:
        pool = progressive.get("pool", "")
        shared = f", shared with {', '.join(progressive['tables'])}" if progressive.get("tables") else ""
        lines.append(f"  progressive: {pool} meter {money(progressive['meter'])}{shared}")
        pending = progressive.get("pending")
        if isinstance(pending, dict):
            won = ", ".join(f"box {a['box']} {a['player']} {money(a['amount'])}" for a in pending.get("awards", []))
            lines.append(f"  JACKPOT of round {pending.get('round_id')}: {won}; waits for a supervisor's sign-off "
                         "(ctl send progressive-sign-off)")
    return lines + _chip_lines(status.get("chips"), money)


def _chip_lines(chips: Any, money: Money) -> list[str]:
    """A table that reads its chips: the chips on each place, each box's payment, a wrong one."""
    if not isinstance(chips, dict):
        return []
    on = [f"{place['words']} {money(place['amount'])}" for place in chips.get("places", {}).values() if place["chips"]]
    lines = [f"  chips:    {', '.join(on) or 'none on the layout'}" + (" (locked at no more bets)"
                                                                      if chips.get("locked") else "")]
    lines += [f"  payment:  {check['text']}" for check in chips.get("payment", [])]
    if chips.get("hold"):
        lines.append(f"  WRONG PAYMENT of round {chips['hold']} holds the table: put it right in the payout zone, or "
                     "a supervisor accepts it (ctl send accept-payment)")
    return lines


def _journal_lines(status: dict[str, Any], tz: ZoneInfo) -> list[str]:
    """The journal, the disk under it and the floor feed: said only when something is wrong,
    besides the journal's path and latest anchor."""
    lines = []
    if status.get("journal_writable") is False:
        lines.append(f"  JOURNAL NOT WRITABLE: {status.get('journal_error')} (the table waits; nothing is lost)")
    disk = status.get("disk") or {}
    if disk.get("low"):
        lines.append(f"  DISK LOW: {disk.get('free_mb')} MB free under the journal")
    inputs = status.get("inputs") or {}
    if inputs.get("failed_to_apply") or inputs.get("not_journalable"):
        lines.append(f"  inputs that failed: {inputs.get('failed_to_apply', 0)} could not be applied, "
                     f"{inputs.get('not_journalable', 0)} could not be journaled")
    floor = status.get("floor")
    if isinstance(floor, dict) and (not floor.get("connected") or floor.get("error")):
        lines.append(f"  FLOOR FEED: {'error: ' + str(floor['error']) if floor.get('error') else 'not connected'}"
                     f", {floor.get('backlog_records', 0)} records waiting")
    anchor = status.get("anchor")
    where = f"  journal:  {status.get('journal')}"
    if isinstance(anchor, dict) and anchor.get("time"):
        where += f" (anchored at seq {anchor.get('seq')}, {local_time(str(anchor['time']), tz)})"
    lines.append(where)
    return lines
