"""The games' rules, pure: no I/O, no clocks, no state kept between calls.

Given the table options and the cards so far, they say what must happen next, the outcome,
and the settlement of each bet; the state machine, the simulated dealer, the odds analyser
and the tests all ask the same functions.

- :mod:`~station.games.baccarat` and :mod:`~station.games.war`: one package per game, with
  the same module names (``rules``, ``table``, ``wagers``, ``settlement``, ``game``).
- :mod:`~station.games.interface`: the one interface both games implement, so the core
  never asks which game it is playing; :mod:`~station.games.registry` finds a game by its
  configured name.
- :mod:`~station.games.layout`: bets in the layout's words, shared by both games.
- :mod:`~station.games.table`: what the games' table options share (chips, limits).
- :mod:`~station.games.shoe_procedure`: the life of a shoe (burn, cut card, last round).

See ``docs/games.md``.
"""
