// roomcast operator console: ES modules, no framework, no build step. This one wires the page's
// events to the router; each of the others holds one idea (docs/console.md, "Files", says which).
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
