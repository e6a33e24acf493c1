"""``station diag ports`` reads sysfs and /dev/serial/by-id; here both are real trees built
in a temporary directory, laid out as the kernel lays them out."""

from __future__ import annotations

import os
from pathlib import Path

from station.diag.ports import _by_id_links, usb_devices


def _device(root: Path, name: str, **attrs: str) -> None:
    entry = root / name
    entry.mkdir(parents=True)
    for key, value in attrs.items():
        (entry / key).write_text(value + "\n")


def test_usb_devices_from_sysfs(tmp_path: Path) -> None:
    _device(tmp_path, "1-1", idVendor="1209", idProduct="0001", serial="PED-0001",
            manufacturer="Dealing Station", product="Dealer pedals", busnum="1", devnum="4")
    _device(tmp_path, "1-1:1.0", bInterfaceClass="ff")  # an interface: not listed
    _device(tmp_path, "usb1", idVendor="1d6b", idProduct="0002", busnum="1", devnum="1")
    devices = usb_devices(tmp_path)
    assert [(d.vid_pid, d.serial_number, d.bus_device) for d in devices] == [
        ("1209:0001", "PED-0001", "1:4"),
        ("1d6b:0002", "", "1:1"),
    ]


def test_by_id_links_resolve_to_their_device(tmp_path: Path) -> None:
    target = tmp_path / "ttyUSB0"
    target.write_text("")
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    os.symlink(target, by_id / "usb-FTDI_FT232R_USB_UART_SHOE0001-if00-port0")
    os.symlink(tmp_path / "gone", by_id / "dangling")
    assert _by_id_links(by_id) == {str(target): [str(by_id / "usb-FTDI_FT232R_USB_UART_SHOE0001-if00-port0")]}
