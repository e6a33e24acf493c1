// The pit page: draws each picture the pit server sends (the whole board, every time) as a
// tile per table. Only tiles whose version changed are drawn again; the grid is laid out for
// the number of tiles and the screen; text that would not fit its tile is made smaller, and
// as a last resort shortened with "…" (the whole text stays in the tile's accessible name).
// ?pit=A in the address shows one pit's tables.
(() => {
  "use strict";

  const grid = document.getElementById("tiles");
  const tiles = new Map(); // table id -> {el, version}
  const wanted = new URLSearchParams(window.location.search).get("pit");
  let latest = null;
  let zone = "UTC";
  let laidOut = "";

  const LEVELS = ["alarm", "warning", "closed"];
  // The table's state in a pit's words where the machine's are long: an irregularity is a
  // table stopped for a supervisor (the chip below says why).
  const STATE_WORDS = {irregularity: "stopped", war_decision: "war decision", war_burning: "war burn",
    war_dealing: "war deal"};

  function make(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function words(code) {
    return String(code || "").replace(/_/g, " ");
  }

  function localClock(iso) {
    if (!iso) return "";
    const moment = new Date(iso);
    if (Number.isNaN(moment.getTime())) return "";
    return new Intl.DateTimeFormat("en-GB", {timeZone: zone, hour: "2-digit", minute: "2-digit"}).format(moment);
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

  // Amounts as people read them: integer arithmetic on minor units, the point where the
  // table's currency puts it ("1,250.00"); large ones without their minor units ("12,500").
  function money(amount, digits) {
    if (amount === null || amount === undefined) return "—";
    const unit = 10 ** digits;
    const sign = amount < 0 ? "-" : "";
    const whole = Math.floor(Math.abs(amount) / unit).toLocaleString("en-US");
    const part = Math.abs(amount) % unit;
    return sign + whole + (digits && part ? "." + String(part).padStart(digits, "0") : "");
  }

  function statusWords(t) {
    if (t.status === "online" && t.open === false) return "CLOSED";  // the tray's closer is counted
    if (t.status === "online") return "ONLINE";
    if (t.status === "offline") return t.status_reason === "stopped" ? "CLOSED" : "OFFLINE";
    return "NO STATUS";
  }

  // The head's status says it: not again as a chip (an offline table's chip says why and when).
  const IN_THE_HEAD = new Set(["no_status"]);

  function chip(alarm) {
    const el = make("span", "chip");
    el.append(make("span", "chip-label cut", alarm.label));
    if (alarm.since) el.append(make("span", "chip-time", ` ${localClock(alarm.since)}`));
    el.dataset.level = alarm.level;
    el.dataset.code = alarm.code;
    if (alarm.detail) el.title = alarm.detail;
    return el;
  }

  function describe(t, shown) {
    const parts = [`Table ${t.table}`];
    if (where(t)) parts.push(`pit ${where(t)}`);
    parts.push(statusWords(t).toLowerCase());
    if (t.state && t.open !== false) parts.push(words(t.state));  // a closed table's day, not its state
    if (t.round_id) parts.push(`shoe ${t.shoe}, round ${t.round_id}`);
    if (t.last && t.last.round_id) parts.push(`last result ${t.last.round_id} ${shown.words.toLowerCase()}`);
    parts.push(t.dealer ? `dealer ${t.dealer}` : "dealer not on the feed");
    parts.push(`${t.hour_rounds} rounds this hour${t.hour_since ? ` since ${t.hour_since}` : ""}`);
    if (t.limits) parts.push(`limits ${money(t.limits[0], t.digits)} to ${money(t.limits[1], t.digits)}`);
    if (t.open !== null) {
      parts.push(`drop ${money(t.drop, t.digits)}, ${t.win_by === "inventory" ? "win" : "rounds"} ${money(t.win, t.digits)}`
        + (t.hold_percent !== null ? `, hold ${t.hold_percent}%` : "")
        + (t.variance !== null ? `, the rounds' result ${money(t.house, t.digits)}, variance ${money(t.variance, t.digits)}` : ""));
    }
    if (t.average_bet !== null) parts.push(`average bet ${money(t.average_bet, t.digits)}`);
    parts.push(`${t.rated} rated`);
    for (const alarm of t.alarms) parts.push(`${alarm.level}: ${alarm.label}${alarm.detail ? ` (${alarm.detail})` : ""}`);
    return parts.join("; ");
  }

  function draw(tile, t) {
    const shown = result(t.last);
    tile.dataset.table = t.table;
    tile.dataset.status = t.status;
    tile.dataset.level = worst(t.alarms);
    tile.setAttribute("aria-label", describe(t, shown));
    tile.replaceChildren();

    const head = make("div", "row head");
    head.append(make("span", "name cut", t.table));
    if (where(t)) head.append(make("span", "where", where(t)));
    if (t.rated) head.append(make("span", "rated", `${t.rated} rated`));
    const status = make("span", "status", statusWords(t));
    status.dataset.status = t.status;
    status.dataset.reason = t.status_reason || "";
    head.append(status);

    const state = make("div", "row");
    const word = make("span", "state cut", t.state ? (STATE_WORDS[t.state] || words(t.state)) : "—");
    word.dataset.state = t.state || "";
    state.append(word, make("span", "round", t.round_id ? `Shoe ${t.shoe} · ${t.round_id}` : ""));

    const last = make("div", "row result");
    last.append(make("span", "label", "Last"));
    if (t.last && t.last.round_id) last.append(make("span", "last-round", t.last.round_id));
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
    dealer.title = "Dealer";
    people.append(dealer, make("span", "label push", "Rounds"), make("span", "hour", String(t.hour_rounds)));
    if (t.hour_since) people.append(make("span", "hour-since", `since ${t.hour_since}`));

    const alarms = make("div", "row alarms");
    const chips = t.alarms.filter((a) => !IN_THE_HEAD.has(a.code));
    if (!chips.length) alarms.append(make("span", "quiet", "no alarms"));
    for (const alarm of chips) alarms.append(chip(alarm));
    if (t.open === false) {  // a closed table: its day, not its last state
      state.replaceChildren(make("span", "state", "CLOSED"));
      state.firstChild.dataset.state = "closed";
    }
    tile.append(head, state, last, people, ...moneyRows(t), alarms);
  }

  // The table's money (docs/pit.md): limits and the average bet this hour; the tray's drop,
  // the win (by inventory once the closer and drop are in, else the rounds' result so far)
  // and the hold. (The players rated now are in the head.)
  function moneyRows(t) {
    const limits = make("div", "row money");
    limits.append(make("span", "label", "Limits"),
      make("span", "limits cut", t.limits ? `${money(t.limits[0], t.digits)}–${money(t.limits[1], t.digits)}` : "—"),
      make("span", "label", "Avg"), make("span", "avg-bet", money(t.average_bet, t.digits)));
    const day = make("div", "row money");
    const winLabel = t.win_by === "inventory" ? "Win" : "Result";
    day.append(make("span", "label", "Drop"), make("span", "drop", money(t.drop, t.digits)),
      make("span", "label", winLabel), make("span", "win", money(t.win, t.digits)),
      make("span", "label", "Hold"), make("span", "hold", t.hold_percent === null ? "—" : `${t.hold_percent}%`));
    // A variance shows as the integrity alarm's chip (TRAY VARIANCE, with its figures), and in words.
    day.dataset.variance = t.variance === null ? "" : String(t.variance);
    return [limits, day];
  }

  // ---- fitting text into its tile ---------------------------------------------------------
  // In batches: every row of every changed tile is reset, then measured (one layout), then
  // made smaller where it overflows (one more layout to check); only what still does not fit
  // is worked on row by row. Measuring row by row would lay the page out dozens of times for
  // each picture.

  function overflows(row) {
    return row.scrollWidth > row.clientWidth + 0.5;
  }

  function shorten(row) {
    const cut = row.querySelector(".cut");
    if (!cut) return;
    const whole = cut.textContent;
    cut.dataset.whole = whole;
    let low = 1, high = whole.length;
    while (low < high) { // the longest beginning that fits
      const middle = Math.ceil((low + high) / 2);
      cut.textContent = `${whole.slice(0, middle)}…`;
      if (overflows(row)) high = middle - 1; else low = middle;
    }
    cut.textContent = low < whole.length ? `${whole.slice(0, low)}…` : whole;
  }

  // Alarms that do not fit give way to a "+N" chip, the worst (first) kept.
  function dropChips(row) {
    const chips = [...row.querySelectorAll(".chip")];
    if (chips.length < 2) return;
    const more = make("span", "chip more");
    row.append(more);
    for (let kept = chips.length - 1; kept >= 1; kept--) {
      chips[kept].remove();
      more.textContent = `+${chips.length - kept}`;
      if (!overflows(row)) return;
    }
  }

  function scaleDown(rows) {
    const measured = rows.map((row) => [row, row.scrollWidth, row.clientWidth, parseFloat(getComputedStyle(row).fontSize)]);
    const scaled = [];
    for (const [row, wide, room, size] of measured) {
      if (wide <= room + 0.5) continue;
      const floor = 0.6;
      const base = parseFloat(row.dataset.base || size);
      row.dataset.base = String(base);
      row.style.fontSize = `${Math.max(base * floor, size * (room / wide) * 0.98)}px`;
      scaled.push(row);
    }
    return scaled;
  }

  function fitAll(tilesToFit) {
    const rows = [];
    for (const tile of tilesToFit) {
      for (const cut of tile.querySelectorAll(".cut[data-whole]")) {
        cut.textContent = cut.dataset.whole;
        delete cut.dataset.whole;
      }
      for (const marks of tile.querySelectorAll(".marks")) marks.textContent = marks.dataset.long;
      for (const row of tile.querySelectorAll(".row.tight")) row.classList.remove("tight");
      for (const row of tile.querySelectorAll(".row")) {
        row.style.fontSize = "";
        delete row.dataset.base;
        rows.push(row);
      }
    }
    // A result whose marks do not fit: the marks written short, then without its "Last"
    // label, before anything is made smaller (the winner keeps its size).
    const tooWide = rows.filter((row) => row.querySelector(".marks") && overflows(row));
    for (const row of tooWide) {
      const marks = row.querySelector(".marks");
      marks.textContent = marks.dataset.short;
    }
    for (const row of tooWide.filter(overflows)) row.classList.add("tight");
    // Alarms that do not fit give way to "+N", then lose their times, before any is made smaller.
    const alarmRows = rows.filter((r) => r.classList.contains("alarms") && overflows(r));
    for (const row of alarmRows) dropChips(row);
    for (const row of alarmRows.filter(overflows)) row.classList.add("tight");
    for (const row of scaleDown(scaleDown(rows))) {
      if (overflows(row)) shorten(row);
    }
  }

  // ---- the grid ---------------------------------------------------------------------------

  // Columns and rows that give the largest tiles of about 16:9 for this many tables.
  function layout(count) {
    const box = grid.getBoundingClientRect();
    const key = `${count} ${Math.round(box.width)}x${Math.round(box.height)}`;
    if (key === laidOut) return false;
    laidOut = key;
    let best = {cols: 1, rows: Math.max(1, count), size: 0};
    for (let cols = 1; cols <= Math.max(1, count); cols++) {
      const rows = Math.ceil(Math.max(1, count) / cols);
      const size = Math.min(box.width / cols / 1.75, box.height / rows);
      if (size > best.size) best = {cols, rows, size};
    }
    grid.style.setProperty("--cols", best.cols);
    grid.style.setProperty("--rows", best.rows);
    const style = getComputedStyle(grid);
    const gap = parseFloat(style.rowGap) || 0;
    const inner = (side) => box[side] - 2 * (parseFloat(style.paddingTop) || 0);
    grid.style.setProperty("--th", `${(inner("height") - gap * (best.rows - 1)) / best.rows / 100}px`);
    grid.style.setProperty("--tw", `${(inner("width") - gap * (best.cols - 1)) / best.cols / 100}px`);
    return true;
  }

  function header(snap, shown) {
    document.getElementById("title").textContent = wanted ? `${snap.title} · ${wanted}` : snap.title;
    document.title = snap.title;
    const counts = document.getElementById("counts");
    const offline = shown.filter((t) => t.status === "offline").length;
    const alarms = shown.filter((t) => t.alarms.some((a) => a.level === "alarm")).length;
    counts.replaceChildren();
    for (const [kind, n, label] of [["tables", shown.length, "tables"],
      ["online", shown.filter((t) => t.status === "online").length, "online"],
      ["offline", offline, "offline"], ["alarms", alarms, alarms === 1 ? "alarm" : "alarms"]]) {
      const item = make("span", "count", `${n} ${label}`);
      item.dataset.kind = kind;
      item.dataset.n = String(n);
      counts.append(item);
    }
    document.getElementById("hour").textContent = `hour from ${snap.hour}`;
    totalsRow(snap);
    const pits = document.getElementById("pits");
    pits.replaceChildren();
    pits.hidden = !snap.pits.length;
    for (const [name, href] of [["All", "?"], ...snap.pits.map((p) => [p, `?pit=${encodeURIComponent(p)}`])]) {
      const link = make("a", "", name);
      link.href = href;
      link.setAttribute("aria-label", name === "All" ? "Show every pit" : `Show pit ${name} only`);
      if ((name === "All" && !wanted) || name === wanted) link.setAttribute("aria-current", "page");
      pits.append(link);
    }
    const banner = document.getElementById("banner");
    banner.hidden = snap.broker.connected;
    banner.textContent = snap.broker.connected ? ""
      : `No connection to the floor broker since ${snap.broker.since}: tiles show the last known state`;
  }

  // The pits' total row: tables open, drop, win and hold of each pit shown.
  function totalsRow(snap) {
    const row = document.getElementById("totals");
    // Only where a table keeps its day (an opener counted): else there is no money to add up.
    const kept = snap.tables.some((t) => t.open !== null);
    const rows = kept ? (snap.pit_totals || []).filter((p) => !wanted || p.pit === wanted) : [];
    row.replaceChildren(...rows.map((p) => {
      const item = make("span", "pit-total",
        `${p.pit || "No pit"}: ${p.open} of ${p.tables} open · drop ${money(p.drop, p.digits)} · win ${money(p.win, p.digits)}`
        + ` · hold ${p.hold_percent === null ? "—" : `${p.hold_percent}%`}`);
      item.dataset.pit = p.pit;
      return item;
    }));
    row.hidden = !rows.length;
  }

  function show(snap) {
    latest = snap;
    zone = snap.timezone || "UTC";
    const shown = snap.tables.filter((t) => !wanted || t.pit === wanted);
    header(snap, shown);
    document.getElementById("empty").hidden = shown.length > 0;
    grid.hidden = shown.length === 0;
    const resized = layout(shown.length);
    if (resized) for (const entry of tiles.values()) entry.version = -1; // drawn again for the new size
    const seen = new Set();
    const changed = [];
    shown.forEach((t, index) => {
      seen.add(t.table);
      let entry = tiles.get(t.table);
      if (!entry) {
        const el = make("article", "tile");
        el.setAttribute("role", "group");
        entry = {el, version: -1};
        tiles.set(t.table, entry);
      }
      if (entry.version !== t.version) {
        draw(entry.el, t);
        entry.version = t.version;
        changed.push(entry.el);
      }
      if (grid.children[index] !== entry.el) grid.insertBefore(entry.el, grid.children[index] || null);
    });
    for (const [table, entry] of tiles) {
      if (!seen.has(table)) {
        entry.el.remove();
        tiles.delete(table);
      }
    }
    fitAll(changed);
    document.body.dataset.version = String(snap.version);
  }

  function tick() {
    const clock = new Intl.DateTimeFormat("en-GB", {timeZone: zone, hour: "2-digit", minute: "2-digit",
      second: "2-digit"});
    document.getElementById("clock").textContent = clock.format(new Date());
  }

  function setConnected(connected) {
    const footer = document.getElementById("connection");
    footer.dataset.connected = String(connected);
    document.body.dataset.connected = String(connected);
    footer.textContent = connected ? "live" : "connection to the pit server lost – reconnecting…";
  }

  // Each picture is whole: when pictures come faster than this screen draws them (a slow
  // kiosk PC, a busy one), the ones it had no time for are skipped and the newest is drawn,
  // so the screen never falls behind the floor.
  let pending = null;
  function drawNewest() {
    const data = pending;
    pending = null;
    if (data !== null) show(JSON.parse(data));
  }

  // EventSource reconnects by itself when the pit server restarts (it asks for a 1 s retry);
  // if the browser gives up (readyState CLOSED), a fresh one is opened.
  function connect() {
    const source = new EventSource("/events");
    source.addEventListener("open", () => setConnected(true));
    source.addEventListener("snapshot", (event) => {
      setConnected(true);
      if (pending === null) setTimeout(drawNewest, 0);
      pending = event.data;
    });
    source.addEventListener("error", () => {
      setConnected(false);
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    });
  }

  window.addEventListener("resize", () => {
    if (!latest) return;
    laidOut = "";
    show(latest);
  });
  tick();
  setInterval(tick, 1000);
  connect();
})();
