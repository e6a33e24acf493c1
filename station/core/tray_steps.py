"""The chip tray's ledger: the table's inventory from its opener to its closer (docs/tray.md).

A table opens with an *opener* (the tray counted by denomination, signed by a supervisor and a
witness), receives *fills* from the cage and sends *credits* back (each with its slip number),
and closes with a *closer*; its drop box is counted at close or later, in the count room. Once
the closer and the drop are known the ledger is *reconciled*: the win by inventory

    win = closer - opener + credits - fills + drop

is set beside the house's result from the rounds settled while the table was open (the core's
own ``house_net``, corrections included), and their difference, the *variance*, is what a
mispaid bet or chips gone missing look like. The integrity monitor raises an alarm over
``[integrity] tray_variance``.

An opener or a closer may be counted by the tray antenna of a table that reads its chips
(``counted_by = "reader"``): its counts are the core's own stable read of the tray as it stands
when the count is applied, so a replay counts the same chips (:func:`tray_antenna_count`). A
fill or a credit is the chips brought from or sent to the cage, not the tray: always by hand.

A ledger entry is never changed but by a correction (:class:`~station.events.TrayCorrected`),
journaled with who and why; a correction of a reconciled ledger reconciles it again. The core
keeps the last :data:`LEDGERS_KEPT` ledgers (a correction reaches back that far); the journal
keeps them all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from station.core import outputs as out
from station.core.chip_table import ChipLayout
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.events import DropCounted, Event, TrayCorrected, TrayCounted

#: Kinds of tray count, in the order a table's day has them.
COUNT_KINDS = ("opener", "fill", "credit", "closer")
#: Who counted a tray entry: people, or the tray antenna of the chip reader.
COUNTED_BY = ("hand", "reader")
#: The kinds the tray antenna counts: the whole tray (a fill or a credit is chips brought from or
#: sent to the cage, which no antenna reads apart from the tray's own).
READER_KINDS = ("opener", "closer")
#: Chips that do not count named in a refusal, at most (then how many more).
NAMED_CHIPS = 3
#: Ledgers the core keeps (each is a few entries): the open one, and the closed ones a late drop
#: or a correction may still reach.
LEDGERS_KEPT = 3


def chips_value(chips: Iterable[tuple[int, int]]) -> int:
    """What chips counted by denomination are worth, in minor units."""
    return sum(denomination * count for denomination, count in chips)


def tray_antenna_count(layout: ChipLayout | None, what: str,
                       given: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], str]:
    """The tray's counts by denomination, sorted, as the tray antenna's latest stable read in
    ``layout`` says (each chip at the value it was read with, its status as a supervisor may
    have changed it since), or why the antenna cannot count this ``what`` (empty counts then).

    Only chips in the journal decide it: the stable reads (``ChipsOnPlace``) are journaled
    before the count that takes them, so a replay takes the same chips. A chip that does not
    count (unknown, flagged, retired) refuses the whole count rather than being left out: the
    tray would be counted short of what lies in it."""
    if what not in READER_KINDS:
        cage = "brought from" if what == "fill" else "sent to"
        return (), (f"a {what} is the chips {cage} the cage, not the tray: count it by hand (the tray antenna "
                    f"counts an opener or a closer)")
    if given:
        return (), ("give the counts by hand or count by the tray antenna, not both: leave the chips out to "
                    "count by the antenna")
    if layout is None:
        return (), "this table has no chip reader: count the tray by hand"
    if "tray" not in layout.seen:
        return (), ("the tray antenna has not read the tray (no antenna is under the tray, or its chips are not "
                    "steady yet): count it by hand, or wait until the tray's chips are shown")
    chips = layout.chips("tray")
    bad = [chip for chip in chips if not chip.counts]
    if bad:
        named = ", ".join(f"{chip.uid} is {chip.status_words()}" for chip in bad[:NAMED_CHIPS])
        more = f" and {len(bad) - NAMED_CHIPS} more" if len(bad) > NAMED_CHIPS else ""
        return (), (f"{len(bad)} chip(s) on the tray do not count ({named}{more}): take them off the tray, or "
                    "count it by hand")
    if not chips:
        return (), "the tray antenna reads no chips on the tray: count it by hand"
    return tuple(sorted(Counter(chip.value for chip in chips).items())), ""


class TraySteps(MachineBase):
    """Tray counts, the drop and their corrections."""

    def _tray_signer_problem(self, ev: Event, who: str) -> str:
        actor = getattr(ev, "actor", None)
        if actor is None or actor.role not in SUPERVISOR_ROLES:
            return "only a supervisor signs for the chip tray"
        if not who.strip():
            return "a second signature is needed: name the witness (the dealer, or the runner of a fill)"
        if who.strip() == actor.who:
            return f"the witness must be another person than {actor.who}, who signs"
        return ""

    def _chips_problem(self, chips: tuple[tuple[int, int], ...], kind: str) -> str:
        in_play = set(self.limits.chips)
        if not chips:
            return "count the chips by denomination"
        seen: set[int] = set()
        for denomination, count in chips:
            if denomination not in in_play:
                return (f"{self.table.money.with_currency(denomination)} is not a chip in play "
                        f"({', '.join(self.table.money(c) for c in sorted(in_play))})")
            if denomination in seen:
                return f"the {self.table.money(denomination)} chips are counted twice"
            if count < 0:
                return f"a count of {count} {self.table.money(denomination)} chips: counts are 0 or more"
            seen.add(denomination)
        if kind in ("fill", "credit") and not chips_value(chips):
            return f"a {kind} of no chips"
        return ""

    def _open_ledger(self) -> dict[str, Any] | None:
        last = self.tray_ledgers[-1] if self.tray_ledgers else None
        return last if last is not None and last["closer"] is None else None

    def _on_tray_counted(self, ev: TrayCounted) -> None:
        chips, problem = ev.chips, (
            self._tray_signer_problem(ev, ev.witness)
            or ("" if ev.what in COUNT_KINDS else f"a tray count is an {', '.join(COUNT_KINDS)}, not {ev.what!r}")
            or ("" if ev.counted_by in COUNTED_BY else f"a tray is counted by hand or by the reader (its tray "
                                                         f"antenna), not {ev.counted_by!r}"))
        if not problem and ev.counted_by == "reader":
            chips, problem = tray_antenna_count(self.chip_layout, ev.what, ev.chips)
            if not problem and (read := self._chips_problem(chips, ev.what)):
                problem = f"{read}, as the tray antenna reads the tray"
        problem = problem or self._chips_problem(chips, ev.what)
        if not problem and ev.what in ("fill", "credit") and not ev.slip.strip():
            problem = f"a {ev.what} needs the number of its slip"
        ledger = self._open_ledger()
        if not problem and ev.what == "opener" and ledger is not None:
            problem = f"the table is open (ledger {ledger['ledger']}): count its closer first"
        if not problem and ev.what != "opener" and ledger is None:
            problem = "the table is not open: count its opener first"
        if problem:
            self._refuse(ev, problem)
            return
        if ev.what == "opener":
            self.tray_ledger_count += 1
            ledger = {"ledger": self.tray_ledger_count, "house_at_open": self.house_net, "house": None,
                      "closer": None, "drop": None, "entries": []}
            self.tray_ledgers.append(ledger)
            del self.tray_ledgers[:-LEDGERS_KEPT]
        assert ledger is not None
        entry = self._add_entry(ledger, ev.what, chips_value(chips), chips, ev.slip.strip(),
                                (ev.actor.who, ev.witness.strip()), counted_by=ev.counted_by)
        if ev.what == "closer":
            ledger["closer"] = entry["entry"]
            ledger["house"] = self.house_net - ledger["house_at_open"]
            self._reconcile(ledger)

    def _on_drop_counted(self, ev: DropCounted) -> None:
        if ev.actor.role not in SUPERVISOR_ROLES:
            self._refuse(ev, "only a supervisor enters the drop")
            return
        if ev.amount < 0:
            self._refuse(ev, f"a drop of {ev.amount}: the drop is 0 or more")
            return
        # The oldest closed ledger still without its drop (the count room counts after close);
        # else the open table's (a drop entered at close, before the closer).
        waiting = [ledger for ledger in self.tray_ledgers if ledger["drop"] is None]
        if not waiting:
            self._refuse(ev, "no table opening is waiting for its drop: count an opener first, or correct the "
                             "drop entered")
            return
        ledger = waiting[0]
        entry = self._add_entry(ledger, "drop", ev.amount, (), "", (ev.actor.who,), note=ev.note)
        ledger["drop"] = entry["entry"]
        self._reconcile(ledger)

    def _on_tray_corrected(self, ev: TrayCorrected) -> None:
        found = next(((ledger, entry) for ledger in self.tray_ledgers for entry in ledger["entries"]
                      if entry["entry"] == ev.entry), None)
        problem = ""
        if ev.actor.role not in SUPERVISOR_ROLES:
            problem = "only a supervisor corrects the chip tray's ledger"
        elif not ev.reason.strip():
            problem = "say why the entry is corrected"
        elif found is None:
            problem = (f"no tray entry {ev.entry} among the last {LEDGERS_KEPT} openings of the table "
                       f"(entries {self._entry_range()})")
        elif found[1]["kind"] == "drop":
            problem = "" if ev.amount >= 0 and not ev.chips else "a drop is corrected by its amount, 0 or more"
        else:
            problem = self._chips_problem(ev.chips, found[1]["kind"])
        if problem:
            self._refuse(ev, problem)
            return
        assert found is not None
        ledger, entry = found
        value = ev.amount if entry["kind"] == "drop" else chips_value(ev.chips)
        change = value - entry["value"]
        # The entry's counts are people's from now: a correction is counted by hand.
        entry["value"], entry["chips"], entry["counted_by"] = value, [list(c) for c in ev.chips], "hand"
        self.tray_entries += 1
        self._emit(out.TrayRecorded(ledger["ledger"], self.tray_entries, entry["kind"], value, tuple(ev.chips),
                                    entry["slip"], (ev.actor.who,), ev.entry, ev.reason.strip(), change))
        self._reconcile(ledger)

    def _add_entry(self, ledger: dict[str, Any], kind: str, value: int, chips: tuple[tuple[int, int], ...],
                   slip: str, signed: tuple[str, ...], note: str = "", counted_by: str = "hand") -> dict[str, Any]:
        self.tray_entries += 1
        entry: dict[str, Any] = {"entry": self.tray_entries, "kind": kind, "value": value,
                                 "chips": [list(c) for c in chips], "slip": slip, "signed": list(signed),
                                 "counted_by": counted_by}
        ledger["entries"].append(entry)
        self._emit(out.TrayRecorded(ledger["ledger"], self.tray_entries, kind, value, chips, slip, signed,
                                    reason=note.strip(), counted_by=counted_by))
        return entry

    def _reconcile(self, ledger: dict[str, Any]) -> None:
        """The ledger's win, house and variance, once its closer and drop are both known."""
        if ledger["closer"] is None or ledger["drop"] is None:
            return
        totals = tray_totals(ledger)
        win = totals["closer"] - totals["opener"] + totals["credit"] - totals["fill"] + totals["drop"]
        house = ledger["house"]
        self._emit(out.TrayReconciled(ledger["ledger"], totals["opener"], totals["fill"], totals["credit"],
                                      totals["closer"], totals["drop"], win, house, win - house))

    def _entry_range(self) -> str:
        entries = [entry["entry"] for ledger in self.tray_ledgers for entry in ledger["entries"]]
        return f"{min(entries)} to {max(entries)}" if entries else "none yet"


def tray_totals(ledger: dict[str, Any]) -> dict[str, int]:
    """A ledger's entries added up by kind (opener, fill, credit, closer, drop)."""
    totals = dict.fromkeys((*COUNT_KINDS, "drop"), 0)
    for entry in ledger["entries"]:
        totals[entry["kind"]] += entry["value"]
    return totals


def tray_summary(ledger: dict[str, Any], house_now: int) -> Mapping[str, Any]:
    """A ledger as ``station ctl status`` and the floor's state show it: open or closed, its
    totals, the house's result of the rounds while open (so far, when open: ``house_now`` is
    the table's running result), the win and variance once reconciled, its entries."""
    totals = tray_totals(ledger)
    house = ledger["house"] if ledger["house"] is not None else house_now - ledger["house_at_open"]
    reconciled = ledger["closer"] is not None and ledger["drop"] is not None
    win = (totals["closer"] - totals["opener"] + totals["credit"] - totals["fill"] + totals["drop"]
           if reconciled else None)
    return MappingProxyType({
        "ledger": ledger["ledger"], "open": ledger["closer"] is None, **totals,
        "drop_counted": ledger["drop"] is not None, "house": house, "win": win,
        "variance": None if win is None else win - house,
        "entries": [{key: entry[key] for key in ("entry", "kind", "value", "slip", "signed", "counted_by")}
                    for entry in ledger["entries"]],
    })
