"""Device drivers of the dealing station.

Serial devices (shoe, shuffler, display board, button box) are layered as
``transport`` (ports by URL) -> ``codec`` (pure bytes <-> messages, one protocol per
device in a registry) -> ``devices`` (link and drivers emitting station events), with
``simulators`` speaking the same protocols from the device side. ``factory.create_driver``
builds a driver for a URL (``sim:`` starts a simulator); ``probe.probe`` identifies
whatever is on a port. USB dealer pedals live in ``usb``. See docs/drivers.md.
"""
