"""The strict JSON the console and the control socket both parse (station/strict_json.py): the
depth measured before any parser runs, also piece by piece as a body arrives, strings and
their escapes skipped; a key twice, a long integer and NaN each refused by its own kind."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from station import strict_json
from station.strict_json import DepthGauge, LongInteger, Malformed, NotANumber, RepeatedKey, TooDeep, loads


def depth_of(pieces: list[bytes], limit: int = 4) -> int:
    gauge = DepthGauge(limit)
    for piece in pieces:
        gauge.feed(piece)
    return gauge.depth


def test_brackets_in_strings_and_escaped_quotes_do_not_count_even_across_pieces() -> None:
    text = json.dumps({"a": "[[[[[{{{{ \\\" \" ]]", "b": [[1]]})[:-1].encode()  # open at depth 1
    assert depth_of([text]) == 1
    for cut in range(1, len(text)):  # wherever the body is cut as it arrives
        assert depth_of([text[:cut], text[cut:]]) == 1, cut
    assert depth_of([b'["\\', b'"[[[[[[', b'"]']) == 0, "the escaped quote is in the second piece"


def test_too_deep_is_found_at_its_first_bytes() -> None:
    gauge = DepthGauge(4)
    gauge.feed(b"[[[[")
    with pytest.raises(TooDeep, match="nested deeper than 4 levels"):
        gauge.feed(b"[" + b"[" * 1_000_000)
    with pytest.raises(TooDeep):
        strict_json.check_depth('{"a": {"b": [[{"c": 1}]]}}', 4)
    strict_json.check_depth('{"a": {"b": [{"c": 1}]}}', 4)


@pytest.mark.parametrize(("text", "kind", "words"), [
    ('{"command": "status", "command": "pause"}', RepeatedKey, "'command' given twice"),
    ('{"a": 1' + "0" * 30 + "}", LongInteger, "an integer of 31 digits (at most 18)"),
    ('{"a": -Infinity}', NotANumber, "-Infinity is not a number"),
    ('{"a": NaN}', NotANumber, "NaN is not a number"),
    ('{"a": 1', Malformed, "not JSON"),
    ("[" * 5000 + "]" * 5000, TooDeep, "nested deeper than 4 levels"),
])
def test_each_refusal_has_its_kind(text: str, kind: type[Exception], words: str) -> None:
    with pytest.raises(kind) as caught:
        loads(text, max_depth=4, max_integer_digits=18)
    assert str(caught.value) == words
    assert isinstance(caught.value, strict_json.StrictJsonError) and isinstance(caught.value, ValueError)


def test_what_is_strict_json_is_parsed_as_json() -> None:
    text = '{"command": "bet", "args": {"amount": 123456789012345678, "box": "1", "x": [1.5, null, true]}}'
    assert loads(text, max_depth=4, max_integer_digits=18) == json.loads(text)
    repeated = loads('[{"a": 1}, {"a": 2}]', max_depth=4, max_integer_digits=18)
    assert repeated == [{"a": 1}, {"a": 2}], "the same key in two objects is no repeat"


def test_the_console_parses_requests_without_the_service() -> None:
    """The console's process takes JSON by the control socket's rules without importing the
    service: the rules are in station/strict_json.py, which imports nothing of the station."""
    root = Path(__file__).resolve().parents[2]
    for name in ("station/strict_json.py", "station/console/server.py", "station/console/inputs.py",
                 "station/console/sessions.py"):
        tree = ast.parse((root / name).read_text())
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {m for m in imported if m.startswith("station.service")}, name
        if name == "station/strict_json.py":
            assert not {m for m in imported if m.startswith("station")}, name
