"""Where the table stands, for every thread but the core loop's: an immutable snapshot.

The :class:`~station.core.machine.TableMachine` belongs to the core loop's thread: it changes
it while it applies a batch, and an attribute read from another thread may be half-way through
a change (a round replaced between two reads of it). So the loop publishes, after the journal's
replay and after every batch, a :class:`TableSnapshot`: a tuple of plain values made on the
loop's thread and put in place by one assignment. The control socket's status, the console's
threads and the metrics' server read that and nothing else of the table.

A part of the station that needs more of the machine than a snapshot holds (the console's
picture when it starts, the simulated dealer's resume point) reads it on the loop's thread,
with :meth:`~station.core.loop.CoreLoop.inspect`, which refuses any other thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from station.core.rounds import RoundId
from station.core.tray_steps import tray_summary

if TYPE_CHECKING:
    from station.core.integrity_steps import Alert
    from station.core.machine import TableMachine


class IrregularityShown(NamedTuple):
    """The irregularity waiting for a person: its number, why, in words, in which round, and
    the decisions that end it."""

    ident: int
    reason: str
    detail: str
    round_id: str
    decisions: tuple[str, ...]


class TableSnapshot(NamedTuple):
    """The table after record ``seq``: its state and what it expects (as announced), the shoe
    and the rounds dealt from it, the round in play, the dealer, the irregularity, the devices
    faulted (device, reason), the alerts not yet acknowledged and how many of each kind were
    raised ("<severity>:<code>", n), whether payouts wait for a confirmation, the payout
    option, the cards left in the shoe (None when its composition is not kept), the game,
    who paused the table (role, who), the last result of the shoe (as the board shows it) and
    whether the shoe has ended, and the limits in force and waiting."""

    seq: int
    state: str
    expecting: str
    shoe: int
    rounds_in_shoe: int
    round_id: RoundId | None
    dealer: str
    irregularity: IrregularityShown | None
    faulted: tuple[tuple[str, str], ...]
    open_alerts: tuple[Alert, ...]
    alert_counts: tuple[tuple[str, int], ...]
    confirm_payouts: bool
    payout_option: str
    cards_left: int | None
    game: str = ""
    paused_by: tuple[tuple[str, str], ...] = ()
    last_result: Mapping[str, Any] | None = None
    shoe_ended: bool = False
    limits: Mapping[str, Any] = MappingProxyType({})
    """The limits in force (docs/limits.md), and those waiting for the next round (None: no change)."""
    next_limits: Mapping[str, Any] | None = None
    tray: Mapping[str, Any] | None = None
    """The chip tray's last ledger (docs/tray.md): its totals by kind and its entries."""
    ratings: tuple[Mapping[str, Any], ...] = ()
    """The ratings open (docs/ratings.md), and the player card last read and not yet used."""
    card_read: str = ""
    progressive: Mapping[str, Any] | None = None
    """The progressive's meter, its jackpot waiting for a sign-off (docs/progressive.md)."""
    chips: Mapping[str, Any] | None = None
    """The chips on the layout by place, the payment being checked (docs/chips.md)."""

    @property
    def round_number(self) -> int:
        """The number in its shoe of the round in play, else of the last round dealt."""
        return self.round_id.number if self.round_id is not None else self.rounds_in_shoe


class Snapshots:
    """Makes the loop's snapshots. The open alerts are looked through again only when an
    alert was raised or acknowledged since the last snapshot: a table's register grows with
    its age, and a snapshot is made after every batch."""

    def __init__(self) -> None:
        self._alerts_at = -1
        self._open: tuple[Alert, ...] = ()
        self._counts: tuple[tuple[str, int], ...] = ()
        self._limits_of: dict[str, Any] | None = None
        self._limits_view: Mapping[str, Any] = MappingProxyType({})
        self._tray_at = (0, 0)
        self._tray_view: Mapping[str, Any] | None = None
        self._progressive_at: tuple[Any, ...] = ()
        self._progressive_view: Mapping[str, Any] | None = None
        self._chips_at: tuple[int, int] = (0, -1)
        self._chips_view: Mapping[str, Any] | None = None

    def take(self, machine: TableMachine, seq: int) -> TableSnapshot:
        """The snapshot of ``machine`` after record ``seq`` (on the loop's thread)."""
        if machine.alert_changes != self._alerts_at:
            self._alerts_at = machine.alert_changes
            self._open = tuple(machine.open_alerts())
            self._counts = tuple(sorted(machine.alert_counts.items()))
        current, shoe, irregularity = machine.round, machine.shoe, machine.irregularity
        composition = shoe.composition
        return TableSnapshot(
            seq, machine.state, machine.announced_expectation, shoe.number, shoe.rounds,
            current.round_id if current is not None else None, machine.dealer,
            None if irregularity is None else IrregularityShown(
                irregularity.ident, irregularity.reason, irregularity.detail, irregularity.round_id,
                tuple(irregularity.decisions)),
            tuple(sorted(machine.faulted.items())), self._open, self._counts, machine.confirm_payouts,
            machine.payout_option, len(composition) if composition is not None else None,
            machine.rules.name, tuple(machine.paused_by.items()),
            MappingProxyType(dict(machine.shoe_results[-1])) if machine.shoe_results else None,
            shoe.ended, self._limits(machine.limits_json),
            None if machine.pending_limits is None else MappingProxyType(machine.pending_limits),
            self._tray(machine),
            tuple(MappingProxyType(dict(rating)) for rating in machine.ratings.values()) if machine.ratings else (),
            machine.card_read, self._progressive(machine), self._chips(machine),
        )

    def _chips(self, machine: TableMachine) -> Mapping[str, Any] | None:
        """The chips on the layout, made again only when a step touched the layout since (a
        table without a reader: None)."""
        layout = machine.chip_layout
        if layout is None:
            return None
        at = (id(layout), layout.version)
        if at != self._chips_at:
            self._chips_at = at
            view = machine.chip_view()
            self._chips_view = None if view is None else MappingProxyType(view)
        return self._chips_view

    def _progressive(self, machine: TableMachine) -> Mapping[str, Any] | None:
        """The progressive as status shows it, made again only when its ledger moved."""
        ledger = machine.progressive
        if ledger is None:
            return None
        at = (ledger.meter, ledger.paid, ledger.resets, ledger.pending is None)
        if at != self._progressive_at:
            self._progressive_at = at
            view = machine.progressive_view()
            self._progressive_view = None if view is None else MappingProxyType(view)
        return self._progressive_view

    def _tray(self, machine: TableMachine) -> Mapping[str, Any] | None:
        """The last ledger of the chip tray, made again only when an entry was added or the
        house's result moved."""
        at = (machine.tray_entries, machine.house_net)
        if at != self._tray_at:
            self._tray_at = at
            self._tray_view = (tray_summary(machine.tray_ledgers[-1], machine.house_net) if machine.tray_ledgers
                               else None)
        return self._tray_view

    def _limits(self, limits: dict[str, Any]) -> Mapping[str, Any]:
        """The limits in force as a read-only view, made again only when they change."""
        if limits is not self._limits_of:
            self._limits_of, self._limits_view = limits, MappingProxyType(limits)
        return self._limits_view
