"""The table's states and transitions, stated once as data.

Both the running machine (:mod:`station.core.machine`) and the diagram
(:mod:`station.core.diagram`, ``station diagram``) are built from this table, so the committed
``docs/state-machine.mmd`` is the machine, not a drawing of it.

The machine is a flat :class:`transitions.Machine`. A ``HierarchicalMachine`` would group the
shoe and round states, but it costs about five times as much per trigger (measured on this
project's table PC: about 24 µs for ``Machine``, 130 µs for ``HierarchicalMachine``), and
replaying a long journal after a crash has to be fast. The grouping is kept in
:data:`GROUPS` for the documentation.

Conditions named in a transition are methods of the machine's model: ``back_to_<state>`` picks
the way back from ``irregularity`` and ``resume_to_<state>`` the way back from ``paused``.
"""

from __future__ import annotations

from typing import Any

SHUFFLING = "shuffling"
CUTTING = "cutting"
BURNING = "burning"
BETTING = "betting"
DEALING = "dealing"
REVEALING = "revealing"
WAR_DECISION = "war_decision"
WAR_BURNING = "war_burning"
WAR_DEALING = "war_dealing"
PAYING = "paying"
IRREGULARITY = "irregularity"
PAUSED = "paused"

STATES: tuple[str, ...] = (
    SHUFFLING,
    CUTTING,
    BURNING,
    BETTING,
    DEALING,
    REVEALING,
    WAR_DECISION,
    WAR_BURNING,
    WAR_DEALING,
    PAYING,
    IRREGULARITY,
    PAUSED,
)

GROUPS: dict[str, tuple[str, ...]] = {
    "shoe": (SHUFFLING, CUTTING, BURNING),
    "round": (BETTING, DEALING, REVEALING, WAR_DECISION, WAR_BURNING, WAR_DEALING, PAYING),
    "stopped": (IRREGULARITY, PAUSED),
}

#: States in which cards of a round are in flight: a device lost here stops the round.
MID_ROUND: frozenset[str] = frozenset({DEALING, REVEALING, WAR_DECISION, WAR_BURNING, WAR_DEALING})

#: States a pause may start from (never with cards in flight).
PAUSABLE: tuple[str, ...] = (SHUFFLING, CUTTING, BETTING, PAYING)

#: States an irregularity may stop and return to.
RETURNABLE: tuple[str, ...] = (
    SHUFFLING, CUTTING, BURNING, BETTING, DEALING, REVEALING,
    WAR_DECISION, WAR_BURNING, WAR_DEALING, PAYING, PAUSED,
)


def transitions_table() -> list[dict[str, Any]]:
    """Every transition as a ``transitions`` keyword dict (trigger, source, dest, conditions)."""
    table: list[dict[str, Any]] = [
        # Shoe lifecycle.
        {"trigger": "shuffle_done", "source": SHUFFLING, "dest": CUTTING},
        {"trigger": "shuffler_ready", "source": SHUFFLING, "dest": BETTING},  # continuous
        {"trigger": "cut_confirmed", "source": CUTTING, "dest": BURNING},
        {"trigger": "burn_complete", "source": BURNING, "dest": BETTING},
        # Round.
        {"trigger": "no_more_bets", "source": BETTING, "dest": DEALING},
        {"trigger": "late_bets", "source": [DEALING, REVEALING], "dest": BETTING},
        {"trigger": "await_reveal", "source": DEALING, "dest": REVEALING},
        {"trigger": "reveal_more", "source": REVEALING, "dest": DEALING},
        {"trigger": "boxes_tied", "source": DEALING, "dest": WAR_DECISION},
        {"trigger": "go_to_war", "source": WAR_DECISION, "dest": WAR_BURNING},
        {"trigger": "war_burned", "source": WAR_BURNING, "dest": WAR_DEALING},
        {"trigger": "settle", "source": [DEALING, REVEALING, WAR_DECISION, WAR_DEALING], "dest": PAYING},
        {"trigger": "next_round", "source": PAYING, "dest": BETTING},
        {"trigger": "end_shoe", "source": PAYING, "dest": SHUFFLING},
        # Stops.
        {"trigger": "stop", "source": list(RETURNABLE), "dest": IRREGULARITY},
        {"trigger": "void", "source": IRREGULARITY, "dest": PAYING},
        {"trigger": "abandon", "source": [BETTING, DEALING], "dest": PAYING},  # cut card: no round may follow
        {"trigger": "pause", "source": list(PAUSABLE), "dest": PAUSED},
    ]
    for state in RETURNABLE:
        table.append(
            {"trigger": "resolve", "source": IRREGULARITY, "dest": state, "conditions": f"back_to_{state}"}
        )
    for state in PAUSABLE:
        table.append(
            {"trigger": "resume", "source": PAUSED, "dest": state, "conditions": f"resume_to_{state}"}
        )
    return table
