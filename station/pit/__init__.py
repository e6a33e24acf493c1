"""The pit page: one live screen of every table in a pit, from the floor broker alone.

``station pit`` (docs/pit.md) subscribes to the floor's MQTT broker, which every station
publishes its table to (docs/floor.md), and serves one page (Server-Sent Events, like the web
scoreboard) with a tile per table: its state, shoe and round, the last result, rounds this
hour, open alarms and faults in colour, a station gone offline. It never reaches a table's
station: the broker is all it knows.

- :mod:`station.pit.settings`: its configuration file (``[pit]``, ``[broker]``);
- :mod:`station.pit.board`: what the feed says of each table (with :mod:`station.pit.hour`);
- :mod:`station.pit.listener`: the broker's subscriber;
- :mod:`station.pit.service`: the process that serves the page;
- ``static/``: the page itself.
"""
