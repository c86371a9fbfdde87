// roomcast operator console: ES modules, no framework, no build step (docs/console.md). This one
// wires the page's events to the router; the others, each one idea:
//
//   api.js            the API client: the key, API paths, errors
//   dom.js            building elements; regions rebuilt only when their data changed
//   format.js         times, durations, excerpts, retry policies as text
//   feedback.js       the alert, the status line, the confirmation dialog, a button's action
//   refresh.js        the screen shown and its automatic refresh
//   header.js         the breadcrumb and the sign-out button
//   timeline.js       the SVG timelines
//   forms.js          forms that call the API; the retry policy's fields
//   router.js         which screen an address shows, and showing it
//   sign-in.js        the sign-in screen, and signing out
//   view-*.js         the other screens: rooms, one room, one subscription (and its panels), one message
//
// Everything shown comes from the public API, called from this page with the operator's API key.
// The key lives in this tab's sessionStorage and travels only in the Authorization header: never in
// a URL, never in localStorage. Every text from the API is put in the page as text (textContent),
// never parsed as HTML.

import { clearError, showError } from "./feedback.js";
import { signOutButton } from "./header.js";
import { render } from "./router.js";
import { signOut } from "./sign-in.js";

window.addEventListener("error", (event) => showError(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => showError(event.reason));
window.addEventListener("hashchange", () => {
  clearError();
  render();
});
signOutButton.addEventListener("click", () => {
  signOut();
  render();
});
render();
