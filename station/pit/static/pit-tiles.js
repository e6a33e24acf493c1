// Drawing a tile: a table's (a pit's view, every table) and a pit's (the floor's view).
//
// A tile is drawn whole from its item (the server's tile or pit summary), at the full length
// of every text; what does not fit is then fitted by pit-fit.js, which reads the marks set
// here (`.cut`: a text that may be cut with "…"; `data-drop`: what a row can do without,
// the lower the sooner; `data-long`/`data-short`: a text that may be written short). The
// whole text stays in the tile's accessible name, however the tile is fitted.

import {make} from "./pit-dom.js";
import {hold, localClock, money, pitHref, pitName, plural, result, shortMoney, statusWords, where, words, worst}
  from "./pit-words.js";

// The table's state in a pit's words where the machine's are long: an irregularity is a
// table stopped for a supervisor (the chip below says why).
const STATE_WORDS = {irregularity: "stopped", war_decision: "war decision", war_burning: "war burn",
  war_dealing: "war deal"};
const IN_THE_HEAD = new Set(["no_status"]); // the head's status says it: not again as a chip

// ---- a table's tile ---------------------------------------------------------------------

function describeTable(t, shown) {
  const parts = [`Table ${t.table}`];
  if (where(t)) parts.push(`pit ${where(t)}`);
  parts.push(statusWords(t).toLowerCase());
  if (t.state && t.open !== false) parts.push(words(t.state)); // a closed table's day, not its state
  if (t.round_id) parts.push(`shoe ${t.shoe}, round ${t.round_id}`);
  if (t.last && t.last.round_id) parts.push(`last result ${t.last.round_id} ${shown.words.toLowerCase()}`
    + (shown.marks ? ` ${shown.marks.toLowerCase()}` : ""));
  parts.push(t.dealer ? `dealer ${t.dealer}` : "dealer not on the feed");
  parts.push(`${t.hour_rounds} rounds this hour${t.hour_since ? ` since ${t.hour_since}` : ""}`);
  if (t.limits) parts.push(`limits ${money(t.limits[0], t.digits)} to ${money(t.limits[1], t.digits)}`);
  if (t.open !== null && t.open !== undefined) {
    parts.push(`drop ${money(t.drop, t.digits)}, ${t.win_by === "inventory" ? "win" : "rounds"} ${money(t.win, t.digits)}`
      + (t.hold_percent !== null ? `, hold ${t.hold_percent}%` : "")
      + (t.variance !== null ? `, the rounds' result ${money(t.house, t.digits)}, variance ${money(t.variance, t.digits)}` : ""));
  }
  if (t.average_bet !== null && t.average_bet !== undefined) parts.push(`average bet ${money(t.average_bet, t.digits)}`);
  parts.push(`${t.rated || 0} rated`);
  for (const alarm of t.alarms) parts.push(`${alarm.level}: ${alarm.label}${alarm.detail ? ` (${alarm.detail})` : ""}`);
  return parts.join("; ");
}

function chip(alarm) {
  const el = make("span", "chip");
  el.append(make("span", "chip-label cut", alarm.label));
  if (alarm.since) el.append(make("span", "chip-time", ` ${localClock(alarm.since)}`));
  el.dataset.level = alarm.level;
  el.dataset.code = alarm.code;
  el.title = alarm.detail ? `${alarm.label}: ${alarm.detail}` : alarm.label;
  return el;
}

// Something a row can do without when it is too narrow (the lower, the sooner).
function droppable(el, order) {
  el.dataset.drop = String(order);
  return el;
}

export function drawTable(tile, t) {
  const shown = result(t.last);
  tile.className = "tile";
  tile.dataset.table = t.table;
  tile.dataset.status = t.status;
  tile.dataset.level = worst(t.alarms);
  const label = describeTable(t, shown);
  tile.setAttribute("aria-label", label);
  tile.title = label;

  const head = make("div", "row head");
  head.append(make("span", "name cut", t.table));
  if (where(t)) head.append(droppable(make("span", "where", where(t)), 2));
  if (t.rated) head.append(make("span", "rated", `${t.rated} rated`));
  const status = make("span", "status", statusWords(t));
  status.dataset.status = t.status;
  status.dataset.reason = t.status_reason || "";
  head.append(status);

  const state = make("div", "row");
  if (t.open === false) { // a closed table: its day, not its last state
    const closed = make("span", "state", "CLOSED");
    closed.dataset.state = "closed";
    state.append(closed);
  } else {
    const word = make("span", "state cut", t.state ? (STATE_WORDS[t.state] || words(t.state)) : "—");
    word.dataset.state = t.state || "";
    state.append(word);
  }
  state.append(droppable(make("span", "round", t.round_id ? `Shoe ${t.shoe} · ${t.round_id}` : ""), 1));

  const last = make("div", "row result");
  last.append(droppable(make("span", "label", "Last"), 2));
  if (t.last && t.last.round_id) last.append(droppable(make("span", "last-round", t.last.round_id), 3));
  const outcome = make("span", "outcome cut", shown.words);
  outcome.dataset.outcome = shown.outcome;
  outcome.dataset.round = t.last ? t.last.round_id : "";
  last.append(outcome);
  if (shown.marks) {
    const marks = make("span", "marks", shown.marks);
    marks.dataset.long = shown.marks;
    marks.dataset.short = shown.short; // written short when the row is too narrow for them
    last.append(marks);
  }

  // The dealer (a dash until the feed names one), and the rounds this hour; counted from a
  // later moment when the page first heard the table mid-hour.
  const people = make("div", "row");
  const dealer = make("span", "dealer cut", t.dealer || "—");
  dealer.dataset.known = t.dealer ? "true" : "false";
  people.append(dealer, droppable(make("span", "label push", "Rounds"), 1),
    make("span", "hour", String(t.hour_rounds)));
  if (t.hour_since) people.append(make("span", "hour-since", `since ${t.hour_since}`));

  const alarms = make("div", "row alarms");
  const chips = t.alarms.filter((a) => !IN_THE_HEAD.has(a.code));
  if (!chips.length) alarms.append(make("span", "quiet", "no alarms"));
  for (const alarm of chips) alarms.append(chip(alarm));
  tile.replaceChildren(head, state, last, people, ...moneyRows(t), alarms);
}

// The table's money (docs/pit.md): limits and the average bet this hour; the tray's drop,
// the win (by inventory once the closer and drop are in, else the rounds' result so far)
// and the hold. (The players rated now are in the head.)
function moneyRows(t) {
  const limits = make("div", "row money");
  limits.append(droppable(make("span", "label", "Limits"), 2),
    make("span", "limits cut", t.limits ? `${money(t.limits[0], t.digits)}–${money(t.limits[1], t.digits)}` : "—"),
    droppable(make("span", "label push", "Avg"), 1), make("span", "avg-bet", money(t.average_bet, t.digits)));
  const day = make("div", "row money");
  const winLabel = t.win_by === "inventory" ? "Win" : "Result";
  day.append(droppable(make("span", "label", "Drop"), 3), make("span", "drop", money(t.drop, t.digits)),
    droppable(make("span", "label", winLabel), 2), make("span", "win", money(t.win, t.digits)),
    droppable(make("span", "label", "Hold"), 1), make("span", "hold", hold(t.hold_percent)));
  // A variance shows as the integrity alarm's chip (TRAY VARIANCE, with its figures), and in words.
  day.dataset.variance = t.variance === null || t.variance === undefined ? "" : String(t.variance);
  return [limits, day];
}

// ---- a pit's tile (the floor's view) ----------------------------------------------------

function describePit(s) {
  const parts = [`Pit ${pitName(s.pit)}`, `${plural(s.tables, "table", "tables")}, ${s.open} open, `
    + `${s.online} online, ${s.offline} offline${s.closed ? `, ${s.closed} closed` : ""}`,
  `${plural(s.alarms, "table", "tables")} in alarm, ${s.warnings} with a warning`,
  `${s.hour_rounds} rounds this hour${s.partial ? " (some tables counted from a later moment)" : ""}`];
  if (s.needs.length) {
    parts.push(`needs a person: ${s.needs.map((n) => `${n.table} ${n.label.toLowerCase()} (${n.level})`).join(", ")}`);
  } else {
    parts.push("no table needs a person");
  }
  if (s.kept) parts.push(`drop ${money(s.drop, s.digits)}, win ${money(s.win, s.digits)}, hold ${hold(s.hold_percent)}`);
  return parts.join("; ");
}

function figure(n, text, className) {
  const el = make("span", `figure ${className}`);
  el.dataset.n = String(n);
  el.append(make("b", "", String(n)), document.createTextNode(` ${text}`));
  return el;
}

export function drawPit(tile, s) {
  tile.className = "pit-tile";
  tile.dataset.pit = s.pit;
  tile.dataset.level = s.alarms ? "alarm" : s.warnings ? "warning" : s.tables && s.open === 0 ? "closed" : "ok";
  const label = describePit(s);
  tile.setAttribute("aria-label", label);
  tile.title = label;

  const head = make("div", "row head");
  const open = make("a", "pit-name cut", pitName(s.pit));
  open.href = pitHref(s.pit);
  open.setAttribute("aria-label", `Open pit ${pitName(s.pit)}`);
  const count = make("span", "pit-count push");
  count.append(make("b", "", String(s.open)), document.createTextNode(` of ${s.tables} open`));
  head.append(open, count);

  const tables = make("div", "row pit-tables");
  tables.append(figure(s.online, "online", "pit-online"), figure(s.offline, "offline", "pit-offline"));
  if (s.closed) tables.append(droppable(figure(s.closed, "closed", "pit-closed"), 1));

  const alarms = make("div", "row pit-alarms");
  if (!s.alarms && !s.warnings) alarms.append(make("span", "quiet", "no alarms"));
  else {
    alarms.append(figure(s.alarms, s.alarms === 1 ? "alarm" : "alarms", "pit-alarm"),
      figure(s.warnings, s.warnings === 1 ? "warning" : "warnings", "pit-warning"));
  }

  const rounds = make("div", "row pit-rounds");
  rounds.append(make("span", "hour", `${s.hour_rounds}${s.partial ? "+" : ""}`),
    make("span", "label-words", "rounds"), droppable(make("span", "label-words", "this hour"), 1));

  const needs = make("div", "needs");
  for (const need of s.needs) {
    const line = make("div", "row need");
    line.dataset.level = need.level;
    line.dataset.table = need.table;
    line.append(make("span", "need-table", need.table), make("span", "need-label cut", need.label));
    needs.append(line);
  }
  const rows = [head, tables, alarms, rounds, needs];
  if (s.kept) {
    // Drop, win and hold as three columns, the figure under its label; written short
    // ("253k") where the tile is too narrow for them.
    const day = make("div", "row money pit-money");
    for (const [label, className, long, short] of [
      ["Drop", "drop", money(s.drop, s.digits), shortMoney(s.drop, s.digits)],
      ["Win", "win", money(s.win, s.digits), shortMoney(s.win, s.digits)],
      ["Hold", "hold", hold(s.hold_percent), hold(s.hold_percent)]]) {
      const figureEl = make("span", className, long);
      if (short !== long) {
        figureEl.dataset.long = long;
        figureEl.dataset.short = short;
      }
      const cell = make("span", "money-cell");
      cell.append(make("span", "label", label), figureEl);
      day.append(cell);
    }
    rows.push(day);
  }
  tile.replaceChildren(...rows);
}
