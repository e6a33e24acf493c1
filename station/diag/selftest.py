"""``station diag selftest``: every configured device connects and tests itself.

Each device is opened on its own (one that is absent or broken does not stop the others
being tested) and asked for its self-test, judged exactly as the service judges it at
start-up (:meth:`station.service.devices.DeviceSet.self_tests`). A ``sim:`` device is tested
by starting its simulator, which the report says, so nobody mistakes a green simulated
shoe for a working real one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from station.config.devices import DevicesSection
from station.diag.target import DiagError, Target, open_session


@dataclass(frozen=True)
class DeviceVerdict:
    device: str
    url: str
    simulated: bool
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def targets(devices: DevicesSection) -> list[Target]:
    return [Target(name, name, section, configured=True) for name, section in devices.configured()]


def check_device(target: Target, wait: float = 5.0) -> DeviceVerdict:
    try:
        with open_session(target, wait=wait) as session:
            (outcome,) = session.device_set.self_tests()
            return DeviceVerdict(target.name, session.url, target.simulated, outcome.passed, outcome.detail)
    except DiagError as exc:
        return DeviceVerdict(target.name, target.url, target.simulated, False, str(exc))


def format_verdict(verdict: DeviceVerdict) -> str:
    mark = "PASS" if verdict.passed else "FAIL"
    where = f"simulated: started its simulator at {verdict.url}" if verdict.simulated else verdict.url
    return f"  {mark}  {verdict.device:<10} {verdict.detail}\n        {'':<10} ({where})"
