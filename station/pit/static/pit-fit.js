// Fitting text into its tile, in batches: the one job that reads the layout.
//
// Every row of every tile drawn is measured at once (one layout), the cheap fallbacks are
// applied by proportion (marks and figures written short, what a row can do without left
// out, alarms to "+N", a text cut with "…"), then the rows that still overflow are measured
// again (at most twice). Measuring row by row would lay the page out dozens of times a
// picture. Nothing is made smaller than 14 CSS px: the tiles' sizes (pit-grid.js) keep it.

import {make} from "./pit-dom.js";

function excessOf(row) {
  return row.scrollWidth - row.clientWidth;
}

function cutTo(cut, keep) {
  const whole = cut.dataset.whole || cut.textContent;
  cut.dataset.whole = whole;
  cut.textContent = keep >= whole.length ? whole : `${whole.slice(0, Math.max(1, keep))}…`;
}

function measure(row) {
  const gap = parseFloat(getComputedStyle(row).columnGap) || 0;
  const width = (el) => (el ? el.getBoundingClientRect().width : 0);
  const cut = row.querySelector(".cut");
  return {
    row, excess: excessOf(row), gap,
    shorts: [...row.querySelectorAll("[data-short]")].map((el) => ({el, width: width(el)})),
    drops: [...row.querySelectorAll(":scope > [data-drop]")]
      .map((el) => ({el, order: Number(el.dataset.drop), width: width(el)}))
      .sort((a, b) => a.order - b.order),
    chips: [...row.querySelectorAll(":scope > .chip")].map((el) => ({el, width: width(el),
      time: el.querySelector(".chip-time"), timeWidth: width(el.querySelector(".chip-time"))})),
    cut, cutWidth: width(cut),
  };
}

// The fallbacks, cheapest first, each taking off what it saves from what is too wide.
function fallBack(m) {
  let over = m.excess + 1;
  // Marks and figures written short ("NAT · BP", "253k").
  for (const {el, width} of m.shorts) {
    if (over <= 0) break;
    const long = el.dataset.long.length || 1;
    el.textContent = el.dataset.short;
    over -= width * (1 - el.dataset.short.length / long);
  }
  for (const drop of m.drops) {
    if (over <= 0) break;
    drop.el.classList.add("dropped");
    over -= drop.width + m.gap;
  }
  if (m.chips.length > 1 && over > 0) {
    // Alarms that do not fit give way to "+N", the worst (first) kept; "+N" is about as wide
    // as three letters of a chip.
    const first = m.chips[0];
    const more = Math.max(24, first.width / Math.max(4, first.el.textContent.length) * 3) + m.gap;
    over += more;
    let kept = m.chips.length;
    while (kept > 1 && over > 0) {
      kept -= 1;
      over -= m.chips[kept].width + m.gap;
    }
    for (const gone of m.chips.slice(kept)) gone.el.remove();
    const chipMore = make("span", "chip more", `+${m.chips.length - kept}`);
    chipMore.title = m.chips.slice(kept).map((c) => c.el.title).join("; ");
    m.row.append(chipMore);
    m.chips = m.chips.slice(0, kept);
  }
  // Then the alarms' times, the last first.
  for (const c of [...m.chips].reverse()) {
    if (over <= 0 || !c.time) continue;
    c.time.classList.add("dropped");
    over -= c.timeWidth;
    c.width -= c.timeWidth;
  }
  if (m.chips.length) {
    m.cut = m.chips[0].el.querySelector(".cut");
    m.cutWidth = m.cut ? m.chips[0].width * m.cut.textContent.length / Math.max(1, m.chips[0].el.textContent.length) : 0;
  }
  if (over > 0 && m.cut && m.cutWidth > 0) {
    const text = m.cut.dataset.whole || m.cut.textContent;
    const perChar = m.cutWidth / Math.max(1, m.cut.textContent.length);
    cutTo(m.cut, Math.floor(text.length - over / perChar) - 1);
  }
}

// A row still too wide after its fallbacks: its cut text (``width`` wide) shorter by the
// part that is over, else one more thing it can do without left out.
function cutFurther(row, excess, cut, width) {
  if (cut) {
    const shown = cut.textContent.replace(/…$/, "");
    const perChar = width / Math.max(1, cut.textContent.length);
    cutTo(cut, shown.length - Math.ceil((excess + 1) / Math.max(1, perChar)) - 1);
    return;
  }
  const left = [...row.querySelectorAll(":scope > [data-drop]:not(.dropped)")];
  if (left.length) left.sort((a, b) => a.dataset.drop - b.dataset.drop)[0].classList.add("dropped");
}

// The tables a pit's tile lists by name: as many as fit its room (``height``, a line
// ``line`` high), the last line saying how many more.
function fitNeeds(box, height, line) {
  const lines = [...box.children];
  if (!lines.length || !line) return;
  const fit = Math.max(1, Math.floor((height + 0.5) / line));
  if (lines.length <= fit) return;
  const kept = fit - 1;
  for (const gone of lines.slice(kept)) gone.remove();
  const more = make("div", "row need more", `+${lines.length - kept} more`);
  more.title = lines.slice(kept).map((l) => l.textContent).join(", ");
  box.append(more);
}

export function fit(tiles) {
  if (!tiles.length) return;
  const rows = [];
  const needs = [];
  for (const tile of tiles) {
    for (const row of tile.querySelectorAll(".row")) rows.push(row);
    const box = tile.querySelector(".needs");
    if (box) needs.push(box);
  }
  // One layout: every row's width, every list of needs' room.
  const heights = needs.map((box) => [box, box.clientHeight,
    box.firstElementChild ? box.firstElementChild.getBoundingClientRect().height : 0]);
  const over = rows.filter((row) => excessOf(row) > 0.5).map(measure);
  // Writes: the lists of needs to what fits, then the fallbacks.
  for (const [box, height, line] of heights) fitNeeds(box, height, line);
  for (const m of over) fallBack(m);
  // At most two more checks, each one layout for every row still too wide.
  let left = [...over.map((m) => m.row), ...needs.flatMap((box) => [...box.children])];
  for (let pass = 0; pass < 2 && left.length; pass++) {
    const wide = left.map((row) => [row, excessOf(row)]).filter(([, excess]) => excess > 0.5)
      .map(([row, excess]) => {
        const cut = row.querySelector(".cut");
        return [row, excess, cut, cut ? cut.getBoundingClientRect().width : 0];
      });
    for (const [row, excess, cut, width] of wide) cutFurther(row, excess, cut, width);
    left = wide.map(([row]) => row);
  }
}
