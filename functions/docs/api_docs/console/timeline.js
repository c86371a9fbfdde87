// A timeline: points on a time axis, an SVG built with DOM calls (no library).

import { s } from "./dom.js";

// points: [{ms, label, note, kind: "ok" | "failed" | "due" | "cut" | "planned"}], ms since the start.
export function timeline(title, points, end) {
  const width = 720;
  const height = 96;
  const left = 24;
  const right = 72;
  const axisY = 48;
  const lastMs = Math.max(1, ...points.map((point) => point.ms));
  const x = (ms) => left + (ms / lastMs) * (width - left - right);
  const titleId = `timeline-${Math.random().toString(36).slice(2)}`;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": titleId, class: "timeline" });
  svg.append(s("title", { id: titleId }, title));
  svg.append(s("line", { x1: left, y1: axisY, x2: width - right + 8, y2: axisY, class: "axis" }));
  let lastLabelX = -Infinity;
  for (const point of points) {
    const cx = x(point.ms);
    svg.append(s("circle", { cx, cy: axisY, r: 7, class: `point point-${point.kind}` }, s("title", {}, `${point.label}: ${point.note}`)));
    if (cx - lastLabelX >= 44) {
      svg.append(s("text", { x: cx, y: axisY - 14, class: "label" }, point.label));
      svg.append(s("text", { x: cx, y: axisY + 26, class: "note" }, point.note));
      lastLabelX = cx;
    }
  }
  if (end) svg.append(s("text", { x: width - right + 14, y: axisY + 4, class: `end end-${end.kind}` }, end.text));
  return svg;
}
