// What the operator is told: a failure in the alert, a success in the status line, a question in
// the confirmation dialog; and a button's action, which reports through them.

import { ApiError } from "./api.js";
import { byId, code, h } from "./dom.js";

const alertBox = byId("alert");
const statusBox = byId("status");
// What put up the shown alert: a refresh that works again clears only a refresh's failure.
let alertSource = null;

export function showError(error, source = "action") {
  const parts = [];
  if (error instanceof ApiError) {
    const where = error.status ? `HTTP ${error.status}` : "no answer";
    parts.push(h("strong", { class: "message" }, error.message), " ", h("span", { class: "code" }, error.code ? `(${error.code}, ${where})` : `(${where})`));
    if (error.details.length > 0) {
      parts.push(h("ul", {}, error.details.map((detail) => h("li", {}, code(detail.field ?? ""), " ", detail.problem ?? ""))));
    }
  } else {
    parts.push(h("strong", { class: "message" }, `The console failed: ${error?.message ?? error}`));
  }
  const text = parts.map((part) => (part instanceof Node ? part.textContent : part)).join("");
  if (!alertBox.hidden && alertBox.dataset.text === text) return; // a refresh failing again: say it once
  alertBox.dataset.text = text;
  alertBox.replaceChildren(...parts, " ", h("button", { type: "button", class: "dismiss", onclick: () => clearError() }, "Dismiss"));
  alertBox.hidden = false;
  alertSource = source;
}

export function clearError(source) {
  if (source !== undefined && source !== alertSource) return;
  alertBox.hidden = true;
  alertBox.replaceChildren();
  delete alertBox.dataset.text;
  alertSource = null;
}

// How long a passing word ("Signed in.") stays in the status line.
const PASSING_MS = 4000;
let passing = 0;

// Says `text` in the status line; a `passing` one goes away after a few seconds, unless something
// else was said meanwhile.
export function announce(text, { passing: goes = false } = {}) {
  statusBox.textContent = text;
  clearTimeout(passing);
  if (goes) {
    passing = setTimeout(() => {
      if (statusBox.textContent === text) statusBox.textContent = "";
    }, PASSING_MS);
  }
}

export function confirmAction(text, confirmLabel) {
  const dialog = byId("confirm");
  const yes = byId("confirm-yes");
  const no = byId("confirm-no");
  byId("confirm-text").textContent = text;
  yes.textContent = confirmLabel;
  return new Promise((resolve) => {
    const finish = (answer) => {
      yes.onclick = no.onclick = dialog.oncancel = null;
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    yes.onclick = () => finish(true);
    no.onclick = () => finish(false);
    dialog.oncancel = () => finish(false);
    dialog.showModal();
    no.focus();
  });
}

// A button's action: errors go to the alert, success to the status line, then the page refreshes.
export async function act(button, work, done, refresh) {
  button.disabled = true;
  clearError();
  try {
    const result = await work();
    announce(done(result));
    if (refresh) await refresh();
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}
