"""Probing a port finds any station device through the common Identify command."""

from __future__ import annotations

import pytest

from drivers.probe import probe
from drivers.simulators import start_simulator


@pytest.mark.parametrize("kind,model", [("shoe", "SIM-SHOE-1"), ("display", "SIM-DISPLAY-1")])
def test_probe_identifies_the_device(kind: str, model: str) -> None:
    with start_simulator(kind, serial="X-77") as running:
        result = probe(running.url)
        identity = result.identity
        assert result.found and identity is not None and identity.model == model and identity.serial == "X-77"
        assert result.frames[0][0] == "tx"


def test_probe_reports_why_nothing_answered(tmp_path) -> None:
    missing = probe(str(tmp_path / "ttyNONE"))
    assert not missing.found and "cannot open" in missing.error
    with start_simulator("buttonbox") as running:
        running.simulator.mute(True)
        silent = probe(running.url, timeout=0.1, attempts=2)
        assert not silent.found and "no answer" in silent.error


def test_probe_reports_the_protocol_version_the_device_announces() -> None:
    """The version a device speaks is what a technician checks first after a firmware update:
    a probe says the one the device announced, not the oldest."""
    with start_simulator("chipreader", protocol_version=2) as running:
        identity = probe(running.url).identity
        assert identity is not None and identity.protocol_version == 2
    with start_simulator("chipreader", protocol_version=1) as running:
        identity = probe(running.url).identity
        assert identity is not None and identity.protocol_version == 1
