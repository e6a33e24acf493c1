"""The simulation: simulated devices and a simulated dealer, as a plug-in of the station.

Nothing in the production path imports this package (``tests/test_architecture.py`` keeps
it so). ``station run`` and ``station demo`` load :class:`station.sim.plugin.Simulation` when
the configuration names a ``sim:`` device; it plugs into the service's one extension point
(:mod:`station.service.extension`).

- ``plugin.py``: the extension itself: which simulator runs where, the dealer's settings.
- ``table.py`` / ``table_process.py``: the simulated table's process, the station's side and
  the child's; ``messages.py`` what they say over their pipe; ``screen_order.py`` how the
  dealer's screen actions stay in order with the shoe's cards; ``spec.py`` what the child is
  started with.
- ``dealer.py``: the simulated dealer; ``shoe_file.py``: stacked shoes for it.
- ``cpus.py``: a CPU of its own for the simulated table.
"""
