"""The scoreboard: baccarat's roads and the Casino War board, pure.

Why pure: the results display must survive a restart and reset at shoe end. The only input is
the list of round results of the current shoe (which the journal keeps), so the whole scoreboard
is a function of that list.

- :mod:`~station.roads.results`: a round result as the scoreboard reads it.
- :mod:`~station.roads.cells`: the roads' cells, predictions, statistics, :class:`Roads`.
- :mod:`~station.roads.rules`: where each result goes (:func:`build_roads`).
- :mod:`~station.roads.scoreboard`: the same, one result at a time, for the live service.
- :mod:`~station.roads.war_board`: the Casino War results per box.

Reading a history typed as letters is the ``station roads`` command's
(:mod:`station.cli.commands.roads`). docs/roads.md has the rules with worked examples.
"""

from __future__ import annotations

