"""Simulated USB dealer pedals behind pyusb's backend interface, so the real pyusb path runs.

``device.py`` is one unit (made of ``descriptors.py``, ``attachment.py``, ``firmware.py``,
``faults.py``), ``backend.py`` the simulated bus pyusb is given, ``server.py`` serves a bus on
a Unix socket for a station in another process (reached with ``usb-sim://``), and
``console.py`` is ``station simulate pedals``. Start one with
``drivers.simulators.start_simulator("pedals", options)``.
"""
