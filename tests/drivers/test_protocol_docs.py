"""The hex examples in docs/protocols/ decode exactly as documented, each in the version it
states (the current one when it states none), and none is missing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drivers.codec import StreamCodec, get_protocol
from drivers.codec.examples import COMMON, EXAMPLES, EXAMPLES_V1, describe, render_table
from drivers.codec.protocol import Packet

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocols"
EXAMPLE = re.compile(
    r"^frame:\s+(?P<hex>[0-9a-f ]+)\ndecoded: (?P<text>.+)$(?:\nversion: (?P<version>\d+)$)?", re.MULTILINE
)
PAGES = {
    "README.md": "shoe",
    "shoe.md": "shoe",
    "shuffler.md": "shuffler",
    "display.md": "display",
    "buttonbox.md": "buttonbox",
    "sign.md": "sign",
    "chipreader.md": "chipreader",
}


def examples_in(page: str) -> list[tuple[bytes, str, int | None]]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return [(bytes.fromhex(m["hex"]), m["text"], int(m["version"]) if m["version"] else None)
            for m in EXAMPLE.finditer(text)]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_documented_frame_decodes_as_documented(page: str) -> None:
    protocol = get_protocol(PAGES[page])
    found = examples_in(page)
    assert found, f"{page} has no worked examples"
    for raw, text, version in found:
        out = StreamCodec(protocol, version).feed(raw)
        assert len(out) == 1 and isinstance(out[0], Packet), f"{page}: {raw.hex(' ')} does not decode: {out}"
        assert describe(out[0].seq, out[0].message, version) == text
        assert protocol.encode(out[0].message, out[0].seq, version) == raw


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_example_and_message_table_is_in_the_page(page: str) -> None:
    name = PAGES[page]
    protocol = get_protocol(name)
    wanted = COMMON if page == "README.md" else EXAMPLES[name]
    documented = {(text, version) for _, text, version in examples_in(page)}
    assert {(describe(seq, message), None) for _, seq, message in wanted} <= documented
    older = EXAMPLES_V1.get("common" if page == "README.md" else name, [])
    assert {(describe(seq, message, 1), 1) for _, seq, message in older} <= documented
    text = (DOCS / page).read_text(encoding="utf-8")
    assert render_table(protocol, common=page == "README.md") in text, f"regenerate the table in {page}"
