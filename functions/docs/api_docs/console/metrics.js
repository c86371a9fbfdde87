// Metrics over time as the console reads them (docs/metrics.md, docs/console.md "Charts" and
// "Health"): the chart ranges and the query each sends, the series a chart draws from an answer, and
// the health rules. No request and no page change here: the browser unit tests call these directly.

import { duration } from "./format.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const STEP_MS = Object.freeze({ "1m": MINUTE_MS, "1h": HOUR_MS });

// A chart's range: how far back, at which resolution (1m: at most 1,440 points, kept 48 h; 1h: at
// most 840 points, kept 35 days), and how often a screen that refreshes itself reads it again (a
// long range's answer is big and changes only in its newest bucket).
export const RANGES = Object.freeze({
  "1h": Object.freeze({ label: "1 h", spanMs: HOUR_MS, resolution: "1m", everyMs: 5_000 }),
  "24h": Object.freeze({ label: "24 h", spanMs: 24 * HOUR_MS, resolution: "1m", everyMs: 30_000 }),
  "7d": Object.freeze({ label: "7 d", spanMs: 7 * 24 * HOUR_MS, resolution: "1h", everyMs: 60_000 }),
  "30d": Object.freeze({ label: "30 d", spanMs: 30 * 24 * HOUR_MS, resolution: "1h", everyMs: 60_000 }),
});
export const DEFAULT_RANGE = "1h";

// What makes a subscription (or a room) unhealthy, besides being disabled or failing now.
export const HEALTH_RULES = Object.freeze({ minSuccessRate: 0.9, minAttempts: 10, maxOldestOpenMs: 5 * MINUTE_MS });

// The query of `range` ending at `nowMs`: `from` rounded up to a bucket's start, so the window holds
// no more buckets than the range (24 h of minutes: 1,440, the most one answer holds). `to` is sent
// too, so that the browser's clock, not the API's, decides how many.
export function metricsQuery(range, nowMs) {
  const { spanMs, resolution } = RANGES[range] ?? RANGES[DEFAULT_RANGE];
  const step = STEP_MS[resolution];
  const from = Math.ceil((nowMs - spanMs) / step) * step;
  return { from: new Date(from).toISOString(), to: new Date(nowMs).toISOString(), resolution };
}

// The last hour, which the health of every screen is about.
export function lastHourQuery(nowMs) {
  return metricsQuery("1h", nowMs);
}

export function percent(rate) {
  if (rate === null || rate === undefined) return "—";
  return `${+(rate * 100).toFixed(1)}%`;
}

function utc(iso) {
  return iso.replace("T", " ").replace(/\.\d+/, "").replace(/Z$|\+00:00$/, " UTC");
}

// Why a subscription is unhealthy ([] when it is not). `subscription` is the API's (its status and
// failingSince); `metrics` a metrics answer of the last hour, or null when it was not read. A room is
// judged on its metrics alone (subscription null).
export function problems(subscription, metrics) {
  const found = [];
  if (subscription?.status === "disabled") {
    found.push(`disabled${subscription.disabledReason ? `: ${subscription.disabledReason}` : ""}`);
  }
  if (subscription?.failingSince) found.push(`failing every attempt since ${utc(subscription.failingSince)}`);
  if (metrics) {
    const { attempts, failedAttempts, successRate } = metrics.summary;
    if (attempts >= HEALTH_RULES.minAttempts && successRate !== null && successRate < HEALTH_RULES.minSuccessRate) {
      found.push(`success rate ${percent(successRate)} in the last hour (${failedAttempts} of ${attempts} attempts failed)`);
    }
    const oldest = metrics.backlog.oldestOpenAgeMs;
    if (oldest !== null && oldest !== undefined && oldest > HEALTH_RULES.maxOldestOpenMs) {
      found.push(`oldest open delivery waiting ${duration(oldest)} (${metrics.backlog.open} open)`);
    }
  }
  return found;
}

// "80% (20 of 25 attempts succeeded)", from a summary's counts.
export function successText(summary) {
  if (!summary || summary.attempts === 0) return "no attempts";
  const succeeded = summary.attempts - summary.failedAttempts;
  return `${percent(summary.successRate)} (${succeeded} of ${summary.attempts} attempts succeeded)`;
}

export function backlogText(backlog) {
  if (!backlog) return "—";
  if (backlog.open === 0) return "none open";
  const oldest = backlog.oldestOpenAgeMs === null ? "" : `, the oldest waiting ${duration(backlog.oldestOpenAgeMs)}`;
  return `${backlog.open} open${oldest}`;
}

export function percentilesText(found) {
  if (!found) return "none";
  return `p50 ${duration(Math.round(found.p50))}, p95 ${duration(Math.round(found.p95))}, p99 ${duration(Math.round(found.p99))}`;
}

// Deliveries that ended neither delivered, dead nor expired.
const otherEndings = (counts) => counts.aborted + counts.cleared + counts.cancelled;

export function outcomesText(summary) {
  return `${summary.delivered} delivered, ${summary.failedAttempts} failed attempts, ${summary.dead} dead, ` +
    `${summary.expired} expired, ${otherEndings(summary)} aborted, cleared or cancelled` +
    (summary.failedOver ? `, ${summary.failedOver} failed over` : "") +
    (summary.filteredOut ? `; ${summary.filteredOut} filtered out` : "");
}

// What each chart draws from an answer: uPlot's columns, x in seconds then one array per series
// (null where there is nothing to draw: no attempt, no latency).
export function chartSeries(answer) {
  const points = answer.points;
  const column = (value) => points.map(value);
  const quantile = (sample, name) => (point) => point[sample]?.[name] ?? null;
  const xs = column((point) => Date.parse(point.at) / 1000);
  return {
    volume: [
      xs,
      column((point) => point.delivered),
      column((point) => point.failedAttempts),
      column((point) => point.dead),
      column((point) => point.expired),
      column(otherEndings),
    ],
    successRate: [xs, column((point) => (point.successRate === null ? null : point.successRate * 100))],
    latency: [xs, ...["p50", "p95", "p99"].map((name) => column(quantile("attemptLatencyMs", name)))],
    delay: [xs, ...["p50", "p95", "p99"].map((name) => column(quantile("deliveryDelayMs", name)))],
    backlog: [
      xs,
      column((point) => point.backlog),
      column((point) => (point.oldestOpenAgeMs === null ? null : point.oldestOpenAgeMs / 1000)),
    ],
  };
}
