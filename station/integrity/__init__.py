"""Game integrity: the shuffler guarding the game, the composition of every shoe, unshuffled or
repeated shoes, the live exact edges of the cards still in the shoe, and result statistics.

The analyses here are pure (no I/O, no clock, no threads): a shuffler's count of a set is
judged with the shoe procedure (:mod:`station.games.deck_check`), :mod:`~station.integrity.order` and
:mod:`~station.integrity.repeat` test the first cards of a shoe, :mod:`~station.integrity.edges`
computes the exact edges of a composition, :mod:`~station.integrity.stats` tests the results,
and :mod:`~station.integrity.monitor` puts them together over the core's outputs. The station
runs the monitor off the core loop's thread (:mod:`~station.integrity.service`), and the offline
report (``station integrity report``) runs it over a journal (:mod:`~station.integrity.report`).
docs/integrity.md explains the tests and their false-alarm maths.
"""
