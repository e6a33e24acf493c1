"""``station diag ports``: what is plugged in, under the names the configuration should use.

Serial ports come from pyserial's ``list_ports`` (device, USB VID:PID, serial number), joined
with the stable ``/dev/serial/by-id/`` links that point at them. USB devices are read from
sysfs rather than through libusb, so the listing works even where libusb is not installed and
without claiming anything a running service holds; so are the input devices that send keys
(foot switches, keypads, keyboards: :mod:`drivers.input.listing`), each with the ``evdev:``
URL that names it.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

from serial.tools import list_ports

from drivers.input.listing import InputDeviceInfo, input_devices


@dataclass(frozen=True)
class SerialPortInfo:
    device: str
    by_id: list[str]
    vid_pid: str
    serial_number: str
    description: str


@dataclass(frozen=True)
class UsbDeviceInfo:
    bus_device: str
    vid_pid: str
    serial_number: str
    manufacturer: str
    product: str


def _by_id_links(directory: Path) -> dict[str, list[str]]:
    links: dict[str, list[str]] = {}
    if not directory.is_dir():
        return links
    for link in sorted(directory.iterdir()):
        try:
            target = str(link.resolve(strict=True))
        except OSError:
            continue
        links.setdefault(target, []).append(str(link))
    return links


def serial_ports(by_id_dir: Path = Path("/dev/serial/by-id")) -> list[SerialPortInfo]:
    links = _by_id_links(by_id_dir)
    ports = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        vid_pid = f"{port.vid:04x}:{port.pid:04x}" if port.vid is not None and port.pid is not None else ""
        ports.append(
            SerialPortInfo(
                device=port.device,
                by_id=links.get(os.path.realpath(port.device), []),
                vid_pid=vid_pid,
                serial_number=port.serial_number or "",
                description=port.description or "",
            )
        )
    return ports


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def usb_devices(sysfs: Path = Path("/sys/bus/usb/devices")) -> list[UsbDeviceInfo]:
    devices: list[UsbDeviceInfo] = []
    if not sysfs.is_dir():
        return devices
    for entry in sorted(sysfs.iterdir()):
        vid = _read(entry / "idVendor")
        if not vid:
            continue  # an interface, not a device
        devices.append(
            UsbDeviceInfo(
                bus_device=f"{_read(entry / 'busnum')}:{_read(entry / 'devnum')}",
                vid_pid=f"{vid}:{_read(entry / 'idProduct')}",
                serial_number=_read(entry / "serial"),
                manufacturer=_read(entry / "manufacturer"),
                product=_read(entry / "product"),
            )
        )
    return devices


def ports_report(json_output: bool = False, inputs: list[InputDeviceInfo] | None = None,
                 ) -> dict[str, list[dict[str, object]]] | str:
    serial = serial_ports()
    usb = usb_devices()
    keyboards = input_devices() if inputs is None else inputs
    if json_output:
        return {"serial": [asdict(p) for p in serial], "usb": [asdict(d) for d in usb],
                "input": [{**asdict(i), "url": i.url} for i in keyboards]}
    lines = ["Serial ports:"]
    if not serial:
        lines.append("  (none found)")
    for port in serial:
        ident = f" [{port.vid_pid} serial {port.serial_number or '-'}]" if port.vid_pid else ""
        lines.append(f"  {port.device}{ident}  {port.description}")
        for link in port.by_id:
            lines.append(f"      by-id: {link}")
    lines.append("USB devices:")
    if not usb:
        lines.append("  (none found)")
    for dev in usb:
        lines.append(
            f"  bus:dev {dev.bus_device}  {dev.vid_pid}  serial {dev.serial_number or '-'}  "
            f"{dev.manufacturer} {dev.product}".rstrip()
        )
    lines.append("Input devices that send keys (foot switches, keypads, keyboards):")
    if not keyboards:
        lines.append("  (none found)")
    for key_device in keyboards:
        programmed = ", sends F13-F24" if key_device.f13_f24 else ""
        lines.append(f"  {key_device.node}  {key_device.vid_pid}  serial {key_device.serial or '-'}  "
                     f"{key_device.name!r}  ({key_device.keys} keys{programmed})")
        lines.append(f"      phys: {key_device.phys or '-'}")
        for link in key_device.links:
            lines.append(f"      link: {link}")
        lines.append(f"      url:  {key_device.url}")
    return "\n".join(lines)
