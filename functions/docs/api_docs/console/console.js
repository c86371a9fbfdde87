// roomcast operator console: one ES module, no framework, no build step (docs/console.md).
//
// Everything shown comes from the public API, called from this page with the operator's API key.
// The key lives in this tab's sessionStorage and travels only in the Authorization header: never in
// a URL, never in localStorage. Every text from the API is put in the page as text (textContent),
// never parsed as HTML.

const KEY_STORAGE = "roomcast.apiKey";
// The API's root is the console's parent path: /console -> /, /prod/console -> /prod/.
const API_ROOT = new URL("./", document.baseURI);
const REFRESH_MS = 1000;
const PAGE_SIZE = 50;
const EXCERPT_CHARS = 160;
const DELIVERY_STATUSES = ["pending", "retrying", "delivered", "dead", "expired", "cleared"];
const SVG = "http://www.w3.org/2000/svg";

const $ = (id) => document.getElementById(id);
const main = $("main");
const alertBox = $("alert");
const statusBox = $("status");
const breadcrumb = $("breadcrumb");
const signOutButton = $("sign-out");

// Bumped on every navigation and sign-out: refreshes started for an older page stop.
let generation = 0;
let alertSource = null;

// -- the API ----------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.status = status; // 0: no answer
    this.code = code; // the API's error.code; null for API Gateway's own {"message": ...}
    this.details = details;
  }
}

function apiKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

// roomcast's ids (room_…, sub_…, msg_…): letters, digits, _ and -. A screen's address must hold
// such ids; anything else could make a path of its own.
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

class InvalidPathSegment extends Error {}

// An API path from its segments, each encoded. A "." or ".." survives encodeURIComponent and the
// URL parser would resolve it (rooms/.. -> the API's root), so it is refused, never sent.
function apiPath(...segments) {
  return segments
    .map((segment) => {
      const text = String(segment);
      if (text === "" || text === "." || text === "..") {
        throw new InvalidPathSegment(`"${text}" cannot be part of an API path: the console sent nothing`);
      }
      return encodeURIComponent(text);
    })
    .join("/");
}

async function api(method, path, { query = {}, body, key = apiKey() } = {}) {
  const url = new URL(path, API_ROOT);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
  }
  const headers = { Accept: "application/json", Authorization: `Bearer ${key ?? ""}` };
  const init = { method, headers, cache: "no-store", credentials: "omit", redirect: "error" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new ApiError(0, "network_error", `The API could not be reached: ${error.message}`);
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const error = data?.error;
    if (error && typeof error.message === "string") {
      throw new ApiError(response.status, error.code ?? null, error.message, error.details ?? []);
    }
    if (data && typeof data.message === "string") {
      // API Gateway's own answers: 401 without a key, 403 with a refused one.
      const hint = [401, 403].includes(response.status) ? " (the API refused the API key)" : "";
      throw new ApiError(response.status, null, data.message + hint);
    }
    throw new ApiError(response.status, null, `Unexpected answer from the API: HTTP ${response.status}`);
  }
  if (data === undefined || (data === null && response.status !== 204)) {
    throw new ApiError(response.status, null, `Unexpected answer from the API: HTTP ${response.status}, not JSON`);
  }
  return data;
}

// -- building the page -----------------------------------------------------------------------------

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  element.append(...flatten(children));
  return element;
}

function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  setAttributes(element, attributes);
  element.append(...flatten(children));
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
}

function flatten(children) {
  return children
    .flat(Infinity)
    .filter((child) => child !== undefined && child !== null && child !== false)
    .map((child) => (child instanceof Node ? child : String(child)));
}

function table(caption, headers, rows, empty) {
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((header) => h("th", { scope: "col" }, header)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell))))),
  );
}

function details(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.filter(([, value]) => value !== undefined).map(([term, value]) => [h("dt", {}, term), h("dd", {}, value ?? "—")]),
  );
}

function field(label, input, hint) {
  const id = input.id;
  const hintId = hint ? `${id}-hint` : null;
  if (hintId) input.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hint && h("p", { class: "hint", id: hintId }, hint));
}

function input(id, attributes = {}) {
  return h("input", { id, name: id, ...attributes });
}

function badge(status) {
  return h("span", { class: `badge badge-${status}` }, status);
}

function link(href, text) {
  return h("a", { href }, text);
}

function code(text) {
  return h("code", {}, text);
}

function time(iso) {
  if (!iso) return "—";
  return h("time", { datetime: iso }, iso.replace("T", " ").replace(/(\.\d{3})\d*/, "$1").replace(/Z$|\+00:00$/, " UTC"));
}

function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${+seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = seconds / 60;
  if (minutes < 60) return `${Math.floor(minutes)} min ${Math.round(seconds % 60)} s`;
  const hours = minutes / 60;
  if (hours < 48) return `${Math.floor(hours)} h ${Math.round(minutes % 60)} min`;
  return `${+(hours / 24).toFixed(1)} d`;
}

function excerpt(text) {
  if (!text) return "—";
  if (text.length <= EXCERPT_CHARS) return h("code", { class: "excerpt" }, text);
  return h("details", {}, h("summary", {}, h("code", { class: "excerpt" }, `${text.slice(0, EXCERPT_CHARS)}…`)), h("pre", {}, text));
}

function policy(item) {
  const attempts = item.deliveryAttempts;
  if (attempts === null || attempts === undefined) {
    if (item.retryScheduleMs) return `explicit schedule: ${item.retryScheduleMs.map(duration).join(", ")}`;
    if (item.deliveryDelayMs === null || item.deliveryDelayMs === undefined) return "the room's";
  }
  const parts = [];
  if (attempts !== null && attempts !== undefined) parts.push(`${attempts} redeliver${attempts === 1 ? "y" : "ies"}`);
  if (item.deliveryDelayMs !== null && item.deliveryDelayMs !== undefined) parts.push(`first after ${duration(item.deliveryDelayMs)}`);
  if (item.deliveryDelayMultiplier !== null && item.deliveryDelayMultiplier !== undefined) parts.push(`× ${item.deliveryDelayMultiplier}`);
  if (item.retryScheduleMs) parts.push(`explicit schedule: ${item.retryScheduleMs.map(duration).join(", ")}`);
  if (item.maxDelayMs) parts.push(`capped at ${duration(item.maxDelayMs)}`);
  return parts.join(", ");
}

// -- alerts, status, confirmation ---------------------------------------------------------------------

function showError(error, source = "action") {
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

function clearError(source) {
  if (source !== undefined && source !== alertSource) return;
  alertBox.hidden = true;
  alertBox.replaceChildren();
  delete alertBox.dataset.text;
  alertSource = null;
}

function announce(text) {
  statusBox.textContent = text;
}

function confirmAction(text, confirmLabel) {
  const dialog = $("confirm");
  const yes = $("confirm-yes");
  const no = $("confirm-no");
  $("confirm-text").textContent = text;
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
async function act(button, work, done, refresh) {
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

// Calls tick() every REFRESH_MS while the page is shown and the box is ticked.
function autoRefresh(current, tick) {
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

// Replaces a region's content only when its data changed, so focus and scroll stay put.
function region(attributes = {}) {
  const element = h("div", attributes);
  let shown = null;
  element.show = (data, build) => {
    const key = JSON.stringify(data);
    if (key === shown) return;
    shown = key;
    element.replaceChildren(...flatten([build(data)]));
  };
  return element;
}

// -- timelines (SVG built with DOM calls) ----------------------------------------------------------

// points: [{ms, label, note, kind: "ok" | "failed" | "due" | "cut" | "planned"}], ms since the start.
function timeline(title, points, end) {
  const width = 720;
  const height = 96;
  const left = 24;
  const right = 72;
  const axisY = 48;
  const lastMs = Math.max(1, ...points.map((point) => point.ms));
  const x = (ms) => left + (ms / lastMs) * (width - left - right);
  const titleId = `timeline-${Math.random().toString(36).slice(2)}`;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": titleId, class: "timeline" });
  svg.append(s("title", { id: titleId }, title));
  svg.append(s("line", { x1: left, y1: axisY, x2: width - right + 8, y2: axisY, class: "axis" }));
  let lastLabelX = -Infinity;
  for (const point of points) {
    const cx = x(point.ms);
    svg.append(s("circle", { cx, cy: axisY, r: 7, class: `point point-${point.kind}` }, s("title", {}, `${point.label}: ${point.note}`)));
    if (cx - lastLabelX >= 44) {
      svg.append(s("text", { x: cx, y: axisY - 14, class: "label" }, point.label));
      svg.append(s("text", { x: cx, y: axisY + 26, class: "note" }, point.note));
      lastLabelX = cx;
    }
  }
  if (end) svg.append(s("text", { x: width - right + 14, y: axisY + 4, class: `end end-${end.kind}` }, end.text));
  return svg;
}

// -- sign in and out ----------------------------------------------------------------------------------

function setBreadcrumb(items) {
  breadcrumb.replaceChildren(
    ...items.map(([text, href], index) =>
      h("li", {}, index === items.length - 1 ? h("span", { "aria-current": "page" }, text) : link(href, text)),
    ),
  );
}

function signInView() {
  signOutButton.hidden = true;
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
          sessionStorage.setItem(KEY_STORAGE, key);
          keyInput.value = "";
          announce("Signed in.");
          await render();
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

function signOut() {
  sessionStorage.removeItem(KEY_STORAGE);
  generation += 1;
  clearError();
  announce("Signed out.");
  render();
}

// -- rooms ------------------------------------------------------------------------------------------

function roomRows(rooms) {
  return rooms.map((room) => [
    link(`#/rooms/${encodeURIComponent(room.id)}`, room.name),
    code(room.id),
    policy(room),
    room.messageExpirationMs ? duration(room.messageExpirationMs) : "never",
    time(room.createdAt),
  ]);
}

async function roomsView() {
  setBreadcrumb([["Rooms", "#/rooms"]]);
  const first = await api("GET", "rooms", { query: { limit: PAGE_SIZE } });
  const rooms = [...first.rooms];
  const list = region();
  let cursor = first.nextCursor;
  const more = h("button", { type: "button", hidden: !cursor }, "Load more rooms");
  const showRooms = () =>
    list.show(rooms, (all) => table("Your rooms", ["Name", "Id", "Delivery policy", "Expiration", "Created"], roomRows(all), "No rooms yet: create one below."));
  more.addEventListener("click", () =>
    act(more, async () => {
      const page = await api("GET", "rooms", { query: { limit: PAGE_SIZE, cursor } });
      rooms.push(...page.rooms);
      cursor = page.nextCursor;
      more.hidden = !cursor;
      showRooms();
      return page.rooms.length;
    }, (count) => `${count} more rooms shown.`),
  );
  showRooms();

  const name = input("room-name", { required: true, autocomplete: "off" });
  const retries = policyInputs("room", "Empty: the API's default.");
  const expiration = input("room-expiration", { type: "number", inputmode: "numeric" });
  const submit = h("button", { type: "submit" }, "Create room");
  const form = submitForm("create-room-title", submit, () => {
    const body = { name: name.value };
    retries.fill(body);
    setNumber(body, "messageExpirationMs", expiration);
    return api("POST", "rooms", { body });
  }, (room) => {
    location.hash = `#/rooms/${encodeURIComponent(room.id)}`;
    return `Room ${room.name} created.`;
  }, null,
  h("h2", { id: "create-room-title" }, "Create a room"),
  h("div", { class: "grid" },
    field("Name", name),
    retries.fields,
    field("Messages expire after (ms)", expiration, "Empty or 0: never."),
  ),
  submit);
  return [h("h1", { tabindex: "-1" }, "Rooms"), list, more, form];
}

// A form whose submission is an API call: never submitted by the browser itself.
function submitForm(titleId, submit, work, done, refresh, ...children) {
  return h("form", {
    "aria-labelledby": titleId,
    onsubmit: (event) => {
      event.preventDefault();
      act(submit, work, done, refresh);
    },
  }, ...children);
}

// The retry policy's fields, shared by rooms and subscriptions.
function policyInputs(prefix, hint) {
  const inputs = {
    deliveryAttempts: ["Redeliveries", input(`${prefix}-attempts`, { type: "number", inputmode: "numeric" })],
    deliveryDelayMs: ["First redelivery after (ms)", input(`${prefix}-delay`, { type: "number", inputmode: "numeric" })],
    deliveryDelayMultiplier: ["Delay multiplier", input(`${prefix}-multiplier`, { type: "number", step: "any" })],
  };
  return {
    fields: Object.values(inputs).map(([label, element]) => field(label, element, hint)),
    fill: (body) => {
      for (const [name, [, element]] of Object.entries(inputs)) setNumber(body, name, element);
    },
  };
}

function setNumber(body, name, element) {
  // Sent as typed: the API checks the bounds and its message is shown as it says it.
  if (element.value.trim() !== "") body[name] = Number(element.value);
}

// -- one room: subscriptions, publishing, messages ---------------------------------------------------------

function deliverySummary(deliveries) {
  if (deliveries.length === 0) return "no destination";
  return h("ul", { class: "plain" }, deliveries.map((delivery) =>
    h("li", {}, badge(delivery.status), " ", code(delivery.subscriptionId), ` · ${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`),
  ));
}

async function roomView(current, roomId) {
  const roomPath = apiPath("rooms", roomId);
  const [room, subscriptions, messages] = await Promise.all([
    api("GET", roomPath),
    api("GET", `${roomPath}/subscriptions`, { query: { limit: 100 } }),
    api("GET", `${roomPath}/messages`, { query: { limit: 20 } }),
  ]);
  const roomHash = `#/rooms/${encodeURIComponent(roomId)}`;
  setBreadcrumb([["Rooms", "#/rooms"], [room.name, roomHash]]);

  const subscriptionList = region();
  const showSubscriptions = (page) =>
    subscriptionList.show(page, ({ subscriptions: all, nextCursor }) => [
      table("Subscriptions", ["Subscription", "Type", "Status", "Target", "Retry policy"], all.map((subscription) => [
        link(`${roomHash}/subscriptions/${encodeURIComponent(subscription.id)}`, subscription.id),
        subscription.type,
        badge(subscription.status),
        subscription.type === "PUSH" ? code(subscription.pushUrl) : "its own pull queue",
        policy(subscription),
      ]), "No subscriptions yet."),
      nextCursor && h("p", { class: "hint" }, "The first 100 subscriptions are shown."),
    ]);
  showSubscriptions(subscriptions);

  const messageList = region();
  const showMessages = (page) =>
    messageList.show(page, ({ messages: all }) =>
      table("The 20 newest messages", ["Message", "Event", "Published", "Deliveries"], all.map((message) => [
        link(`${roomHash}/messages/${encodeURIComponent(message.messageId)}`, message.messageId),
        `${message.eventType} v${message.eventVersion}`,
        time(message.publishedAt),
        deliverySummary(message.deliveries),
      ]), "No messages yet."),
    );
  showMessages(messages);

  const refresh = async () => {
    const [nextSubscriptions, nextMessages] = await Promise.all([
      api("GET", `${roomPath}/subscriptions`, { query: { limit: 100 } }),
      api("GET", `${roomPath}/messages`, { query: { limit: 20 } }),
    ]);
    if (current !== generation) return;
    showSubscriptions(nextSubscriptions);
    showMessages(nextMessages);
  };

  return [
    h("h1", { tabindex: "-1" }, `Room ${room.name}`),
    details([
      ["Id", code(room.id)],
      ["Delivery policy", policy(room)],
      ["Messages expire", room.messageExpirationMs ? `after ${duration(room.messageExpirationMs)}` : "never"],
      ["Event types", room.eventTypes.length ? room.eventTypes.map((type) => `${type.name}${type.versions?.length ? ` (v${type.versions.join(", v")})` : ""}`).join("; ") : "any"],
      ["Operations room", room.operationsRoomId ? code(room.operationsRoomId) : "none"],
      ["Created", time(room.createdAt)],
    ]),
    h("section", { "aria-labelledby": "subscriptions-title" }, h("h2", { id: "subscriptions-title" }, "Subscriptions"), subscriptionList, subscriptionForm(roomPath, refresh)),
    h("section", { "aria-labelledby": "publish-title" }, h("h2", { id: "publish-title" }, "Publish a message"), publishForm(roomPath, roomHash, refresh)),
    h("section", { "aria-labelledby": "messages-title" },
      h("h2", { id: "messages-title" }, "Messages"),
      autoRefresh(current, refresh),
      messageList),
  ];
}

function subscriptionForm(roomPath, refresh) {
  const type = h("select", { id: "subscription-type", name: "subscription-type" }, h("option", { value: "PUSH" }, "PUSH (webhook)"), h("option", { value: "PULL" }, "PULL (queue)"));
  const url = input("subscription-url", { type: "url", autocomplete: "off", placeholder: "https://example.com/hooks/roomcast" });
  const urlField = field("Webhook URL", url, "PUSH only.");
  const retries = policyInputs("subscription", "Empty: the room's.");
  const eventTypes = input("subscription-event-types", { autocomplete: "off" });
  const secret = region({ class: "secret" });
  const submit = h("button", { type: "submit" }, "Subscribe");
  type.addEventListener("change", () => {
    urlField.hidden = type.value !== "PUSH";
  });
  return submitForm("subscribe-title", submit, () => {
    const body = { type: type.value };
    if (type.value === "PUSH") body.pushUrl = url.value;
    retries.fill(body);
    const names = eventTypes.value.split(",").map((name) => name.trim()).filter(Boolean);
    if (names.length) body.eventTypes = names.map((name) => ({ name }));
    return api("POST", `${roomPath}/subscriptions`, { body });
  }, (created) => {
    secret.show(created, (subscription) =>
      subscription.signingSecret
        ? h("p", {}, `Signing secret of ${subscription.id} (shown this once: keep it now): `, code(subscription.signingSecret))
        : null,
    );
    return `Subscription ${created.id} created.`;
  }, refresh,
  h("h3", { id: "subscribe-title" }, "Add a subscription"),
  h("div", { class: "grid" },
    field("Type", type),
    urlField,
    retries.fields,
    field("Event types", eventTypes, "Comma-separated; empty: every event."),
  ),
  submit,
  secret);
}

function publishForm(roomPath, roomHash, refresh) {
  const eventType = input("publish-event-type", { required: true, autocomplete: "off" });
  const eventVersion = input("publish-event-version", { required: true, value: "1", autocomplete: "off" });
  const payload = h("textarea", { id: "publish-payload", name: "publish-payload", rows: 4, spellcheck: "false" }, "{}");
  const correlation = input("publish-correlation-id", { autocomplete: "off" });
  const result = region({ class: "result" });
  const submit = h("button", { type: "submit" }, "Publish");
  return submitForm("publish-title", submit, () => {
    let parsed;
    try {
      parsed = JSON.parse(payload.value);
    } catch (error) {
      throw new ApiError(0, "invalid_payload", `The payload is not JSON: ${error.message}`);
    }
    const body = { eventType: eventType.value, eventVersion: eventVersion.value, payload: parsed };
    if (correlation.value.trim()) body.correlationId = correlation.value.trim();
    return api("POST", `${roomPath}/messages`, { body });
  }, (published) => {
    result.show(published, (message) =>
      h("p", {}, `Published ${message.messageId} to ${message.destinations.length} destination${message.destinations.length === 1 ? "" : "s"}. `,
        link(`${roomHash}/messages/${encodeURIComponent(message.messageId)}`, "Open its timeline")),
    );
    return `Message ${published.messageId} published.`;
  }, refresh,
  h("div", { class: "grid" },
    field("Event type", eventType),
    field("Event version", eventVersion),
    field("Correlation id", correlation, "Empty: one is generated."),
  ),
  field("Payload (JSON)", payload),
  submit,
  result);
}

// -- one subscription: health, schedule, deliveries, dead letters ---------------------------------------------

// Health: whether the endpoint is failing now comes from the API (failingSince); the success rate
// and the last error are computed here from the subscription's newest deliveries.
function health(deliveries) {
  const counts = Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, 0]));
  let attempts = 0;
  let succeeded = 0;
  for (const delivery of deliveries) {
    counts[delivery.status] += 1;
    attempts += delivery.attempts;
    if (delivery.status === "delivered") succeeded += 1; // each delivered delivery's last attempt
  }
  return { counts, attempts, succeeded };
}

// The newest error among the recent deliveries. A delivery that failed, then succeeded keeps no
// lastError: its last failed attempt is read from its attempts, once per change of the delivery.
async function lastError(roomPath, subscriptionId, deliveries, known) {
  const failed = deliveries
    .filter((delivery) => delivery.lastError || delivery.status === "dead" || delivery.attempts > 1)
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))[0];
  if (!failed) return null;
  if (failed.lastError) return { error: failed.lastError, at: failed.updatedAt, messageId: failed.messageId };
  const key = `${failed.messageId} ${failed.updatedAt}`;
  if (!known.has(key)) {
    const path = `${roomPath}/messages/${apiPath(failed.messageId)}/attempts`;
    const { attempts } = await api("GET", path, { query: { subscriptionId } });
    const attempt = attempts.filter((each) => each.error).at(-1);
    known.set(key, attempt ? { error: attempt.error, at: attempt.startedAt, messageId: failed.messageId } : null);
  }
  return known.get(key);
}

function healthPanel(roomHash, deliveries, lastError, failingSince) {
  const { counts, attempts, succeeded } = health(deliveries);
  const rate = attempts ? `${Math.round((100 * succeeded) / attempts)}% (${succeeded} of ${attempts} attempts succeeded)` : "no attempts yet";
  return [
    details([
      ["Failing since", failingSince ? [badge("failing"), " every attempt since ", time(failingSince)] : "not failing"],
      ["Recent success rate", rate],
      ["Deliveries by status", DELIVERY_STATUSES.filter((status) => counts[status]).map((status) => `${status} ${counts[status]}`).join(", ") || "none"],
      ["Last error", lastError
        ? [code(lastError.error), " — ", time(lastError.at), ", ",
          link(`${roomHash}/messages/${encodeURIComponent(lastError.messageId)}`, lastError.messageId)]
        : "none"],
    ]),
    h("p", { class: "hint" }, `Computed in the browser from the subscription's ${deliveries.length} newest deliver${deliveries.length === 1 ? "y" : "ies"}.`),
  ];
}

function schedulePanel(schedule) {
  const attempts = schedule.attempts;
  const last = attempts[attempts.length - 1];
  const made = attempts.filter((attempt) => !attempt.cutByExpiry);
  const points = attempts.map((attempt) => ({
    ms: attempt.sincePublishMs,
    label: `#${attempt.attempt}`,
    note: `+${duration(attempt.sincePublishMs)}`,
    kind: attempt.cutByExpiry ? "cut" : "planned",
  }));
  const title = `Retry schedule: ${made.length} attempt${made.length === 1 ? "" : "s"} over ${duration(made[made.length - 1]?.sincePublishMs ?? 0)}, then ${last?.cutByExpiry ? "expired" : "dead"}`;
  return [
    timeline(title, points, { text: made.length === attempts.length ? "dead" : "expired", kind: "dead" }),
    h("p", { class: "hint" }, schedule.note),
    table(title, ["Attempt", "Wait before it", "After publish", "Note"], attempts.map((attempt) => [
      attempt.attempt === 0 ? "0 (first delivery)" : String(attempt.attempt),
      duration(attempt.delayMs),
      `+${duration(attempt.sincePublishMs)}`,
      attempt.cutByExpiry ? "cut by the room's expiry: never made" : "",
    ]), "No attempts."),
  ];
}

async function subscriptionView(current, roomId, subscriptionId) {
  const roomPath = apiPath("rooms", roomId);
  const path = `${roomPath}/subscriptions/${apiPath(subscriptionId)}`;
  const roomHash = `#/rooms/${encodeURIComponent(roomId)}`;
  const statusFilter = h("select", { id: "delivery-status", name: "delivery-status" },
    h("option", { value: "" }, "every status"), DELIVERY_STATUSES.map((status) => h("option", { value: status }, status)));
  const knownErrors = new Map();
  const load = async () => {
    const found = await Promise.all([
      api("GET", path),
      api("GET", `${path}/deliveries`, { query: { limit: PAGE_SIZE } }),
      statusFilter.value ? api("GET", `${path}/deliveries`, { query: { limit: PAGE_SIZE, status: statusFilter.value } }) : null,
      api("GET", `${path}/dead-letters`, { query: { limit: PAGE_SIZE } }),
    ]);
    return [...found, await lastError(roomPath, subscriptionId, found[1].deliveries, knownErrors)];
  };
  const [room, schedule, first] = await Promise.all([api("GET", roomPath), api("GET", `${path}/schedule`), load()]);
  setBreadcrumb([["Rooms", "#/rooms"], [room.name, roomHash], [subscriptionId, `${roomHash}/subscriptions/${encodeURIComponent(subscriptionId)}`]]);

  const summary = region();
  const healthRegion = region();
  const deliveryList = region();
  const letterList = region();
  const toggle = h("button", { type: "button", id: "toggle-status" });
  const retry = h("button", { type: "button" }, "Retry now");
  const clear = h("button", { type: "button", class: "danger" }, "Clear all pending…");
  const replayAll = h("button", { type: "button" }, "Replay all dead letters");
  const purge = h("button", { type: "button", class: "danger" }, "Purge dead letters…");
  let subscription;

  const show = ([latest, recent, filtered, letters, newestError]) => {
    subscription = latest;
    summary.show(latest, (item) => details([
      ["Id", code(item.id)],
      ["Type", item.type],
      ["Status", [badge(item.status), item.disabledReason ? ` — ${item.disabledReason}` : "", item.disabledAt ? [" since ", time(item.disabledAt)] : ""]],
      ["Target", item.type === "PUSH" ? code(item.pushUrl) : "its own pull queue"],
      ["Event types", item.eventTypes.length ? item.eventTypes.map((type) => type.name).join(", ") : "every event"],
      ["Retry policy", policy(item)],
      [item.type === "PUSH" ? "Request timeout" : "Ack wait", duration(item.type === "PUSH" ? item.timeoutMs ?? 10000 : item.ackWaitMs)],
      ["Failover", item.failoverSubscriptionId ? link(`${roomHash}/subscriptions/${encodeURIComponent(item.failoverSubscriptionId)}`, item.failoverSubscriptionId) : "none (dead letters)"],
    ]));
    toggle.textContent = latest.status === "active" ? "Pause" : latest.status === "paused" ? "Resume" : "Enable";
    retry.hidden = latest.type !== "PUSH";
    healthRegion.show([recent.deliveries, newestError, latest.failingSince ?? null], ([deliveries, error, failingSince]) => healthPanel(roomHash, deliveries, error, failingSince));
    const page = filtered ?? recent;
    deliveryList.show(page, ({ deliveries, nextCursor }) => [
      table(`Deliveries${statusFilter.value ? ` (${statusFilter.value})` : ""}, newest first`, ["Message", "Status", "Attempts", "Last error", "Next attempt", "Updated"], deliveries.map((delivery) => [
        link(`${roomHash}/messages/${encodeURIComponent(delivery.messageId)}`, delivery.messageId),
        badge(delivery.status),
        String(delivery.attempts),
        delivery.lastError ? code(delivery.lastError) : "—",
        time(delivery.nextAttemptAt),
        time(delivery.updatedAt),
      ]), "No deliveries."),
      nextCursor && h("p", { class: "hint" }, `The ${PAGE_SIZE} newest are shown.`),
    ]);
    letterList.show(letters, ({ deadLetters, nextCursor }) => [
      table("Dead letters", ["Message", "Event", "Attempts", "Reason", "Died", "Action"], deadLetters.map((letter) => [
        link(`${roomHash}/messages/${encodeURIComponent(letter.messageId)}`, letter.messageId),
        `${letter.eventType} v${letter.eventVersion}`,
        String(letter.attempts),
        code(letter.reason),
        time(letter.deadAt),
        h("button", {
          type: "button",
          "aria-label": `Replay ${letter.messageId}`,
          onclick: (event) => act(event.currentTarget, () => api("POST", `${path}/dead-letters/replay`, { body: { messageIds: [letter.messageId] } }), replayed, refresh),
        }, "Replay"),
      ]), "No dead letters."),
      nextCursor && h("p", { class: "hint" }, `The first ${PAGE_SIZE} are shown.`),
    ]);
    replayAll.hidden = purge.hidden = letters.deadLetters.length === 0;
  };
  const refresh = async () => {
    const latest = await load();
    if (current === generation) show(latest);
  };
  const replayed = (result) =>
    `Replayed ${result.replayed.length} dead letter${result.replayed.length === 1 ? "" : "s"}` +
    (result.alreadyReplaying?.length ? `; ${result.alreadyReplaying.length} already replaying` : "") +
    (result.notFound?.length ? `; ${result.notFound.length} not found` : "") +
    (result.remaining ? "; more remain: replay again" : "") + ".";

  toggle.addEventListener("click", () => {
    const status = subscription.status === "active" ? "paused" : "active";
    act(toggle, () => api("PATCH", path, { body: { status } }), (item) => `Subscription ${item.id} is ${item.status}.`, refresh);
  });
  retry.addEventListener("click", () =>
    act(retry, () => api("POST", `${path}/deliveries/retry`, { body: {} }), (result) =>
      `Retried ${result.retried} deliver${result.retried === 1 ? "y" : "ies"} now` + (result.notRetrying.length ? `; ${result.notRetrying.length} not retrying.` : "."), refresh));
  clear.addEventListener("click", async () => {
    if (!(await confirmAction("Clear every pending and retrying delivery of this subscription? They are never sent.", "Clear all pending"))) return;
    act(clear, () => api("DELETE", `${path}/deliveries`), (result) => `Cleared ${result.cleared} deliver${result.cleared === 1 ? "y" : "ies"}.`, refresh);
  });
  replayAll.addEventListener("click", () =>
    act(replayAll, () => api("POST", `${path}/dead-letters/replay`, { body: {} }), replayed, refresh));
  purge.addEventListener("click", async () => {
    if (!(await confirmAction("Delete every dead letter of this subscription? They cannot be replayed afterwards.", "Purge dead letters"))) return;
    act(purge, () => api("DELETE", `${path}/dead-letters`), (result) => `Purged ${result.purged} dead letter${result.purged === 1 ? "" : "s"}.`, refresh);
  });
  statusFilter.addEventListener("change", () => refresh().catch((error) => showError(error)));
  show(first);

  return [
    h("h1", { tabindex: "-1" }, `Subscription ${subscriptionId}`),
    autoRefresh(current, refresh),
    summary,
    h("div", { class: "actions" }, toggle),
    h("section", { "aria-labelledby": "health-title" }, h("h2", { id: "health-title" }, "Health"), healthRegion),
    h("section", { "aria-labelledby": "schedule-title" }, h("h2", { id: "schedule-title" }, "Retry schedule"), schedulePanel(schedule)),
    h("section", { "aria-labelledby": "deliveries-title" },
      h("h2", { id: "deliveries-title" }, "Deliveries"),
      h("div", { class: "actions" }, field("Show", statusFilter), retry, clear),
      deliveryList),
    h("section", { "aria-labelledby": "dead-letters-title" },
      h("h2", { id: "dead-letters-title" }, "Dead letters"),
      h("div", { class: "actions" }, replayAll, purge),
      letterList),
  ];
}

// -- one message: its deliveries and each one's timeline ------------------------------------------------

function attemptOutcome(attempt) {
  if (attempt.event === "post") return attempt.httpStatus >= 200 && attempt.httpStatus < 300 ? "ok" : "failed";
  return attempt.event === "ack" ? "ok" : attempt.event === "pull" ? "planned" : "failed";
}

function deliveryTimeline(roomHash, message, delivery, attempts) {
  const publishedMs = Date.parse(message.publishedAt);
  const points = attempts.map((attempt) => ({
    ms: Math.max(0, Date.parse(attempt.startedAt) - publishedMs),
    label: `#${attempt.attempt}`,
    note: attempt.httpStatus ? String(attempt.httpStatus) : attempt.event,
    kind: attemptOutcome(attempt),
  }));
  if (delivery.nextAttemptAt && ["pending", "retrying"].includes(delivery.status)) {
    points.push({ ms: Math.max(0, Date.parse(delivery.nextAttemptAt) - publishedMs), label: "next", note: "due", kind: "due" });
  }
  const subscriptionHash = `${roomHash}/subscriptions/${encodeURIComponent(delivery.subscriptionId)}`;
  const title = `Timeline of ${delivery.subscriptionId}: ${attempts.length} attempt${attempts.length === 1 ? "" : "s"}, ${delivery.status}`;
  return h("section", { class: "delivery", "aria-label": `Delivery to ${delivery.subscriptionId}`, "data-subscription": delivery.subscriptionId },
    h("h2", {}, "Delivery to ", link(subscriptionHash, delivery.subscriptionId)),
    details([
      ["Status", badge(delivery.status)],
      ["Attempts", String(delivery.attempts)],
      ["Next attempt due", time(delivery.nextAttemptAt)],
      ["Last error", delivery.lastError ? code(delivery.lastError) : "none"],
    ]),
    points.length ? timeline(title, points, { text: delivery.status, kind: delivery.status }) : null,
    table(title, ["Attempt", "Time", "Event", "Status code", "Latency", "Error", "Response excerpt"], attempts.map((attempt) => [
      String(attempt.attempt),
      time(attempt.startedAt),
      attempt.event,
      attempt.httpStatus === null || attempt.httpStatus === undefined ? "—" : String(attempt.httpStatus),
      duration(attempt.durationMs),
      attempt.error ? code(attempt.error) : "—",
      excerpt(attempt.responseBody),
    ]), "No attempt yet."),
  );
}

async function messageView(current, roomId, messageId) {
  const roomPath = apiPath("rooms", roomId);
  const path = `${roomPath}/messages/${apiPath(messageId)}`;
  const roomHash = `#/rooms/${encodeURIComponent(roomId)}`;
  const load = () => Promise.all([api("GET", path), api("GET", `${path}/attempts`)]);
  const [room, first] = await Promise.all([api("GET", roomPath), load()]);
  setBreadcrumb([["Rooms", "#/rooms"], [room.name, roomHash], [messageId, `${roomHash}/messages/${encodeURIComponent(messageId)}`]]);
  const facts = region();
  const deliveries = region();
  const show = ([message, { attempts }]) => {
    facts.show(message, (item) => [
      details([
        ["Event", `${item.eventType} v${item.eventVersion}`],
        ["Correlation id", code(item.correlationId)],
        ["Published", time(item.publishedAt)],
        ["Expires", item.expiresAt ? time(item.expiresAt) : "never"],
      ]),
      h("details", {}, h("summary", {}, "Payload"), h("pre", {}, JSON.stringify(item.payload, null, 2))),
    ]);
    deliveries.show([message, attempts], ([item, all]) =>
      item.deliveries.length === 0
        ? h("p", { class: "empty" }, "This message had no destination.")
        : item.deliveries.map((delivery) =>
            deliveryTimeline(roomHash, item, delivery, all.filter((attempt) => attempt.subscriptionId === delivery.subscriptionId))),
    );
  };
  show(first);
  const refresh = async () => {
    const latest = await load();
    if (current === generation) show(latest);
  };
  return [h("h1", { tabindex: "-1" }, `Message ${messageId}`), autoRefresh(current, refresh), facts, deliveries];
}

// -- navigation -------------------------------------------------------------------------------------

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

async function render() {
  generation += 1;
  const current = generation;
  if (!apiKey()) {
    main.replaceChildren(...signInView());
    main.querySelector("input")?.focus();
    return;
  }
  signOutButton.hidden = false;
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
    if (current !== generation) return;
    clearError("refresh");
    main.replaceChildren(...flatten(content));
  } catch (error) {
    if (current !== generation) return;
    showError(error);
    main.replaceChildren(
      h("h1", { tabindex: "-1" }, "This page could not be loaded"),
      h("p", {}, "The API's answer is shown above. "),
      h("p", {}, h("button", { type: "button", onclick: () => render() }, "Try again"), " ", link("#/rooms", "Go to the rooms")),
    );
  } finally {
    if (current === generation) main.removeAttribute("aria-busy");
  }
  main.querySelector("h1")?.focus({ preventScroll: true });
}

window.addEventListener("error", (event) => showError(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => showError(event.reason));
window.addEventListener("hashchange", () => {
  clearError();
  render();
});
signOutButton.addEventListener("click", signOut);
render();
