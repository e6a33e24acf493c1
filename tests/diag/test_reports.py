"""Properties of the report builders the diag commands print: the deck grid never disagrees
with the shuffler's counts, and whatever bytes arrive, the monitor labels frames the codec
refused as corrupt and never as messages."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codec import get_protocol
from drivers.codec import shoe as shoe_wire
from drivers.codec.protocol import Packet, StreamCodec
from station.cards import FULL_DECK
from station.diag.deck import RANKS, SUITS, deck_report, format_deck
from station.diag.monitor import FrameLine, describe_decoded
from station.diag.press_test import PressTally
from station.events import ButtonPressed, DeckCheck

CODES = [card.code for card in FULL_DECK]


@settings(max_examples=60, deadline=None)
@given(decks=st.integers(4, 8), changes=st.dictionaries(st.sampled_from(CODES), st.integers(-4, 3), max_size=10))
def test_deck_grid_matches_the_counts(decks: int, changes: dict[str, int]) -> None:
    held = Counter({code: max(0, decks + changes.get(code, 0)) for code in CODES})
    expected = Counter(dict.fromkeys(CODES, decks))
    check = DeckCheck(
        "shuffler", decks, tuple(sorted((c, n) for c, n in held.items() if n)),
        tuple(sorted((expected - held).elements())), tuple(sorted((held - expected).elements())),
    )
    report = deck_report(check)
    assert report["counted"] == sum(held.values())
    assert report["complete"] == (held == expected)
    for rank in RANKS:
        for suit in SUITS:
            assert report["grid"][rank][suit] == held[rank + suit]
    text = format_deck(report, "shuffler")
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("  ")}
    for rank in RANKS:
        for suit, cell in zip(SUITS, rows[rank], strict=True):
            n = held[rank + suit]
            assert cell == f"{n}{'-' if n < decks else '+' if n > decks else ''}"
    assert ("DECK NOT COMPLETE" in text) != report["complete"]


@settings(max_examples=150, deadline=None)
@given(noise=st.binary(max_size=40), card=st.sampled_from(FULL_DECK), flip=st.integers(0, 200))
def test_monitor_labels_refused_frames_corrupt_and_decodes_the_rest(noise: bytes, card, flip: int) -> None:
    protocol = get_protocol("shoe")
    frame = bytearray(protocol.encode(shoe_wire.CardRead(card), 7))
    frame[flip % len(frame)] ^= 0x5A  # damage one byte of a real frame
    codec = StreamCodec(protocol)
    items = codec.feed(noise + bytes(frame) + protocol.encode(shoe_wire.CardRead(card), 8))
    labels = []
    for item in items:
        decoded = item.message if isinstance(item, Packet) else item
        text, corrupt = describe_decoded(decoded)
        labels.append((corrupt, text))
        assert corrupt == (not isinstance(item, Packet))
        line = FrameLine(0.0, "rx", item.raw, text, corrupt).render()
        assert item.raw.hex(" ") in line and (("CORRUPT" in line) == corrupt)
    # the intact frame after the damage is always recovered, and decoded as the card it is
    assert (False, f"CardRead(card={card.code})") in labels


def test_press_tally_names_unpressed_and_unknown_buttons() -> None:
    tally = PressTally(("left", "centre", "right"))
    for t, (button, long) in enumerate([("left", False), ("left", True), ("foot", False)]):
        tally.add(float(t), ButtonPressed("pedals", button, long))
    assert tally.never_pressed == ["centre", "right"]
    assert tally.unknown == ["foot"]
    assert tally.as_dict({"left": "reveal"})["buttons"]["left"] == {"short": 1, "long": 1, "action": "reveal"}
