// Which screen an address shows (#/rooms/<roomId>/...), and showing it.

import { apiKey } from "./api.js";
import { byId, code, flatten, h, link } from "./dom.js";
import { clearError, showError } from "./feedback.js";
import { setBreadcrumb, showSignedIn } from "./header.js";
import { isCurrent, newScreen } from "./refresh.js";
import { signInView } from "./sign-in.js";
import { accessView } from "./view-access.js";
import { catalogView } from "./view-catalog.js";
import { eventTypeView } from "./view-event-type.js";
import { messageView } from "./view-message.js";
import { roomView } from "./view-room.js";
import { roomsView } from "./view-rooms.js";
import { subscriptionView } from "./view-subscription.js";

const main = byId("main");

// roomcast's ids (room_…, sub_…, msg_…): letters, digits, _ and -. A screen's address must hold
// such ids; anything else could make a path of its own.
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

function notFoundView() {
  setBreadcrumb([["Rooms", "#/rooms"]]);
  return [h("h1", { tabindex: "-1" }, "No such page"), h("p", {}, "The console has no page at this address. ", link("#/rooms", "Go to the rooms"), ".")];
}

function invalidIdView(id) {
  setBreadcrumb([["Rooms", "#/rooms"]]);
  return [
    h("h1", { tabindex: "-1" }, "Not a roomcast id"),
    h("p", {}, "This address names ", code(id), ", which is not an id: roomcast ids are letters, digits, _ and - (like ", code("room_…"), "). Nothing was asked of the API. ", link("#/rooms", "Go to the rooms"), "."),
  ];
}

function viewFor(current, parts) {
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "rooms")) return () => roomsView(current);
  if (parts.length === 1 && parts[0] === "event-types") return () => catalogView(current);
  if (parts.length === 1 && parts[0] === "access") return () => accessView(current);
  // An event type's name (order.created) goes into its API path encoded, a dot segment refused.
  if (parts.length === 2 && parts[0] === "event-types") return () => eventTypeView(current, parts[1]);
  if (parts[0] !== "rooms") return notFoundView;
  // Every other part of a screen's address is an id (rooms/<id>/subscriptions/<id>): checked
  // before any request is built from it.
  const invalid = parts.find((part, index) => index % 2 === 1 && !PLAIN_ID.test(part));
  if (invalid !== undefined) return () => invalidIdView(invalid);
  if (parts.length === 2) return () => roomView(current, parts[1]);
  if (parts.length === 4 && parts[2] === "subscriptions") return () => subscriptionView(current, parts[1], parts[3]);
  if (parts.length === 4 && parts[2] === "messages") return () => messageView(current, parts[1], parts[3]);
  return notFoundView;
}

export async function render() {
  const current = newScreen();
  if (!apiKey()) {
    main.replaceChildren(...signInView(render));
    main.querySelector("input")?.focus();
    return;
  }
  showSignedIn(true);
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  main.setAttribute("aria-busy", "true");
  main.replaceChildren(h("p", {}, "Loading…"));
  try {
    const content = await viewFor(current, parts)();
    if (!isCurrent(current)) return;
    clearError("refresh");
    main.replaceChildren(...flatten(content));
  } catch (error) {
    if (!isCurrent(current)) return;
    showError(error);
    main.replaceChildren(
      h("h1", { tabindex: "-1" }, "This page could not be loaded"),
      h("p", {}, "The API's answer is shown above. "),
      h("p", {}, h("button", { type: "button", onclick: () => render() }, "Try again"), " ", link("#/rooms", "Go to the rooms")),
    );
  } finally {
    if (isCurrent(current)) main.removeAttribute("aria-busy");
  }
  main.querySelector("h1")?.focus({ preventScroll: true });
}
