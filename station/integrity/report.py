"""The integrity report of a journal: per shoe, the composition account, the edge curve, the
tests with their p-values, the deck checks and the alerts (``station integrity report``).

The journal is read through the one reader of history (:class:`~station.core.history.History`),
read-only, and the very monitor the station runs (:class:`~station.integrity.monitor.IntegrityMonitor`)
is fed its outputs: the figures are the ones the station computed live, and the alerts are the
journal's own (the register replay rebuilds), with who acknowledged them. The whole report reads
from the first record; one shoe (:func:`shoe_report`) reads only the stretch around it, from
the checkpoint before it and the monitor's checkpoint beside that one
(:class:`~station.core.landmarks.Landmarks`), so it costs the same on a year-old table as on
a new one. Under a continuous shuffler the "shoe" is the shuffler's session: its report is
that session's whole history.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from station.core import outputs as out
from station.core.history import History
from station.core.landmarks import TRIES, Landmarks
from station.core.options import CoreOptions
from station.events import AlertAcknowledged
from station.integrity.monitor import IntegrityMonitor, IntegritySettings, ShoeRecord
from station.integrity.monitor_state import restore_monitor, settings_json
from station.integrity.service import INTEGRITY_CHECKPOINT


def integrity_report(path: str | os.PathLike[str], options: CoreOptions,
                     settings: IntegritySettings | None = None, *,
                     progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Every shoe of the journal at ``path`` (see :meth:`ShoeRecord.to_json`), with its deck
    checks and alerts, and the alerts of no shoe (``"other_alerts"``), read from the first
    record (the archives of its first records too)."""
    history = History(path, options, progress=progress)
    monitor = IntegrityMonitor(options, settings, keep_shoes=True)
    report, _ = _report(history, monitor, options)
    return report


def shoe_report(path: str | os.PathLike[str], options: CoreOptions, settings: IntegritySettings | None,
                shoe: int) -> dict[str, Any]:
    """Shoe ``shoe`` of the journal as :func:`integrity_report` gives it (``shoes`` holds it
    alone, or nothing; ``other_alerts`` is empty), read from the checkpoint before the shoe
    before it opened (its deck checks are made between the shoes) until the next shoe opens,
    with the monitor's own checkpoint beside that one. Its alerts are those raised in that
    stretch and those of the shoe the table's register holds now, each acknowledged as the
    register says, or (one the register no longer keeps) as the acknowledgement found through
    the journal's index says (:func:`_acknowledged`)."""
    settings = settings or IntegritySettings()
    with Landmarks(path, options) as marks:
        history, monitor = _monitor_before(marks, options, settings, marks.before_round(shoe - 1, 1))
        monitor.keep_shoes = True
        started_after = history.seq
        report, raised = _report(history, monitor, options, until_shoe=shoe)
        now = marks.history(len(marks) - 1)
        now.replay()
        kept = {a.ident: a.to_json() for a in now.alerts()}
        ours = {ident: alert for ident, alert in raised.items() if alert["shoe"] == shoe}
        ours.update({ident: alert for ident, alert in kept.items() if alert["shoe"] == shoe})
        for ident, alert in ours.items():
            if alert["acknowledged"] is None and ident not in kept:
                alert["acknowledged"] = _acknowledged(marks, ident, started_after)
        report["alert_counts"] = dict(now.table.alert_counts)
    report["shoes"] = [s for s in report["shoes"] if s["shoe"] == shoe]
    for item in report["shoes"]:
        item["alerts"] = [ours[ident] for ident in sorted(ours)]
    report["other_alerts"] = []
    return report


def _acknowledged(marks: Landmarks, ident: int, after: int) -> dict[str, str] | None:
    """Who acknowledged alert ``ident`` (raised after record ``after``), as the table's rules
    took it: each acknowledgement naming it, oldest first, found through the journal's index,
    is taken again from the checkpoint before it, until one is applied."""
    for seq in marks.inputs_of_kind(AlertAcknowledged.kind, after, ident=ident):
        history = marks.history(marks.before_seq(seq))
        for step in history.steps(until=seq):
            if step.record.seq != seq:
                continue
            for output in step.outputs:
                if isinstance(output, out.AlertCleared) and output.ident == ident:
                    return {"role": output.role, "who": output.who, "note": output.note}
    return None


def _monitor_before(marks: Landmarks, options: CoreOptions, settings: IntegritySettings,
                    index: int) -> tuple[History, IntegrityMonitor]:
    """The history from landmark ``index`` (or an older one) with the integrity monitor as it
    stood there under ``settings`` (its checkpoint beside the landmark); from the first record
    with a new monitor when none serves."""
    wanted = settings_json(settings)
    for _ in range(TRIES):
        if index < 0:
            break
        history = marks.history(index)
        if history.checkpoint_seq == 0:
            break
        index = marks.index_of(history.checkpoint_seq)
        beside = marks.beside(index, INTEGRITY_CHECKPOINT)
        payload = beside.payload if beside is not None else {}
        if payload.get("checkpoint") == history.checkpoint_seq and payload.get("settings") == wanted:
            try:
                return history, restore_monitor(options, settings, payload["monitor"])
            except (KeyError, TypeError, ValueError):
                pass  # another layout or damaged: an older one
        index -= 1
    return History(marks.journal, options), IntegrityMonitor(options, settings, keep_shoes=True)


def _report(history: History, monitor: IntegrityMonitor, options: CoreOptions,
            until_shoe: int | None = None) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The report of the records ``history`` has yet to take (to the end, or until a shoe
    after ``until_shoe`` opens), fed to ``monitor``, with the alerts raised in them (as each
    was raised, then acknowledged); and those alerts by number. The table's register keeps
    only the latest acknowledged alerts, so they are heard as they come, not read from it at
    the end."""
    checks: list[dict[str, Any]] = []
    raised: dict[int, dict[str, Any]] = {}
    for step in history.steps():
        if until_shoe is not None and history.table.shoe > until_shoe:
            break
        for output in step.outputs:
            if isinstance(output, IntegrityMonitor.KINDS):
                monitor.feed(output)
            if isinstance(output, out.AlertRaised):
                raised[output.ident] = next(a.to_json() for a in history.alerts() if a.ident == output.ident)
            elif isinstance(output, out.AlertCleared) and output.ident in raised:
                raised[output.ident]["acknowledged"] = {"role": output.role, "who": output.who, "note": output.note}
            elif isinstance(output, out.DeckChecked):
                checks.append({"shoe_after": history.table.shoe, "set": output.set_colour,
                               "passed": output.passed, "detail": output.detail, "counted": output.counted,
                               "expected": output.expected})
    shoes: list[ShoeRecord] = list(monitor.shoes)
    if monitor.shoe is not None and not monitor.shoe.ended:
        shoes.append(monitor.shoe)
    alerts = [raised[ident] for ident in sorted(raised)]
    report_shoes = []
    for record in shoes:
        item = record.to_json()
        item["alerts"] = [a for a in alerts if a["shoe"] == record.shoe]
        item["deck_checks"] = [c for c in checks if c["shoe_after"] in (record.shoe - 1, record.shoe)]
        report_shoes.append(item)
    numbers = {r.shoe for r in shoes}
    return {"game": options.game, "decks": options.decks, "equipment": options.equipment,
            "shoes": report_shoes, "other_alerts": [a for a in alerts if a["shoe"] not in numbers],
            "alert_counts": dict(history.table.alert_counts)}, raised


def describe_shoe(shoe: dict[str, Any]) -> str:
    """One shoe of the report in words for a terminal."""
    account = shoe["account"]
    lines = [f"Shoe {shoe['shoe']}" + (f" ({shoe['set_colour']} set)" if shoe["set_colour"] else "")
             + ("" if shoe["ended"] else "  (in play)")]
    left = account["left_unread"]
    lines.append(f"  cards        {account['read']} read of {account['expected']}"
                 + (f", {left} left unread" if left is not None else "")
                 + (", the shoe reported empty" if account["emptied"] else ""))
    if account["beyond_decks"]:
        lines.append(f"  beyond decks {account['beyond_decks']}")
    for check in shoe["deck_checks"]:
        lines.append(f"  deck check   {check['set'] or 'set'}: {'passed' if check['passed'] else 'FAILED'}: "
                     f"{check['detail']}")
    lines.append(f"  first cards  {' '.join(shoe['first_cards'])}")
    order = shoe["order"]
    if order is not None:
        cycles = " ".join(f"{k}:{v}" for k, v in order["suit_cycles"].items())
        lines.append(f"  order        suited steps {order['suited_steps']}, rank steps up {order['rank_steps_up']} "
                     f"down {order['rank_steps_down']}, suit cycles {cycles}"
                     + (f": {'; '.join(order['found'])}" if order["found"] else ": none"))
    if shoe["repeat"] is not None:
        r = shoe["repeat"]
        lines.append(f"  repeat       {r['length']} cards as in shoe {r['shoe']}")
    results = [r for r in shoe["results"] if r]
    if results:
        counts = {k: results.count(k) for k in sorted(set(results))}
        lines.append(f"  results      {len(results)} rounds: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    edges = shoe["edges"]
    if edges:
        keys = list(edges[0]["house_edge_percent"])
        lines.append("  edges (house edge %, after each round; - favours the players)")
        lines.append("    " + f"{'round':<8}{'left':>5}" + "".join(f"{k:>22}" for k in keys))
        step = max(1, len(edges) // 12)
        lowest = {_lowest(edges, k) for k in keys}  # where each wager was best for the players
        shown = sorted(set(range(0, len(edges), step)) | {len(edges) - 1} | lowest)
        for i in shown:
            point = edges[i]
            lines.append("    " + f"{point['round_id'] or 'start':<8}{point['cards_left']:>5}"
                         + "".join(f"{point['house_edge_percent'].get(k, 0.0):>22.4f}" for k in keys))
    for test in shoe["tests"]:
        p = test["p_value"]
        lines.append(f"  test         {test['test']}: statistic {test['statistic']}, "
                     + (f"p = {p:.4g}" if p is not None else "not made") + f" ({test['note']})")
    for alert in shoe["alerts"]:
        seen = alert["acknowledged"]
        ack = f"; acknowledged by {seen['who'] or seen['role']}" + (f": {seen['note']}" if seen["note"] else "") \
            if seen else "; not acknowledged"
        where = alert["round_id"] or "-"
        lines.append(f"  {alert['severity'].upper():<12} #{alert['ident']} {alert['code']} ({where}): "
                     f"{alert['detail']}{ack}")
    return "\n".join(lines)


def _lowest(edges: list[dict[str, Any]], key: str) -> int:
    values = [point["house_edge_percent"].get(key, 0.0) for point in edges]
    return values.index(min(values))
