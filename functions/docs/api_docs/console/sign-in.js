// Signing in (the key is checked with one API call before it is kept) and out.

import { api, forgetApiKey, keepApiKey } from "./api.js";
import { field, h, input } from "./dom.js";
import { announce, clearError, showError } from "./feedback.js";
import { setBreadcrumb, showSignedIn } from "./header.js";
import { newScreen } from "./refresh.js";

// The sign-in screen; onSignedIn shows the screen of the address once the key is kept.
export function signInView(onSignedIn) {
  showSignedIn(false);
  setBreadcrumb([]);
  const keyInput = input("api-key", { type: "password", autocomplete: "off", spellcheck: "false", required: true });
  const submit = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "sign-in-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const key = keyInput.value.trim();
        if (!key) return;
        submit.disabled = true;
        clearError();
        try {
          await api("GET", "rooms", { query: { limit: 1 }, key }); // checks the key before keeping it
          keepApiKey(key);
          keyInput.value = "";
          announce("Signed in.", { passing: true });
          await onSignedIn();
        } catch (error) {
          showError(error);
          keyInput.focus();
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("h1", { id: "sign-in-title", tabindex: "-1" }, "Sign in"),
    field(
      "API key",
      keyInput,
      "Kept in this tab's session storage until you sign out or close the tab, and sent only in the Authorization header of this API's requests.",
    ),
    submit,
  );
  return [form];
}

// The key is forgotten; the caller shows the sign-in screen.
export function signOut() {
  forgetApiKey();
  newScreen();
  clearError();
  announce("Signed out.", { passing: true });
}
