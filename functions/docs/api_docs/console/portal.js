// The portal page: a tenant's customer manages its own webhook endpoints with a portal session's
// token (docs/portal.md). The token comes in the URL's fragment (never sent to a server), is kept
// in this tab's sessionStorage and the fragment removed; it travels only in the Authorization
// header. Every text from the API goes in as a text node (dom.js).

import { request } from "./api.js";
import { metricsPanel } from "./charts.js";
import { byId, field, h, table } from "./dom.js";

const TOKEN_STORAGE = "roomcast.portalToken";
// The page is /portal/{sessionId}: the API's root is two levels up (/ or /<stage>/).
const API_ROOT = new URL("../", document.baseURI);

function token() {
  const fragment = location.hash.slice(1);
  if (fragment.startsWith("rcp_")) {
    sessionStorage.setItem(TOKEN_STORAGE, fragment);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_STORAGE);
}

async function api(method, path, { query = {}, body } = {}) {
  return request(API_ROOT, method, path.replace(/^\//, ""), { query, body, key: token() ?? "" });
}

const segment = (text) => encodeURIComponent(String(text));

function say(text) {
  byId("status").textContent = text;
}

function fail(error) {
  const alert = byId("alert");
  alert.textContent = error.status === 401 ? `${error.message}. Ask for a new link.` : error.message;
  alert.hidden = false;
}

async function act(button, work) {
  button.disabled = true;
  byId("alert").hidden = true;
  try {
    await work();
  } catch (error) {
    fail(error);
  } finally {
    button.disabled = false;
  }
}

function button(label, onclick, attributes = {}) {
  return h("button", { type: "button", onclick, ...attributes }, label);
}

let session = null;
let room = null;

function brand(found) {
  const b = found.brand ?? {};
  document.title = b.title ?? "Webhooks";
  byId("title").textContent = b.title ?? "Webhooks";
  if (b.logoUrl) {
    const logo = byId("logo");
    logo.src = b.logoUrl;
    logo.hidden = false;
  }
  if (b.accentColor) document.body.style.setProperty("--accent", b.accentColor);
  byId("who").textContent = `${found.consumerId}${found.readOnly ? " (view only)" : ""}`;
}

async function render() {
  const main = byId("main");
  const base = `/rooms/${segment(room)}/subscriptions`;
  const listed = await api("GET", base);
  const parts = [h("h1", {}, "Your endpoints"), button("Refresh", (e) => act(e.target, render))];
  if (session.rooms.length > 1) {
    const select = h("select", { id: "room", onchange: (e) => ((room = e.target.value), render().catch(fail)) });
    for (const id of session.rooms) select.append(h("option", { value: id, selected: id === room }, id));
    parts.push(field("Source", select));
  }
  if (!session.readOnly) parts.push(addForm(base));
  if (listed.subscriptions.length === 0) parts.push(h("p", { class: "empty" }, "No endpoint yet."));
  for (const subscription of listed.subscriptions) parts.push(await endpoint(base, subscription));
  main.replaceChildren(...parts);
}

function addForm(base) {
  const url = h("input", { id: "new-url", type: "url", required: true, placeholder: "https://" });
  const types = session.eventTypes ?? [];
  const boxes = types.map((name, i) =>
    h("label", {}, h("input", { type: "checkbox", id: `new-type-${i}`, value: name, checked: true }), ` ${name}`),
  );
  const form = h(
    "form",
    { class: "add", "aria-labelledby": "add-heading" },
    h("h2", { id: "add-heading" }, "Add an endpoint"),
    field("Endpoint URL", url),
    boxes.length ? h("fieldset", {}, h("legend", {}, "Event types"), boxes) : null,
    h("button", { type: "submit", class: "primary" }, "Add endpoint"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = boxes.map((label) => label.querySelector("input")).filter((box) => box.checked);
    const body = { type: "PUSH", pushUrl: url.value };
    if (types.length) body.eventTypes = chosen.map((box) => ({ name: box.value }));
    act(form.querySelector("button[type=submit]"), async () => {
      const created = await api("POST", base, { body });
      say(`Endpoint added. Its signing secret: ${created.signingSecret}`);
      await render();
    });
  });
  return form;
}

async function endpoint(base, subscription) {
  const path = `${base}/${segment(subscription.id)}`;
  const deliveries = await api("GET", `${path}/deliveries`, { query: { limit: "20" } });
  const secret = h("p", { class: "secret", "aria-live": "polite" });
  const heading = h("h2", { id: `h-${subscription.id}` }, subscription.pushUrl);
  const actions = [];
  if (!session.readOnly) {
    const paused = subscription.status === "paused";
    actions.push(
      button(paused ? "Resume" : "Pause", (e) =>
        act(e.target, async () => {
          await api("PATCH", path, { body: { status: paused ? "active" : "paused" } });
          say(paused ? "Endpoint resumed." : "Endpoint paused.");
          await render();
        }),
      ),
      button("Reveal secret", (e) =>
        act(e.target, async () => {
          secret.textContent = (await api("GET", `${path}/signing-secret`)).signingSecret;
        }),
      ),
      button("Rotate secret", (e) =>
        act(e.target, async () => {
          const rotated = await api("POST", `${path}/rotate-secret`, { body: {} });
          secret.textContent = rotated.signingSecret;
          say("Secret rotated: the previous one keeps signing for 24 hours.");
        }),
      ),
      button("Send test event", (e) =>
        act(e.target, async () => {
          await api("POST", `${path}/test-event`, { body: {} });
          say("Test event sent.");
          await render();
        }),
      ),
    );
  }
  const rows = deliveries.deliveries.map((d) => [
    d.eventType,
    d.status,
    String(d.attempts),
    d.lastError ?? "",
    session.readOnly || !["retrying", "dead"].includes(d.status)
      ? ""
      : button(d.status === "dead" ? "Replay" : "Retry now", (e) =>
          act(e.target, async () => {
            const target = d.status === "dead" ? `${path}/dead-letters/replay` : `${path}/deliveries/retry`;
            await api("POST", target, { body: { messageIds: [d.messageId] } });
            say(d.status === "dead" ? "Delivery replayed." : "Delivery retried now.");
            await render();
          }),
        ),
  ]);
  return h(
    "section",
    { class: "endpoint", "aria-labelledby": heading.id },
    heading,
    h("p", {}, `Status: ${subscription.status}`),
    h("div", { class: "actions" }, actions),
    secret,
    table("Recent deliveries", ["Event", "Status", "Attempts", "Last error", ""], rows, "No delivery yet."),
    metrics(path, subscription.id),
  );
}

// The endpoint's metrics and charts (the console's panel), read when the customer opens them.
function metrics(path, id) {
  const opened = h("details", { class: "endpoint-metrics" }, h("summary", {}, "Metrics"));
  opened.addEventListener("toggle", () => {
    if (!opened.open || opened.dataset.shown) return;
    opened.dataset.shown = "true";
    const panel = metricsPanel(`metrics-${id}`, (query) => api("GET", `${path}/metrics`, { query }));
    opened.append(panel.element);
    panel.refresh();
  });
  return opened;
}

async function start() {
  if (!token()) {
    byId("main").replaceChildren(h("p", {}, "This link is incomplete: ask for a new one."));
    return;
  }
  try {
    session = await api("GET", "/portal-session");
  } catch (error) {
    byId("main").replaceChildren(h("p", {}, "This link cannot be used."));
    fail(error);
    return;
  }
  brand(session);
  room = session.rooms[0];
  await render().catch(fail);
}

start().catch(fail);
