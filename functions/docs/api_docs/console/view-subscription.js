// One subscription's screen: its settings, health, metrics charts and retry schedule; pause and
// resume; a PUSH subscription's transformation (edit, dry run, save, remove, roll back); its
// deliveries (retry now, clear all pending), paused ordering keys (resume, skip) and dead letters
// (replay, purge).

import { api, apiPath, finishedJob, PAGE_SIZE } from "./api.js";
import { badge, code, details, field, h, link, region, table } from "./dom.js";
import { DELIVERY_STATUSES } from "./enums.js";
import { act, confirmAction, showError } from "./feedback.js";
import { duration, policy, time } from "./format.js";
import { filterPolicyText } from "./filters.js";
import { setBreadcrumb } from "./header.js";
import { autoRefresh, isCurrent, throttled } from "./refresh.js";
import { metricsPanel } from "./charts.js";
import { lastHourQuery } from "./metrics.js";
import { healthPanel, lastError, pausedKeysPanel, schedulePanel, transformationPanel } from "./view-subscription-panels.js";

// How often, while the screen refreshes itself, its health (the last hour's metrics) is read again;
// the charts' range is read again as often as RANGES says (1 h: as often, and the same request).
const METRICS_EVERY_MS = 5_000;
const OPEN = ["scheduled", "waiting", "pending", "retrying"];

export async function subscriptionView(current, roomId, subscriptionId) {
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
    const keys = found[0].ordered
      ? await api("GET", `${path}/ordering-keys`, { query: { status: "paused", limit: PAGE_SIZE } })
      : { orderingKeys: [] };
    return [...found, keys, await lastError(roomPath, subscriptionId, found[1].deliveries, knownErrors)];
  };
  const [room, schedule, first] = await Promise.all([api("GET", roomPath), api("GET", `${path}/schedule`), load()]);
  setBreadcrumb([["Rooms", "#/rooms"], [room.name, roomHash], [subscriptionId, `${roomHash}/subscriptions/${encodeURIComponent(subscriptionId)}`]]);

  const summary = region();
  const healthRegion = region();
  const deliveryList = region();
  const letterList = region();
  const keyList = region();
  const keysSection = h("section", { "aria-labelledby": "ordering-keys-title" },
    h("h2", { id: "ordering-keys-title" }, "Paused ordering keys"), keyList);
  const toggle = h("button", { type: "button", id: "toggle-status" });
  const retry = h("button", { type: "button" }, "Retry now");
  const clear = h("button", { type: "button", class: "danger" }, "Clear all pending…");
  const replayAll = h("button", { type: "button" }, "Replay all dead letters");
  const purge = h("button", { type: "button", class: "danger" }, "Purge dead letters…");
  // Its transformation's panel (PUSH only), built once, from the subscription as first read.
  const transformation = first[0].type === "PUSH"
    ? transformationPanel(path, first[0], () => refresh()) : null;
  let subscription;
  let newestError = null;
  let hour; // the last hour's metrics: undefined until read, null when they could not be
  const showHealth = () => {
    const { status, disabledReason, failingSince } = subscription;
    const numbers = hour && { summary: hour.summary, backlog: hour.backlog };
    healthRegion.show([{ status, disabledReason, failingSince }, numbers, hour === null, newestError],
      ([state, found, failed, error]) => healthPanel(roomHash, state, failed ? null : found ?? undefined, error));
  };
  const charts = metricsPanel("subscription-metrics", (query) => api("GET", `${path}/metrics`, { query }));
  const readMetrics = throttled(METRICS_EVERY_MS, async () => {
    const { range, answer } = await charts.refresh(true);
    const lastHour = range === "1h" ? answer : await api("GET", `${path}/metrics`, { query: lastHourQuery(Date.now()) }).catch(() => null);
    if (!isCurrent(current)) return;
    hour = lastHour;
    showHealth();
  });

  const show = ([latest, recent, filtered, letters, keys, latestError]) => {
    subscription = latest;
    newestError = latestError;
    summary.show(latest, (item) => details([
      ["Id", code(item.id)],
      ["Type", item.type],
      ["Status", [badge(item.status), item.disabledReason ? ` — ${item.disabledReason}` : "", item.disabledAt ? [" since ", time(item.disabledAt)] : ""]],
      ["Target", item.type === "PUSH" ? code(item.pushUrl) : "its own pull queue"],
      ["Event types", item.eventTypes.length ? item.eventTypes.map((type) => type.name).join(", ") : "every event"],
      ["Filter policy", filterPolicyText(item.filterPolicy)],
      ["Retry policy", policy(item)],
      [item.type === "PUSH" ? "Request timeout" : "Ack wait", duration(item.type === "PUSH" ? item.timeoutMs ?? 10000 : item.ackWaitMs)],
      ["Ordering", item.ordered
        ? `ordered: a key's messages one at a time, in publish order; a dead one ${item.onDeadKey === "skip" ? "is skipped" : "pauses its key"}`
        : "none: every message at once"],
      ["Failover", item.failoverSubscriptionId ? link(`${roomHash}/subscriptions/${encodeURIComponent(item.failoverSubscriptionId)}`, item.failoverSubscriptionId) : "none (dead letters)"],
      ...(item.type === "PUSH" ? [["Recovery", item.probingSince
        ? [badge("probing"), " its endpoint is probed since ", time(item.probingSince), "; its deliveries wait"]
        : item.recoveryProbes === false ? "off: an automatic disable stays until someone enables it" : "on: an automatic disable is probed until the endpoint answers"]] : []),
    ]));
    toggle.textContent = latest.status === "active" ? "Pause" : latest.status === "paused" ? "Resume" : "Enable";
    retry.hidden = latest.type !== "PUSH";
    transformation?.sync(latest);
    showHealth();
    const page = filtered ?? recent;
    deliveryList.show(page, ({ deliveries, nextCursor }) => [
      table(`Deliveries${statusFilter.value ? ` (${statusFilter.value})` : ""}, newest first`, ["Message", "Status", "Attempts", "Last error", "Next attempt", "Updated"], deliveries.map((delivery) => [
        link(`${roomHash}/messages/${encodeURIComponent(delivery.messageId)}`, delivery.messageId),
        badge(delivery.status),
        String(delivery.attempts),
        delivery.lastError ? code(delivery.lastError) : "—",
        OPEN.includes(delivery.status) ? time(delivery.nextAttemptAt) : "—", // an ended one has none
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
    keysSection.hidden = !latest.ordered && keys.orderingKeys.length === 0;
    keyList.show(keys, ({ orderingKeys }) => pausedKeysPanel(roomHash, orderingKeys, (key, skip, button) =>
      act(button, () => api("POST", `${path}/ordering-keys/${apiPath(key)}/resume`, { body: { skip } }),
        (resumed) => `Ordering key ${resumed.orderingKey} resumed${skip ? ", its dead message skipped" : ""}.`, refresh)));
  };
  const refresh = async () => {
    readMetrics();
    const latest = await load();
    if (isCurrent(current)) show(latest);
  };
  const replayed = (result) =>
    `Replayed ${result.replayed.length} dead letter${result.replayed.length === 1 ? "" : "s"}` +
    (result.alreadyReplaying?.length ? `; ${result.alreadyReplaying.length} already replaying` : "") +
    (result.notFound?.length ? `; ${result.notFound.length} not found` : "") + ".";
  const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

  toggle.addEventListener("click", () => {
    const status = subscription.status === "active" ? "paused" : "active";
    act(toggle, () => api("PATCH", path, { body: { status } }), (item) => `Subscription ${item.id} is ${item.status}.`, refresh);
  });
  retry.addEventListener("click", () =>
    act(retry, () => api("POST", `${path}/deliveries/retry`, { body: {} }).then(finishedJob), (job) =>
      `Retried ${plural(job.counts.retried, "delivery", "deliveries")} now.`, refresh));
  clear.addEventListener("click", async () => {
    if (!(await confirmAction("Clear every pending and retrying delivery of this subscription? They are never sent.", "Clear all pending"))) return;
    act(clear, () => api("DELETE", `${path}/deliveries`).then(finishedJob), (job) => `Cleared ${plural(job.counts.cleared, "delivery", "deliveries")}.`, refresh);
  });
  replayAll.addEventListener("click", () =>
    act(replayAll, () => api("POST", `${path}/dead-letters/replay`, { body: {} }).then(finishedJob), (job) =>
      `Replayed ${plural(job.counts.replayed, "dead letter", "dead letters")}` +
      (job.counts.alreadyReplaying ? `; ${job.counts.alreadyReplaying} already replaying` : "") + ".", refresh));
  purge.addEventListener("click", async () => {
    if (!(await confirmAction("Delete every dead letter of this subscription? They cannot be replayed afterwards.", "Purge dead letters"))) return;
    act(purge, () => api("DELETE", `${path}/dead-letters`).then(finishedJob), (job) => `Purged ${plural(job.counts.purged, "dead letter", "dead letters")}.`, refresh);
  });
  statusFilter.addEventListener("change", () => refresh().catch((error) => showError(error)));
  show(first);
  readMetrics();

  return [
    h("h1", { tabindex: "-1" }, `Subscription ${subscriptionId}`),
    autoRefresh(current, refresh),
    summary,
    h("div", { class: "actions" }, toggle),
    h("section", { "aria-labelledby": "health-title" }, h("h2", { id: "health-title" }, "Health"), healthRegion),
    h("section", { "aria-labelledby": "metrics-title" }, h("h2", { id: "metrics-title" }, "Metrics"), charts.element),
    h("section", { "aria-labelledby": "schedule-title" }, h("h2", { id: "schedule-title" }, "Retry schedule"), schedulePanel(schedule)),
    transformation?.element,
    h("section", { "aria-labelledby": "deliveries-title" },
      h("h2", { id: "deliveries-title" }, "Deliveries"),
      h("div", { class: "actions" }, field("Show", statusFilter), retry, clear),
      deliveryList),
    keysSection,
    h("section", { "aria-labelledby": "dead-letters-title" },
      h("h2", { id: "dead-letters-title" }, "Dead letters"),
      h("div", { class: "actions" }, replayAll, purge),
      letterList),
  ];
}
