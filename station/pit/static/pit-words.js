// Words and figures: how the page writes what the server says, as a pit reads it.
//
// Amounts in a table's currency ("1,250.00", "253k"), a result in a few words ("BANKER
// 7–5"), a table's status and place, a clock in the pit's time zone, the address of a pit's
// view. Pure functions of their arguments (and the pit's zone), shared by every tile and the
// header, so the same thing is written the same way everywhere.

import {state} from "./pit-state.js";

const LEVELS = ["alarm", "warning", "closed"];

export function words(code) {
  return String(code || "").replace(/_/g, " ");
}

export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

export function localClock(iso) {
  if (!iso) return "";
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return "";
  return new Intl.DateTimeFormat("en-GB", {timeZone: state.zone, hour: "2-digit", minute: "2-digit"}).format(moment);
}

// Amounts as people read them: integer arithmetic on minor units, the point where the
// table's currency puts it ("1,250.00"); large ones without their minor units ("12,500").
export function money(amount, digits) {
  if (amount === null || amount === undefined) return "—";
  const unit = 10 ** (digits || 0);
  const sign = amount < 0 ? "-" : "";
  const whole = Math.floor(Math.abs(amount) / unit).toLocaleString("en-US");
  const part = Math.abs(amount) % unit;
  return sign + whole + (digits && part ? "." + String(part).padStart(digits, "0") : "");
}

// An amount in a few characters, where a pit's figures must share a narrow tile ("253k", "1.25M").
export function shortMoney(amount, digits) {
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

export function hold(percent) {
  return percent === null || percent === undefined ? "—" : `${percent}%`;
}

// The last result in a few words: "BANKER 7–5" (the winner's points first), "TIE 6–6",
// "VOID", Casino War's boxes by their ends ("2 WIN · 1 LOSE").
export function result(last) {
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

export function worst(alarms) {
  for (const level of LEVELS) {
    if (alarms.some((a) => a.level === level)) return level;
  }
  return "ok";
}

export function where(t) {
  if (t.pit && t.number) return `${t.pit} · ${t.number}`;
  return t.pit || (t.number ? `#${t.number}` : "");
}

export function statusWords(t) {
  if (t.status === "online" && t.open === false) return "CLOSED"; // the tray's closer is counted
  if (t.status === "online") return "ONLINE";
  if (t.status === "offline") return t.status_reason === "stopped" ? "CLOSED" : "OFFLINE";
  return "NO STATUS";
}

export function pitName(pit) {
  return pit || "No pit";
}

export function pitHref(pit, table) {
  const query = new URLSearchParams();
  if (pit) query.set("pit", pit);
  else query.set("all", "1");
  if (table) query.set("table", table);
  return `?${query}`;
}
