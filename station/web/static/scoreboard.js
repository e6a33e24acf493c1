// Table scoreboard page: receives whole snapshots by Server-Sent Events and redraws.
// No framework and no build step: the page is shipped inside the station package and must work
// offline on the table PC. Every snapshot is complete, so drawing is a pure function of it.
"use strict";

(function () {
  const ROWS = 6;
  const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const RANKS = { T: "10" };
  const OUTCOME_WORDS = { B: "BANKER WINS", P: "PLAYER WINS", T: "TIE" };
  const RESULT_WORDS = { B: "Banker", P: "Player", T: "Tie" };
  const GAME_WORDS = { "baccarat": "Baccarat", "casino war": "Casino War" };
  const BANNERS = {
    "shuffling": "Shuffling", "last round": "Last round", "shoe end": "Shoe end", "paused": "Table paused",
  };
  const PILLS = { "betting": "Place your bets", "dealing": "No more bets", "paused": "Please wait" };
  const WAR_WORDS = {
    "win": "WIN", "lose": "LOSE", "war-win": "WAR WIN", "war-lose": "WAR LOSE",
    "surrender": "SURRENDER", "tie": "TIE",
  };
  const DERIVED = ["big_eye_boy", "small_road", "cockroach_pig"];
  const ASK_CLASSES = { big_eye_boy: "bigeye", small_road: "small", cockroach_pig: "cockroach" };

  const EMPTY_PREDICTION = { big_eye_boy: null, small_road: null, cockroach_pig: null };
  const EMPTY_ROADS = {
    bead_plate: [], big_road: [], big_road_leading_ties: 0,
    big_eye_boy_grid: [], small_road_grid: [], cockroach_pig_grid: [],
    predictions: { B: EMPTY_PREDICTION, P: EMPTY_PREDICTION },
    stats: {
      rounds: 0, banker: 0, player: 0, tie: 0, naturals: 0, player_pairs: 0, banker_pairs: 0,
      longest_banker_streak: 0, longest_player_streak: 0, dragon_7s: 0, panda_8s: 0,
    },
  };

  let latest = null;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) node.appendChild(child);
    return node;
  }

  // Money arrives as integers in the currency's minor units; written with integer arithmetic
  // only (digits: 2 -> 150050 is "1,500.50"; 0 -> "150,050").
  function amount(value, digits) {
    const negative = value < 0;
    const text = String(Math.abs(Math.trunc(value))).padStart(digits + 1, "0");
    const whole = digits ? text.slice(0, -digits) : text;
    const fraction = digits ? "." + text.slice(-digits) : "";
    return (negative ? "-" : "") + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + fraction;
  }

  // Type sized to its box: the largest size from ``maxVh`` down to ``minVh`` (of the window's
  // height) at which ``node`` shows all of its text without overflowing its box. Returns false
  // when even the smallest does not fit.
  function fitText(node, maxVh, minVh) {
    const vh = window.innerHeight / 100;
    const smallest = minVh * vh;
    let size = maxVh * vh;
    node.style.fontSize = `${size}px`;
    while (overflows(node) && size > smallest) {
      size = Math.max(smallest, size * 0.92);
      node.style.fontSize = `${size}px`;
    }
    return !overflows(node);
  }

  function overflows(node) {
    return node.scrollWidth > node.clientWidth || node.scrollHeight > node.clientHeight;
  }

  function limitText(limit, digits, currency) {
    const range = `${amount(limit.minimum, digits)} \u2013 ${amount(limit.maximum, digits)}`;
    return currency ? `${range} ${currency}` : range;
  }

  // A whole-number percentage of ``part`` in ``total``, rounded half up, without floats.
  function percent(part, total) {
    if (!total) return "\u2013";
    return `${Math.floor((200 * part + total) / (2 * total))}%`;
  }

  function drawHeader(snapshot) {
    const table = snapshot.table;
    document.getElementById("table-name").textContent = table.name;
    const game = GAME_WORDS[table.game] || table.game;
    document.getElementById("game-name").textContent = table.variant ? `${table.variant} ${game}` : game;
    fitText(document.getElementById("table-name"), 4.2, 1.8);
    const limits = document.getElementById("limits");
    limits.replaceChildren(...table.limits.map((limit) => el("div", { class: "limit", "data-name": limit.name }, [
      el("span", { class: "name", text: limit.name }),
      el("span", { class: "range", text: limitText(limit, table.decimals, table.currency) }),
    ])));
    const dash = "\u2013";
    document.getElementById("shoe-no").textContent = snapshot.shoe ? String(snapshot.shoe) : dash;
    document.getElementById("round-no").textContent = snapshot.round_no ? String(snapshot.round_no) : dash;
    const left = snapshot.cards_left;
    document.getElementById("cards-left").textContent = left === null || left === undefined ? dash : String(left);
    fitText(document.getElementById("table-rules"), 2.6, 1.4);
  }

  function drawState(state, message, messageKind) {
    const isFault = state.startsWith("fault: ");
    const kind = isFault ? "fault" : state;
    document.body.dataset.state = kind;
    const pill = document.getElementById("state");
    const alert = isFault || messageKind === "alert";
    pill.dataset.state = alert ? "fault" : kind;
    pill.textContent = isFault ? "Fault" : (alert ? "Please wait" : (PILLS[state] || BANNERS[state] || state));
    const banner = document.getElementById("banner");
    // The station's banner, in the players' words, comes before the table's state.
    if (message) {
      banner.textContent = message;
      banner.dataset.kind = messageKind === "alert" ? "fault" : "notice";
      showBanner(banner);
      return;
    }
    if (isFault) {
      banner.textContent = "FAULT: " + state.slice("fault: ".length);
    } else if (BANNERS[state]) {
      banner.textContent = BANNERS[state];
    } else {
      banner.hidden = true;
      banner.dataset.kind = "";
      return;
    }
    banner.dataset.kind = kind;
    showBanner(banner);
  }

  // One line of large type; a longer message is set smaller, and only one too long even at
  // half the size wraps onto a second line.
  function showBanner(banner) {
    banner.hidden = false;
    banner.style.whiteSpace = "";
    if (!fitText(banner, 6, 3)) banner.style.whiteSpace = "normal";
  }

  function card(code, third) {
    const rank = code[0];
    const suit = code[1];
    const red = suit === "H" || suit === "D";
    return el("div", { class: `card ${red ? "red" : "black"}${third ? " third" : ""}`, "data-code": code }, [
      el("span", { class: "rank", text: RANKS[rank] || rank }),
      el("span", { class: "suit", text: SUITS[suit] || suit }),
    ]);
  }

  function drawLastResult(result, roundNo) {
    document.getElementById("result-round").textContent = result && roundNo ? `Round ${roundNo}` : "";
    const outcome = document.getElementById("outcome");
    for (const side of ["player", "banker"]) {
      const cards = document.getElementById(`${side}-cards`);
      const total = document.getElementById(`${side}-total`);
      if (!result) {
        cards.replaceChildren();
        total.textContent = "";
        continue;
      }
      cards.replaceChildren(...result[side].cards.map((code, i) => card(code, i === 2)));
      total.textContent = String(result[side].total);
    }
    if (!result) {
      outcome.dataset.outcome = "";
      outcome.replaceChildren();
      return;
    }
    outcome.dataset.outcome = result.outcome;
    const marks = [];
    if (result.natural) marks.push("NATURAL");
    if (result.player_pair) marks.push("P PAIR");
    if (result.banker_pair) marks.push("B PAIR");
    // EZ Baccarat's marks: the Banker won with a three-card 7, the Player with a three-card 8.
    if (result.dragon_7) marks.push("DRAGON 7");
    if (result.panda_8) marks.push("PANDA 8");
    outcome.replaceChildren(
      document.createTextNode(OUTCOME_WORDS[result.outcome]),
      el("span", { class: "marks", text: marks.join(" · ") }),
    );
  }

  function drawStats(stats) {
    const values = {
      "stat-banker": stats.banker, "stat-player": stats.player, "stat-tie": stats.tie,
      "stat-rounds": stats.rounds, "stat-naturals": stats.naturals,
      "stat-banker-pairs": stats.banker_pairs, "stat-player-pairs": stats.player_pairs,
      "stat-longest-banker": stats.longest_banker_streak, "stat-longest-player": stats.longest_player_streak,
    };
    for (const [id, value] of Object.entries(values)) document.getElementById(id).textContent = String(value);
    for (const side of ["banker", "player", "tie"]) {
      document.getElementById(`pct-${side}`).textContent = percent(stats[side], stats.rounds);
    }
  }

  // Lay marks on a road of ``cell``-pixel cells (6 rows), and when the road is wider than its
  // panel draw only its newest columns, with one free column to the right. The newest mark (the
  // last result) is highlighted. Sizes are measured for all roads before any is changed, so a
  // redraw costs one layout instead of one per road.
  function drawRoad(name, box, cell, cells, makeMark) {
    const road = document.querySelector(`.road[data-road="${name}"]`);
    road.style.setProperty("--cell", `${cell}px`);
    road.dataset.cell = String(cell);
    const visible = Math.max(1, Math.floor(box.width / cell));
    const lastCol = cells.reduce((max, c) => Math.max(max, c.col), -1);
    const first = Math.max(0, lastCol + 2 - visible);
    const drawn = cells.filter((c) => c.col >= first);
    road.replaceChildren(...drawn.map((c, i) => {
      const mark = makeMark(c);
      mark.classList.add("mark");
      if (i === drawn.length - 1 && !c.placeholder) mark.classList.add("latest");
      mark.dataset.col = String(c.col);
      mark.dataset.row = String(c.row);
      mark.style.gridColumn = String(c.col - first + 1);
      mark.style.gridRow = String(c.row + 1);
      return mark;
    }));
    road.dataset.count = String(cells.length);
    road.dataset.drawn = String(drawn.length);
    road.dataset.firstCol = String(first);
  }

  function cellFor(box) {
    return Math.max(8, Math.floor(box.height / ROWS));
  }

  function measureRoads() {
    const boxes = {};
    for (const road of document.querySelectorAll(".road[data-road]")) {
      boxes[road.dataset.road] = { width: road.clientWidth, height: road.clientHeight };
    }
    return boxes;
  }

  function pairDots(c) {
    const dots = [];
    if (c.banker_pair) dots.push(el("span", { class: "pair banker" }));
    if (c.player_pair) dots.push(el("span", { class: "pair player" }));
    return dots;
  }

  // A bead in words, for its tooltip and a screen reader: "Banker 7, Banker pair, Dragon 7".
  // A snapshot of an older station has no dragon_7 or panda_8: nothing is marked.
  function beadWords(c) {
    const words = [RESULT_WORDS[c.result] + (c.total === null || c.total === undefined ? "" : ` ${c.total}`)];
    if (c.natural) words.push("natural");
    if (c.player_pair) words.push("Player pair");
    if (c.banker_pair) words.push("Banker pair");
    if (c.dragon_7) words.push("Dragon 7");
    if (c.panda_8) words.push("Panda 8");
    return words.join(", ");
  }

  // Dragon 7 and Panda 8 as EZ Baccarat bead plates mark them: a gold badge with the 7 or 8.
  function ezBadges(c) {
    const badges = [];
    if (c.dragon_7) badges.push(el("span", { class: "ez dragon", "aria-hidden": "true", text: "7" }));
    if (c.panda_8) badges.push(el("span", { class: "ez panda", "aria-hidden": "true", text: "8" }));
    return badges;
  }

  function drawRoads(roads) {
    const boxes = measureRoads();
    const bigCell = cellFor(boxes.big_road);
    // The derived roads are drawn at half the Big Road's cell size, as on casino boards: twice
    // the history in the same width (smaller still only if their panel cannot hold 6 rows).
    const derivedCell = Math.max(4, Math.min(Math.floor(bigCell / 2),
      ...DERIVED.map((n) => Math.floor(boxes[n].height / ROWS))));
    drawRoad("bead_plate", boxes.bead_plate, cellFor(boxes.bead_plate), roads.bead_plate, (c) => el("div", {
      "data-result": c.result, "data-natural": String(c.natural), "data-dragon-7": String(Boolean(c.dragon_7)),
      "data-panda-8": String(Boolean(c.panda_8)), role: "img", "aria-label": beadWords(c), title: beadWords(c),
    }, [el("span", { class: "letter", text: c.result }), ...pairDots(c), ...ezBadges(c)]));

    let big = roads.big_road;
    if (big.length === 0 && roads.big_road_leading_ties > 0) {
      // Ties before the first win wait on the first cell until a win arrives.
      big = [{ col: 0, row: 0, result: "T", ties: roads.big_road_leading_ties, placeholder: true }];
    }
    drawRoad("big_road", boxes.big_road, bigCell, big, (c) => {
      const children = [];
      if (c.ties > 0) {
        children.push(el("span", { class: "tie-slash" }));
        if (c.ties > 1) children.push(el("span", { class: "tie-count", text: String(c.ties) }));
      }
      const attrs = { "data-result": c.result, "data-ties": String(c.ties) };
      if (c.placeholder) attrs["data-placeholder"] = "true";
      return el("div", attrs, [...children, ...pairDots(c)]);
    });

    for (const name of DERIVED) {
      const grid = roads[`${name}_grid`];
      drawRoad(name, boxes[name], derivedCell, grid, (c) => el("div", { "data-colour": c.colour }));
    }

    for (const side of ["B", "P"]) {
      const row = document.querySelector(`.ask-row[data-side="${side}"] .ask-marks`);
      const prediction = roads.predictions[side];
      row.replaceChildren(...DERIVED.map((name) => {
        const colour = prediction[name];
        const attrs = { class: `mark ${ASK_CLASSES[name]}${colour ? "" : " none"}`, "data-road": name };
        if (colour) attrs["data-colour"] = colour;
        return el("span", attrs);
      }));
    }
    drawStats(roads.stats);
  }

  const WAR_SHORT = { "win": "W", "lose": "L", "war-win": "WW", "war-lose": "WL", "surrender": "S", "tie": "T" };

  function cardText(code) {
    return (RANKS[code[0]] || code[0]) + (SUITS[code[1]] || code[1]);
  }

  function drawWar(war) {
    const history = (war && war.history) || [];
    const last = history.length ? history[history.length - 1] : null;
    document.getElementById("war-round").textContent = last ? `Round ${last.round_no}` : "";
    const dealer = document.getElementById("war-dealer");
    dealer.replaceChildren(...(last ? [
      el("span", { class: "box-name", text: "Dealer" }),
      card(last.dealer, false),
      ...(last.dealer_war ? [el("span", { class: "war-label", text: "war" }), card(last.dealer_war, true)] : []),
    ] : []));
    document.getElementById("war-last-boxes").replaceChildren(...(last ? last.boxes : []).map((b) => el("div", {
      class: "war-hand", "data-box": String(b.box), "data-outcome": b.outcome,
    }, [
      el("span", { class: "box-name", text: `Box ${b.box}` }),
      card(b.card, false),
      ...(b.war_card ? [el("span", { class: "war-label", text: "war" }), card(b.war_card, true)] : []),
      // A box's players may decide apart: some went to war, others surrendered.
      el("span", { class: "war-result", "data-outcome": b.outcome,
                   text: (WAR_WORDS[b.outcome] || b.outcome) + (b.some_surrendered ? " · SURRENDER" : "") }),
    ])));

    // Each box's latest results, oldest first: as many of the newest as fit its row are shown,
    // newest on the right (the oldest make room).
    const boxes = document.getElementById("war-boxes");
    const entries = Object.entries((war && war.boxes) || {});
    const rows = entries.map(([box, outcomes]) => el("div", {
      class: "war-results", "data-count": String(outcomes.length),
    }, outcomes.map((o) => el("span", { class: "war-result", "data-outcome": o, text: WAR_WORDS[o] || o }))));
    boxes.replaceChildren(...entries.map(([box], i) => el("div", { class: "war-box", "data-box": box }, [
      el("span", { class: "box-name", text: `Box ${box}` }), rows[i],
    ])));
    fitText(document.getElementById("war-last"), 3.4, 0.8);
    fitText(boxes, 3.6, 1.2);
    for (const row of rows) {
      while (row.children.length > 1 && overflows(row)) row.firstElementChild.remove();
      row.dataset.drawn = String(row.children.length);
    }

    // The shoe's rounds, one column each, newest on the right: the round number, the dealer's
    // card and how each box ended. As many as fit are shown.
    const strip = document.getElementById("war-history");
    const columnWidth = Math.max(1, Math.round(window.innerHeight * 0.07));
    const fit = Math.max(1, Math.floor((strip.clientWidth || columnWidth) / columnWidth));
    const shown = history.slice(-fit);
    strip.replaceChildren(...shown.map((r, i) => el("div", {
      class: `war-round${i === shown.length - 1 ? " latest" : ""}`, "data-round": String(r.round_no),
    }, [
      el("span", { class: "round-no", text: String(r.round_no) }),
      el("span", { class: "dealer-card", "data-code": r.dealer, text: cardText(r.dealer) }),
      ...r.boxes.map((b) => el("span", {
        class: "war-chip", "data-box": String(b.box), "data-outcome": b.outcome,
        title: `Box ${b.box}: ${WAR_WORDS[b.outcome] || b.outcome}`, text: `${b.box}${WAR_SHORT[b.outcome] || "?"}`,
      })),
    ])));
    strip.dataset.count = String(history.length);
    strip.dataset.drawn = String(shown.length);
  }

  function draw(snapshot) {
    latest = snapshot;
    // A Casino War table's snapshot carries its board per box; a baccarat table's, its roads.
    const isWar = snapshot.war != null;
    document.body.dataset.game = snapshot.table.game;
    drawHeader(snapshot);
    drawState(snapshot.state, snapshot.message || "", snapshot.message_kind || "");
    document.getElementById("baccarat").hidden = isWar;
    document.getElementById("war").hidden = !isWar;
    if (isWar) {
      drawWar(snapshot.war);
    } else {
      drawLastResult(snapshot.last_result, snapshot.last_round_no);
      drawRoads(snapshot.roads || EMPTY_ROADS);
    }
    // For whoever waits for the picture of a window size (a test, a screenshot).
    document.body.dataset.drawnFor = `${window.innerWidth}x${window.innerHeight}`;
  }

  function setConnected(connected) {
    const footer = document.getElementById("connection");
    footer.dataset.connected = String(connected);
    footer.textContent = connected ? "live" : "connection to the station lost – reconnecting…";
  }

  // EventSource reconnects by itself after the station restarts (the server asks for a 1 s
  // retry). If the browser gives up (readyState CLOSED), start a fresh one.
  function connect() {
    const source = new EventSource("/events");
    source.addEventListener("open", () => setConnected(true));
    source.addEventListener("snapshot", (event) => {
      setConnected(true);
      // Marks for measuring publish-to-screen time (docs/web-scoreboard.md); only the latest
      // are kept, so a screen left running for weeks does not collect them.
      performance.clearMarks();
      performance.mark(`received ${event.lastEventId}`);
      draw(JSON.parse(event.data));
      performance.mark(`drawn ${event.lastEventId}`);
      document.body.dataset.seq = event.lastEventId;
    });
    source.addEventListener("error", () => {
      setConnected(false);
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(connect, 2000);
      }
    });
  }

  window.addEventListener("resize", () => { if (latest) draw(latest); });
  connect();
})();
