"""docs/protocols/pedals.md is right: its descriptors and worked examples, of both versions,
agree with the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drivers.simulators.pedals.device import SimulatedPedal
from drivers.usb import protocol as p
from drivers.usb.codec import ReportError, decode_report, decode_self_test
from drivers.usb.presses import PressTracker

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "pedals.md"
HEX_LINE = re.compile(r"^((?:[0-9a-f]{2} )*[0-9a-f]{2})(?:\s{2,}(.*))?$")


def blocks() -> list[list[tuple[bytes, str]]]:
    """Every ```text block as (bytes, description) lines, in document order."""
    text = DOC.read_text(encoding="utf-8")
    out = []
    for body in re.findall(r"```text\n(.*?)```", text, re.S):
        lines = []
        for line in body.splitlines():
            match = HEX_LINE.match(line.strip())
            if match:
                lines.append((bytes.fromhex(match[1]), match[2] or ""))
        out.append(lines)
    return out


#: Where each version's blocks start: worked examples, refused reports, self-test reply.
FIRST_BLOCK = {2: 2, 1: 5}


def test_configuration_descriptor_matches_the_simulated_device() -> None:
    config = blocks()[0]
    assert b"".join(raw for raw, _ in config) == SimulatedPedal().descriptors.configuration_bytes()
    version_1 = SimulatedPedal(protocol_version=1).descriptors.configuration_bytes()
    assert version_1.hex(" ").endswith("07 05 81 03 08 00 0a")  # as the page says version 1 differs
    assert "`07 05 81 03 08 00 0a`" in DOC.read_text()


def test_hid_report_descriptor_matches_the_protocol() -> None:
    hid = blocks()[1]
    assert b"".join(raw for raw, _ in hid) == p.hid_report_descriptor(2)
    version_1 = p.hid_report_descriptor(1).hex(" ")
    assert "85 01" in version_1 and "95 07" in version_1


@pytest.mark.parametrize("version", [2, 1])
def test_worked_examples_decode_as_described_and_give_the_stated_presses(version: int) -> None:
    examples = blocks()[FIRST_BLOCK[version]]
    assert len(examples) == 8
    tracker = PressTracker()
    names = {"left": 0, "centre": 1, "right": 2}
    for raw, description in examples:
        report = decode_report(raw, version)
        match = re.match(
            r"seq (\d+), (DOWN|UP|LONG) (\w+)(?: \(long\))?, held \{([\w, ]*)\}(?:, (\d+) ms)?", description
        )
        assert match, description
        seq, event, button, held, ms = match.groups()
        assert report.sequence == int(seq) and report.event.name == event
        assert report.button == names[button]
        assert report.held == sum(1 << names[n.strip()] for n in held.split(",") if n.strip())
        assert report.hold_cs * 10 == int(ms or 0)
        assert report.long == ("(long)" in description)
        presses = tracker.feed(report)
        stated = re.search(r"-> ButtonPressed\((\w+), long_press=(True|False)\)", description)
        if stated:
            assert [(p_.button, p_.long) for p_ in presses] == [(names[stated[1]], stated[2] == "True")]
        else:
            assert presses == []


@pytest.mark.parametrize("version", [2, 1])
@pytest.mark.parametrize("index", range(4))
def test_refused_examples_are_refused(version: int, index: int) -> None:
    raw, description = blocks()[FIRST_BLOCK[version] + 1][index]
    with pytest.raises(ReportError):
        decode_report(raw, version)
    assert description


@pytest.mark.parametrize("version", [2, 1])
def test_self_test_example(version: int) -> None:
    [(raw, _)] = blocks()[FIRST_BLOCK[version] + 2]
    reply = decode_self_test(raw, version)
    assert (reply.flags, reply.installed, reply.held, reply.long_press_ms) == (0, 0b111, 0, 800)
