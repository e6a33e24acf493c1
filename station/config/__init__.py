"""The configuration file below every feature: its model, its rules, its people, the core's options.

What lives here imports no feature: the sections every station has (``[station]``,
``[table]``, ``[devices]``, ``[dealer]``, ``[control]``), the reading of the file and the
rules that judge it all at once (:mod:`station.config.rules`), the people and their
credentials (:mod:`station.config.users`, :mod:`station.config.pins`), and the core's and the
journal's options derived from it (:mod:`station.config.options`). Each feature declares its
own section beside its code (``station/console/settings.py``, ``station/floor/settings.py``,
``station/web/settings.py``, ``station/integrity/settings.py``, ``station/pit/settings.py``);
the service composes the whole file from them (:class:`station.service.config.StationConfig`),
as the games are listed in :mod:`station.games.registry`.
"""
