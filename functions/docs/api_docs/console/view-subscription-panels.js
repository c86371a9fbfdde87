// The subscription screen's panels: its health, its retry schedule, its paused ordering keys.

import { api, apiPath } from "./api.js";
import { badge, code, details, h, link, table } from "./dom.js";
import { DELIVERY_STATUSES } from "./enums.js";
import { duration, time } from "./format.js";
import { timeline } from "./timeline.js";

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
export async function lastError(roomPath, subscriptionId, deliveries, known) {
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

export function healthPanel(roomHash, deliveries, lastError, failingSince) {
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

export function schedulePanel(schedule) {
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

// An ordered subscription's paused keys: each waits behind a dead message until resumed (the dead
// message sent again first) or resumed skipping it (docs/ordering-keys.md).
export function pausedKeysPanel(roomHash, orderingKeys, resume) {
  return table("Paused ordering keys, longest paused first", ["Key", "Paused", "Dead message", "Reason", "Action"], orderingKeys.map((key) => [
    code(key.orderingKey),
    time(key.pausedAt),
    link(`${roomHash}/messages/${encodeURIComponent(key.deadMessageId)}`, key.deadMessageId),
    code(key.reason ?? ""),
    [
      h("button", { type: "button", "aria-label": `Resume ${key.orderingKey}`, onclick: (event) => resume(key.orderingKey, false, event.currentTarget) }, "Resume"),
      " ",
      h("button", { type: "button", "aria-label": `Skip and resume ${key.orderingKey}`, onclick: (event) => resume(key.orderingKey, true, event.currentTarget) }, "Skip & resume"),
    ],
  ]), "No paused keys.");
}
