"""The input devices on this PC, as ``station diag ports`` lists them: read from sysfs.

Each ``/sys/class/input/eventN`` says, under ``device/``, the device's name, its USB (or other
bus) vendor and product, its ``uniq`` (a serial, when the maker set one), its ``phys`` (where it
is plugged in) and which keys it can send (``capabilities/key``, a bitmap). Reading sysfs
needs no permission on the device nodes and opens nothing, so it works beside a running
station that holds a foot switch grabbed. The stable ``/dev/input/by-id`` and ``by-path``
links that point at each node are listed with it, and the ``evdev:`` URL that names it.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

#: Keys a keyboard has and a foot switch or keypad shows (a device with none is a mouse, a
#: power button, a sensor).
_LETTER_A, _KEY_F13, _KEY_F24 = 30, 183, 194


@dataclass(frozen=True)
class InputDeviceInfo:
    node: str  # /dev/input/eventN
    name: str
    vid_pid: str
    serial: str
    phys: str
    links: list[str]
    keys: int  # how many keys it can send
    f13_f24: bool  # sends at least one of F13-F24 (what a foot switch is programmed to)

    @property
    def url(self) -> str:
        """The ``evdev:`` URL for the configuration: the by-id link when it has one."""
        by_id = [link for link in self.links if "/by-id/" in link]
        if by_id:
            return f"evdev://{by_id[0]}"
        if self.serial:
            return f"evdev://{self.vid_pid}?serial={self.serial}"
        return f"evdev://{self.vid_pid}?phys={self.phys}" if self.phys else f"evdev://{self.node}"


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


#: The kernel writes bitmaps in words of its ``long`` (64 bits on a 64-bit PC), which is the C
#: ``long`` of this Python's platform.
_WORD_BITS = struct.calcsize("l") * 8


def _key_bits(text: str) -> set[int]:
    """The key codes set in sysfs's ``capabilities/key``: hex words, the highest first, each
    without its leading zeros."""
    bits: set[int] = set()
    for index, word in enumerate(reversed(text.split())):
        try:
            value = int(word, 16)
        except ValueError:
            return set()
        base = _WORD_BITS * index
        for bit in range(value.bit_length()):
            if value >> bit & 1:
                bits.add(base + bit)
    return bits


def _links(*directories: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for directory in directories:
        if not directory.is_dir():
            continue
        for link in sorted(directory.iterdir()):
            try:
                out.setdefault(os.path.realpath(link), []).append(str(link))
            except OSError:
                continue
    return out


def input_devices(sysfs: Path = Path("/sys/class/input"), dev: Path = Path("/dev/input")) -> list[InputDeviceInfo]:
    """Every event node that can send keys, by node."""
    found: list[InputDeviceInfo] = []
    if not sysfs.is_dir():
        return found
    links = _links(dev / "by-id", dev / "by-path")
    for entry in sorted(sysfs.glob("event*"), key=lambda p: int(p.name[5:]) if p.name[5:].isdigit() else 0):
        device = entry / "device"
        keys = _key_bits(_read(device / "capabilities" / "key"))
        if not keys:
            continue
        node = str(dev / entry.name)
        found.append(InputDeviceInfo(
            node=node, name=_read(device / "name"),
            vid_pid=f"{_read(device / 'id' / 'vendor')}:{_read(device / 'id' / 'product')}",
            serial=_read(device / "uniq"), phys=_read(device / "phys"),
            links=links.get(os.path.realpath(node), []), keys=len(keys),
            f13_f24=any(_KEY_F13 <= k <= _KEY_F24 for k in keys),
        ))
    return found
