// The subscription screen's panels: its health, its retry schedule, its paused ordering keys, and a
// PUSH subscription's transformation.

import { api, apiPath, ApiError } from "./api.js";
import { badge, code, details, field, h, input, link, region, table } from "./dom.js";
import { act } from "./feedback.js";
import { parseJson } from "./filters.js";
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

const STARTER = "function handler(webhook) {\n  return webhook;\n}";

// A PUSH subscription's transformation (docs/transformations.md): an editor with its source, a dry
// run of the editor's text on a sample, save, remove and roll back. Built once with the screen, so
// a refresh never rewrites what is typed; its versions are read again when the subscription's
// transformationVersion changes (`sync`, on each refresh) and after a rollback.
export function transformationPanel(path, subscription, refresh) {
  const url = `${path}/transformation`;
  const source = h("textarea", { id: "transformation-source", name: "transformation-source", rows: 10, spellcheck: "false", autocomplete: "off" },
    subscription.transformation ?? STARTER);
  const eventType = input("transformation-event-type", { autocomplete: "off", value: subscription.eventTypes?.[0]?.name ?? "order.created" });
  const payload = h("textarea", { id: "transformation-payload", name: "transformation-payload", rows: 4, spellcheck: "false" }, "{}");
  const versions = region();
  const outcome = region({ class: "result" });
  const dryRun = h("button", { type: "button" }, "Dry run");
  const save = h("button", { type: "button" }, "Save");
  const remove = h("button", { type: "button", class: "danger" }, "Remove");
  const rollBack = h("button", { type: "button", hidden: true }, "Roll back");
  let readFor; // the transformationVersion whose versions were read last
  let reads = 0; // only the newest read is shown
  const showVersions = (view) => {
    readFor = view.current?.version ?? null;
    versions.show(view, ({ current, previous }) => details([
      ["Current", current ? [`version ${current.version}, saved `, time(current.createdAt)] : "none: deliveries go as published"],
      ["Previous", previous ? [`version ${previous.version}, saved `, time(previous.createdAt), " (Roll back makes it current again)"] : "none kept"],
    ]));
    rollBack.hidden = !view.previous;
  };
  // What an action of the panel failed on is said beside the editor too (the alert says it as well):
  // a source the API refuses (its problem), a sample that is not JSON.
  const failed = (what) => (error) => {
    const problem = error instanceof ApiError && error.code === "invalid_transformation" ? error.details[0]?.problem : null;
    outcome.show([what, problem ?? error.message], ([doing, why]) => h("p", {}, `${doing}: ${why}`));
    throw error;
  };
  const perform = (button, what, work, done, after) => act(button, () => work().catch(failed(what)), done, after);

  dryRun.addEventListener("click", () => perform(dryRun, "Not run", async () => {
    const sample = parseJson(payload.value, "The sample payload");
    return api("POST", `${url}/test`, { body: { eventType: eventType.value.trim(), payload: sample, transformation: source.value } });
  }, (answer) => {
    outcome.show(answer, dryRunOutcome);
    return `Dry run: ${answer.outcome}.`;
  }));
  save.addEventListener("click", () => perform(save, "Not saved", async () =>
    api("PATCH", path, { body: { transformation: source.value } }), (item) => {
    outcome.show(item.transformationVersion, (version) => h("p", {}, `Saved as version ${version}.`));
    return `Transformation version ${item.transformationVersion} saved: it applies from the next batch of deliveries.`;
  }, refresh));
  remove.addEventListener("click", () => perform(remove, "Not removed", async () =>
    api("PATCH", path, { body: { transformation: null } }), () => {
    outcome.show(null, () => null);
    return "Transformation removed: deliveries go as published (Roll back restores it).";
  }, refresh));
  rollBack.addEventListener("click", () => perform(rollBack, "Not rolled back", async () => api("POST", `${url}/rollback`), (view) => {
    showVersions(view);
    source.value = view.current?.source ?? STARTER;
    outcome.show(null, () => null);
    return `Rolled back: version ${view.current?.version} is current.`;
  }, refresh));

  const element = h("section", { "aria-labelledby": "transformation-title" },
    h("h2", { id: "transformation-title" }, "Transformation"),
    versions,
    field("Source (JavaScript)", source, "function handler(webhook): change webhook.payload, url, method or headers and return it, or set cancel: true to skip the delivery. Save makes a new version; the one before is kept for a rollback."),
    h("div", { class: "grid" }, field("Sample event type", eventType), field("Sample payload (JSON)", payload)),
    h("div", { class: "actions" }, dryRun, save, remove, rollBack),
    outcome);
  // The subscription as the screen read it last: its versions are read again when they changed.
  const sync = (latest) => {
    const version = latest.transformationVersion ?? null;
    remove.hidden = version === null;
    if (version === readFor) return;
    readFor = version;
    const asked = ++reads;
    api("GET", url).then((view) => asked === reads && showVersions(view), (error) => asked === reads &&
      versions.show(error.message, (message) => h("p", { class: "empty" }, `Its versions could not be read: ${message}`)));
  };
  return { element, sync };
}

// What a dry run made of the sample (nothing saved or sent).
function dryRunOutcome(answer) {
  const ran = answer.version ? `version ${answer.version}` : "the editor's text";
  if (answer.outcome === "cancelled") return h("p", {}, `Cancelled by ${ran}: the delivery would be skipped (it ends filtered).`);
  if (answer.outcome === "failed") return h("p", {}, `Failed (${ran}): `, code(answer.error ?? ""), " — the attempt would fail and be retried.");
  const headers = Object.entries(answer.headers ?? {});
  return [
    h("p", {}, `Transformed by ${ran}: `, code(`${answer.method} ${answer.url}`), headers.length ? "" : ", no added headers"),
    headers.length > 0 && table("Added headers", ["Header", "Value"], headers.map(([name, value]) => [code(name), code(value)])),
    h("pre", { id: "transformation-output", "aria-label": "Transformed payload" }, JSON.stringify(answer.payload, null, 2)),
  ];
}
