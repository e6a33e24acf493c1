"""The core: one loop owns the table's state machine and the journal's writing end.

- :mod:`station.core.loop`: :class:`~station.core.loop.CoreLoop` (``post``, ``subscribe``,
  ``run``/``start``/``stop``, ``run_pending``, ``announce``, ``snapshot``, ``expectation``,
  replay on open).
- :mod:`station.core.machine`: :class:`~station.core.machine.TableMachine`, the one owner of
  game state (shoe, round, bets, irregularities), fed one event at a time. Its state is in
  :mod:`~station.core.machine_base`; the steps that change it are grouped by subject in
  :mod:`~station.core.shoe_steps`, :mod:`~station.core.round_steps`,
  :mod:`~station.core.bet_steps` and :mod:`~station.core.stop_steps`; the rounds and the shoe
  are plain data in :mod:`~station.core.rounds` and :mod:`~station.core.shoe`. The game's
  rules are asked through :class:`station.games.interface.Game` only (``machine.rules``):
  nothing here asks which game is being played.
- :mod:`station.core.states`: the states and transitions, stated once (machine and diagram).
- :mod:`station.core.outputs`: the typed outputs subscribers hear.
- :mod:`station.core.options`: :class:`~station.core.options.CoreOptions` (game, equipment,
  dealing style, decks, table rules); the game is found there once, by name.
- :mod:`station.core.projection`: the one projection of the journal: records in, the state
  and the same typed outputs live and in replay out; every reader of the journal uses it.
- :mod:`station.core.recall`: past rounds, from the projection's stream.
- :mod:`station.core.diagram`: the state diagram from the code.
- :mod:`station.core.sessions`: deterministic table sessions for tests and benchmarks.

See ``docs/state-machine.md``.
"""
