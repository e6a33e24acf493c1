"""``station diag probe``: who a device says it is, what state it reports, how its link is doing.

Everything shown comes from the device through the service's own driver and the device
contract alone: ``identify()``, ``status()`` and ``stats``. The serial devices answer
``Identify`` and ``GetStatus``; the USB pedals' identity is their descriptors and, having no
status request, their status is their self-test (fitted and held switches, long-press time),
whose problems count as errors. Link statistics are the driver's counters after the exchange.
"""

from __future__ import annotations

from dataclasses import is_dataclass
from enum import Enum
from typing import Any

from drivers.devices import DeviceError
from station.diag.target import Session


def _plain(value: Any) -> Any:
    """Dataclasses and enums as JSON-friendly values."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f: _plain(getattr(value, f)) for f in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Enum):
        return value.name.lower()
    return value


def probe(session: Session) -> dict[str, Any]:
    """Ask the device for identity and status; a failed request is reported, not raised."""
    driver = session.driver
    report: dict[str, Any] = {
        "device": session.target.name,
        "kind": session.target.kind,
        "url": session.url,
        "simulated": session.target.simulated,
        "identity": None,
        "status": None,
        "errors": [],
    }
    try:
        report["identity"] = _plain(driver.identify())
    except DeviceError as exc:
        report["errors"].append(f"identity: {exc}")
    try:
        report["status"] = _plain(driver.status())
    except DeviceError as exc:
        report["errors"].append(f"status: {exc}")
    status = report["status"]
    if isinstance(status, dict) and status.get("ok") is False:  # a status that is a verdict (the pedals')
        report["errors"].append("status: " + "; ".join(status.get("problems", ())))
    report["link"] = _plain(driver.stats)
    return report


def _fields(values: dict[str, Any] | None) -> str:
    if not values:
        return "-"
    parts = []
    for key, value in values.items():
        if isinstance(value, list):
            value = ",".join(str(v) for v in value) or "-"
        elif value == "":
            value = "-"
        parts.append(f"{key}={value}")
    return "  ".join(parts)


def format_probe(report: dict[str, Any], where: str) -> str:
    identity = report["identity"]
    if identity and "vendor_id" in identity:  # a USB device adds where it is on the bus
        ident = (
            f"{identity['manufacturer']} {identity['model']}, serial {identity['serial']}, "
            f"firmware {identity['firmware']}, {identity['vendor_id']:04x}:{identity['product_id']:04x} "
            f"bus {identity['bus']} address {identity['address']}"
        )
    elif identity:
        ident = (f"model {identity['model']}, serial {identity['serial']}, firmware {identity['firmware']}, "
                 f"protocol version {identity.get('protocol_version', 1)}")
    else:
        ident = "-"
    link = {k: v for k, v in (report.get("link") or {}).items() if v not in (0, {}, None)}
    lines = [
        where,
        f"  identity: {ident}",
        f"  status:   {_fields(report['status'])}",
        f"  link:     {_fields(link) if link else 'no errors'}",
    ]
    for error in report["errors"]:
        lines.append(f"  FAILED    {error}")
    return "\n".join(lines)
