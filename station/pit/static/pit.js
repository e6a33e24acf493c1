// The pit page (docs/pit.md): a screen of the casino floor, from the pit server's pictures.
//
// Three views, named by the address: the floor (no ?pit=: one tile per pit, and a search
// for a table by its name), one pit (?pit=A: a tile per table, in pages when they do not fit
// the screen at a readable size) and every table (?all=1; also what the floor shows when it
// has fewer than two pits). The server speaks the picture protocol, version 2: each stream
// begins with a whole picture of its view, then deltas of what changed; a delta whose base is
// not the version held means the page missed something, and it asks for a whole picture by
// opening its stream again (a stream always begins whole).
//
// Drawing costs what changes: every delta goes into the model at once (cheap), the screen is
// drawn at most once an animation frame, and only tiles that changed and are on the page shown
// are drawn again. Text that does not fit its tile is fitted in batches, never a layout per
// step: every changed row is measured at once, the cheap fallbacks applied by proportion
// (marks written short, labels left out, alarms to "+N", a text cut with "…"), then checked at
// most twice more. Nothing is made smaller than 14 CSS px; the whole text stays in the tile's
// accessible name.
(() => {
  "use strict";

  const params = new URLSearchParams(window.location.search);
  const wantedPit = params.get("pit") || null; // ?pit= names no pit: the floor
  const wantedAll = params.get("all") === "1";
  const soughtTable = params.get("table") || null;
  let pinnedPage = params.has("page") ? Math.max(1, parseInt(params.get("page"), 10) || 1) : null;

  const grid = document.getElementById("tiles");
  const $ = (id) => document.getElementById(id);

  // The smallest tile that keeps every text at 14 px or more (CSS px), and the tiles' shape.
  const TILE = {
    table: {minWidth: 360, minHeight: 165, aspect: 1.75},
    pit: {minWidth: 230, minHeight: 160, aspect: 1.25},
  };
  const LEVELS = ["alarm", "warning", "closed"];
  // The table's state in a pit's words where the machine's are long: an irregularity is a
  // table stopped for a supervisor (the chip below says why).
  const STATE_WORDS = {irregularity: "stopped", war_decision: "war decision", war_burning: "war burn",
    war_dealing: "war deal"};
  const SOUGHT_MS = 30000; // how long a table found by its name stays marked
  const FOUND_MAX = 8; // tables listed under the search field
  const IN_THE_HEAD = new Set(["no_status"]); // the head's status says it: not again as a chip

  // ---- the model: what the stream has said ------------------------------------------------

  let model = null; // {view, pit, version, head, items: Map id -> tile or summary, order: [id], directory: Map}
  let streamKind = wantedPit !== null ? "pit" : wantedAll ? "all" : "floor";
  let source = null;
  let zone = "UTC";
  const dirty = {items: new Set(), everything: true, head: true, directory: new Set(), directoryWhole: true};

  function itemKey(view) {
    return view === "floor" ? "pit" : "table";
  }

  function pitOrder(a, b) {
    if ((a === "") !== (b === "")) return a === "" ? 1 : -1;
    const la = a.toLowerCase(), lb = b.toLowerCase();
    if (la !== lb) return la < lb ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // The board's order: by pit (tables without one last), then number, then id.
  function tableOrder(a, b) {
    const byPit = pitOrder(a.pit || "", b.pit || "");
    if (byPit) return byPit;
    if ((a.number === 0) !== (b.number === 0)) return a.number === 0 ? 1 : -1;
    if (a.number !== b.number) return a.number - b.number;
    return a.table < b.table ? -1 : a.table > b.table ? 1 : 0;
  }

  function sortOrder() {
    const values = [...model.items.values()];
    if (model.view === "floor") values.sort((a, b) => pitOrder(a.pit, b.pit));
    else values.sort(tableOrder);
    model.order = values.map((v) => v[itemKey(model.view)]);
  }

  function takeWhole(picture) {
    if (model && model.view !== picture.view) drawn.clear(); // a pit's tile is not a table's
    const key = itemKey(picture.view);
    const list = picture.view === "floor" ? picture.pits || [] : picture.tables || [];
    model = {view: picture.view, pit: picture.pit, version: picture.version, head: picture.head,
      items: new Map(list.map((item) => [item[key], item])), order: list.map((item) => item[key]),
      directory: new Map((picture.directory || []).map((entry) => [entry.table, entry]))};
    dirty.everything = dirty.head = dirty.directoryWhole = true;
    dirty.items.clear();
    dirty.directory.clear();
  }

  function takeDelta(delta) {
    const key = itemKey(delta.view);
    const changed = delta.view === "floor" ? delta.pits || [] : delta.tables || [];
    const removed = delta.view === "floor" ? delta.pits_removed || [] : delta.removed || [];
    let reorder = removed.length > 0;
    for (const item of changed) {
      const id = item[key];
      const before = model.items.get(id);
      if (!before || (key === "table" && (before.pit !== item.pit || before.number !== item.number))) reorder = true;
      model.items.set(id, item);
      dirty.items.add(id);
    }
    for (const id of removed) {
      model.items.delete(id);
      dirty.items.add(id);
    }
    // The server says the order when a table came, went or changed its place.
    if (Array.isArray(delta.order)) model.order = delta.order.filter((id) => model.items.has(id));
    else if (reorder) sortOrder();
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
    if (streamKind === "pit") return `/events?pit=${encodeURIComponent(wantedPit)}`;
    return streamKind === "all" ? "/events?all=1" : "/events";
  }

  function connect() {
    if (source) source.close();
    const opened = new EventSource(streamUrl());
    source = opened;
    opened.addEventListener("open", () => setConnected(true));
    opened.addEventListener("whole", (event) => {
      if (source !== opened) return;
      setConnected(true);
      takeWhole(JSON.parse(event.data));
      if (switchView()) return;
      schedule();
    });
    opened.addEventListener("delta", (event) => {
      if (source !== opened) return;
      const delta = JSON.parse(event.data);
      if (!model || delta.base !== model.version || delta.view !== model.view) {
        connect(); // a gap: a stream always begins whole
        return;
      }
      takeDelta(delta);
      if (switchView()) return;
      schedule();
    });
    opened.addEventListener("error", () => {
      if (source !== opened) return;
      setConnected(false);
      // EventSource reconnects by itself (the server asks for a 1 s retry); if the browser
      // gives up, a fresh one is opened.
      if (opened.readyState === EventSource.CLOSED) setTimeout(() => { if (source === opened) connect(); }, 2000);
    });
  }

  // The floor of fewer than two pits has no overview to show: every table instead, and back
  // to the pits when a second one appears.
  function switchView() {
    if (wantedPit !== null || wantedAll) return false;
    const pits = (model.head && model.head.pits) || [];
    const want = pits.length < 2 ? "all" : "floor";
    if (want === streamKind) return false;
    streamKind = want;
    connect();
    return true;
  }

  // ---- words and figures ------------------------------------------------------------------

  function make(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function words(code) {
    return String(code || "").replace(/_/g, " ");
  }

  function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  function localClock(iso) {
    if (!iso) return "";
    const moment = new Date(iso);
    if (Number.isNaN(moment.getTime())) return "";
    return new Intl.DateTimeFormat("en-GB", {timeZone: zone, hour: "2-digit", minute: "2-digit"}).format(moment);
  }

  // Amounts as people read them: integer arithmetic on minor units, the point where the
  // table's currency puts it ("1,250.00"); large ones without their minor units ("12,500").
  function money(amount, digits) {
    if (amount === null || amount === undefined) return "—";
    const unit = 10 ** (digits || 0);
    const sign = amount < 0 ? "-" : "";
    const whole = Math.floor(Math.abs(amount) / unit).toLocaleString("en-US");
    const part = Math.abs(amount) % unit;
    return sign + whole + (digits && part ? "." + String(part).padStart(digits, "0") : "");
  }

  // An amount in a few characters, where a pit's figures must share a narrow tile ("253k", "1.25M").
  function shortMoney(amount, digits) {
    if (amount === null || amount === undefined) return "—";
    const major = amount / 10 ** (digits || 0);
    const size = Math.abs(major);
    const sign = major < 0 ? "-" : "";
    if (size < 1000) return money(amount, digits);
    for (const [unit, letter] of [[1e9, "G"], [1e6, "M"], [1e3, "k"]]) {
      if (size >= unit) {
        const n = size / unit;
        return sign + (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0)).replace(/\.?0+$/, "") + letter;
      }
    }
    return money(amount, digits);
  }

  function hold(percent) {
    return percent === null || percent === undefined ? "—" : `${percent}%`;
  }

  // The last result in a few words: "BANKER 7–5" (the winner's points first), "TIE 6–6",
  // "VOID", Casino War's boxes by their ends ("2 WIN · 1 LOSE").
  function result(last) {
    if (!last || !last.round_id) return {outcome: "", words: "—", marks: "", short: ""};
    if (last.outcome === "void") return {outcome: "void", words: "VOID", marks: "", short: ""};
    if (last.game === "war") {
      const ends = {};
      for (const part of String(last.outcome).split(/\s+(?=box)/)) {
        const end = part.split(":")[1];
        if (end) ends[end] = (ends[end] || 0) + 1;
      }
      const text = Object.entries(ends).map(([end, n]) => `${n} ${words(end).toUpperCase()}`).join(" · ");
      return {outcome: "war", words: text || String(last.outcome).toUpperCase(), marks: "", short: ""};
    }
    const outcome = String(last.outcome);
    let points = "";
    if (Number.isInteger(last.banker) && Number.isInteger(last.player)) {
      points = outcome === "player" ? ` ${last.player}–${last.banker}` : ` ${last.banker}–${last.player}`;
    }
    const marks = [last.natural ? "NATURAL" : "", last.banker_pair ? "B PAIR" : "", last.player_pair ? "P PAIR" : ""]
      .filter(Boolean).join(" · ");
    const short = [last.natural ? "NAT" : "", last.banker_pair ? "BP" : "", last.player_pair ? "PP" : ""]
      .filter(Boolean).join(" · ");
    return {outcome, words: outcome.toUpperCase() + points, marks, short};
  }

  function worst(alarms) {
    for (const level of LEVELS) {
      if (alarms.some((a) => a.level === level)) return level;
    }
    return "ok";
  }

  function where(t) {
    if (t.pit && t.number) return `${t.pit} · ${t.number}`;
    return t.pit || (t.number ? `#${t.number}` : "");
  }

  function statusWords(t) {
    if (t.status === "online" && t.open === false) return "CLOSED"; // the tray's closer is counted
    if (t.status === "online") return "ONLINE";
    if (t.status === "offline") return t.status_reason === "stopped" ? "CLOSED" : "OFFLINE";
    return "NO STATUS";
  }

  function pitName(pit) {
    return pit || "No pit";
  }

  function pitHref(pit, table) {
    const query = new URLSearchParams();
    if (pit) query.set("pit", pit);
    else query.set("all", "1");
    if (table) query.set("table", table);
    return `?${query}`;
  }

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

  function drawTable(tile, t) {
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

  function drawPit(tile, s) {
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

  // ---- fitting text into its tile ---------------------------------------------------------
  // In batches: every row of every tile drawn is measured at once (one layout), the cheap
  // fallbacks are applied by proportion, then the rows that still overflow are measured again
  // (at most twice). Measuring row by row would lay the page out dozens of times a picture.

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

  function fit(tiles) {
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

  // ---- the grid and its pages -------------------------------------------------------------

  let box = null; // the grid's inner size, from the ResizeObserver
  let laidOut = ""; // what the tiles were last drawn for (a change draws every tile again)
  let pageIndex = 0;
  let pageCount = 1;
  let perPage = 1;
  let lastTurn = Date.now();
  let holdUntil = 0;
  let soughtUntil = 0;
  let soughtShown = false;

  function gridBox() {
    if (box === null) {
      const rect = grid.getBoundingClientRect();
      box = {width: rect.width, height: rect.height};
    }
    return box;
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

  function turn(by, byPerson) {
    if (pageCount < 2) return;
    pageIndex = (pageIndex + by + pageCount) % pageCount;
    if (byPerson && pinnedPage !== null) pinnedPage = pageIndex + 1;
    lastTurn = Date.now();
    schedule();
  }

  // ---- the header -------------------------------------------------------------------------

  function navLink(text, href, name, current) {
    const link = make("a", "", text);
    link.href = href;
    link.setAttribute("aria-label", name);
    if (current) link.setAttribute("aria-current", "page");
    return link;
  }

  function drawHeader() {
    const head = model.head;
    const view = model.view;
    const floorOfOne = view === "all" && wantedPit === null && !wantedAll;
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
  function drawTotals() {
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

  function drawPages() {
    const pages = $("pages");
    pages.hidden = pageCount < 2;
    $("page-of").textContent = `page ${pageIndex + 1} of ${pageCount}`;
    document.body.dataset.page = String(pageIndex + 1);
    document.body.dataset.pages = String(pageCount);
  }

  // ---- the search (the floor's view) ------------------------------------------------------

  const options = new Map(); // table id -> <option>

  function drawDirectory() {
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

  function matches(query) {
    const q = query.trim().toUpperCase();
    if (!q || !model || model.view !== "floor") return [];
    const found = [];
    for (const entry of model.directory.values()) {
      const id = entry.table.toUpperCase();
      const at = id.indexOf(q);
      if (at >= 0) found.push([id === q ? 0 : at === 0 ? 1 : 2, entry]);
    }
    found.sort((a, b) => a[0] - b[0] || tableOrder(a[1], b[1]));
    return found.map(([, entry]) => entry);
  }

  function showFound() {
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

  function goToTable() {
    const field = $("find");
    const found = matches(field.value);
    const exact = found.find((entry) => entry.table.toUpperCase() === field.value.trim().toUpperCase());
    const entry = exact || (found.length === 1 ? found[0] : null);
    if (entry) window.location.assign(pitHref(entry.pit, entry.table));
  }

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
    if (!model) return;
    zone = (model.head && model.head.timezone) || "UTC";
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
    if (!box || !box.width || !box.height) box = null; // shown just now: measured once
    grid.dataset.kind = kind;
    grid.setAttribute("aria-label", kind === "pit" ? "Pits" : "Tables");
    const arranged = arrange(kind, order.length);
    if (arranged.key !== laidOut) {
      laidOut = arranged.key;
      applyArrangement(arranged);
    }
    pageCount = arranged.pages;
    perPage = arranged.per;
    grid.dataset.grid = `${arranged.cols}x${arranged.rows}`;
    if (soughtTable && !soughtShown && kind === "table" && model.items.has(soughtTable)) {
      soughtShown = true;
      pageIndex = Math.floor(order.indexOf(soughtTable) / perPage);
      soughtUntil = Date.now() + SOUGHT_MS;
      holdUntil = soughtUntil;
      lastTurn = Date.now();
    } else if (pinnedPage !== null) {
      pageIndex = Math.min(pinnedPage, pageCount) - 1;
    }
    pageIndex = Math.min(pageIndex, pageCount - 1);
    drawPages();

    const shown = order.slice(pageIndex * perPage, (pageIndex + 1) * perPage);
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
      entry.el.classList.toggle("sought", id === soughtTable && Date.now() < soughtUntil);
      if (grid.children[index] !== entry.el) grid.insertBefore(entry.el, grid.children[index] || null);
    });
    while (grid.children.length > shown.length) grid.lastElementChild.remove();
    for (const id of drawn.keys()) {
      if (!model.items.has(id)) drawn.delete(id);
    }
    fit(changed);
    dirty.everything = dirty.head = dirty.directoryWhole = false;
    dirty.items.clear();
    dirty.directory.clear();
    document.body.dataset.version = String(model.version);
  }

  // ---- the clock, the pages turning, the link to the server -------------------------------

  function tick() {
    const clock = new Intl.DateTimeFormat("en-GB", {timeZone: zone, hour: "2-digit", minute: "2-digit",
      second: "2-digit"});
    $("clock").textContent = clock.format(new Date());
    const seconds = model && model.head ? Number(model.head.page_seconds) || 0 : 0;
    const now = Date.now();
    if (soughtUntil && now >= soughtUntil) {
      soughtUntil = 0;
      schedule();
    }
    if (pageCount > 1 && seconds > 0 && pinnedPage === null && now >= holdUntil && now - lastTurn >= seconds * 1000) {
      turn(1, false);
    }
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
  new ResizeObserver((entries) => {
    const rect = entries[entries.length - 1].contentRect;
    const padding = parseFloat(getComputedStyle(grid).paddingLeft) || 0;
    const size = {width: rect.width + 2 * padding, height: rect.height + 2 * padding};
    if (box && Math.abs(box.width - size.width) < 0.5 && Math.abs(box.height - size.height) < 0.5) return;
    box = size;
    if (model) schedule();
  }).observe(grid);
  tick();
  setInterval(tick, 1000);
  connect();
})();
