"""systemd/61-dealing-station-input.rules gives the service's group the event nodes of exactly
the foot switches docs/drivers.md lists, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "systemd" / "61-dealing-station-input.rules"


def _rules() -> list[str]:
    """The rules, continuation lines joined."""
    text = RULES.read_text().replace("\\\n", " ")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_every_rule_gives_only_an_event_node_of_one_usb_id_to_the_service_group() -> None:
    rules = _rules()
    assert rules
    for rule in rules:
        assert 'SUBSYSTEM=="input"' in rule and 'KERNEL=="event*"' in rule, rule
        assert re.search(r'ATTRS\{idVendor\}=="[0-9a-f]{4}", ATTRS\{idProduct\}=="[0-9a-f]{4}"', rule), rule
        assert 'GROUP="dealing-station"' in rule and 'MODE="0660"' in rule, rule
        assert 'ENV{LIBINPUT_IGNORE_DEVICE}="1"' in rule, rule


def test_the_rule_and_the_documented_units_agree() -> None:
    in_rules = {f"{v}:{p}" for v, p in re.findall(r'idVendor\}=="(\w{4})", ATTRS\{idProduct\}=="(\w{4})"',
                                                    "\n".join(_rules()))}
    doc = (ROOT / "docs" / "drivers.md").read_text()
    table = doc[doc.index("### Which units, and how to program them"):doc.index("### Finding a device's ID")]
    documented = set(re.findall(r"`([0-9a-f]{4}:[0-9a-f]{4})`", table))
    assert in_rules == documented == {"0c45:7403", "0c45:7404", "413d:2107", "1a86:e026", "0426:3011"}
    assert (ROOT / "debian" / "dealing-station.install").read_text().count("61-dealing-station-input.rules") == 1
