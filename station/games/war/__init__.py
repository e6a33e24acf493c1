"""Casino War, pure.

- :mod:`~station.games.war.rules`: the order of play (first cards, war or surrender, burn,
  war cards).
- :mod:`~station.games.war.table`: the table's options (limits, box and player maxima, odds).
- :mod:`~station.games.war.wagers`: which wagers may go on the table.
- :mod:`~station.games.war.settlement`: what each wager wins or loses.
- :mod:`~station.games.war.game`: all of it behind the game interface.
"""
