// The home screen's alerts (docs/alerts.md, docs/console.md "Alerts"): the rules firing now and the
// latest alerts, fired and resolved, from one answer of GET /alerts. No request here: the rooms
// screen reads it, these say what it holds (the browser unit tests call them directly).

import { badge, code, h, link, table } from "./dom.js";
import { duration, time } from "./format.js";
import { percent } from "./metrics.js";

// The latest alerts the panel lists (the API answers up to 50).
export const RECENT_ALERTS = 10;

const METRIC_NAMES = Object.freeze({
  successRate: "success rate",
  p95AttemptLatencyMs: "p95 latency",
  oldestBacklogAgeMs: "oldest backlog",
  subscriptionState: "state",
});

// A measured value in its metric's unit: "75%", "1.2 s", "failing"; "—" when there is none. A
// metric not known (an alert whose rule is not firing now) shows the number as it is.
export function alertValue(metric, value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (metric === "successRate") return percent(value);
  if (metric === "p95AttemptLatencyMs" || metric === "oldestBacklogAgeMs") return duration(Math.round(value));
  return String(value);
}

// "success rate under 90% over 5 min (at least 10 attempts)", "state in failing, disabled".
export function conditionText(condition) {
  const { metric } = condition;
  const name = METRIC_NAMES[metric] ?? metric;
  if (metric === "subscriptionState") return `${name} in ${(condition.in ?? []).join(", ")}`;
  let text = condition.below !== null && condition.below !== undefined
    ? `${name} under ${alertValue(metric, condition.below)}`
    : `${name} over ${alertValue(metric, condition.above)}`;
  if (condition.windowMinutes && metric !== "oldestBacklogAgeMs") text += ` in the last ${condition.windowMinutes} min`;
  if (metric === "successRate" && condition.minDeliveries > 1) text += ` (at least ${condition.minDeliveries} attempts)`;
  return text;
}

// The latest alerts, newest first, at most RECENT_ALERTS (the API's order, made sure of).
export function recentAlerts(recent) {
  return [...recent].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, RECENT_ALERTS);
}

// What a rule watches: the tenant, a room or one subscription, linked to its screen.
function scopeCell(scope) {
  if (!scope?.roomId) return "all rooms";
  const room = `#/rooms/${encodeURIComponent(scope.roomId)}`;
  if (!scope.subscriptionId) return link(room, scope.roomId);
  return link(`${room}/subscriptions/${encodeURIComponent(scope.subscriptionId)}`, scope.subscriptionId);
}

function firingRows(firing) {
  return firing.map((rule) => [
    [h("strong", {}, rule.name), " ", code(rule.id), rule.snoozedUntil ? h("p", { class: "hint" }, "snoozed until ", time(rule.snoozedUntil)) : null],
    scopeCell(rule.scope),
    conditionText(rule.condition ?? {}),
    alertValue(rule.condition?.metric, rule.value),
    time(rule.changedAt),
  ]);
}

function recentRows(recent, firing) {
  const metricOf = new Map(firing.map((rule) => [rule.id, rule.condition?.metric]));
  return recentAlerts(recent).map((event) => [
    time(event.at),
    badge(event.state),
    [event.name, " ", code(event.ruleId)],
    alertValue(metricOf.get(event.ruleId), event.value),
  ]);
}

// The panel from GET /alerts's outcome ({value} or {error}): the rules firing, then the latest alerts.
export function alertsPanel(outcome) {
  if (!outcome.value) return h("p", { class: "empty" }, `The alerts could not be read: ${outcome.error?.message}`);
  const { firing, recent } = outcome.value;
  return [
    table("Alerts firing", ["Rule", "Watches", "Condition", "Value", "Since"], firingRows(firing), "No alert firing."),
    table(`Latest alerts (newest first, at most ${RECENT_ALERTS})`, ["When", "Alert", "Rule", "Value"], recentRows(recent, firing),
      "No alert fired or resolved in the last 35 days."),
    h("p", { class: "hint" }, "Alert rules are made with the API, the SDK or ", code("roomcast alerts create"), ": docs/alerts.md."),
  ];
}
