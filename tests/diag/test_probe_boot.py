"""``station diag probe`` does not count the device's power-up Boot as a link error: the
protocol says a device speaks first, with Boot (docs/protocols/README.md)."""

from __future__ import annotations

import json

import pytest

from station.cli.main import main


@pytest.mark.parametrize("kind", ["display", "shoe", "buttonbox"])
def test_a_boot_before_the_handshake_is_not_an_error(sim, kind: str, capsys) -> None:
    device = sim(kind)
    # The device answers slowly, as one still starting up does: its Boot (resent until the
    # host acknowledges it) reaches the host before the answer to Identify.
    device.simulator.reply_delay = 0.3
    device.simulator.reboot()
    assert main(["diag", "probe", "--url", device.url, "--kind", kind, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == []
    assert report["link"]["errors_by_kind"] == {}, report["link"]
    assert main(["diag", "probe", "--url", device.url, "--kind", kind]) == 0
    assert "link:     " in capsys.readouterr().out
