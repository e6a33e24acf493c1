// The header: the view's title, the links to other pits, the counts, the broker's banner and
// the pits' total row.
//
// All of it is drawn from the head of the picture (and the floor's pit count from its
// items), only when the head changed, or the totals when a tile did: a few elements, written
// whole each time.

import {$, make} from "./pit-dom.js";
import {address, state} from "./pit-state.js";
import {hold, money, pitHref, pitName} from "./pit-words.js";

function navLink(text, href, name, current) {
  const link = make("a", "", text);
  link.href = href;
  link.setAttribute("aria-label", name);
  if (current) link.setAttribute("aria-current", "page");
  return link;
}

export function drawHeader() {
  const model = state.model;
  const head = model.head;
  const view = model.view;
  const floorOfOne = view === "all" && address.pit === null && !address.all;
  const pits = head.pits || [];
  const onePit = view === "pit" ? pitName(model.pit) : floorOfOne && pits.length === 1 ? pits[0] : "";
  const title = onePit ? `${head.title} · ${onePit}` : head.title;
  $("title").textContent = title;
  document.title = title;
  document.body.dataset.view = floorOfOne ? "floor-tables" : view;

  // Links: none on the floor (its pit tiles are the links); "All pits" and the pits before
  // and after in a pit's view, so the header stays the same whatever the floor's size.
  const nav = $("pits");
  const links = [];
  if (view === "pit" || (view === "all" && !floorOfOne && pits.length >= 2)) {
    links.push(navLink("All pits", "?", "Show all pits", false));
    const at = pits.indexOf(model.pit);
    if (view === "pit" && pits.length > 1) {
      const before = at < 0 ? pits[pits.length - 1] : pits[(at - 1 + pits.length) % pits.length];
      const after = at < 0 ? pits[0] : pits[(at + 1) % pits.length];
      links.push(navLink(`‹ ${before}`, pitHref(before), `Show pit ${before} only`, false));
      if (after !== before) links.push(navLink(`${after} ›`, pitHref(after), `Show pit ${after} only`, false));
    }
  }
  nav.replaceChildren(...links);
  nav.hidden = !links.length;
  $("find-box").hidden = view !== "floor";

  const counts = $("counts");
  const c = head.counts || {tables: 0, online: 0, offline: 0, alarms: 0};
  const items = [["tables", c.tables, c.tables === 1 ? "table" : "tables"], ["online", c.online, "online"],
    ["offline", c.offline, "offline"], ["alarms", c.alarms, c.alarms === 1 ? "alarm" : "alarms"]];
  if (view === "floor") items.unshift(["pits", model.items.size, model.items.size === 1 ? "pit" : "pits"]);
  counts.replaceChildren(...items.map(([kind, n, label]) => {
    const item = make("span", "count", `${n.toLocaleString("en-US")} ${label}`);
    item.dataset.kind = kind;
    item.dataset.n = String(n);
    return item;
  }));
  $("hour").textContent = head.hour ? `hour from ${head.hour}` : "";

  const banner = $("banner");
  const broker = head.broker || {connected: true};
  banner.hidden = Boolean(broker.connected);
  banner.textContent = broker.connected ? ""
    : `No connection to the floor broker since ${broker.since}: tiles show the last known state`;
}

// Many pits' totals as one line: every pit's added up (amounts only where they are written
// alike: one currency in each pit, the same digits in all).
function floorTotal(rows) {
  const digits = new Set(rows.map((p) => p.digits));
  const sum = (key) => (digits.size === 1 && rows.every((p) => p[key] !== null && p[key] !== undefined)
    ? rows.reduce((total, p) => total + p[key], 0) : null);
  const drop = sum("drop"), win = sum("win");
  return {pit: null, tables: rows.reduce((n, p) => n + p.tables, 0), open: rows.reduce((n, p) => n + p.open, 0),
    drop, win, hold_percent: drop && win !== null ? Math.round(win * 1000 / drop) / 10 : null,
    digits: [...digits][0]};
}

// The pits' total row: tables open, drop, win and hold of each pit shown (only where a table
// keeps its day: else there is no money to add up); more than three pits (every table of a
// floor) as one line, so the row stays one line. The floor's pit tiles say it themselves.
export function drawTotals() {
  const model = state.model;
  const row = $("totals");
  const kept = model.view !== "floor" && [...model.items.values()].some((t) => t.open !== null && t.open !== undefined);
  let totals = kept ? (model.head.totals || []) : [];
  if (totals.length > 3) totals = [floorTotal(totals)];
  row.replaceChildren(...totals.map((p) => {
    const name = p.pit === null ? "All pits" : pitName(p.pit);
    const item = make("span", "pit-total",
      `${name}: ${p.open.toLocaleString("en-US")} of ${p.tables.toLocaleString("en-US")} open · drop ${money(p.drop, p.digits)} · win ${money(p.win, p.digits)}`
      + ` · hold ${hold(p.hold_percent)}`);
    if (p.pit !== null) item.dataset.pit = p.pit;
    return item;
  }));
  row.hidden = !totals.length;
}
