"""The table's limits and chips, changed during the day by a supervisor (docs/limits.md).

A change is checked when it is asked for (the keys the game has, values a table can have, the
game's own checks) and refused with its reason otherwise. It waits for the next round to open,
like a change of the payout option: the round in play keeps the limits its bets were taken
under, and every round records the limits it was played under (``Round.limits``), so a
correction of an old round is checked and settled again under that round's own limits.

``configured_limits`` are the limits the configuration last gave (the journal's first
Configuration record, then each change the station posted at start as ``configuration``): the
station compares the configuration file with them, not with the limits in force, so a restart
does not undo what a supervisor changed unless the file itself was changed.
"""

from __future__ import annotations

from typing import Any

from station.core import outputs as out
from station.core.machine_base import SUPERVISOR_ROLES, MachineBase
from station.core.rounds import Round, RoundId
from station.events import LimitsChanged
from station.games.interface import TableOptions
from station.games.limits import LimitsError, TableLimits
from station.games.table import TableOptionError

#: The role of a change the station posts at start because the configuration file changed.
CONFIGURATION_ROLE = "configuration"

#: The game tables' field names -> the limit keys people use.
_KEY_OF_FIELD = {"table_differential": "differential"}


class LimitSteps(MachineBase):
    """Limit changes: asked, checked, scheduled, applied when the next round opens."""

    def _on_limits_changed(self, ev: LimitsChanged) -> None:
        by_configuration = ev.actor.role == CONFIGURATION_ROLE
        if ev.actor.role not in SUPERVISOR_ROLES and not by_configuration:
            self._refuse(ev, "only a supervisor may change the table's limits")
            return
        base = self.next_limits
        try:
            limits = base.changed(ev.changes, self.rules.limit_keys, self.table.money)
            table = self.rules.table_with_limits(self.options.table, limits)
        except LimitsError as exc:
            self._refuse(ev, str(exc))
            return
        except TableOptionError as exc:
            key = _KEY_OF_FIELD.get(exc.field, exc.field)
            self._refuse(ev, f"{key}: {str(exc).split(': ', 1)[-1]}")
            return
        if by_configuration:
            self.configured_limits = limits
        if limits == base:
            if not by_configuration:
                self._refuse(ev, "the limits are already so: nothing to change")
            return
        self.pending_limits = {"limits": limits.to_json(), "role": ev.actor.role, "who": ev.actor.who,
                               "reason": ev.reason}
        self._pending_table = table
        self._emit(out.LimitsScheduled(limits.to_json(), tuple(limits.differences(self.limits)), "next round",
                                       ev.actor.role, ev.actor.who, ev.reason))

    @property
    def next_limits(self) -> TableLimits:
        """The limits the next round to open will be played under."""
        pending = self.pending_limits
        return self.limits if pending is None else TableLimits.from_json(pending["limits"])

    def _next_table(self) -> TableOptions:
        """The table the next round opens with (bets left on after a Tie are checked under it)."""
        if self.pending_limits is None:
            return self.table
        if self._pending_table is None:  # a machine restored from a checkpoint
            self._pending_table = self.rules.table_with_limits(self.options.table, self.next_limits)
        return self._pending_table

    def _apply_pending_limits(self, rid: RoundId) -> None:
        """At the opening of round ``rid``: the limits waiting for it take effect."""
        pending = self.pending_limits
        if pending is None:
            return
        limits = TableLimits.from_json(pending["limits"])
        changed = tuple(limits.differences(self.limits))
        self._table = self._next_table()
        self._set_limits(limits)
        self.pending_limits, self._pending_table = None, None
        if changed:
            self._emit(out.LimitsApplied(self.limits_json, changed, rid, pending["role"], pending["who"]))

    def _table_of(self, r: Round) -> TableOptions:
        """The table ``r`` was played under: its own limits (a correction of an old round)."""
        if not r.limits or r.limits == self.limits_json:
            return self.table
        table: TableOptions = self.rules.table_with_limits(self.options.table, TableLimits.from_json(r.limits))
        return table

    def restore_limits(self, state: dict[str, Any]) -> None:
        """The limits part of a checkpoint (:func:`station.core.state.restore_machine`)."""
        self._set_limits(TableLimits.from_json(state["limits"]))
        self._table = self.rules.table_with_limits(self.options.table, self.limits)
        self.pending_limits = state["pending_limits"]
        self._pending_table = None
        self.configured_limits = TableLimits.from_json(state["configured_limits"])
