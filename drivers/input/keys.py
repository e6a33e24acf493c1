"""Key names as the configuration writes them (``KEY_F13``, ``KEY_KP1``, ``BTN_LEFT``) and the
kernel's key codes, from python-evdev's table of ``linux/input-event-codes.h``.

A foot switch is programmed to send keys nobody types (F13-F24 are on no keyboard a table PC
has), so that a stray press, should the grab ever fail, does nothing in another program.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The keys a three-pedal foot switch is programmed to send, and the pedals' button names.
DEFAULT_KEYS: dict[str, str] = {"KEY_F13": "left", "KEY_F14": "centre", "KEY_F15": "right"}

EV_KEY = 0x01  # the kernel's event type of keys and buttons (linux/input-event-codes.h)


def _codes() -> Mapping[str, int]:
    from evdev import ecodes

    table: Mapping[str, int] = ecodes.ecodes
    return table


def key_code(name: str) -> int:
    """The code of key ``name``; ValueError naming the mistake for a name that is no key."""
    if not name.startswith(("KEY_", "BTN_")):
        raise ValueError(f"{name!r} is not a key name: key names start KEY_ or BTN_ (e.g. KEY_F13)")
    code = _codes().get(name)
    if code is None:
        raise ValueError(f"{name!r} is not a key the kernel knows (see `station diag pedals` for what a unit sends)")
    return code


def key_name(code: int) -> str:
    """The name of key ``code`` (``KEY_F13``), or ``KEY_<code>`` for one without a name.

    A code the kernel knows by several names is shown by all of them, joined by "/"
    (``KEY_MIN_INTERESTING/KEY_MUTE``): the kernel lists them alphabetically, so the first is
    often not the one a technician wrote in the station's configuration."""
    from evdev import ecodes

    names = ecodes.KEY.get(code) or ecodes.BTN.get(code)
    if isinstance(names, (list, tuple)):
        return "/".join(str(name) for name in names)
    return str(names) if names else f"KEY_{code}"


def key_map(keys: Mapping[str, str]) -> dict[int, str]:
    """Key code -> button name, from the configuration's key name -> button name."""
    return {key_code(name): button for name, button in keys.items()}
