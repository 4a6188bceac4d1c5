// The seats' clocks (docs/server.md, "Clocks"): each `state` message says every seat's time
// left in ms (`clock.left`) and whose clock runs (`clock.running`); the page counts the
// running one down from the moment the state arrived (its own monotonic clock, never its
// wall clock), and shows 0 at the least: who ran out is the server's word alone (its next
// state, a bot's move or the match's end).
import { t } from "./i18n.js";
import { S } from "./state.js";

/** Below this many ms a clock is shown as low (server/clocks.py LOW_SECONDS). */
export const LOW_MS = 10000;
const TICK_MS = 200;
let ticking = null;

/** The pages' presets of a time control, [value, catalogue key]: what the room form and
 * the quick match offer (the value as clockOf reads it; "": no clock). */
export const CLOCK_PRESETS = [
  ["", "web.clock.none"], ["move:30", "web.clock.move-30"], ["move:60", "web.clock.move-60"],
  ["fischer:3:2", "web.clock.fischer-3-2"], ["fischer:5:3", "web.clock.fischer-5-3"],
  ["fischer:10:5", "web.clock.fischer-10-5"],
];

/** Fill a <select> with the presets (labelled through data-i18n, as the page's language). */
export function fillClocks(select) {
  select.replaceChildren(...CLOCK_PRESETS.map(([value, key]) => {
    const option = document.createElement("option");
    option.value = value;
    option.dataset.i18n = key;
    option.textContent = t(key);
    return option;
  }));
}

/** The time control of one of the pages' presets ("move:30", "fischer:5:3"; "": none), as
 * POST /rooms and the quick match take it. */
export function clockOf(preset) {
  const [kind, a, b] = String(preset || "").split(":");
  if (kind === "move") return { kind, seconds: Number(a) };
  if (kind === "fischer") return { kind, minutes: Number(a), increment: Number(b) };
  return null;
}

/** A time control in words: "30 s a move", "5 min + 3 s". */
export function controlLabel(control) {
  if (!control || typeof control !== "object") return "";
  if (control.kind === "move") return t("web.clock.move", { seconds: control.seconds });
  if (control.kind === "fischer") {
    return t("web.clock.fischer", { minutes: control.minutes, increment: control.increment });
  }
  return "";
}

/** The time `ms` as a clock shows it: m:ss, and tenths under 10 s. */
export function clockText(ms) {
  const left = Math.max(0, ms);
  if (left < LOW_MS) return (Math.floor(left / 100) / 10).toFixed(1);
  const seconds = Math.floor(left / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** Seat `seat`'s time left now, in ms (0 at the least), or null in a room without a clock. */
export function leftOf(seat) {
  const clock = S.clock;
  if (!clock || !Array.isArray(clock.left) || typeof clock.left[seat] !== "number") return null;
  const ran = clock.running === seat ? performance.now() - S.clockAt : 0;
  return Math.max(0, clock.left[seat] - ran);
}

/** A state arrived: its clocks, and the moment they were read. */
export function takeClocks(message) {
  S.clock = message.clock && typeof message.clock === "object" ? message.clock : null;
  S.clockAt = performance.now();
  if (S.clock && S.clock.running !== null && ticking === null) {
    ticking = setInterval(tick, TICK_MS);
  } else if ((!S.clock || S.clock.running === null) && ticking !== null) {
    clearInterval(ticking);
    ticking = null;
  }
}

/** A seat's clock element (updated in place as it runs). */
export function clockElement(seat) {
  const span = document.createElement("span");
  span.className = "clock";
  span.dataset.clockSeat = String(seat);
  span.setAttribute("role", "timer");
  paint(span, seat);
  return span;
}

function paint(span, seat) {
  const left = leftOf(seat);
  span.hidden = left === null;
  if (left === null) return;
  const running = S.clock.running === seat;
  span.textContent = clockText(left);
  span.dataset.ms = String(Math.round(left));
  span.title = t(running ? "web.clock.running" : "web.clock.stopped");
  span.classList.toggle("running", running);
  span.classList.toggle("low", left < LOW_MS);
}

function tick() {
  for (const span of document.querySelectorAll(".clock[data-clock-seat]")) {
    paint(span, Number(span.dataset.clockSeat));
  }
}
