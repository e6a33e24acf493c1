"""Damaged pedal reports, many of them, for measuring how well a report's check holds.

:func:`mutants` turns valid reports into damaged ones the way a line, a connector or a
firmware bug damages them: a few bits flipped, a burst over neighbouring bytes, bytes
replaced, two bytes swapped, a byte lost or one too many (the rest shifted), a report cut
short or run on, bits stuck at 0 or 1, or garbage. (Not a report spliced from two: the
front of one and the back of another is, as often as not, simply the other valid report,
which no check can tell from a report sent.) Each mutant differs from its report; which
damage, where, and how is drawn from a seeded generator, so a run is the same every time.
``tests/usb/test_fuzz.py`` and ``bench/pedal_fuzz.py`` count what the codec lets through.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from drivers.usb import protocol as p
from drivers.usb.codec import PedalReport, encode_report
from drivers.usb.protocol import EventType

MUTATIONS = ("flip", "burst", "replace", "swap", "delete", "insert", "truncate", "extend", "stuck", "garbage")


@dataclass(frozen=True)
class Mutant:
    """A damaged report: what it was, how it was damaged, and the bytes that came out."""

    original: PedalReport
    how: str
    raw: bytes


def random_report(rng: random.Random) -> PedalReport:
    """A valid report: any sequence number, event, button, other buttons held, hold time."""
    event = rng.choice(list(EventType))
    button = rng.randrange(p.MAX_BUTTONS)
    others = rng.randrange(256)
    held = others & ~(1 << button) if event is EventType.UP else others | (1 << button)
    long = event is EventType.UP and rng.random() < 0.3
    hold = 0 if event is EventType.DOWN else rng.randrange(256)
    return PedalReport(rng.randrange(256), event, button, held, long, hold)


def mutate(raw: bytes, how: str, rng: random.Random) -> bytes:
    """``raw`` damaged as ``how`` (one of :data:`MUTATIONS`) says."""
    data = bytearray(raw)
    n = len(data)
    if how == "flip":  # 1-8 single bits anywhere
        for bit in rng.sample(range(8 * n), rng.randint(1, 8)):
            data[bit // 8] ^= 1 << (bit % 8)
    elif how == "burst":  # noise over 2-4 neighbouring bytes
        start = rng.randrange(n - 1)
        for i in range(start, min(n, start + rng.randint(2, 4))):
            data[i] ^= rng.randrange(1, 256)
    elif how == "replace":  # 1-3 bytes anywhere take any value
        for i in rng.sample(range(n), rng.randint(1, 3)):
            data[i] = rng.randrange(256)
    elif how == "swap":
        i, j = rng.sample(range(n), 2)
        data[i], data[j] = data[j], data[i]
    elif how == "delete":  # a byte lost: the rest moves up, the report ends with what came next
        del data[rng.randrange(n)]
        data.append(rng.randrange(256))
    elif how == "insert":  # a byte too many: the rest moves down, the last byte falls off
        data.insert(rng.randrange(n), rng.randrange(256))
        del data[-1]
    elif how == "truncate":
        del data[rng.randrange(n):]
    elif how == "extend":
        data += rng.randbytes(rng.randint(1, 8))
    elif how == "stuck":  # one byte's bits stuck at 0 or at 1
        data[rng.randrange(n)] = rng.choice((0x00, 0xFF))
    elif how == "garbage":
        data = bytearray(rng.randbytes(n))
    else:
        raise ValueError(f"unknown mutation {how!r}; one of {', '.join(MUTATIONS)}")
    return bytes(data)


def mutants(count: int, version: int, seed: int = 25,
            encode: Callable[[PedalReport], bytes] | None = None) -> Iterator[Mutant]:
    """``count`` damaged reports of ``version`` (or as ``encode`` writes them), each different
    from the report it came from."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        report = random_report(rng)
        raw = encode(report) if encode is not None else encode_report(report, version)
        how = MUTATIONS[made % len(MUTATIONS)]
        damaged = mutate(raw, how, rng)
        if damaged == raw:
            continue  # a swap of equal bytes, a stuck bit that was already so: no damage
        made += 1
        yield Mutant(report, how, damaged)
