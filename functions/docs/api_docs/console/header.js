// The page's header: the shown screen's breadcrumb and the sign-out button.

import { byId, h, link } from "./dom.js";

const breadcrumb = byId("breadcrumb");
export const signOutButton = byId("sign-out");

export function setBreadcrumb(items) {
  breadcrumb.replaceChildren(
    ...items.map(([text, href], index) =>
      h("li", {}, index === items.length - 1 ? h("span", { "aria-current": "page" }, text) : link(href, text)),
    ),
  );
}
