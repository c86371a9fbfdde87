// How the API's values read on the page: times, durations, response excerpts, retry policies.

import { h } from "./dom.js";

const EXCERPT_CHARS = 160;

export function time(iso) {
  if (!iso) return "—";
  return h("time", { datetime: iso }, iso.replace("T", " ").replace(/(\.\d{3})\d*/, "$1").replace(/Z$|\+00:00$/, " UTC"));
}

export function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${+seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = seconds / 60;
  if (minutes < 60) return `${Math.floor(minutes)} min ${Math.round(seconds % 60)} s`;
  const hours = minutes / 60;
  if (hours < 48) return `${Math.floor(hours)} h ${Math.round(minutes % 60)} min`;
  return `${+(hours / 24).toFixed(1)} d`;
}

export function excerpt(text) {
  if (!text) return "—";
  if (text.length <= EXCERPT_CHARS) return h("code", { class: "excerpt" }, text);
  return h("details", {}, h("summary", {}, h("code", { class: "excerpt" }, `${text.slice(0, EXCERPT_CHARS)}…`)), h("pre", {}, text));
}

export function policy(item) {
  const attempts = item.deliveryAttempts;
  if (attempts === null || attempts === undefined) {
    if (item.retryScheduleMs) return `explicit schedule: ${item.retryScheduleMs.map(duration).join(", ")}`;
    if (item.deliveryDelayMs === null || item.deliveryDelayMs === undefined) return "the room's";
  }
  const parts = [];
  if (attempts !== null && attempts !== undefined) parts.push(`${attempts} redeliver${attempts === 1 ? "y" : "ies"}`);
  if (item.deliveryDelayMs !== null && item.deliveryDelayMs !== undefined) parts.push(`first after ${duration(item.deliveryDelayMs)}`);
  if (item.deliveryDelayMultiplier !== null && item.deliveryDelayMultiplier !== undefined) parts.push(`× ${item.deliveryDelayMultiplier}`);
  if (item.retryScheduleMs) parts.push(`explicit schedule: ${item.retryScheduleMs.map(duration).join(", ")}`);
  if (item.maxDelayMs) parts.push(`capped at ${duration(item.maxDelayMs)}`);
  return parts.join(", ");
}
