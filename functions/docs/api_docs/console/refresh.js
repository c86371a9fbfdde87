// The screen shown, and its automatic refresh.

import { h, input } from "./dom.js";
import { clearError, showError } from "./feedback.js";

const REFRESH_MS = 1000;
// Bumped on every navigation and sign-out: refreshes started for an older page stop.
let generation = 0;

// A new screen is shown: what the old one started stops.
export function newScreen() {
  generation += 1;
  return generation;
}

export function isCurrent(screen) {
  return screen === generation;
}

// Calls tick() every REFRESH_MS while the page is shown and the box is ticked.
export function autoRefresh(current, tick) {
  const box = input("auto-refresh", { type: "checkbox", checked: true });
  const loop = async () => {
    if (current !== generation) return;
    if (box.checked) {
      try {
        await tick();
        clearError("refresh");
      } catch (error) {
        if (current === generation) showError(error, "refresh");
      }
    }
    if (current === generation) setTimeout(loop, REFRESH_MS);
  };
  setTimeout(loop, REFRESH_MS);
  return h("div", { class: "field inline" }, box, h("label", { for: "auto-refresh" }, "Refresh automatically"));
}

// `work` (async) when called, unless it ran less than `everyMs` ago (and `now` is not asked) or
// still runs: a screen's slower reads (its metrics, its list's health) inside its one-second
// refresh. A failure is shown as a refresh's.
export function throttled(everyMs, work) {
  let startedAt = -Infinity;
  let running = false;
  return (now = false) => {
    if (running || (!now && Date.now() - startedAt < everyMs)) return;
    startedAt = Date.now();
    running = true;
    work()
      .then(() => clearError("refresh"), (error) => showError(error, "refresh"))
      .finally(() => {
        running = false;
      });
  };
}
