// The view model and its stream: what the pit server has said, kept whole by its pictures.
//
// The server speaks the picture protocol, version 2 (docs/pit.md, "How it is served"): each
// stream begins with a whole picture of its view, then deltas of what changed; a delta whose
// base is not the version held means the page missed something, and it asks for a whole
// picture by opening its stream again (a stream always begins whole). Every picture goes into
// the model at once (cheap) and says what changed in `dirty`; drawing is the screen's job.
//
// The order of the tiles is the server's: a whole picture's list is in order, and a delta
// says the order (`order`) whenever a table or pit came, went or changed its place. The page
// sorts nothing itself: the server orders pits as people count them ("Pit 2" before "Pit 10").

import {address, dirty, state} from "./pit-state.js";

let streamKind = address.pit !== null ? "pit" : address.all ? "all" : "floor";
let source = null;
let hooks = {connected: () => {}, changed: () => {}};

// What names an item of a view: a pit on the floor, a table elsewhere.
export function itemKey(view) {
  return view === "floor" ? "pit" : "table";
}

function takeWhole(picture) {
  const model = state.model;
  if (model && model.view !== picture.view) dirty.view = true; // a pit's tile is not a table's
  const key = itemKey(picture.view);
  const list = picture.view === "floor" ? picture.pits || [] : picture.tables || [];
  state.model = {view: picture.view, pit: picture.pit, version: picture.version, head: picture.head,
    items: new Map(list.map((item) => [item[key], item])), order: list.map((item) => item[key]),
    directory: new Map((picture.directory || []).map((entry) => [entry.table, entry]))};
  dirty.everything = dirty.head = dirty.directoryWhole = true;
  dirty.items.clear();
  dirty.directory.clear();
}

function takeDelta(delta) {
  const model = state.model;
  const key = itemKey(delta.view);
  const changed = delta.view === "floor" ? delta.pits || [] : delta.tables || [];
  const removed = delta.view === "floor" ? delta.pits_removed || [] : delta.removed || [];
  for (const item of changed) {
    const id = item[key];
    model.items.set(id, item);
    dirty.items.add(id);
  }
  for (const id of removed) {
    model.items.delete(id);
    dirty.items.add(id);
  }
  // The server says the order when a table came, went or changed its place.
  if (Array.isArray(delta.order)) model.order = delta.order.filter((id) => model.items.has(id));
  for (const entry of delta.directory || []) {
    model.directory.set(entry.table, entry);
    dirty.directory.add(entry.table);
  }
  for (const id of delta.directory_removed || []) {
    model.directory.delete(id);
    dirty.directory.add(id);
  }
  if (delta.head) {
    model.head = delta.head;
    dirty.head = true;
  }
  model.version = delta.version;
}

// ---- the stream -------------------------------------------------------------------------

function streamUrl() {
  if (streamKind === "pit") return `/events?pit=${encodeURIComponent(address.pit)}`;
  return streamKind === "all" ? "/events?all=1" : "/events";
}

function connect() {
  if (source) source.close();
  const opened = new EventSource(streamUrl());
  source = opened;
  opened.addEventListener("open", () => hooks.connected(true));
  opened.addEventListener("whole", (event) => {
    if (source !== opened) return;
    hooks.connected(true);
    takeWhole(JSON.parse(event.data));
    if (switchView()) return;
    hooks.changed();
  });
  opened.addEventListener("delta", (event) => {
    if (source !== opened) return;
    const delta = JSON.parse(event.data);
    const model = state.model;
    if (!model || delta.base !== model.version || delta.view !== model.view) {
      connect(); // a gap: a stream always begins whole
      return;
    }
    takeDelta(delta);
    if (switchView()) return;
    hooks.changed();
  });
  opened.addEventListener("error", () => {
    if (source !== opened) return;
    hooks.connected(false);
    // EventSource reconnects by itself (the server asks for a 1 s retry); if the browser
    // gives up, a fresh one is opened.
    if (opened.readyState === EventSource.CLOSED) setTimeout(() => { if (source === opened) connect(); }, 2000);
  });
}

// The floor of fewer than two pits has no overview to show: every table instead, and back
// to the pits when a second one appears.
function switchView() {
  if (address.pit !== null || address.all) return false;
  const model = state.model;
  const pits = (model.head && model.head.pits) || [];
  const want = pits.length < 2 ? "all" : "floor";
  if (want === streamKind) return false;
  streamKind = want;
  connect();
  return true;
}

// Opens the stream: `connected(true or false)` when the link to the server is made or lost,
// `changed()` after each picture taken into the model (the screen has something to draw).
export function startStream({connected, changed}) {
  hooks = {connected, changed};
  connect();
}
