"""Device drivers of the dealing station: five devices, one contract.

Serial devices (shoe, shuffler, display board, button box) are layered as ``transport``
(ports by URL) -> ``codec`` (pure bytes <-> messages, one protocol per device in a registry)
-> ``devices`` (the link and the drivers emitting station events). The USB dealer pedals have
the same layers: ``transport/usb_port.py`` (pyusb), ``usb`` (their protocol, codec and
locator), ``devices/pedals.py``. Every driver meets ``devices/contract.py`` and reconnects
through ``devices/reconnect.py``; ``factory`` builds any of them from the driver table.
``simulators`` speak the same protocols from the device side (``simulators/pedals`` behind a
simulated pyusb backend) and ``simulators.start_simulator`` starts any of them; ``probe``
identifies whatever is on a serial port. See docs/drivers.md.
"""
