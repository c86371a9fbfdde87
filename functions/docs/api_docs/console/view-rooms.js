// The rooms screen, the console's home: the alerts firing and the latest ones, the unhealthy
// subscriptions by name, the tenant's rooms page by page with each one's health, and a form to
// create one.

import { alertsPanel } from "./alerts.js";
import { api, PAGE_SIZE } from "./api.js";
import { code, field, h, input, link, region, table } from "./dom.js";
import { act } from "./feedback.js";
import { policyInputs, setNumber, submitForm } from "./forms.js";
import { duration, policy, time } from "./format.js";
import { setBreadcrumb } from "./header.js";
import { attentionPanel, healthMarker, metricsCells, roomsHealth, tenantMetrics } from "./health.js";
import { isCurrent } from "./refresh.js";

// A room's health as its row shows it: plain data, so that the table is rebuilt only when it changes.
function roomHealth(found, room) {
  const entry = found?.rooms.get(room.id);
  if (!entry) return null;
  const why = [...entry.problems];
  if (entry.unhealthy) why.push(`${entry.unhealthy} unhealthy subscription${entry.unhealthy === 1 ? "" : "s"}`);
  return { metrics: entry.metrics && { summary: entry.metrics.summary, backlog: entry.metrics.backlog }, error: entry.error, why };
}

function roomRows(rows) {
  return rows.map(([room, health]) => [
    link(`#/rooms/${encodeURIComponent(room.id)}`, room.name),
    code(room.id),
    policy(room),
    room.messageExpirationMs ? duration(room.messageExpirationMs) : "never",
    time(room.createdAt),
    ...(health ? metricsCells(health.metrics, health.error) : ["—", "—"]),
    healthMarker(health?.why ?? [], Boolean(health)),
  ]);
}

const withOutcome = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));
// The alerts firing and the latest ones: one request, read with the screen and on "Check again".
const readAlerts = () => withOutcome(api("GET", "alerts"));

export async function roomsView(current) {
  setBreadcrumb([["Rooms", "#/rooms"]]);
  const [first, firstTenant, firstAlerts] = await Promise.all([
    api("GET", "rooms", { query: { limit: PAGE_SIZE } }),
    withOutcome(tenantMetrics()),
    readAlerts(),
  ]);
  const rooms = [...first.rooms];
  const list = region();
  const attention = region({ class: "attention" });
  const alerts = region({ class: "alerts" });
  const showAlerts = (outcome) => alerts.show(outcome.value ?? { failed: outcome.error?.message }, () => alertsPanel(outcome));
  let found = null;
  let cursor = first.nextCursor;
  const more = h("button", { type: "button", hidden: !cursor }, "Load more rooms");
  const showRooms = () =>
    list.show(rooms.map((room) => [room, roomHealth(found, room)]), (rows) =>
      table("Your rooms (health: the last hour)", ["Name", "Id", "Delivery policy", "Expiration", "Created", "Success rate", "Backlog", "Health"],
        roomRows(rows), "No rooms yet: create one below."));
  // The health check (docs/console.md, "Health"): bounded, after the list is shown.
  const check = async (tenant) => {
    const checked = await roomsHealth(rooms.slice(0, PAGE_SIZE));
    if (!isCurrent(current)) return;
    found = checked;
    showRooms();
    attention.show([tenant.value?.summary, tenant.value?.backlog, tenant.error?.message, checked.attention, rooms.length],
      () => attentionPanel(tenant, checked, Math.min(rooms.length, PAGE_SIZE)));
  };
  attention.show(null, () => h("p", { class: "hint" }, "Checking the rooms' health…"));
  check(firstTenant).catch((error) => attention.show({ failed: error.message }, () => h("p", { class: "empty" }, `The health check failed: ${error.message}`)));
  const again = h("button", { type: "button" }, "Check again");
  again.addEventListener("click", () => act(again, async () => {
    const [tenant, alertsRead] = await Promise.all([withOutcome(tenantMetrics()), readAlerts()]);
    if (isCurrent(current)) showAlerts(alertsRead);
    return check(tenant);
  }, () => "Alerts and health checked again."));
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
  showAlerts(firstAlerts);

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
  const catalog = h("p", {}, "Your event types and their schemas: ", link("#/event-types", "the event-type catalog"), ".");
  return [
    h("h1", { tabindex: "-1" }, "Rooms"),
    catalog,
    h("section", { "aria-labelledby": "alerts-title" }, h("h2", { id: "alerts-title" }, "Alerts"), alerts),
    h("section", { "aria-labelledby": "attention-title" },
      h("h2", { id: "attention-title" }, "Needs attention"), attention, h("div", { class: "actions" }, again)),
    h("section", { "aria-labelledby": "rooms-title" }, h("h2", { id: "rooms-title" }, "Your rooms"), list, more),
    form,
  ];
}
