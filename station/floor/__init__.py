"""The casino floor: the journal published to an MQTT broker, and the journal's anchors.

- :mod:`station.floor.settings`: the ``[floor]`` and ``[metrics]`` configuration sections.
- :mod:`station.floor.derive`: what the feed says about each journal record (deterministic).
- :mod:`station.floor.cursor`: the durable cursor beside the journal.
- :mod:`station.floor.outbox`: the publisher that reads the journal after its cursor.
- :mod:`station.floor.anchors`: the anchor clock (the journal's head, logged and published).
- :mod:`station.floor.service`: how ``station run`` starts them (and the metrics).
- :mod:`station.floor.watch`: ``station floor watch``, the pit's view of many tables.

docs/floor.md describes the topics, the payloads (JSON Schemas in ``schemas/``) and the
guarantees.
"""
