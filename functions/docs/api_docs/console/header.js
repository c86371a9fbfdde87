// The page's header: the sections (rooms, event types), the shown screen's breadcrumb and the
// sign-out button; the sections and the button only while signed in.

import { byId, h, link } from "./dom.js";

const breadcrumb = byId("breadcrumb");
export const signOutButton = byId("sign-out");
const sections = byId("sections");

export function showSignedIn(signedIn) {
  signOutButton.hidden = !signedIn;
  sections.hidden = !signedIn;
}

export function setBreadcrumb(items) {
  breadcrumb.replaceChildren(
    ...items.map(([text, href], index) =>
      h("li", {}, index === items.length - 1 ? h("span", { "aria-current": "page" }, text) : link(href, text)),
    ),
  );
}
