"""The integrity report of a journal: per shoe, the composition account, the edge curve, the
tests with their p-values, the deck checks and the alerts (``station integrity report``).

The journal is read from its first record (:class:`~station.core.history.History`), read-only, and
the very monitor the station runs (:class:`~station.integrity.monitor.IntegrityMonitor`) is fed them:
the figures are the ones the station computed live, and the alerts are the journal's own (the
register replay rebuilds), with who acknowledged them.
"""

from __future__ import annotations

import os
from typing import Any

from station.core import outputs as out
from station.core.history import History
from station.core.options import CoreOptions
from station.integrity.monitor import IntegrityMonitor, IntegritySettings, ShoeRecord


def integrity_report(path: str | os.PathLike[str], options: CoreOptions,
                     settings: IntegritySettings | None = None) -> dict[str, Any]:
    """Every shoe of the journal at ``path`` (see :meth:`ShoeRecord.to_json`), with its deck
    checks and alerts, and the alerts of no shoe (``"other_alerts"``)."""
    history = History(path, options)  # the archives of its first records too
    monitor = IntegrityMonitor(options, settings, keep_shoes=True)
    checks: list[dict[str, Any]] = []
    for step in history.steps():
        for output in step.outputs:
            if isinstance(output, IntegrityMonitor.KINDS):
                monitor.feed(output)
            elif isinstance(output, out.DeckChecked):
                checks.append({"shoe_after": history.table.shoe, "set": output.set_colour,
                               "passed": output.passed, "detail": output.detail, "counted": output.counted,
                               "expected": output.expected})
    shoes: list[ShoeRecord] = list(monitor.shoes)
    if monitor.shoe is not None and not monitor.shoe.ended:
        shoes.append(monitor.shoe)
    alerts = [a.to_json() for a in history.alerts()]
    report_shoes = []
    for record in shoes:
        item = record.to_json()
        item["alerts"] = [a for a in alerts if a["shoe"] == record.shoe]
        item["deck_checks"] = [c for c in checks if c["shoe_after"] in (record.shoe - 1, record.shoe)]
        report_shoes.append(item)
    numbers = {r.shoe for r in shoes}
    return {"game": options.game, "decks": options.decks, "equipment": options.equipment,
            "shoes": report_shoes, "other_alerts": [a for a in alerts if a["shoe"] not in numbers],
            "alert_counts": dict(history.table.alert_counts)}


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
