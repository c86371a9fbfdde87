// One message's screen: its facts and payload, and each delivery's attempts on a timeline; a
// scheduled message's time, and a button that cancels it before then.

import { api, apiPath } from "./api.js";
import { badge, code, details, h, link, region, table } from "./dom.js";
import { duration, excerpt, time } from "./format.js";
import { filteredOut } from "./filters.js";
import { setBreadcrumb } from "./header.js";
import { act, confirmAction } from "./feedback.js";
import { autoRefresh, isCurrent } from "./refresh.js";
import { timeline } from "./timeline.js";

function attemptOutcome(attempt) {
  if (attempt.event === "post") return attempt.httpStatus >= 200 && attempt.httpStatus < 300 ? "ok" : "failed";
  // A send into an AWS destination: no status; its error (AWS's code first) says it failed.
  if (attempt.event === "send") return attempt.error ? "failed" : "ok";
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
  // Only an open delivery has a next attempt: a cancelled, cleared or dead one keeps none.
  const open = ["scheduled", "waiting", "pending", "retrying"].includes(delivery.status);
  if (delivery.nextAttemptAt && open) {
    points.push({ ms: Math.max(0, Date.parse(delivery.nextAttemptAt) - publishedMs), label: "next", note: "due", kind: "due" });
  }
  const subscriptionHash = `${roomHash}/subscriptions/${encodeURIComponent(delivery.subscriptionId)}`;
  const title = `Timeline of ${delivery.subscriptionId}: ${attempts.length} attempt${attempts.length === 1 ? "" : "s"}, ${delivery.status}`;
  return h("section", { class: "delivery", "aria-label": `Delivery to ${delivery.subscriptionId}`, "data-subscription": delivery.subscriptionId },
    h("h2", {}, "Delivery to ", link(subscriptionHash, delivery.subscriptionId)),
    details([
      ["Status", badge(delivery.status)],
      ["Attempts", String(delivery.attempts)],
      ["Next attempt due", open ? time(delivery.nextAttemptAt) : "none: it has ended"],
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

export async function messageView(current, roomId, messageId) {
  const roomPath = apiPath("rooms", roomId);
  const path = `${roomPath}/messages/${apiPath(messageId)}`;
  const roomHash = `#/rooms/${encodeURIComponent(roomId)}`;
  const load = () => Promise.all([api("GET", path), api("GET", `${path}/attempts`)]);
  const [room, first] = await Promise.all([api("GET", roomPath), load()]);
  setBreadcrumb([["Rooms", "#/rooms"], [room.name, roomHash], [messageId, `${roomHash}/messages/${encodeURIComponent(messageId)}`]]);
  const facts = region();
  const deliveries = region();
  const cancel = h("button", { type: "button", class: "danger", hidden: true }, "Cancel scheduled message…");
  const show = ([message, { attempts }]) => {
    const scheduled = Boolean(message.deliverAt) && !message.cancelledAt && message.deliveries.some((d) => d.status === "scheduled");
    cancel.hidden = !scheduled;
    facts.show(message, (item) => [
      details([
        ["Event", `${item.eventType} v${item.eventVersion}`],
        ["Correlation id", code(item.correlationId)],
        ["Published", time(item.publishedAt)],
        ...(item.deliverAt ? [["Delivered at", time(item.deliverAt)]] : []),
        ...(item.cancelledAt ? [["Cancelled", time(item.cancelledAt)]] : []),
        ["Expires", item.expiresAt ? time(item.expiresAt) : "never"],
      ]),
      h("details", {}, h("summary", {}, "Payload"), h("pre", {}, JSON.stringify(item.payload, null, 2))),
      filteredOut(item),
      item.schemaErrors?.length ? table("Schema errors", ["Error"], item.schemaErrors.map((error) => [code(error)])) : null,
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
    if (isCurrent(current)) show(latest);
  };
  cancel.addEventListener("click", async () => {
    if (!(await confirmAction("Cancel this scheduled message? It is never delivered.", "Cancel message"))) return;
    act(cancel, () => api("DELETE", path), (item) => `Message ${item.messageId} is cancelled.`, refresh);
  });
  return [
    h("h1", { tabindex: "-1" }, `Message ${messageId}`),
    autoRefresh(current, refresh),
    facts,
    h("div", { class: "actions" }, cancel),
    deliveries,
  ];
}
