"""The console's layout check: tests/layout.py's, with one allowance said here, and only here.

**A scroll region** is an element the page marks ``data-layout="scroll"`` (the console's are
the list of payout lines, ``#payout-lines``: a round may pay more lines than any screen holds,
and the confirm buttons under it must stay on the screen; and a chip table's lines under the
felt, ``#chip-lines``: a full table's spots or payments are more than the room there). Its lines may be scrolled out of
sight, so text the region hides *vertically* is not "cut off", on these conditions, each of
which is a problem when it fails:

- the region scrolls: ``overflow-y`` ``auto`` or ``scroll`` (a person can reach what it hides);
- nothing in it is cut across: it is no wider inside than its box (``scrollWidth`` within
  ``clientWidth``), and its lines are checked against its sides as against any clipping box;
- the region itself is on the screen, and shows at least :data:`MIN_VIEW_PX` of its lines (or
  all of them, when they take less);
- each of its lines (its children) fits its view whole, and is seen whole at some position of
  the scroll: the check scrolls the region line by line and runs tests/layout.py's whole check
  at each position, the lines it does not show whole then left out (``data-layout="free"``), so
  every line is checked, drawn in full, against everything else on the page.

An element that clips its text without the mark is cut off as before; a region that does not
scroll, or cuts a line across, is still a defect.
"""

from __future__ import annotations

from typing import Any

from ..layout import TOLERANCE_PX, layout_problems

#: The least a scroll region shows of its lines: about two lines at the console's smallest font.
MIN_VIEW_PX = 48

_REGIONS = """
([tolerance, least]) => {
  const problems = [];
  const viewW = document.documentElement.clientWidth, viewH = document.documentElement.clientHeight;
  const regions = [...document.querySelectorAll('[data-layout="scroll"]')].filter(r => r.getClientRects().length);
  for (const region of regions) {
    const name = region.id ? '#' + region.id : region.tagName.toLowerCase();
    const s = getComputedStyle(region);
    if (!['auto', 'scroll'].includes(s.overflowY)) {
      problems.push(`scroll region ${name} does not scroll (overflow-y: ${s.overflowY}): ` +
                    'what it hides is out of reach');
    }
    if (region.scrollWidth > region.clientWidth + tolerance) {
      problems.push(`scroll region ${name} cuts its lines across ` +
                    `(${region.scrollWidth} px wide in ${region.clientWidth})`);
    }
    const box = region.getBoundingClientRect();
    if (box.left < -tolerance || box.top < -tolerance || box.right > viewW + tolerance ||
        box.bottom > viewH + tolerance) {
      problems.push(`scroll region ${name} reaches beyond the window ` +
                    `(${Math.round(box.left)},${Math.round(box.top)})-` +
                    `(${Math.round(box.right)},${Math.round(box.bottom)}) of ${viewW}x${viewH}`);
    }
    if (region.clientHeight < Math.min(least, region.scrollHeight) - tolerance) {
      problems.push(`scroll region ${name} shows ${region.clientHeight} px of its ${region.scrollHeight}: ` +
                    `less than ${least}`);
    }
    for (const line of region.children) {
      const r = line.getBoundingClientRect();
      if (r.height > region.clientHeight + tolerance) {
        problems.push(`scroll region ${name}: "${line.textContent.trim()}" is taller (${Math.round(r.height)} px) ` +
                      `than the region shows (${region.clientHeight} px): never seen whole`);
      }
    }
  }
  return {problems, count: regions.length};
}
"""

#: One position of every region's scroll: each region scrolled to ``tops[i]``; its lines not
#: shown whole are marked free for the page's check (and those shown whole are counted).
_POSITION = """
(wanted) => {
  const regions = [...document.querySelectorAll('[data-layout="scroll"]')].filter(r => r.getClientRects().length);
  const shown = [];
  regions.forEach((region, i) => {
    region.scrollTop = wanted[i] ?? 0;
    const view = region.getBoundingClientRect();
    const top = view.top + region.clientTop, bottom = top + region.clientHeight;
    const whole = [];
    [...region.children].forEach((line, j) => {
      const r = line.getBoundingClientRect();
      if (r.top >= top - 0.5 && r.bottom <= bottom + 0.5) whole.push(j);
      else line.dataset.layout = 'free';
    });
    // Where the next line not yet seen whole begins, in the region's scroll.
    const starts = [...region.children].map(line => line.getBoundingClientRect().top - top + region.scrollTop);
    shown.push({whole, tops: starts, scrollTop: region.scrollTop, most: region.scrollHeight - region.clientHeight,
                lines: region.children.length});
  });
  return shown;
}
"""

_UNMARK = """
() => {
  for (const region of document.querySelectorAll('[data-layout="scroll"]')) {
    for (const line of region.children) if (line.dataset.layout === 'free') delete line.dataset.layout;
    region.scrollTop = 0;
  }
}
"""


def console_layout_problems(page: Any) -> list[str]:
    """tests/layout.py's problems on the page as drawn, scroll regions scrolled through line by
    line (see the module's words); each problem once."""
    found = page.evaluate(_REGIONS, [TOLERANCE_PX, MIN_VIEW_PX])
    problems: list[str] = list(found["problems"])
    if not found["count"]:
        return problems + layout_problems(page)
    seen: list[set[int]] = []
    tops: list[float] = []
    try:
        for _ in range(500):  # far more positions than any list of payouts needs
            shown = page.evaluate(_POSITION, tops)
            if not seen:
                seen = [set() for _ in shown]
            problems += [p for p in layout_problems(page) if p not in problems]
            page.evaluate(_UNMARK)
            for region, done in zip(shown, seen, strict=True):
                done.update(region["whole"])
            tops = []
            moved = False
            for region, done in zip(shown, seen, strict=True):
                left = [j for j in range(region["lines"]) if j not in done]
                target = min(region["tops"][left[0]], region["most"]) if left else region["scrollTop"]
                moved = moved or (bool(left) and target > region["scrollTop"] + 0.5)
                tops.append(target)
            if not moved:
                break
        for index, (region, done) in enumerate(zip(shown, seen, strict=True)):
            never = [j for j in range(region["lines"]) if j not in done]
            if never:
                problems.append(f"scroll region {index + 1}: lines {never} are never shown whole at any scroll")
    finally:
        page.evaluate(_UNMARK)
    return problems


def assert_console_layout_sound(page: Any, where: str) -> None:
    """:func:`console_layout_problems` as an assertion naming the page and the window size."""
    size = page.viewport_size or {}
    problems = console_layout_problems(page)
    assert not problems, f"{where} at {size.get('width')}x{size.get('height')}:\n  " + "\n  ".join(problems)
