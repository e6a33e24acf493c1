// The page's shared state, in one place: what its address asks for, what the stream has said
// (the model), what the screen must draw again (dirty) and where the grid and its pages are.
//
// Every module reads and writes these objects, never a variable of another module, so what
// is shared is written down here, once, and a reader sees who may change what.

const params = new URLSearchParams(window.location.search);

// What the address asks for: ?pit=A (a pit), ?all=1 (every table), ?table= (a table to mark,
// found by the floor's search), ?page= (a page held, not turned by the clock).
export const address = Object.freeze({
  pit: params.get("pit") || null, // ?pit= names no pit: the floor
  all: params.get("all") === "1",
  table: params.get("table") || null,
});

export const state = {
  // What the stream has said: {view, pit, version, head, items: Map id -> tile or summary,
  // order: [id], directory: Map table id -> entry}; null until the first whole picture.
  model: null,
  // The pit's time zone (the head's), for every clock on the page.
  zone: "UTC",
  // The grid and its pages.
  box: null, // the grid's inner size, from the ResizeObserver
  laidOut: "", // what the tiles were last drawn for (a change draws every tile again)
  pageIndex: 0,
  pageCount: 1,
  perPage: 1,
  pinnedPage: params.has("page") ? Math.max(1, parseInt(params.get("page"), 10) || 1) : null,
  lastTurn: Date.now(),
  holdUntil: 0, // the clock turns no page before then (a table found is being looked at)
  soughtUntil: 0, // the table found by its name is marked until then
  soughtShown: false,
};

// What changed in the model since the screen was drawn: the tiles (items), the whole view
// (everything; view: it is another view, whose tiles are not the last one's), the head, the
// floor's directory (an entry, or all of it).
export const dirty = {items: new Set(), everything: true, view: false, head: true, directory: new Set(),
  directoryWhole: true};
