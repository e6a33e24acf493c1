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

# kept for other parts of the station; remove once they import from station.games.baccarat.rules:
# Hand, next_hand: station/service/sim_dealer.py; banker_draws: bench/analyze.py;
# play_round: bench/journal.py, bench/web_latency.py, tests/drivers/test_table_scenario.py;
# result_of: station/diag/display_test.py, station/service/sim_dealer.py,
# tests/drivers/test_display_pty.py, tests/service/test_demo.py, tests/service/test_station_e2e.py.
from station.games.baccarat.rules import Hand as Hand
from station.games.baccarat.rules import banker_draws as banker_draws
from station.games.baccarat.rules import next_hand as next_hand
from station.games.baccarat.rules import play_round as play_round
from station.games.baccarat.rules import result_of as result_of
