"""Baccarat (Punto Banco), pure.

- :mod:`~station.games.baccarat.rules`: point count, naturals, the third-card rules, the
  result of a round (:func:`~station.games.baccarat.rules.next_hand` is the only statement of
  the third-card rules in the project).
- :mod:`~station.games.baccarat.table`: the table's options (variant, limits, payouts).
- :mod:`~station.games.baccarat.wagers`: where bets may go and how large they may be.
- :mod:`~station.games.baccarat.differential`: the table differential (5.17, 5.18).
- :mod:`~station.games.baccarat.settlement`: what each bet wins or loses.
- :mod:`~station.games.baccarat.game`: all of it behind the game interface.
"""

from __future__ import annotations
