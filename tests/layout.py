"""A page's layout as a person sees it: no two pieces of text drawn over each other, and no
text cut off.

Every page of the project (the scoreboard, the dealer's console, the pit page) is read from
a distance or tapped in a hurry, so a label drawn over another or a figure clipped by its box
is a defect, however correct the page's data is. The check reads the boxes the browser
actually laid out, for every visible text node (a text node's own box, from a DOM ``Range``,
not its element's, so padding and empty space never count as overlap). A text box is as tall
as its font's ascent and descent, which the glyphs of a digit or a capital fill only in part:
a big "7" set tight above its suit shares some of that empty band with it and no ink. So each
box is taken in by :data:`INK_INSET` of its height at the top and at the bottom first: what
remains is where the letters are drawn.

- **overlap**: the boxes of text of two different elements intersect by more than a pixel
  each way (one element's own lines never count against each other);
- **cut off**: a text box reaches beyond the viewport, or beyond an ancestor that clips its
  content (``overflow`` other than ``visible``), or its element is narrower than its text
  (``scrollWidth > clientWidth`` with clipping, which is what ``text-overflow: ellipsis``
  hides);
- **spills**: text inside a button reaches beyond the button (a total drawn half over the
  button's edge is read as belonging to the next one).

A page tapped by people (the dealer's console) is also held to :func:`control_problems`:
every control a target of at least :data:`TARGET_PX` each way, and every visible field with a
label of its own.

Text hidden on purpose (``display: none``, ``visibility: hidden``, zero opacity) is left
out; text marked ``aria-hidden`` is still drawn, so it is checked like any other.
Elements marked ``data-layout="free"`` are left out with their subtree: the one place a page
may let text run under other text on purpose (none does today).
"""

from __future__ import annotations

from typing import Any

#: Pixels two boxes may share each way before they count as overlapping (anti-aliasing, the
#: rounding of fractional layouts).
TOLERANCE_PX = 1.0
#: The part of a text box's height, at its top and again at its bottom, that glyphs leave
#: empty (line-box leading, the room for accents and descenders).
INK_INSET = 0.15

_COLLECT = """
([tolerance, inset]) => {
  const found = [];
  const viewW = document.documentElement.clientWidth, viewH = document.documentElement.clientHeight;
  const hidden = el => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.visibility === 'collapse' ||
          parseFloat(s.opacity) === 0 || e.dataset.layout === 'free') return true;
    }
    return false;
  };
  const describe = el => {
    let name = el.tagName.toLowerCase();
    if (el.id) name += '#' + el.id;
    else if (el.classList.length) name += '.' + [...el.classList].join('.');
    return name;
  };
  const clipped = el => {
    const s = getComputedStyle(el);
    return s.overflowX !== 'visible' || s.overflowY !== 'visible';
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    const el = node.parentElement;
    if (!text || !el || hidden(el) || ['SCRIPT', 'STYLE', 'TITLE'].includes(el.tagName)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter(r => r.width > 0.5 && r.height > 0.5).map(r => {
      const cut = r.height * inset;
      return {left: r.left, right: r.right, top: r.top + cut, bottom: r.bottom - cut};
    });
    if (!rects.length) {
      const inside = el.getBoundingClientRect();
      if (inside.width === 0 || inside.height === 0) continue;  // laid out as nothing: not drawn
    }
    texts.push({el, text, rects});
  }
  const problems = [];
  for (const t of texts) {
    for (const r of t.rects) {
      if (r.left < -tolerance || r.top < -tolerance || r.right > viewW + tolerance || r.bottom > viewH + tolerance) {
        problems.push(`cut off: "${t.text}" (${describe(t.el)}) reaches beyond the window ` +
                      `(${Math.round(r.left)},${Math.round(r.top)})-(${Math.round(r.right)},${Math.round(r.bottom)}) ` +
                      `of ${viewW}x${viewH}`);
        break;
      }
      let clippedBy = null;
      for (let a = t.el; a && a !== document.body; a = a.parentElement) {
        if (!clipped(a)) continue;
        const box = a.getBoundingClientRect();
        if (r.left < box.left - tolerance || r.right > box.right + tolerance ||
            r.top < box.top - tolerance || r.bottom > box.bottom + tolerance) { clippedBy = a; break; }
      }
      if (clippedBy) {
        problems.push(`cut off: "${t.text}" (${describe(t.el)}) is clipped by ${describe(clippedBy)}`);
        break;
      }
    }
    const control = t.el.closest('button');
    if (control) {
      const box = control.getBoundingClientRect();
      const out = t.rects.find(r => r.left < box.left - tolerance || r.right > box.right + tolerance ||
                                    r.top < box.top - tolerance || r.bottom > box.bottom + tolerance);
      if (out) {
        const by = Math.max(box.left - out.left, out.right - box.right, box.top - out.top, out.bottom - box.bottom);
        problems.push(`spills: "${t.text}" (${describe(t.el)}) reaches ${Math.round(by)} px out of its button ` +
                      `${describe(control)}`);
      }
    }
    if (clipped(t.el) && t.el.scrollWidth > t.el.clientWidth + tolerance) {
      problems.push(`cut off: "${t.text}" (${describe(t.el)}) is wider than its box ` +
                    `(${t.el.scrollWidth} px in ${t.el.clientWidth})`);
    }
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], b = texts[j];
      if (a.el === b.el) continue;
      let hit = null;
      for (const ra of a.rects) {
        for (const rb of b.rects) {
          const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
          const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
          if (w > tolerance && h > tolerance) { hit = [w, h]; break; }
        }
        if (hit) break;
      }
      if (hit) {
        problems.push(`overlap: "${a.text}" (${describe(a.el)}) and "${b.text}" (${describe(b.el)}) ` +
                      `share ${Math.round(hit[0])}x${Math.round(hit[1])} px`);
      }
    }
  }
  return {problems, texts: texts.length};
}
"""

#: The window sizes the table's screens are used at: the dealer's 1280x800 panel, a
#: 1366x768 laptop or tablet, a 1080p pit screen and a 4K one.
SCREEN_SIZES: tuple[tuple[int, int], ...] = ((1280, 800), (1366, 768), (1920, 1080), (3840, 2160))


def layout_problems(page: Any) -> list[str]:
    """Every overlap and cut-off text on the page as it is drawn now, one line each (empty
    when the layout is sound). Fails when the page shows no text at all: an empty page would
    pass any layout check."""
    found = page.evaluate(_COLLECT, [TOLERANCE_PX, INK_INSET])
    if not found["texts"]:
        return ["the page shows no text at all"]
    return list(found["problems"])


def assert_layout_sound(page: Any, where: str) -> None:
    """:func:`layout_problems` as an assertion naming the page and the window size."""
    size = page.viewport_size or {}
    problems = layout_problems(page)
    assert not problems, f"{where} at {size.get('width')}x{size.get('height')}:\n  " + "\n  ".join(problems)


#: The smallest touch target each way, in CSS pixels (WCAG 2.5.5's 44, and Material's 48).
TARGET_PX = 48

_CONTROLS = """
(target) => {
  const problems = [];
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  for (const el of document.querySelectorAll('button, input, select, textarea')) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    const name = el.getAttribute('aria-label') || el.textContent.trim() || el.id;
    if (r.width < target - 0.5 || r.height < target - 0.5) {
      problems.push(`small target: "${name}" is ${Math.round(r.width)}x${Math.round(r.height)} px`);
    }
  }
  const labels = new Map();
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (!shown(el) || el.type === 'hidden') continue;
    const label = (el.getAttribute('aria-label') || [...(el.labels || [])].map(l => l.textContent.trim()).join(' ')
                   || '').trim();
    if (!label) { problems.push(`unlabelled field: #${el.id}`); continue; }
    labels.set(label, [...(labels.get(label) || []), el.id]);
  }
  for (const [label, ids] of labels) {
    if (ids.length > 1) problems.push(`two fields labelled "${label}": ${ids.map(id => '#' + id).join(', ')}`);
  }
  return problems;
}
"""


def control_problems(page: Any) -> list[str]:
    """Every control smaller than :data:`TARGET_PX` either way, every visible field without a
    label, and every label two visible fields share."""
    return list(page.evaluate(_CONTROLS, TARGET_PX))
