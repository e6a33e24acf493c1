// The search (the floor's view): find a table by its name and go to its pit's page.
//
// The floor shows pits, not tables; its picture carries a directory of every table (its pit,
// number, level and last round) for this. The directory is kept in a <datalist> changed entry
// by entry (the bench watches these attributes), and the tables that match what is typed are
// listed under the field as links to their pit's view, the table marked there.

import {$, make} from "./pit-dom.js";
import {dirty, state} from "./pit-state.js";
import {pitHref, pitName} from "./pit-words.js";

const FOUND_MAX = 8; // tables listed under the search field
const options = new Map(); // table id -> <option>

export function drawDirectory() {
  const model = state.model;
  const list = $("directory");
  const entries = model.view === "floor" ? model.directory : new Map();
  const write = (option, entry) => { // only what changed: the bench watches these attributes
    const label = `pit ${pitName(entry.pit)}${entry.number ? ` · ${entry.number}` : ""}`;
    if (option.value !== entry.table) option.value = entry.table;
    if (option.label !== label) option.label = label;
    if (option.dataset.round !== (entry.round || "")) option.dataset.round = entry.round || "";
    if (option.dataset.pit !== entry.pit) option.dataset.pit = entry.pit;
    if (option.dataset.level !== entry.level) option.dataset.level = entry.level;
  };
  if (dirty.directoryWhole) {
    options.clear();
    const all = document.createDocumentFragment();
    for (const entry of entries.values()) {
      const option = document.createElement("option");
      write(option, entry);
      options.set(entry.table, option);
      all.append(option);
    }
    list.replaceChildren(all);
  } else {
    for (const id of dirty.directory) {
      const entry = entries.get(id);
      let option = options.get(id);
      if (!entry) {
        if (option) option.remove();
        options.delete(id);
        continue;
      }
      if (!option) {
        option = document.createElement("option");
        options.set(id, option);
        list.append(option);
      }
      write(option, entry);
    }
  }
  if (dirty.directoryWhole || dirty.directory.size) showFound();
}

// The board's order (docs/pit.md): by pit as the server counts them (the head's list of pits:
// "Pit 2" before "Pit 10"), tables without a pit last, then by number (none last), then id.
function boardOrder(pits) {
  const rank = new Map(pits.map((pit, at) => [pit, at]));
  const at = (pit) => (rank.has(pit) ? rank.get(pit) : pits.length);
  return (a, b) => {
    if (at(a.pit) !== at(b.pit)) return at(a.pit) - at(b.pit);
    if ((a.number === 0) !== (b.number === 0)) return a.number === 0 ? 1 : -1;
    if (a.number !== b.number) return a.number - b.number;
    return a.table < b.table ? -1 : a.table > b.table ? 1 : 0;
  };
}

// The tables whose name holds what is typed: the exact name first, then names that begin
// with it, then the rest, each in the board's order.
function matches(query) {
  const model = state.model;
  const q = query.trim().toUpperCase();
  if (!q || !model || model.view !== "floor") return [];
  const found = [];
  for (const entry of model.directory.values()) {
    const id = entry.table.toUpperCase();
    const at = id.indexOf(q);
    if (at >= 0) found.push([id === q ? 0 : at === 0 ? 1 : 2, entry]);
  }
  const order = boardOrder((model.head && model.head.pits) || []);
  found.sort((a, b) => a[0] - b[0] || order(a[1], b[1]));
  return found.map(([, entry]) => entry);
}

export function showFound() {
  const field = $("find");
  const list = $("found");
  const found = matches(field.value);
  list.replaceChildren(...found.slice(0, FOUND_MAX).map((entry) => {
    const link = make("a", "found-table");
    link.href = pitHref(entry.pit, entry.table);
    link.dataset.level = entry.level;
    link.setAttribute("aria-label", `Open table ${entry.table} in pit ${pitName(entry.pit)}`);
    link.append(make("span", "found-name", entry.table), make("span", "found-pit", `pit ${pitName(entry.pit)}`));
    return link;
  }));
  if (found.length > FOUND_MAX) list.append(make("span", "found-more", `+${found.length - FOUND_MAX} more`));
  if (field.value.trim() && !found.length) list.append(make("span", "found-more", "no such table"));
  list.hidden = !field.value.trim();
}

export function goToTable() {
  const field = $("find");
  const found = matches(field.value);
  const exact = found.find((entry) => entry.table.toUpperCase() === field.value.trim().toUpperCase());
  const entry = exact || (found.length === 1 ? found[0] : null);
  if (entry) window.location.assign(pitHref(entry.pit, entry.table));
}
