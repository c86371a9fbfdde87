// One room's screen: its settings, its subscriptions with their health, its metrics and charts, its
// newest messages with each destination's delivery, what is scheduled; then a form to add a
// subscription and a form to publish (now or at a time).

import { api, apiPath } from "./api.js";
import { badge, code, details, field, h, input, link, region, table } from "./dom.js";
import { dryRunAnswer, filteredOut, filterPolicyInput, parseJson } from "./filters.js";
import { policyInputs, submitForm } from "./forms.js";
import { duration, policy, time } from "./format.js";
import { act } from "./feedback.js";
import { setBreadcrumb } from "./header.js";
import { autoRefresh, isCurrent, throttled } from "./refresh.js";
import { metricsPanel } from "./charts.js";
import { HEALTH_SUBSCRIPTIONS, healthMarker, metricsCells, subscriptionsHealth } from "./health.js";
import { backlogText, lastHourQuery, problems, successText } from "./metrics.js";

function deliverySummary(deliveries) {
  if (deliveries.length === 0) return "no destination";
  return h("ul", { class: "plain" }, deliveries.map((delivery) =>
    h("li", {}, badge(delivery.status), " ", code(delivery.subscriptionId), ` · ${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`),
  ));
}

// A list of the room's messages: each linked to its timeline, with its event type and version,
// then the columns `cells` gives of it. `show` puts a page of messages in `list`.
function messageTable(roomHash, title, columns, cells, empty) {
  const list = region();
  const show = (page) =>
    list.show(page, ({ messages: all }) =>
      table(title, ["Message", "Event", ...columns], all.map((message) => [
        link(`${roomHash}/messages/${encodeURIComponent(message.messageId)}`, message.messageId),
        `${message.eventType} v${message.eventVersion}`,
        ...cells(message),
      ]), empty),
    );
  return { list, show };
}

// How often, while the screen refreshes itself, the room's subscriptions' health is read again (up
// to HEALTH_SUBSCRIPTIONS requests) and its own health (the last hour's metrics; the charts' range
// is read again as often as RANGES says).
const HEALTH_EVERY_MS = 60_000;
const METRICS_EVERY_MS = 5_000;

export async function roomView(current, roomId) {
  const roomPath = apiPath("rooms", roomId);
  const scheduledQuery = { query: { limit: 20, status: "scheduled" } };
  const [room, subscriptions, messages, scheduled] = await Promise.all([
    api("GET", roomPath),
    api("GET", `${roomPath}/subscriptions`, { query: { limit: 100 } }),
    api("GET", `${roomPath}/messages`, { query: { limit: 20 } }),
    api("GET", `${roomPath}/messages`, scheduledQuery),
  ]);
  const roomHash = `#/rooms/${encodeURIComponent(roomId)}`;
  setBreadcrumb([["Rooms", "#/rooms"], [room.name, roomHash]]);

  let latestSubscriptions = subscriptions;
  let health = new Map();
  let healthOf = null; // the subscriptions whose health was read last (their ids)
  const subscriptionList = region();
  const showSubscriptions = (page) => {
    latestSubscriptions = page;
    const ids = page.subscriptions.map((subscription) => subscription.id).join(" ");
    if (ids !== healthOf) {
      healthOf = ids;
      readHealth(true); // one added or removed: read now, not in a minute
    }
    const rows = page.subscriptions.map((subscription) => [subscription, health.get(subscription.id) ?? null]);
    subscriptionList.show([rows, page.nextCursor], ([all, nextCursor]) => [
      table("Subscriptions (health: the last hour)", ["Subscription", "Type", "Status", "Target", "Retry policy", "Success rate", "Backlog", "Health"],
        all.map(([subscription, found]) => [
          link(`${roomHash}/subscriptions/${encodeURIComponent(subscription.id)}`, subscription.id),
          subscription.type,
          badge(subscription.status),
          subscription.type === "PUSH" ? code(subscription.pushUrl) : "its own pull queue",
          policy(subscription),
          ...metricsCells(found?.metrics, found?.error),
          healthMarker(found ? found.problems : problems(subscription, null), true),
        ]), "No subscriptions yet."),
      nextCursor && h("p", { class: "hint" }, "The first 100 subscriptions are shown."),
      all.length > HEALTH_SUBSCRIPTIONS && h("p", { class: "hint" }, `The metrics of the first ${HEALTH_SUBSCRIPTIONS} are read; the others are judged on their status.`),
    ]);
  };
  const readHealth = throttled(HEALTH_EVERY_MS, async () => {
    const read = await subscriptionsHealth(latestSubscriptions.subscriptions.map((subscription) => ({ ...subscription, roomId })));
    // Plain data, compared by value: only the numbers a row shows.
    health = new Map([...read].map(([id, found]) => [id, { ...found, metrics: found.metrics && { summary: found.metrics.summary, backlog: found.metrics.backlog } }]));
    if (isCurrent(current)) showSubscriptions(latestSubscriptions);
  });
  showSubscriptions(subscriptions);

  const roomHealth = region();
  const charts = metricsPanel("room-metrics", (query) => api("GET", `${roomPath}/metrics`, { query }));
  const readMetrics = throttled(METRICS_EVERY_MS, async () => {
    const { range, answer } = await charts.refresh(true);
    const hour = range === "1h" ? answer : await api("GET", `${roomPath}/metrics`, { query: lastHourQuery(Date.now()) }).catch(() => null);
    if (!isCurrent(current)) return;
    roomHealth.show(hour && [hour.summary, hour.backlog], () => hour
      ? details([["Room's health", healthMarker(problems(null, hour))], ["Last hour", successText(hour.summary)], ["Backlog now", backlogText(hour.backlog)]])
      : h("p", { class: "empty" }, "The room's metrics could not be read."));
  });
  readMetrics();

  const newest = messageTable(roomHash, "The 20 newest messages", ["Published", "Deliveries"],
    (message) => [time(message.publishedAt), deliverySummary(message.deliveries)], "No messages yet.");
  newest.show(messages);

  const soonest = messageTable(roomHash, "The 20 soonest scheduled messages", ["Delivered at", "Destinations"],
    (message) => [time(message.deliverAt), String(message.destinations.length)], "Nothing scheduled.");
  soonest.show(scheduled);

  const refresh = async () => {
    readMetrics();
    readHealth();
    const [nextSubscriptions, nextMessages, nextScheduled] = await Promise.all([
      api("GET", `${roomPath}/subscriptions`, { query: { limit: 100 } }),
      api("GET", `${roomPath}/messages`, { query: { limit: 20 } }),
      api("GET", `${roomPath}/messages`, scheduledQuery),
    ]);
    if (!isCurrent(current)) return;
    showSubscriptions(nextSubscriptions);
    newest.show(nextMessages);
    soonest.show(nextScheduled);
  };

  // The room's own state first (its health and subscriptions, messages, metrics); the forms below.
  return [
    h("h1", { tabindex: "-1" }, `Room ${room.name}`),
    autoRefresh(current, refresh),
    details([
      ["Id", code(room.id)],
      ["Delivery policy", policy(room)],
      ["Messages expire", room.messageExpirationMs ? `after ${duration(room.messageExpirationMs)}` : "never"],
      ["Event types", room.eventTypes.length ? room.eventTypes.map((type, index) => [
        index ? "; " : "", link(`#/event-types/${encodeURIComponent(type.name)}`, type.name), type.versions?.length ? ` (v${type.versions.join(", v")})` : ""]) : "any"],
      ["Operations room", room.operationsRoomId ? code(room.operationsRoomId) : "none"],
      ["Created", time(room.createdAt)],
    ]),
    h("section", { "aria-labelledby": "subscriptions-title" }, h("h2", { id: "subscriptions-title" }, "Subscriptions"), roomHealth, subscriptionList),
    h("section", { "aria-labelledby": "messages-title" }, h("h2", { id: "messages-title" }, "Messages"), newest.list),
    h("section", { "aria-labelledby": "scheduled-title" }, h("h2", { id: "scheduled-title" }, "Scheduled"), soonest.list),
    h("section", { "aria-labelledby": "room-metrics-title" }, h("h2", { id: "room-metrics-title" }, "Metrics"), charts.element),
    h("section", { "aria-labelledby": "subscribe-title" }, h("h2", { id: "subscribe-title" }, "Add a subscription"), subscriptionForm(roomPath, refresh)),
    h("section", { "aria-labelledby": "publish-title" }, h("h2", { id: "publish-title" }, "Publish a message"), publishForm(roomPath, roomHash, refresh)),
  ];
}

function subscriptionForm(roomPath, refresh) {
  const type = h("select", { id: "subscription-type", name: "subscription-type" }, h("option", { value: "PUSH" }, "PUSH (webhook)"), h("option", { value: "PULL" }, "PULL (queue)"));
  const url = input("subscription-url", { type: "url", autocomplete: "off", placeholder: "https://example.com/hooks/roomcast" });
  const urlField = field("Webhook URL", url, "PUSH only.");
  const retries = policyInputs("subscription", "Empty: the room's.");
  const eventTypes = input("subscription-event-types", { autocomplete: "off" });
  const filter = filterPolicyInput("subscription-filter-policy");
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
    filter.fill(body);
    return api("POST", `${roomPath}/subscriptions`, { body });
  }, (created) => {
    secret.show(created, (subscription) =>
      subscription.signingSecret
        ? h("p", {}, `Signing secret of ${subscription.id} (shown this once: keep it now): `, code(subscription.signingSecret))
        : null,
    );
    return `Subscription ${created.id} created.`;
  }, refresh,
  h("div", { class: "grid" },
    field("Type", type),
    urlField,
    retries.fields,
    field("Event types", eventTypes, "Comma-separated; empty: every event."),
  ),
  filter.field,
  submit,
  secret);
}

function publishForm(roomPath, roomHash, refresh) {
  const eventType = input("publish-event-type", { required: true, autocomplete: "off" });
  const eventVersion = input("publish-event-version", { required: true, value: "1", autocomplete: "off" });
  const payload = h("textarea", { id: "publish-payload", name: "publish-payload", rows: 4, spellcheck: "false" }, "{}");
  const correlation = input("publish-correlation-id", { autocomplete: "off" });
  const deliverAt = input("publish-deliver-at", { type: "datetime-local", step: "1" });
  const result = region({ class: "result" });
  const submit = h("button", { type: "submit" }, "Publish");
  const message = () => ({ eventType: eventType.value, eventVersion: eventVersion.value, payload: parseJson(payload.value, "The payload") });
  const dryRun = h("button", { type: "button" }, "Dry run");
  dryRun.addEventListener("click", () => act(dryRun, () => api("POST", `${roomPath}/filters/test`, { body: message() }), (answer) => {
    result.show(answer, dryRunAnswer);
    return `Dry run: ${answer.subscriptions.filter((verdict) => verdict.matched).length} of ${answer.subscriptions.length} subscriptions would get it.`;
  }));
  return submitForm("publish-title", submit, () => {
    const body = message();
    if (correlation.value.trim()) body.correlationId = correlation.value.trim();
    if (deliverAt.value) body.deliverAt = new Date(deliverAt.value).toISOString(); // the browser's zone, sent as UTC
    return api("POST", `${roomPath}/messages`, { body });
  }, (published) => {
    result.show(published, (message) => [
      h("p", {}, `Published ${message.messageId} to ${message.destinations.length} destination${message.destinations.length === 1 ? "" : "s"}` +
        (message.deliverAt ? `, delivered at ${message.deliverAt}. ` : ". "),
        link(`${roomHash}/messages/${encodeURIComponent(message.messageId)}`, "Open its timeline")),
      filteredOut(message),
    ]);
    return `Message ${published.messageId} published.`;
  }, refresh,
  h("div", { class: "grid" },
    field("Event type", eventType),
    field("Event version", eventVersion),
    field("Correlation id", correlation, "Empty: one is generated."),
    field("Deliver at", deliverAt, "Your time zone; empty: now."),
  ),
  field("Payload (JSON)", payload),
  submit,
  dryRun,
  result);
}
