// The subscription screen's panels: its health, its retry schedule, its paused ordering keys.

import { api, apiPath } from "./api.js";
import { badge, code, details, h, link, table } from "./dom.js";
import { duration, time } from "./format.js";
import { healthMarker } from "./health.js";
import { backlogText, outcomesText, percentilesText, problems, successText } from "./metrics.js";
import { timeline } from "./timeline.js";

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

// Health, from the API: whether the endpoint is failing now (failingSince), its status, and the
// last hour's metrics (`hour`: a metrics answer; undefined while it is read, null if it could not
// be); the last error from the newest deliveries.
export function healthPanel(roomHash, subscription, hour, lastError) {
  const read = (text) => (hour === undefined ? "reading the metrics…" : hour === null ? "the metrics could not be read" : text());
  const why = problems(subscription, hour ?? null);
  return [
    details([
      ["Health", why.length || hour ? healthMarker(why) : read(() => "")],
      ["Failing since", subscription.failingSince ? [badge("failing"), " every attempt since ", time(subscription.failingSince)] : "not failing"],
      ["Success rate (last hour)", read(() => successText(hour.summary))],
      ["Outcomes (last hour)", read(() => outcomesText(hour.summary))],
      ["Attempt latency (last hour)", read(() => percentilesText(hour.summary.attemptLatencyMs))],
      ["Backlog now", read(() => backlogText(hour.backlog))],
      ["Last error", lastError
        ? [code(lastError.error), " — ", time(lastError.at), ", ",
          link(`${roomHash}/messages/${encodeURIComponent(lastError.messageId)}`, lastError.messageId)]
        : "none"],
    ]),
    h("p", { class: "hint" }, "From the API: the subscription's status, its metrics of the last hour (GET …/metrics, by minute), and the last error of its newest deliveries."),
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
