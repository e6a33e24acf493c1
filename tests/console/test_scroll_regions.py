"""The console's allowance in the layout check (tests/console/scroll_regions.py), on small pages
made to pass or to fail it: a marked region that scrolls, whose lines are each seen whole at
some scroll and never cut across, passes; the same list without the mark, a region that does
not scroll, one that cuts a line across, one line taller than the region, and a region that
shows next to nothing all fail, each with its reason."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ..browser import BROWSER_MARKS, launched_chromium
from .scroll_regions import console_layout_problems

pytestmark = BROWSER_MARKS

STYLE = ("<style>body{margin:0;font:20px sans-serif} ul{margin:0;padding:0;list-style:none;width:300px;"
         "height:120px;overflow-y:auto;overflow-x:hidden;overflow-wrap:anywhere} button{height:50px}</style>")
LINES = "".join(f"<li>Box {n} \u00b7 ann \u00b7 Banker: pay 19.00 (20.00 less 1.00 commission)</li>"
                for n in range(1, 13))


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with launched_chromium() as chromium:
        page = chromium.new_page(viewport={"width": 800, "height": 600})
        yield page
        page.close()


def problems(page: Any, body: str) -> list[str]:
    page.set_content(f"<!doctype html><html><head>{STYLE}</head><body>{body}</body></html>")
    return console_layout_problems(page)


def test_a_marked_region_that_scrolls_every_line_into_sight_passes(page: Any) -> None:
    assert problems(page, f'<ul id="lines" data-layout="scroll">{LINES}</ul><button>Confirm payouts</button>') == []
    assert page.eval_on_selector("#lines", "l => l.scrollTop") == 0  # left as it was found


def test_the_same_list_without_the_mark_is_cut_off(page: Any) -> None:
    found = problems(page, f'<ul id="lines">{LINES}</ul><button>Confirm payouts</button>')
    assert any(line.startswith('cut off: "Box 12') and "clipped by ul#lines" in line for line in found), found


def test_a_region_that_does_not_scroll_hides_lines_out_of_reach(page: Any) -> None:
    found = problems(page, f'<ul id="lines" data-layout="scroll" style="overflow:hidden">{LINES}</ul>')
    assert any("#lines does not scroll (overflow-y: hidden)" in line for line in found), found


def test_a_line_cut_across_is_cut_off(page: Any) -> None:
    found = problems(page, '<ul id="lines" data-layout="scroll" style="overflow-wrap:normal;white-space:nowrap">'
                           f"{LINES}</ul>")
    assert any("#lines cuts its lines across" in line for line in found), found
    assert any('cut off: "Box 1' in line for line in found), found


def test_a_line_taller_than_the_region_is_never_seen_whole(page: Any) -> None:
    tall = "<li>" + "pay 19.00 and return 5.00 " * 30 + "</li>"
    found = problems(page, f'<ul id="lines" data-layout="scroll">{tall}{LINES}</ul>')
    assert any("taller" in line and "never seen whole" in line for line in found), found


def test_a_region_squeezed_to_nothing_is_a_defect(page: Any) -> None:
    found = problems(page, f'<ul id="lines" data-layout="scroll" style="height:20px">{LINES}</ul>')
    assert any("#lines shows 20 px" in line for line in found), found


def test_a_region_past_the_window_is_cut_off(page: Any) -> None:
    found = problems(page, f'<div style="height:560px">Felt</div><ul id="lines" data-layout="scroll">{LINES}</ul>')
    assert any("#lines reaches beyond the window" in line for line in found), found
