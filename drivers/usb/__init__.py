"""USB dealer pedals: the report protocol, a pyusb driver and a simulated pyusb backend.

``protocol`` names the identifiers and layouts, ``codec`` turns reports into values (pure),
``presses`` turns reports into presses exactly once, ``driver`` runs the device through
pyusb, ``simdevice``/``simbackend`` simulate it behind pyusb's backend interface, ``remote``
serves a simulated device over a Unix socket and ``simulator`` is the ``station simulate
pedals`` command. The wire protocol is documented in ``docs/protocols/pedals.md``.
"""
