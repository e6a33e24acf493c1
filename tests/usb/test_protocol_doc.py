"""docs/protocols/pedals.md is right: its descriptors and worked examples agree with the code."""

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


def test_configuration_descriptor_matches_the_simulated_device() -> None:
    config = blocks()[0]
    assert b"".join(raw for raw, _ in config) == SimulatedPedal().descriptors.configuration_bytes()


def test_hid_report_descriptor_matches_the_protocol() -> None:
    hid = blocks()[1]
    assert b"".join(raw for raw, _ in hid) == p.HID_REPORT_DESCRIPTOR


def test_worked_examples_decode_as_described_and_give_the_stated_presses() -> None:
    examples = blocks()[2]
    assert len(examples) == 8
    tracker = PressTracker()
    names = {"left": 0, "centre": 1, "right": 2}
    for raw, description in examples:
        report = decode_report(raw)
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


@pytest.mark.parametrize("index", range(4))
def test_refused_examples_are_refused(index: int) -> None:
    raw, description = blocks()[3][index]
    with pytest.raises(ReportError):
        decode_report(raw)
    assert description


def test_self_test_example() -> None:
    [(raw, _)] = blocks()[4]
    reply = decode_self_test(raw)
    assert (reply.flags, reply.installed, reply.held, reply.long_press_ms) == (0, 0b111, 0, 800)
