// The pit page (docs/pit.md): a screen of the casino floor, from the pit server's pictures.
// This is its entry point: it wires the parts together and draws the screen from the model.
//
// Three views, named by the address: the floor (no ?pit=: one tile per pit, and a search
// for a table by its name), one pit (?pit=A: a tile per table, in pages when they do not fit
// the screen at a readable size) and every table (?all=1; also what the floor shows when it
// has fewer than two pits). The parts, each a module of one job:
//   pit-state.js   the page's shared state (the address, the model, what to draw again)
//   pit-model.js   the view model and the stream of pictures that keeps it
//   pit-words.js   words and figures (money, results, states, clocks)
//   pit-tiles.js   drawing a table's tile and a pit's tile
//   pit-fit.js     fitting text into its tile, in batches
//   pit-grid.js    the grid of tiles and its pages
//   pit-header.js  the header: title, links, counts, banner, totals
//   pit-search.js  the floor's search for a table by its name
//   pit-dom.js     finding and making elements
//
// Drawing costs what changes: every delta goes into the model at once (cheap), the screen is
// drawn at most once an animation frame, and only tiles that changed and are on the page shown
// are drawn again; their text is then fitted in batches, never a layout per step. Nothing is
// made smaller than 14 CSS px; the whole text stays in the tile's accessible name.

import {$, grid, make} from "./pit-dom.js";
import {fit} from "./pit-fit.js";
import {layOut, pageDue, turnPage, watchGrid} from "./pit-grid.js";
import {drawHeader, drawTotals} from "./pit-header.js";
import {itemKey, startStream} from "./pit-model.js";
import {drawDirectory, goToTable, showFound} from "./pit-search.js";
import {address, dirty, state} from "./pit-state.js";
import {drawPit, drawTable} from "./pit-tiles.js";

// ---- drawing ----------------------------------------------------------------------------

const drawn = new Map(); // table or pit -> {el, item, version, laidOut}
let scheduled = false;

function schedule() {
  if (scheduled) return;
  scheduled = true;
  // Once an animation frame; a screen that paints nothing (hidden) still keeps up.
  requestAnimationFrame(draw);
  setTimeout(draw, 250);
}

function draw() {
  if (!scheduled) return;
  scheduled = false;
  const model = state.model;
  if (!model) return;
  if (dirty.view) drawn.clear(); // another view: a pit's tile is not a table's
  state.zone = (model.head && model.head.timezone) || "UTC";
  const kind = itemKey(model.view);
  if (dirty.head) {
    drawHeader();
    drawTotals();
  } else if (model.view !== "floor" && dirty.items.size) {
    drawTotals();
  }
  if (model.view === "floor" || dirty.directoryWhole) drawDirectory();

  const order = model.order;
  $("empty").hidden = order.length > 0;
  grid.hidden = order.length === 0;
  layOut(kind, order);

  const laidOut = state.laidOut;
  const soughtTable = address.table;
  const shown = order.slice(state.pageIndex * state.perPage, (state.pageIndex + 1) * state.perPage);
  const changed = [];
  shown.forEach((id, index) => {
    const item = model.items.get(id);
    let entry = drawn.get(id);
    if (!entry) {
      const el = make("article");
      el.setAttribute("role", "group");
      entry = {el, item: null, version: null, laidOut: ""};
      drawn.set(id, entry);
    }
    const stale = entry.item !== item && (kind === "pit" || dirty.everything || entry.version !== item.version);
    if (stale || entry.laidOut !== laidOut) {
      if (kind === "pit") drawPit(entry.el, item);
      else drawTable(entry.el, item);
      entry.version = kind === "table" ? item.version : null;
      entry.laidOut = laidOut;
      changed.push(entry.el);
    }
    entry.item = item;
    entry.el.classList.toggle("sought", id === soughtTable && Date.now() < state.soughtUntil);
    if (grid.children[index] !== entry.el) grid.insertBefore(entry.el, grid.children[index] || null);
  });
  while (grid.children.length > shown.length) grid.lastElementChild.remove();
  for (const id of drawn.keys()) {
    if (!model.items.has(id)) drawn.delete(id);
  }
  fit(changed);
  dirty.everything = dirty.view = dirty.head = dirty.directoryWhole = false;
  dirty.items.clear();
  dirty.directory.clear();
  document.body.dataset.version = String(model.version);
}

// ---- the clock, the pages turning, the link to the server -------------------------------

function turn(by, byPerson) {
  if (turnPage(by, byPerson)) schedule();
}

function tick() {
  const clock = new Intl.DateTimeFormat("en-GB", {timeZone: state.zone, hour: "2-digit", minute: "2-digit",
    second: "2-digit"});
  $("clock").textContent = clock.format(new Date());
  const now = Date.now();
  if (state.soughtUntil && now >= state.soughtUntil) {
    state.soughtUntil = 0;
    schedule();
  }
  if (pageDue(now)) turn(1, false);
}

function setConnected(connected) {
  const footer = $("connection");
  footer.dataset.connected = String(connected);
  document.body.dataset.connected = String(connected);
  footer.textContent = connected ? "live" : "connection to the pit server lost – reconnecting…";
}

$("previous-page").addEventListener("click", () => turn(-1, true));
$("next-page").addEventListener("click", () => turn(1, true));
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement) return;
  if (event.key === "PageDown" || event.key === "ArrowRight") turn(1, true);
  if (event.key === "PageUp" || event.key === "ArrowLeft") turn(-1, true);
});
$("find").addEventListener("input", showFound);
$("find").addEventListener("keydown", (event) => {
  if (event.key === "Enter") goToTable();
  if (event.key === "Escape") {
    event.target.value = "";
    showFound();
  }
});
watchGrid(() => { if (state.model) schedule(); });
tick();
setInterval(tick, 1000);
startStream({connected: setConnected, changed: schedule});
