// The dealer's console: shows the picture the station sends and asks the station for changes.
// It holds no rule of the table: every bet, action and decision is sent as a command and the
// station answers applied, or refused with the rule's reason (shown in the role=alert line).
"use strict";

const $ = (id) => document.getElementById(id);
const ui = {
  session: null, view: null, version: 0, chip: null, recall: false, signIn: "", polling: false,
  lastRecall: null,
  // Chips tapped onto a spot that do not make a bet the table takes yet ("box|player|region" to
  // their amount): the next chip on that spot adds to them, and the table judges the whole.
  pending: {},
  sending: new Set(),  // the commands sent and not yet answered
};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function button(label, onclick, attrs) {
  return el("button", {type: "button", onclick, ...(attrs || {})}, label);
}

function say(text) { $("refusal").textContent = text || ""; }

// --- talking to the console's server ----------------------------------------------------

async function api(path, body) {
  const options = {credentials: "same-origin", headers: {}};
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    if (ui.session && ui.session.csrf) options.headers["X-CSRF-Token"] = ui.session.csrf;
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = {ok: false, error: "no answer from the console"}; }
  if (response.status === 401) signedOut(data && data.error);
  return data;
}

async function send(command, args) {
  // A second tap of the same button before the first is answered (a double tap, a slow
  // station) is the same request: it is sent once, so the journal holds one confirmation.
  const key = command + " " + JSON.stringify(args || {});
  if (ui.sending.has(key)) return false;
  ui.sending.add(key);
  say("");
  try {
    const reply = await api("/api/command", {command, args: args || {}});
    if (reply && reply.session) { setSession(reply.session); render(); }
    if (!reply || !reply.ok) {
      say((reply && reply.error) || "refused");
      return false;
    }
    return true;
  } finally {
    ui.sending.delete(key);
  }
}

function signedOut(reason) {
  ui.session = null;
  ui.signIn = "dealer";
  if (reason && !/^not signed in$/.test(reason)) say(reason);
  render();
}

function setSession(session) {
  const fresh = session && session.signed_in ? session : null;
  // A long poll answered just before a command's reply may describe the screen as it was (a
  // supervisor's turn the reply has just ended): the same screen's older turn never wins. A
  // supervisor's turn has a token of its own, so the screen is known by its (non-secret) id.
  if (fresh && ui.session && fresh.screen === ui.session.screen && fresh.turn < ui.session.turn) return;
  ui.session = fresh;
  document.body.dataset.role = ui.session ? ui.session.acting_role : "";
  $("user-name").textContent = ui.session
    ? (ui.session.supervisor_turn ? `${ui.session.name} · supervisor ${ui.session.acting}` : ui.session.name)
    : "";
}

async function poll() {
  if (ui.polling) return;
  ui.polling = true;
  while (ui.session) {
    let data;
    try {
      const response = await fetch(`/api/view?since=${ui.version}`, {credentials: "same-origin"});
      if (response.status === 401) { signedOut("signed out"); break; }
      if (response.status !== 200) {
        // Not an answer to show, nor a sign-out: a poll sent with the dealer's cookie just before a
        // supervisor's turn began (409: the next one goes with the turn's), or the console busy.
        await new Promise((resolve) => setTimeout(resolve, response.status === 409 ? 100 : 1000));
        continue;
      }
      data = await response.json();
    } catch (e) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    ui.version = data.version;
    setSession(data.session);
    if (data.view) { ui.view = data.view; render(); }
  }
  ui.polling = false;
}

// --- money ----------------------------------------------------------------------------

function minorUnits(text, digits) {
  // Integer arithmetic only: "25.50" with 2 digits is 2550.
  const match = /^\s*(\d{1,12})(?:[.,](\d*))?\s*$/.exec(text || "");
  if (!match) return null;
  const fraction = (match[2] || "");
  if (fraction.length > digits) return null;
  return parseInt(match[1], 10) * (10 ** digits) + (fraction ? parseInt(fraction.padEnd(digits, "0"), 10) : 0);
}

function moneyText(amount, digits) {
  const negative = amount < 0;
  const value = Math.abs(amount);
  const unit = 10 ** digits;
  const whole = Math.floor(value / unit).toLocaleString("en-US");
  const part = digits ? "." + String(value % unit).padStart(digits, "0") : "";
  return (negative ? "-" : "") + whole + part;
}

// --- drawing --------------------------------------------------------------------------

function player() { return ($("player").value || "").trim(); }

function renderChips(table) {
  const chips = $("chips");
  // Drawn once per chip set: a new set comes with new limits (docs/limits.md).
  const set = table.chips.map((chip) => chip.amount).join(" ");
  if (chips.dataset.drawn === set) {
    for (const node of chips.children) node.setAttribute("aria-pressed", String(Number(node.dataset.amount) === ui.chip));
    return;
  }
  chips.replaceChildren(...table.chips.map((chip) => {
    const node = button(chip.text, () => {
      ui.chip = chip.amount;
      $("bet-amount").value = "";  // a chip chosen: chips it is, not the typed amount
      render();
    }, {class: "chip", "aria-label": `Chip ${chip.text}`, "data-amount": chip.amount, "aria-pressed": "false"});
    // The chip's own colour, as on the felt ([table] chip_colours), with ink that reads on it
    // (set through the style object: the page's policy refuses style attributes).
    node.style.setProperty("--chip-colour", chip.colour);
    node.style.setProperty("--chip-ink", chip.ink);
    return node;
  }));
  chips.dataset.drawn = set;
  if (!table.chips.some((chip) => chip.amount === ui.chip)) ui.chip = null;  // a chip taken out of play
  if (ui.chip === null && table.chips.length) ui.chip = table.chips[Math.min(2, table.chips.length - 1)].amount;
  renderChips(table);
}

function renderLayout(view) {
  const table = view.table;
  const betting = view.state === "betting";
  const boxes = table.boxes.map((box) => {
    const mine = view.bets.filter((bet) => bet.box === box.box);
    const regions = box.regions.map((region) => button(el("span", {class: "region-name"}, region.short || region.name),
      () => bet(box.box, region.region), {
        class: `region region-${region.region}${region.side ? " region-side" : ""}`,
        "aria-label": `${box.name} ${region.name}`, title: region.name,
      }));
    for (const [index, region] of box.regions.entries()) {
      const total = mine.filter((bet) => bet.region === region.region).reduce((sum, bet) => sum + bet.amount, 0);
      if (total) regions[index].append(el("span", {class: "region-total"}, moneyText(total, table.digits)));
    }
    const players = mine.map((bet) => el("li", {class: "bet"},
      el("span", {class: "bet-text"}, `${bet.player}: ${bet.text}`),
      betting && ui.chip && ui.chip < bet.amount ? button("−", () => takeChipOff(bet), {
        class: "remove", "aria-label": `Take a chip of ${moneyText(ui.chip, table.digits)} off ${bet.player} ${bet.text} on ${box.name}`,
      }) : null,
      betting ? button("×", () => send("withdraw", {box: bet.box, player: bet.player, region: bet.region}), {
        class: "remove", "aria-label": `Remove ${bet.player} ${bet.text} on ${box.name}`,
      }) : null));
    for (const [key, amount] of Object.entries(ui.pending)) {
      const [pendingBox, who, region] = key.split("|");
      if (pendingBox !== box.box || !betting) continue;
      const name = (box.regions.find((r) => r.region === region) || {name: region}).name;
      const text = `${who}: ${name} +${moneyText(amount, table.digits)} pending`;
      players.push(el("li", {class: "bet pending"}, el("span", {class: "bet-text"}, text),
        button("×", () => { delete ui.pending[key]; say(""); render(); }, {
          class: "remove", "aria-label": `Clear pending ${who} ${name} on ${box.name}`,
        })));
    }
    const extra = [];
    if (view.state === "betting" && table.betting_choices.includes("decline_tie")) {
      extra.push(button("Decline tie", () => send("action", {action: "decline_tie", box: box.box, player: player()}), {
        class: "small", "aria-label": `Decline tie ${box.name}`,
      }));
    }
    return el("div", {class: "box", "data-box": box.box},
      el("h3", {}, box.name),
      // Side bets two to a row under the main bets: eleven regions in one column would not fit a box.
      el("div", {class: "regions"}, ...regions.filter((_, i) => !box.regions[i].side),
        ...(box.regions.some((r) => r.side)
          ? [el("div", {class: box.regions.filter((r) => r.side).length > 3 ? "side-regions many" : "side-regions"},
            ...regions.filter((_, i) => box.regions[i].side))] : [])),
      el("ul", {class: "bets"}, ...players), ...extra);
  });
  // The felt: every box in one row, as the seats run round the table; a table of more than
  // nine (full baccarat's 14 and its standing regions) in two rows, its two sides.
  const perRow = boxes.length > 9 ? Math.ceil(boxes.length / 2) : boxes.length;
  $("layout").style.setProperty("--per-row", String(perRow));
  $("layout").replaceChildren(...boxes);
  const names = new Set(view.bets.map((bet) => bet.player));
  $("players").replaceChildren(...[...names].map((name) => el("option", {value: name})));
}

function placedAmount(box, who, region) {
  return ui.view.bets.filter((b) => b.box === box && b.player === who && b.region === region)
    .reduce((sum, b) => sum + b.amount, 0);
}

async function bet(box, region) {
  // A tap adds a chip (or the typed amount) to what the player has on the spot; the table
  // judges the whole. A whole it does not take yet stays pending on the spot, so that the next
  // chip adds to it: two 10.00 chips make the 20.00 Banker bet no single 10.00 chip can.
  const who = player();
  if (!who) { say("name the player first (Player)"); return; }
  const typed = $("bet-amount").value.trim();
  const add = typed ? minorUnits(typed, ui.view.table.digits) : ui.chip;
  if (typed && !add) { say(`${typed} is not an amount: type it as 20.00`); return; }
  if (!add) { say("tap a chip or type an amount first"); return; }
  const key = `${box}|${who}|${region}`;
  const placed = placedAmount(box, who, region);
  const whole = placed + (ui.pending[key] || 0) + add;
  const args = {box, player: who, region, amount: whole};
  const ok = await send(placed ? "change-bet" : "bet", args);
  if (ok) delete ui.pending[key];
  else if (ui.view.state === "betting") ui.pending[key] = whole - placed;
  render();
}

async function takeChipOff(bet) {
  const left = bet.amount - ui.chip;
  await send("change-bet", {box: bet.box, player: bet.player, region: bet.region, amount: left});
}

function dealerActions(view) {
  const s = view.state;
  const out = [];
  const action = (label, name, extra) => button(label, () => send("action", {action: name, ...(extra || {})}));
  if (s === "shuffling") out.push(action("Shuffle done", "shuffle_done"));
  if (s === "cutting") {
    const select = el("select", {id: "cut-by"}, el("option", {value: ""}, "Dealer"),
      ...view.table.boxes.filter((b) => /^\d+$/.test(b.box)).map((b) => el("option", {value: b.box}, b.name)));
    out.push(el("div", {class: "field"}, el("label", {for: "cut-by"}, "Cut by"), select));
    out.push(button("Confirm cut", () => {
      const box = $("cut-by").value;
      send("action", {action: "confirm_cut", box, player: box ? player() : ""});
    }));
  }
  if (s === "betting") out.push(action("No more bets", "no_more_bets"));
  if (s === "revealing") out.push(action("Reveal", "reveal"));
  if (s === "war_decision") {
    for (const box of view.war) {
      const players = [...new Set(view.bets.filter((b) => b.box === box && b.region === "war").map((b) => b.player))];
      for (const who of players.length ? players : [""]) {
        const name = `box ${box}${who ? " " + who : ""}`;
        out.push(button(`War: ${name}`, () => send("action", {action: "war", box, player: who})));
        out.push(button(`Surrender: ${name}`, () => send("action", {action: "surrender", box, player: who})));
      }
    }
  }
  if (s === "paying") out.push(action("Next round", "next_round"));
  out.push(action("Call supervisor", "call_supervisor", {}));
  out.push(button(ui.playersOpen ? "Close players" : "Players and cash", () => {
    ui.playersOpen = !ui.playersOpen;
    render();
  }, {"aria-expanded": String(Boolean(ui.playersOpen)), "aria-controls": "players-form"}));
  $("actions").replaceChildren(...out);
}

function cardFace(card) {
  // A card as it lies on the table: its rank in the corner, its suit large; a screen reader
  // hears "Player card 2: 10♠".
  const rank = card.text.slice(0, -1), suit = card.text.slice(-1);
  const name = card.position.charAt(0).toUpperCase() + card.position.slice(1);
  return el("div", {class: `card card-${card.card.slice(-1)}`, role: "img",
                    "aria-label": `${name} card ${card.index}: ${card.text}`},
    el("span", {class: "card-rank", "aria-hidden": "true"}, rank),
    el("span", {class: "card-suit", "aria-hidden": "true"}, suit));
}

function renderCards(view) {
  // One row per hand (Player, Banker; Casino War's boxes and the dealer), its cards drawn as cards.
  const result = view.result;
  const totals = {};
  if (result && view.table.game === "baccarat") {
    for (const hand of result.hands) if (hand.total !== null && hand.total !== undefined) totals[hand.position] = hand.total;
  }
  const hands = [];
  for (const card of view.cards) {
    let hand = hands.find((h) => h.position === card.position);
    if (!hand) { hand = {position: card.position, cards: []}; hands.push(hand); }
    hand.cards.push(card);
  }
  $("cards").replaceChildren(...hands.map((hand) => {
    const name = hand.position.charAt(0).toUpperCase() + hand.position.slice(1);
    const total = totals[hand.position];
    return el("div", {class: "hand"},
      el("span", {class: "hand-name"}, total === undefined ? name : `${name} ${total}`),
      el("div", {class: "hand-cards"}, ...hand.cards.map(cardFace)));
  }));
  $("result").replaceChildren(...(result ? [el("div", {class: "outcome"}, `Result: ${result.outcome}`)] : []));
}

function renderPayouts(view) {
  const p = view.payouts;
  $("payouts-panel").hidden = !p;
  if (!p) return;
  $("payouts-title").textContent = `Payouts · round ${p.round_id} · house ${p.house}`;
  const pending = new Set(p.pending);
  $("payout-lines").replaceChildren(...p.lines.map((line) => el("li", {
    class: `payout payout-${line.action}${pending.has(line.box) ? "" : " confirmed"}`,
  }, line.text)));
  const actions = [];
  if (p.pending.length && view.state === "paying") {
    actions.push(button("Confirm payouts", () => send("confirm-payouts", {round_id: p.round_id})));
    // Box by box: "Confirm box" once, then a target per box named by its number (each button's
    // accessible name is the whole "Confirm box 3"), so seven boxes take two rows, not four,
    // and the lines above keep the room.
    actions.push(el("span", {class: "confirm-boxes"}, "Confirm box"));
    for (const box of p.pending) {
      actions.push(button(box, () => send("confirm-payouts", {round_id: p.round_id, box}), {
        class: "confirm-box", "aria-label": `Confirm box ${box}`,
      }));
    }
  } else if (p.confirmations.length) {
    const who = [...new Set(p.confirmations.map((c) => c.who))].join(", ");
    actions.push(el("div", {class: "confirmed-by"}, `Confirmed by ${who}`));
  }
  $("payout-actions").replaceChildren(...actions);
}

function renderSupervisor(view) {
  const supervising = ui.session && ui.session.acting_role === "supervisor";
  $("supervisor").hidden = !supervising;
  $("supervisor-title").textContent = ui.session && ui.session.supervisor_turn
    ? `Supervisor ${ui.session.acting}: one decision` : "Supervisor";
  if (!supervising) return;
  const i = view.irregularity;
  $("irregularity").replaceChildren(...(i ? [
    el("p", {class: "irregularity-detail"}, `Irregularity ${i.ident}: ${i.detail}`),
    ...i.decisions.map((d) => el("div", {class: "decision"},
      button(d.decision.replace("_", " ").replace(/^./, (c) => c.toUpperCase()),
        () => send("decide", {decision: d.decision}), {"aria-describedby": `decision-${d.decision}`}),
      el("span", {id: `decision-${d.decision}`, class: "decision-words"}, d.words))),
  ] : []));
  const out = [];
  if (view.state === "paused") out.push(button("Resume table", () => send("resume")));
  else out.push(button("Pause", () => send("pause", {reason: "paused at the console"})));
  if ((view.state === "dealing" || view.state === "revealing") && view.table.late_bets) {
    out.push(button("Allow late bets", () => send("late-bets")));
  }
  out.push(button(ui.trayOpen ? "Close chip tray" : "Chip tray", () => {
    ui.trayOpen = !ui.trayOpen;
    render();
  }, {"aria-expanded": String(Boolean(ui.trayOpen)), "aria-controls": "tray-form"}));
  // The limits' form opens on demand: the desk stays as small as the felt above it needs.
  out.push(button(ui.limitsOpen ? "Close table limits" : "Table limits", () => {
    ui.limitsOpen = !ui.limitsOpen;
    render();
  }, {"aria-expanded": String(Boolean(ui.limitsOpen)), "aria-controls": "limits-form"}));
  if (view.chips) {
    out.push(button(ui.chipStatusOpen ? "Close chip status" : "Chip status", () => {
      ui.chipStatusOpen = !ui.chipStatusOpen;
      render();
    }, {"aria-expanded": String(Boolean(ui.chipStatusOpen)), "aria-controls": "chip-status-form"}));
  }
  if (view.progressive) {
    out.push(button(ui.meterOpen ? "Close progressive meter" : "Progressive meter", () => {
      ui.meterOpen = !ui.meterOpen;
      render();
    }, {"aria-expanded": String(Boolean(ui.meterOpen)), "aria-controls": "meter-form"}));
  }
  for (const option of view.table.payout_options) {
    if (option !== (view.pending_option || view.payout_option)) {
      out.push(button(`Banker payout: ${option.replace("_", " ")}`, () => send("payout-option", {option})));
    }
  }
  $("supervisor-actions").replaceChildren(...out);
  $("alerts").replaceChildren(...view.alerts.map((alert) => el("div", {class: "alert-row"},
    el("span", {class: "alert-text"}, `Alert ${alert.ident} (${alert.severity}): ${alert.detail}`),
    el("label", {for: `note-${alert.ident}`}, `Note for alert ${alert.ident}`),
    el("input", {id: `note-${alert.ident}`}),
    button(`Acknowledge alert ${alert.ident}`, () => send("ack", {
      ident: alert.ident, note: ($(`note-${alert.ident}`).value || "").trim(),
    })))));
}

// --- the table's limits (docs/limits.md) ------------------------------------------------

function renderLimits(view) {
  $("limits-form").hidden = !ui.limitsOpen;
  $("next-limits").textContent = view.next_limits || "";
  const values = view.table.limit_values;
  const digits = view.table.digits;
  const form = $("limits-form");
  // A field the supervisor is typing in keeps what they typed; the others show the limits in force.
  if (form.contains(document.activeElement) || form.dataset.edited === "yes") return;
  $("limits-min").value = moneyText(values.min_bet, digits);
  $("limits-max").value = moneyText(values.max_bet, digits);
  $("limits-chips").value = values.chips.map((chip) => moneyText(chip, digits)).join(" ");
}

function limitUnits(text, digits) {
  // The form writes amounts as "1,000.00": a comma before three digits groups thousands.
  return minorUnits((text || "").replace(/,(\d{3})/g, "$1"), digits);
}

async function submitLimits(event) {
  event.preventDefault();
  const t = ui.view.table;
  const values = t.limit_values;
  const min = limitUnits($("limits-min").value, t.digits);
  const max = limitUnits($("limits-max").value, t.digits);
  const chips = $("limits-chips").value.split(/[\s;]+/).filter(Boolean).map((c) => limitUnits(c, t.digits));
  if (min === null) { say("Table minimum: an amount such as 25.00"); return; }
  if (max === null) { say("Table maximum: an amount such as 5000.00"); return; }
  if (!chips.length || chips.includes(null)) { say("Chips in play: amounts such as 1.00 5.00 25.00, by spaces"); return; }
  const changes = {};
  if (min !== values.min_bet) changes.min_bet = min;
  if (max !== values.max_bet) changes.max_bet = max;
  const sorted = [...chips].sort((a, b) => a - b);
  if (sorted.join(" ") !== values.chips.join(" ")) changes.chips = sorted;
  if (!Object.keys(changes).length) { say("The limits are already so: nothing to change"); return; }
  if (await send("limits", {...changes, reason: $("limits-reason").value.trim()})) {
    $("limits-form").dataset.edited = "no";
    $("limits-reason").value = "";
    ui.limitsOpen = false;
  }
}

// --- the progressive jackpot (docs/progressive.md) ---------------------------------------

function renderProgressive(view) {
  // The meter beside the dealer's line; over the felt, while a jackpot waits, who won what (and
  // a supervisor's sign-off), then what was done, until the next round.
  const p = view.progressive;
  const pending = p ? p.pending : null;
  $("progressive-sign").hidden = !p;
  $("jackpot").hidden = !pending && !(p && p.news);
  $("jackpot").dataset.waiting = pending ? "yes" : "no";
  document.body.dataset.jackpot = pending ? "waiting" : "";
  if (!p) return;
  $("progressive-meter").textContent = p.meter_text;
  $("jackpot-words").textContent = pending ? pending.words : p.news;
  $("jackpot-detail").textContent = pending ? pending.detail : "";
  $("jackpot-form").hidden = !pending || ui.session.acting_role !== "supervisor";
  $("jackpot-form").dataset.round = pending ? pending.round_id : "";
}

async function signOffJackpot(event) {
  event.preventDefault();
  const note = $("jackpot-note").value.trim();
  if (await send("progressive-sign-off", {round_id: $("jackpot-form").dataset.round, note})) {
    $("jackpot-note").value = "";
  }
}

function renderMeter(view) {
  const p = view.progressive;
  $("meter-form").hidden = !p || !ui.meterOpen;
  if (!p) return;
  $("meter-state").textContent = `Meter ${p.meter_text}, seed ${p.seed_words}`
    + `; jackpots paid ${p.jackpots}`;
  $("meter-amount").placeholder = `${p.seed_text} (the seed)`;
}

async function resetMeter(event) {
  event.preventDefault();
  const typed = $("meter-amount").value.trim();
  const amount = typed ? limitUnits(typed, ui.view.table.digits) : -1;  // left empty: the seed
  if (amount === null) { say("Meter from now: an amount such as 12,000.00, or nothing for the seed"); return; }
  if (await send("progressive-reset", {amount, reason: $("meter-reason").value.trim()})) {
    $("meter-amount").value = "";
    $("meter-reason").value = "";
    ui.meterOpen = false;
    render();
  }
}

// --- the chips on the layout (docs/chips.md) ---------------------------------------------

function renderChipPanel(view) {
  // A line per spot, box by box: its chips beside the keyed bet (a spot that differs says so);
  // while a round is paid, each box's payment; a chip that does not count named; the dealer's tap.
  const c = view.chips;
  $("layout-chips").hidden = !c;
  renderChipHold(view);
  if (!c) return;
  $("layout-chips-title").textContent = c.title;
  const lines = [];
  for (const b of c.boxes) {
    for (const s of b.spots) {
      const kind = s.verdict === "not read" ? "unread" : s.verdict || "read";
      lines.push(el("li", {class: `chip-line chip-spot ${kind}`, "data-box": b.box, "data-region": s.region},
        el("span", {class: "chip-spot-name"}, s.place),
        el("span", {class: "chip-amount"}, s.chips_words),
        s.keyed_words ? el("span", {class: "keyed-amount"}, s.keyed_words) : null,
        s.verdict ? el("span", {class: "chip-verdict"}, s.verdict) : null));
    }
    for (const p of b.payment) {
      lines.push(el("li", {class: `chip-line chip-payment chip-payment-${p.verdict}`, "data-box": b.box}, p.text));
    }
    for (const text of b.bad) lines.push(el("li", {class: "chip-line chip-bad", "data-box": b.box}, text));
  }
  for (const text of c.elsewhere) lines.push(el("li", {class: "chip-line chip-bad"}, text));
  $("chip-lines").replaceChildren(...(lines.length ? lines : [el("li", {class: "chip-line chip-empty"}, c.empty)]));
  $("chip-news").textContent = c.news;
  const actions = [];
  if (c.confirm === "tap" && view.state === "betting") {
    actions.push(button("Confirm chip bets", () => send("chip-bets"), {id: "chip-bets"}));
  }
  $("chip-actions").replaceChildren(...actions);
}

function renderChipHold(view) {
  // A wrong payment holding the table: over the felt, as loud as a jackpot; a supervisor accepts it.
  const hold = view.chips ? view.chips.hold : null;
  $("chip-hold").hidden = !hold;
  $("chip-hold-form").hidden = !hold || ui.session.acting_role !== "supervisor";
  if (!hold) return;
  $("chip-hold-words").textContent = hold.words;
  $("chip-hold-detail").textContent = hold.detail;
  $("chip-hold-form").dataset.round = hold.round_id;
}

async function acceptPayment(event) {
  event.preventDefault();
  const note = $("chip-hold-note").value.trim();
  if (await send("accept-payment", {round_id: $("chip-hold-form").dataset.round, note})) {
    $("chip-hold-note").value = "";
  }
}

function renderChipStatus(view) {
  // Drawn while a supervisor acts; the form stays closed for the next turn once a change is made.
  $("chip-status-form").hidden = !view.chips || !ui.chipStatusOpen || ui.session.acting_role !== "supervisor";
}

async function setChipStatus(event) {
  event.preventDefault();
  const uid = $("chip-uid").value.trim().toUpperCase();
  if (!/^[0-9A-F]{16}$/.test(uid)) { say("Chip UID: 16 hexadecimal digits, as an alarm names it"); return; }
  const args = {uid, status: $("chip-new-status").value, reason: $("chip-status-reason").value.trim()};
  if (await send("chip-status", args)) {
    $("chip-uid").value = "";
    $("chip-status-reason").value = "";
    ui.chipStatusOpen = false;
    render();
  }
}

// --- the chip tray (docs/tray.md) --------------------------------------------------------

function renderTray(view) {
  $("tray-form").hidden = !ui.trayOpen;
  const t = view.tray;
  const digits = view.table.digits;
  $("tray-state").textContent = !t ? "No opener counted yet"
    : `Opening ${t.ledger} ${t.open ? "open" : "closed"} (entries ${(t.entries || []).join(", ") || "-"}): opener `
      + `${moneyText(t.opener, digits)}, fills `
      + `${moneyText(t.fill, digits)}, credits ${moneyText(t.credit, digits)}`
      + (t.open ? "" : `, closer ${moneyText(t.closer, digits)}`)
      + (t.drop_counted ? `, drop ${moneyText(t.drop, digits)}` : "")
      + (t.win !== null ? `; win ${moneyText(t.win, digits)}, variance ${moneyText(t.variance, digits)}` : "");
  const chips = view.table.limit_values.chips;
  const drawn = $("tray-chips");
  if (drawn.dataset.chips !== chips.join(" ")) {  // one count per chip in play
    drawn.dataset.chips = chips.join(" ");
    drawn.replaceChildren(...chips.map((chip) => el("div", {class: "field"},
      el("label", {for: `tray-count-${chip}`, "aria-label": `Count of ${moneyText(chip, digits)} chips`},
        `${moneyText(chip, digits)} ×`),
      el("input", {id: `tray-count-${chip}`, inputmode: "numeric"}))));
  }
  // A table whose chip reader has an antenna under the tray: an opener or a closer may be its read.
  $("tray-reader").hidden = !(view.table.tray_antenna && view.chips);
}

async function submitTray(event) {
  event.preventDefault();
  const chips = [];
  for (const chip of ui.view.table.limit_values.chips) {
    const text = ($(`tray-count-${chip}`).value || "").trim();
    if (!text) continue;
    if (!/^\d{1,6}$/.test(text)) { say(`Count of ${moneyText(chip, ui.view.table.digits)} chips: a whole number`); return; }
    chips.push([chip, parseInt(text, 10)]);
  }
  const args = {what: $("tray-what").value, chips, witness: $("tray-witness").value.trim(),
                slip: $("tray-slip").value.trim()};
  if (await send("tray", args)) {
    for (const chip of ui.view.table.limit_values.chips) $(`tray-count-${chip}`).value = "";
    $("tray-slip").value = "";
    ui.trayOpen = false;
    render();
  }
}

async function countTrayByReader() {
  // The same count, its chips the tray antenna's stable read (the station refuses a fill or a
  // credit, or a tray read with a chip that does not count, with its reason).
  const args = {what: $("tray-what").value, counted_by: "reader", witness: $("tray-witness").value.trim(),
                slip: $("tray-slip").value.trim()};
  if (await send("tray", args)) {
    $("tray-slip").value = "";
    ui.trayOpen = false;
    render();
  }
}

async function submitDrop() {
  const amount = limitUnits($("drop-amount").value, ui.view.table.digits);
  if (amount === null) { say("Drop counted: an amount such as 12,500.00"); return; }
  if (await send("drop", {amount, note: "entered at the console"})) {
    $("drop-amount").value = "";
    ui.trayOpen = false;
    render();
  }
}

async function correctTray() {
  // The entry as it really was: the counts above for a count, the drop field for the drop.
  const entry = parseInt(($("tray-entry").value || "").trim(), 10);
  if (!(entry > 0)) { say("Entry to correct: its number, as the tray's line lists it"); return; }
  const chips = [];
  for (const chip of ui.view.table.limit_values.chips) {
    const text = ($(`tray-count-${chip}`).value || "").trim();
    if (text) chips.push([chip, parseInt(text, 10)]);
  }
  const drop = limitUnits($("drop-amount").value, ui.view.table.digits);
  const args = {entry, reason: $("tray-reason").value.trim(), ...(chips.length ? {chips} : {amount: drop || 0})};
  if (await send("tray-correct", args)) {
    $("tray-entry").value = "";
    $("tray-reason").value = "";
    ui.trayOpen = false;
    render();
  }
}

// --- rated players and cash (docs/ratings.md) ------------------------------------------------

function renderPlayers(view) {
  const supervising = ui.session.acting_role === "supervisor";
  // Nothing to show (no card read, nobody rated, the form closed): no empty panel in the column.
  $("players-panel").hidden = !view.card_read && !view.ratings.length && !ui.playersOpen;
  $("card-read").textContent = view.card_read ? `Card ${view.card_read} read: rate its player` : "";
  $("rated-list").replaceChildren(...view.ratings.map((r) => el("li", {class: "rated"},
    el("span", {class: "rated-text"}, `${r.name} · ${r.player} · card ${r.card}`),
    button("End", () => send("unrate", {box: r.box, player: r.player}), {
      class: "small", "aria-label": `End the rating of ${r.player} on ${r.name}`}))));
  const boxes = view.table.boxes;
  const select = $("players-box");
  if (select.options.length !== boxes.length) {
    select.replaceChildren(...boxes.map((b) => el("option", {value: b.box}, b.name)));
  }
  $("players-form").hidden = !ui.playersOpen;
  $("rate-card").parentElement.hidden = !supervising;
}

function rateArgs() {
  const card = ($("rate-card").value || "").trim();
  return {box: $("players-box").value, player: player(), ...(card ? {card} : {})};
}

async function ratePlayer() {
  if (await send("rate", rateArgs())) { $("rate-card").value = ""; ui.playersOpen = false; render(); }
}

async function buyIn() {
  const amount = limitUnits($("buy-in-amount").value, ui.view.table.digits);
  if (amount === null || amount <= 0) { say("Cash buy-in: an amount such as 500.00"); return; }
  if (await send("buy-in", {box: $("players-box").value, player: player(), amount})) {
    $("buy-in-amount").value = "";
    ui.playersOpen = false;
    render();
  }
}

function renderCorrection(view) {
  const c = view.correction;
  $("correction-panel").hidden = !c;
  $("correction-result").replaceChildren(...(c ? [
    el("p", {class: "correction"}, `Correction of round ${c.round_id} by ${c.who}: ${c.before} → ${c.after}`),
    ...c.differences.map((d) => el("p", {class: "difference"}, d)),
    el("p", {class: "correction"}, c.house),
  ] : []));
}

function renderHeader(view) {
  const t = view.table;
  $("table-name").textContent = t.name;
  $("game-name").textContent = [t.title, t.variant, t.limits].filter(Boolean).join(" · ");
  $("shoe-no").textContent = `Shoe ${view.shoe || "–"}`;
  $("round-no").textContent = `Round ${view.round || "–"}`;
  const problems = [];
  for (const [device, reason] of Object.entries(view.faults)) problems.push(`${device}: ${reason}`);
  if (view.journal_problem) problems.push(`journal: ${view.journal_problem}`);
  $("dealer-line").textContent = view.expecting + (problems.length ? ` (${problems.join("; ")})` : "");
  document.body.dataset.state = view.state;
}

function render() {
  if (ui.view && ui.view.state !== "betting") ui.pending = {};  // betting over: nothing is pending
  const signedIn = Boolean(ui.session);
  const showSignIn = !signedIn || ui.signIn === "supervisor";
  $("sign-in").hidden = !showSignIn || ui.recall;
  $("sign-in-title").textContent = ui.signIn === "supervisor" ? "Supervisor sign-in" : "Sign in";
  $("sign-in-cancel").hidden = ui.signIn !== "supervisor";
  $("table").hidden = !signedIn || showSignIn || ui.recall;
  $("recall").hidden = !ui.recall || !signedIn;
  document.body.dataset.recall = ui.recall ? "yes" : "no";
  for (const id of ["sign-out", "recall-open", "supervisor-open"]) $(id).hidden = !signedIn;
  $("supervisor-open").hidden = !signedIn || ui.session.acting_role === "supervisor";
  const view = ui.view;
  if (!signedIn || !view) { $("progressive-sign").hidden = true; return; }
  renderHeader(view);
  if (ui.recall) { $("dealer-line").textContent = `RECALL · ${view.expecting}`; return; }
  renderChips(view.table);
  renderLayout(view);
  dealerActions(view);
  renderCards(view);
  renderPayouts(view);
  renderProgressive(view);
  renderChipPanel(view);
  renderSupervisor(view);
  renderPlayers(view);
  if (ui.session.acting_role === "supervisor") {
    renderLimits(view); renderTray(view); renderMeter(view);
  }
  renderChipStatus(view);
  renderCorrection(view);
}

// --- recall and corrections ---------------------------------------------------------------

async function showRecall(query) {
  ui.recall = true;
  render();
  const data = await api(`/api/recall?${query}`);
  if (!data || data.ok === false) { say((data && data.error) || "recall failed"); return; }
  ui.lastRecall = data;
  const supervising = ui.session && ui.session.acting_role === "supervisor";
  const rounds = data.rounds.map((r) => el("article", {class: "recall-round"},
    el("h3", {}, `Round ${r.round_id} · ${r.opened_at} – ${r.closed_at || "on the table"}`),
    ...r.lines.map((line) => el("p", {class: "recall-line"}, line)),
    ...r.bets.map((b) => el("p", {class: "recall-bet"}, b.text,
      supervising && r.correctable ? button("Correct", () => openCorrection(r, b), {
        class: "small", "aria-label": `Correct ${b.box_name} ${b.player} ${b.region_name} of round ${r.round_id}`,
      }) : null)),
    ...r.corrections.map((c) => el("p", {class: "recall-correction"}, c)),
  ));
  $("recall-rounds").replaceChildren(...(rounds.length ? rounds : [el("p", {}, data.message || "no rounds")]));
}

function openCorrection(round, b) {
  const view = ui.view;
  $("correct").hidden = false;
  $("correct-round").value = round.round_id;
  $("correct-recorded").value = `${b.box_name} · ${b.player} · ${b.region_name} ${b.amount_text}`;
  $("correct-box").value = b.box;
  $("correct-player").value = b.player;
  $("correct-region").replaceChildren(...view.table.boxes[0].regions.map((r) => el("option", {
    value: r.region, selected: r.region === b.region,
  }, r.name)));
  $("correct-amount").value = moneyText(b.amount, view.table.digits);
  $("correct-reason").value = "";
  $("correct").dataset.recorded = JSON.stringify([b.box, b.player, b.region]);
}

async function submitCorrection(event) {
  event.preventDefault();
  const [box, who, region] = JSON.parse($("correct").dataset.recorded || "[]");
  const amount = minorUnits($("correct-amount").value, ui.view.table.digits);
  if (amount === null) { say(`Correct amount: an amount such as ${moneyText(2500, ui.view.table.digits)}`); return; }
  const applied = await send("correct", {
    round_id: $("correct-round").value, box, player: who, region,
    new_box: $("correct-box").value.trim(), new_player: $("correct-player").value.trim(),
    new_region: $("correct-region").value, new_amount: amount, reason: $("correct-reason").value.trim(),
  });
  if (applied) {
    $("correct").hidden = true;
    ui.recall = false;
    render();
  }
}

// --- wiring -------------------------------------------------------------------------------

async function signIn(event) {
  event.preventDefault();
  say("");
  const reply = await api("/api/sign-in", {name: $("sign-in-name").value.trim(), pin: $("sign-in-pin").value});
  $("sign-in-pin").value = "";
  if (!reply || !reply.ok) { say((reply && reply.error) || "sign-in failed"); return; }
  $("sign-in-name").value = "";
  ui.signIn = "";
  setSession(reply);
  render();
  poll();
}

async function signOut() {
  const reply = await api("/api/sign-out", {});
  if (reply && reply.signed_in) setSession(reply);
  else { ui.session = null; ui.view = null; ui.version = 0; }
  ui.signIn = ui.session ? "" : "dealer";
  render();
}

function tick() {
  // The table's time, on the sign-in screen too (the station says its zone before anyone signs in).
  const zone = ui.view ? ui.view.table.timezone : (ui.timezone || "UTC");
  try {
    $("table-clock").textContent = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short",
    }).format(new Date());
  } catch (e) { $("table-clock").textContent = ""; }
}

async function boot() {
  $("sign-in-form").addEventListener("submit", signIn);
  $("sign-in-cancel").addEventListener("click", () => { ui.signIn = ""; render(); });
  $("sign-out").addEventListener("click", signOut);
  $("supervisor-open").addEventListener("click", () => { ui.signIn = "supervisor"; render(); $("sign-in-name").focus(); });
  $("recall-open").addEventListener("click", () => showRecall("last=10"));
  $("recall-last").addEventListener("click", () => showRecall("last=10"));
  $("recall-show").addEventListener("click", () => showRecall(`round=${encodeURIComponent($("recall-round").value.trim())}`));
  $("recall-close").addEventListener("click", () => { ui.recall = false; $("correct").hidden = true; render(); });
  $("correct-form").addEventListener("submit", submitCorrection);
  $("limits-form").addEventListener("submit", submitLimits);
  $("jackpot-form").addEventListener("submit", signOffJackpot);
  $("meter-form").addEventListener("submit", resetMeter);
  $("chip-hold-form").addEventListener("submit", acceptPayment);
  $("chip-status-form").addEventListener("submit", setChipStatus);
  $("tray-form").addEventListener("submit", submitTray);
  $("tray-reader").addEventListener("click", countTrayByReader);
  $("drop-submit").addEventListener("click", submitDrop);
  $("tray-correct").addEventListener("click", correctTray);
  $("rate-button").addEventListener("click", ratePlayer);
  $("buy-in-button").addEventListener("click", buyIn);
  $("limits-form").addEventListener("input", () => { $("limits-form").dataset.edited = "yes"; });
  $("correct-cancel").addEventListener("click", () => { $("correct").hidden = true; });
  const session = await api("/api/session");
  if (session && session.timezone) ui.timezone = session.timezone;
  setSession(session);
  ui.signIn = ui.session ? "" : "dealer";
  render();
  if (ui.session) poll();
  tick();
  setInterval(tick, 1000);
}

boot();
