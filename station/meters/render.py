"""The meters as a pit reads them on paper: one block per gaming day, money in the currency,
times in the table's zone (``station meters`` without ``--json``)."""

from __future__ import annotations

from typing import Any

from station.games.registry import region_words
from station.localtime import local_time, zone
from station.money import format_amount

#: The columns of a block: heading, figure, whether it is money.
_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("rounds", "rounds", False),
    ("per hour", "rounds_per_hour", False),
    ("open", "open_us", False),
    ("voided", "voided_rounds", False),
    ("bets", "bets", False),
    ("stakes", "stakes", True),
    ("house", "house", True),
    ("commission", "commission", True),
    ("void parts", "void_parts_returned", True),
    ("voided back", "voided_returned", True),
    ("corr.", "corrections", False),
    ("refused", "refusals", False),
    ("irreg.", "irregularities", False),
    ("alarms", "integrity_alarms", False),
)


def _open_time(micros: int) -> str:
    """Open time as hours and minutes: ``7:05``."""
    minutes = micros // 60_000_000
    return f"{minutes // 60}:{minutes % 60:02d}"


def _cell(figures: dict[str, Any], name: str, money: bool, digits: int) -> str:
    value = figures[name]
    if money:
        return format_amount(int(value), digits)
    if name == "open_us":
        return _open_time(int(value))
    if name == "rounds_per_hour":
        return "-" if value is None else f"{value:.1f}"
    if isinstance(value, dict):
        return str(sum(value.values()))
    return str(value)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) or "none"


#: The width a report is written to when no terminal says otherwise (a pit's printer, a mail).
WIDTH = 100


def _table(rows: list[tuple[str, dict[str, Any]]], digits: int, width: int = WIDTH) -> list[str]:
    """The rows' figures in columns; where they do not fit in ``width`` characters, the columns
    go on in a second table under the first (and a third), each with the rows' labels."""
    cells = [[label, *(_cell(f, name, money, digits) for _, name, money in _COLUMNS)] for label, f in rows]
    header = ["", *(heading for heading, _, _ in _COLUMNS)]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    groups: list[list[int]] = [[]]
    used = widths[0]
    for column in range(1, len(header)):
        if groups[-1] and used + 2 + widths[column] > width:
            groups.append([])
            used = widths[0]
        groups[-1].append(column)
        used += 2 + widths[column]

    def line(row: list[str], columns: list[int]) -> str:
        return "  ".join([row[0].ljust(widths[0]), *(row[c].rjust(widths[c]) for c in columns)]).rstrip()

    lines: list[str] = []
    for number, columns in enumerate(groups):
        if number:
            lines.append("")
        lines += [line(header, columns), *(line(row, columns) for row in cells)]
    return lines


def render(report: dict[str, Any], width: int = WIDTH) -> str:
    """The whole report as text, its tables no wider than ``width`` characters."""
    table = report["table"]
    tz = zone(table["timezone"])
    digits = int(table["minor_digits"])
    money = f"money in {table['currency']}" if table["currency"] else "money in the table's currency (none configured)"
    blocks: list[str] = []
    if not report["days"]:
        return f"no play in {report['journal']}"
    for day in report["days"]:
        blocks.append("\n".join(_day(day, report, tz, digits, money, width)))
    return "\n\n".join(blocks)


def _limits_played(rounds_by_limits: dict[str, int], digits: int) -> str:
    """ "10.00 - 5,000.00 (40 rounds), 25.00 - 5,000.00 (12 rounds)", lowest minimum first."""
    played = sorted((tuple(int(part) for part in key.split("-")), count) for key, count in rounds_by_limits.items())
    return ", ".join(f"{format_amount(low, digits)} - {format_amount(high, digits)} ({count} rounds)"
                     for (low, high), count in played) or "-"


def _inventory(totals: dict[str, Any], digits: int) -> list[str]:
    """The chip tray's day: "tray: opener 20,000.00, fills 2,000.00, ...", then "win 1,234.00,
    hold 12.34%, variance -25.00 from the rounds' house result" (docs/tray.md); the entries the
    tray antenna counted, when it did ("counted by the tray antenna: opener 1, closer 1")."""
    tray = totals["tray"]
    parts = [f"{name} {format_amount(tray.get(kind, 0), digits)}" for kind, name in (
        ("opener", "opener"), ("fill", "fills"), ("credit", "credits"), ("closer", "closer"), ("drop", "drop"))]
    lines = ["tray: " + ", ".join(parts)]
    if totals["win"] is None:
        lines.append("  no win by inventory without an opener and a closer")
    else:
        hold = "-" if totals["hold_percent"] is None else f"{totals['hold_percent']:.2f}%"
        variance = format_amount(totals["variance"], digits)
        flag = "" if totals["variance"] == 0 else " VARIANCE"
        lines.append(f"  win {format_amount(totals['win'], digits)}, hold {hold}, variance {variance} from the "
                     f"rounds' house result{flag}")
    by_reader = totals.get("tray_by_reader") or {}
    if by_reader:
        lines.append("  counted by the tray antenna: " + ", ".join(
            f"{kind} {by_reader[kind]}" for kind in ("opener", "closer") if by_reader.get(kind)))
    return lines


def _chip_words(chips: dict[str, int], digits: int) -> list[str]:
    """A part's chips in words (docs/meters.md): "past-posting 1 (100.00)", ..., "wrong payments
    1 (paid over 0.00, under 9.00)", "accepted by a supervisor 1"; nothing of a kind not counted."""
    words = [f"{name} {chips[kind]} ({format_amount(chips.get(f'{kind}_amount', 0), digits)})"
             for kind, name in (("past_posting", "past-posting"), ("pinching", "pinching"),
                                ("left_on_losing_spot", "left on a losing spot")) if chips.get(kind)]
    if chips.get("wrong_payments"):
        words.append(f"wrong payments {chips['wrong_payments']} (paid over "
                     f"{format_amount(chips.get('paid_over', 0), digits)}, under "
                     f"{format_amount(chips.get('paid_under', 0), digits)})")
    if chips.get("payments_accepted"):
        words.append(f"accepted by a supervisor {chips['payments_accepted']}")
    return words


def _chips(rows: list[tuple[str, dict[str, Any]]], digits: int, width: int) -> list[str]:
    """The chips moved after no more bets and the wrong payments (docs/chips.md), for the day and
    each of its rows that had any, each row's words going on in lines no wider than ``width``
    where they can."""
    lines = ["chips moved and payments checked:"]
    for label, figures in rows:
        words = _chip_words(figures["chips"], digits)
        if not words:
            continue
        line = f"  {label}: {words[0]}"
        for word in words[1:]:
            if len(line) + 2 + len(word) > width:
                lines.append(line + ",")
                line = f"    {word}"
            else:
                line += f", {word}"
        lines.append(line)
    return lines


def _when(text: str, tz: Any) -> str:
    return local_time(text, tz, seconds=False) if text else "-"


def _day(day: dict[str, Any], report: dict[str, Any], tz: Any, digits: int, money: str, width: int) -> list[str]:
    table = report["table"]
    whose = f", dealer {report['dealer']}" if report["dealer"] is not None else ""
    lines = [
        f"Gaming day {day['gaming_day']}{whose}: {_when(day['begins'], tz)} to {_when(day['ends'], tz)} "
        f"({table['timezone']})",
        f"{table['game']}, {money}",
    ]
    totals = day["totals"]
    if not totals["rounds"] and not totals["refusals"] and not totals["irregularities"] and not day["sessions"]:
        lines.append("no play on this gaming day")
        return lines
    rows: list[tuple[str, dict[str, Any]]] = [("day", totals)]
    for session in day["sessions"]:
        who = session["dealer"] or "(nobody signed in)"
        span = f"{_when(session['signed_in'], tz)} to {_when(session['relieved'], tz)}" if session["session"] else ""
        rows.append((f"session {session['session']} {who} {span}".rstrip(), session["figures"]))
    if any(d["sessions"] > 1 for d in day["dealers"]):  # a dealer's sessions added up
        rows += [(f"dealer {d['dealer'] or '(nobody)'}", d["figures"]) for d in day["dealers"]]
    rows += [(f"shoe {shoe['shoe']}", shoe["figures"]) for shoe in day["shoes"]]
    lines += _table(rows, digits, width)
    lines.append("")
    lines.append("by region (rounds settled):")
    for name, region in sorted(totals["regions"].items()):  # in words ("Dragon 7"); --json keeps the region
        lines.append(f"  {region_words(name)}: {region['bets']} bets, stakes "
                     f"{format_amount(region['stakes'], digits)}, house {format_amount(region['house'], digits)}")
    lines.append(f"limits played: {_limits_played(totals['rounds_by_limits'], digits)}")
    if totals["tray_entries"]:
        lines += _inventory(totals, digits)
    if totals.get("progressive"):
        p = totals["progressive"]
        lines.append(f"progressive: contributed {format_amount(p.get('contributed', 0), digits)}, "
                     f"{p.get('jackpots', 0)} jackpot(s) paid {format_amount(p.get('paid', 0), digits)} (casino "
                     f"topped {format_amount(p.get('topped', 0), digits)}), {p.get('resets', 0)} reset(s) took "
                     f"{format_amount(p.get('removed', 0), digits)}")
    if totals.get("chips"):
        lines += _chips(rows, digits, width)
    lines.append(f"irregularities: {_counts(totals['irregularities'])}")
    lines.append(f"integrity alarms: {_counts(totals['integrity_alarms'])}; "
                 f"alerts: {_counts(totals['integrity_alerts'])}")
    if totals["corrections"]:
        lines.append(f"corrections moved the house's result by {format_amount(totals['corrected_house'], digits)}")
    return lines
