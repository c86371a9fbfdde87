// Health on the lists (docs/console.md, "Health"): a room's subscriptions, the rooms, and the
// unhealthy subscriptions the home screen names. Each is judged by metrics.js's rules on the API's
// own numbers (the last hour's metrics, a subscription's status), read a bounded number at a time.

import { api, apiPath } from "./api.js";
import { badge, h, link, table } from "./dom.js";
import { backlogText, lastHourQuery, percent, problems, successText } from "./metrics.js";

// The bounds (docs/console.md, "Limits"): the rooms whose health the home screen reads, the
// subscriptions whose metrics a screen reads, and the requests in flight at once.
export const HEALTH_ROOMS = 10;
export const HEALTH_SUBSCRIPTIONS = 20;
const PARALLEL = 4;

// `work` on each item, at most PARALLEL at a time: each result {value} or {error}, in order.
async function eachLimited(items, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = { value: await work(items[index]) };
      } catch (error) {
        results[index] = { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}

const lastHour = () => ({ query: lastHourQuery(Date.now()) });

export function tenantMetrics() {
  return api("GET", "metrics", lastHour());
}

function subscriptionMetrics(roomPath, subscriptionId) {
  return api("GET", `${roomPath}/subscriptions/${apiPath(subscriptionId)}/metrics`, lastHour());
}

// The health of each of `subscriptions`: the last hour's metrics of the first HEALTH_SUBSCRIPTIONS
// (`pick` orders them; the list's order by default), every one judged on its status too.
// Map id -> {metrics (null: not read), problems, error}.
export async function subscriptionsHealth(subscriptions, pick = (all) => all) {
  const read = pick(subscriptions).slice(0, HEALTH_SUBSCRIPTIONS);
  const results = await eachLimited(read, (subscription) => subscriptionMetrics(apiPath("rooms", subscription.roomId), subscription.id));
  const found = new Map(read.map((subscription, index) => [subscription.id, results[index]]));
  return new Map(subscriptions.map((subscription) => {
    const result = found.get(subscription.id);
    const metrics = result?.value ?? null;
    return [subscription.id, { metrics, error: result?.error?.message ?? null, problems: problems(subscription, metrics) }];
  }));
}

// The home screen's check of `rooms` (the rooms list's first page): the first HEALTH_ROOMS rooms'
// metrics and subscriptions (2 requests each), then the metrics of at most HEALTH_SUBSCRIPTIONS of
// their subscriptions, those of unhealthy rooms first. Answers the rooms' health (roomId ->
// {metrics, problems, unhealthy, error}) and the unhealthy subscriptions: [{room, subscription,
// problems}] (subscription null: a room whose numbers are unhealthy, none of its own named).
export async function roomsHealth(rooms) {
  const checked = rooms.slice(0, HEALTH_ROOMS);
  const reads = checked.flatMap((room) => [["metrics", room], ["subscriptions", room]]);
  const results = await eachLimited(reads, ([what, room]) => what === "metrics"
    ? api("GET", `${apiPath("rooms", room.id)}/metrics`, lastHour())
    : api("GET", `${apiPath("rooms", room.id)}/subscriptions`, { query: { limit: 100 } }));
  const byRoom = new Map(checked.map((room, index) => {
    const [metrics, subscriptions] = [results[2 * index], results[2 * index + 1]];
    const error = metrics.error?.message ?? subscriptions.error?.message ?? null;
    return [room.id, { room, metrics: metrics.value ?? null, problems: problems(null, metrics.value ?? null), subscriptions: subscriptions.value?.subscriptions ?? [], error }];
  }));
  const all = [...byRoom.values()].flatMap((entry) =>
    entry.subscriptions.map((subscription) => ({ ...subscription, roomId: entry.room.id, roomProblems: entry.problems.length })));
  const health = await subscriptionsHealth(all, (list) => [...list].sort((a, b) => b.roomProblems - a.roomProblems));
  const attention = [];
  for (const entry of byRoom.values()) {
    const unhealthy = entry.subscriptions.filter((subscription) => health.get(subscription.id).problems.length);
    entry.unhealthy = unhealthy.length;
    for (const subscription of unhealthy) attention.push({ room: entry.room, subscription, problems: health.get(subscription.id).problems });
    if (entry.problems.length && unhealthy.length === 0) attention.push({ room: entry.room, subscription: null, problems: entry.problems });
  }
  return { rooms: byRoom, attention, subscriptionsRead: Math.min(all.length, HEALTH_SUBSCRIPTIONS), subscriptions: all.length };
}

// A health cell: "unhealthy" and why, or "healthy"; "—" when nothing was read.
export function healthMarker(found, known = true) {
  if (!known) return h("span", { class: "hint" }, "not checked");
  if (found.length === 0) return badge("healthy");
  return h("span", { class: "unhealthy" }, badge("unhealthy"), " ", found.join("; "));
}

// The last hour's success rate and backlog, short, for a table's cells.
export function metricsCells(metrics, error) {
  if (error) return [h("span", { class: "hint" }, `not read: ${error}`), "—"];
  if (!metrics) return [h("span", { class: "hint" }, "not read"), "—"];
  const { attempts, successRate } = metrics.summary;
  return [attempts ? `${percent(successRate)} of ${attempts}` : "no attempts", backlogText(metrics.backlog)];
}

// The home screen's panel: the tenant's last hour, and the unhealthy subscriptions by name.
export function attentionPanel(tenant, found, roomsListed) {
  const roomHash = (room) => `#/rooms/${encodeURIComponent(room.id)}`;
  return [
    h("p", {}, tenant.value
      ? `Last hour, all rooms: ${successText(tenant.value.summary)}; backlog: ${backlogText(tenant.value.backlog)}.`
      : `The tenant's metrics could not be read: ${tenant.error?.message}`),
    table("Unhealthy subscriptions", ["Room", "Subscription", "Why"], found.attention.map(({ room, subscription, problems: why }) => [
      link(roomHash(room), room.name),
      subscription
        ? link(`${roomHash(room)}/subscriptions/${encodeURIComponent(subscription.id)}`, subscription.id)
        : h("span", { class: "hint" }, "the room as a whole"),
      h("span", { class: "unhealthy" }, badge("unhealthy"), " ", why.join("; ")),
    ]), "No unhealthy subscription among those checked."),
    h("p", { class: "hint" },
      `Checked: ${Math.min(roomsListed, HEALTH_ROOMS)} of ${roomsListed} room${roomsListed === 1 ? "" : "s"} listed, ` +
      `the metrics of ${found.subscriptionsRead} of their ${found.subscriptions} subscription${found.subscriptions === 1 ? "" : "s"} ` +
      "(every one's status); unhealthy: disabled, failing, under 90% success with at least 10 attempts in the last hour, or an open delivery older than 5 min."),
  ];
}
