"""Commodity USB foot switches and keypads, read through Linux evdev (python-evdev).

A foot switch bought for a card room (PCsensor, iKKEGOL, Scythe...) is a plain USB HID
keyboard: the kernel's HID driver turns its switches into key events on an
``/dev/input/eventN`` node. ``locator`` says which node a configuration names
(``evdev:///dev/input/by-id/...`` or ``evdev://VID:PID?serial=...``), ``keys`` turns key names
(``KEY_F13``) into codes, ``backend`` is the one place python-evdev is imported (and the seam a
stand-in replaces in tests), ``presses`` turns key-down/up into presses (repeats ignored,
chatter debounced, long presses timed) and ``listing`` lists the input devices for
``station diag ports`` from sysfs. The driver is ``drivers/devices/footswitch.py``.
"""
