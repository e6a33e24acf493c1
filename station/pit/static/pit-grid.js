// The grid and its pages: how many columns and rows of tiles, and which page of them is shown.
//
// The tiles fill the screen whatever their number: the columns and rows are chosen for the
// largest tiles of about the kind's shape, no smaller than the smallest tile that keeps every
// text at 14 CSS px or more; when that many do not fit, the tiles go in pages of as many as
// fit, which the clock turns (page_seconds) or a person does. A table found by its name opens
// on its page, marked, and that page is held a while.

import {$, grid} from "./pit-dom.js";
import {address, state} from "./pit-state.js";

// The smallest tile that keeps every text at 14 px or more (CSS px), and the tiles' shape.
const TILE = {
  table: {minWidth: 360, minHeight: 165, aspect: 1.75},
  pit: {minWidth: 230, minHeight: 160, aspect: 1.25},
};
const SOUGHT_MS = 30000; // how long a table found by its name stays marked

function gridBox() {
  if (state.box === null) {
    const rect = grid.getBoundingClientRect();
    state.box = {width: rect.width, height: rect.height};
  }
  return state.box;
}

// Columns and rows that give the largest tiles of about the kind's shape, no smaller than
// the smallest readable tile; when this many do not fit, pages of as many as fit.
function arrange(kind, count) {
  const shape = TILE[kind];
  const style = getComputedStyle(grid);
  const gap = parseFloat(style.columnGap) || 0;
  const padding = parseFloat(style.paddingLeft) || 0;
  const {width, height} = gridBox();
  const inner = {width: width - 2 * padding, height: height - 2 * padding};
  const size = (cols, rows) => ({cols, rows, w: (inner.width - gap * (cols - 1)) / cols,
    h: (inner.height - gap * (rows - 1)) / rows});
  const largest = (n) => {
    let best = null;
    for (let cols = 1; cols <= Math.max(1, n); cols++) {
      const s = size(cols, Math.ceil(Math.max(1, n) / cols));
      s.score = Math.min(s.w / shape.aspect, s.h);
      const readable = s.w >= shape.minWidth - 0.5 && s.h >= shape.minHeight - 0.5;
      if (readable && (!best || s.score > best.score)) best = s;
    }
    return best;
  };
  const n = Math.max(1, count);
  let best = largest(n);
  let pages = 1;
  let per = n;
  if (!best) {
    const cols = Math.max(1, Math.floor((inner.width + gap) / (shape.minWidth + gap)));
    const rows = Math.max(1, Math.floor((inner.height + gap) / (shape.minHeight + gap)));
    pages = Math.ceil(n / (cols * rows));
    per = Math.ceil(n / pages);
    best = largest(per) || size(cols, rows);
  }
  return {...best, pages, per, key: `${kind} ${best.cols}x${best.rows} ${Math.round(best.w)}x${Math.round(best.h)}`};
}

function applyArrangement(a) {
  grid.style.setProperty("--cols", String(a.cols));
  grid.style.setProperty("--rows", String(a.rows));
  grid.style.setProperty("--th", `${Math.min(a.h, a.w / TILE[grid.dataset.kind].aspect) / 100}px`);
  grid.style.setProperty("--tw", `${a.w / 100}px`);
}

// The grid for `order` (the view's ids, in order) of tiles of `kind`, and the page shown: a
// table sought by the address on its page, else a page pinned by the address, else the page
// the clock or a person turned to.
export function layOut(kind, order) {
  const model = state.model;
  if (!state.box || !state.box.width || !state.box.height) state.box = null; // shown just now: measured once
  grid.dataset.kind = kind;
  grid.setAttribute("aria-label", kind === "pit" ? "Pits" : "Tables");
  const arranged = arrange(kind, order.length);
  if (arranged.key !== state.laidOut) {
    state.laidOut = arranged.key;
    applyArrangement(arranged);
  }
  state.pageCount = arranged.pages;
  state.perPage = arranged.per;
  grid.dataset.grid = `${arranged.cols}x${arranged.rows}`;
  const sought = address.table;
  if (sought && !state.soughtShown && kind === "table" && model.items.has(sought)) {
    state.soughtShown = true;
    state.pageIndex = Math.floor(order.indexOf(sought) / state.perPage);
    state.soughtUntil = Date.now() + SOUGHT_MS;
    state.holdUntil = state.soughtUntil;
    state.lastTurn = Date.now();
  } else if (state.pinnedPage !== null) {
    state.pageIndex = Math.min(state.pinnedPage, state.pageCount) - 1;
  }
  state.pageIndex = Math.min(state.pageIndex, state.pageCount - 1);
  drawPages();
}

function drawPages() {
  const pages = $("pages");
  pages.hidden = state.pageCount < 2;
  $("page-of").textContent = `page ${state.pageIndex + 1} of ${state.pageCount}`;
  document.body.dataset.page = String(state.pageIndex + 1);
  document.body.dataset.pages = String(state.pageCount);
}

// The next page (`by` 1) or the one before (-1); a person's turn moves a page pinned by the
// address too. False when there is no other page (nothing to draw again).
export function turnPage(by, byPerson) {
  if (state.pageCount < 2) return false;
  state.pageIndex = (state.pageIndex + by + state.pageCount) % state.pageCount;
  if (byPerson && state.pinnedPage !== null) state.pinnedPage = state.pageIndex + 1;
  state.lastTurn = Date.now();
  return true;
}

// Whether the clock turns the page now: more than one page, the head's page_seconds gone by
// since the last turn, no page pinned and no table found being looked at.
export function pageDue(now) {
  const model = state.model;
  const seconds = model && model.head ? Number(model.head.page_seconds) || 0 : 0;
  return state.pageCount > 1 && seconds > 0 && state.pinnedPage === null && now >= state.holdUntil
    && now - state.lastTurn >= seconds * 1000;
}

// Calls `resized()` when the grid's size changes (the screen turned, a window resized).
export function watchGrid(resized) {
  new ResizeObserver((entries) => {
    const rect = entries[entries.length - 1].contentRect;
    const padding = parseFloat(getComputedStyle(grid).paddingLeft) || 0;
    const size = {width: rect.width + 2 * padding, height: rect.height + 2 * padding};
    const box = state.box;
    if (box && Math.abs(box.width - size.width) < 0.5 && Math.abs(box.height - size.height) < 0.5) return;
    state.box = size;
    resized();
  }).observe(grid);
}
