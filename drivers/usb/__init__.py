"""The USB dealer pedals' side of USB: what a unit presents and says, and how it is located.

``protocol`` names the identifiers and layouts, ``codec`` turns reports into values (pure),
``presses`` turns reports into presses exactly once, ``locator`` says where a unit is and
which pyusb backend reaches it, ``errors`` what libusb's errors mean, and ``remote`` is the
forwarding backend that reaches a simulated unit in another process. The driver is
``drivers/devices/pedals.py`` over ``drivers/transport/usb_port.py``; the simulated unit is in
``drivers/simulators/pedals/``. The protocol is documented in ``docs/protocols/pedals.md``.
"""
