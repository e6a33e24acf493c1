"""The layout check itself, on small pages made to pass or to fail it: the check that every
page's tests lean on must see an overlap, a clipped label and a label off the window, and
must pass a sound page (a check that passes everything would prove nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..browser import BROWSER_MARKS, launched_chromium
from ..layout import layout_problems

pytestmark = BROWSER_MARKS

STYLE = "<style>body{margin:0;font:32px sans-serif} .at{position:absolute}</style>"


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with launched_chromium() as chromium:
        page = chromium.new_page(viewport={"width": 800, "height": 600})
        yield page
        page.close()


def problems(page: Any, body: str) -> list[str]:
    page.set_content(f"<html><head>{STYLE}</head><body>{body}</body></html>")
    return layout_problems(page)


def test_a_sound_page_passes(page: Any) -> None:
    assert problems(page, "<h1>Table 4</h1><p>Place your bets</p><div>Cards left <b>50</b></div>") == []


def test_text_drawn_over_text_is_an_overlap(page: Any) -> None:
    found = problems(page, '<div class="at" style="left:10px;top:10px">CARDS LEFT 50</div>'
                           '<div class="at" style="left:60px;top:14px">TABLE 10.00</div>')
    assert len(found) == 1 and found[0].startswith('overlap: "CARDS LEFT 50"'), found


def test_a_box_that_clips_its_label_cuts_it_off(page: Any) -> None:
    found = problems(page, '<div style="width:120px;overflow:hidden;white-space:nowrap">5.00 - 250.00 EUR</div>')
    assert found and all(line.startswith('cut off: "5.00 - 250.00 EUR"') for line in found), found


def test_text_beyond_the_window_is_cut_off(page: Any) -> None:
    found = problems(page, '<div class="at" style="left:740px;top:10px;white-space:nowrap">Banker 9</div>')
    assert found == [found[0]] and "beyond the window" in found[0], found


def test_hidden_text_and_lines_of_one_element_do_not_count(page: Any) -> None:
    assert problems(page, '<div style="width:200px">a long label that wraps onto several lines</div>'
                          '<div class="at" style="left:0;top:0;display:none">hidden</div>'
                          '<div class="at" style="left:0;top:0;visibility:hidden">hidden too</div>') == []


def test_an_empty_page_does_not_pass(page: Any) -> None:
    assert problems(page, "") == ["the page shows no text at all"]
