// The access screen (#/access; docs/portal.md): the tenant's API keys with their scopes and rooms,
// a form to make a scoped key (shown once), and a form to open a portal session for a customer.

import { api, PAGE_SIZE } from "./api.js";
import { code, field, h, input, region, table } from "./dom.js";
import { API_KEY_SCOPES } from "./enums.js";
import { submitForm } from "./forms.js";
import { time } from "./format.js";
import { setBreadcrumb } from "./header.js";

const words = (text) => text.split(/[\s,]+/).filter(Boolean);

function keysTable({ apiKeys }) {
  return table("API keys", ["Key id", "Name", "Scopes", "Rooms", "Created"], apiKeys.map((key) => [
    code(key.keyId),
    key.current ? `${key.name} (this key)` : key.name,
    key.scopes.join(", "),
    key.rooms ? key.rooms.join(", ") : "every room",
    time(key.createdAt),
  ]), "No key is listed.");
}

export async function accessView() {
  setBreadcrumb([["Rooms", "#/rooms"], ["Access", "#/access"]]);
  const list = region();
  const load = async () => list.show(await api("GET", "api-keys", { query: { limit: PAGE_SIZE } }), keysTable);
  await load();
  return [
    h("h1", { tabindex: "-1" }, "Access"),
    h("p", {}, "Your API keys, what each may do, and links for your customers to manage their own endpoints."),
    list,
    keyForm(load),
    portalForm(),
  ];
}

function keyForm(refresh) {
  const name = input("key-name", { autocomplete: "off" });
  const boxes = API_KEY_SCOPES.map((scope) =>
    h("label", {}, h("input", { type: "checkbox", id: `key-scope-${scope}`, value: scope, checked: scope === "admin" }), ` ${scope}`));
  const rooms = input("key-rooms", { autocomplete: "off", placeholder: "room_… room_…" });
  const shown = h("p", { class: "secret", "aria-live": "polite" });
  const submit = h("button", { type: "submit" }, "Create key");
  return submitForm("create-key-title", submit, () => {
    const body = { scopes: boxes.map((label) => label.querySelector("input")).filter((box) => box.checked).map((box) => box.value) };
    if (name.value.trim()) body.name = name.value.trim();
    if (rooms.value.trim()) body.rooms = words(rooms.value);
    return api("POST", "api-keys", { body });
  }, (created) => {
    shown.textContent = `API key (shown once): ${created.key}`;
    return `Key ${created.keyId} created.`;
  }, refresh,
  h("h2", { id: "create-key-title" }, "Create an API key"),
  field("Name", name),
  h("fieldset", {}, h("legend", {}, "Scopes"), boxes),
  field("Rooms", rooms, "Only these rooms, separated by spaces; empty: every room."),
  submit, shown);
}

function portalForm() {
  const consumer = input("portal-consumer", { required: true, autocomplete: "off", placeholder: "acme" });
  const rooms = input("portal-rooms", { required: true, autocomplete: "off", placeholder: "room_…" });
  const types = input("portal-event-types", { autocomplete: "off", placeholder: "order.created" });
  const readOnly = h("input", { type: "checkbox", id: "portal-read-only" });
  const shown = h("p", { class: "secret", "aria-live": "polite" });
  const submit = h("button", { type: "submit" }, "Open portal session");
  return submitForm("portal-title", submit, () => {
    const body = { consumerId: consumer.value.trim(), rooms: words(rooms.value), readOnly: readOnly.checked };
    if (types.value.trim()) body.eventTypes = words(types.value);
    return api("POST", "portal-sessions", { body });
  }, (created) => {
    shown.replaceChildren("Portal link (shown once): ", h("a", { href: created.url, target: "_blank", rel: "noopener noreferrer" }, created.url));
    return `Portal session ${created.sessionId} opened until ${time(created.expiresAt)}.`;
  }, null,
  h("h2", { id: "portal-title" }, "Open a portal session"),
  field("Customer (consumerId)", consumer),
  field("Rooms", rooms, "Separated by spaces."),
  field("Event types", types, "Separated by spaces; empty: any."),
  h("label", {}, readOnly, " Read-only"),
  submit, shown);
}
