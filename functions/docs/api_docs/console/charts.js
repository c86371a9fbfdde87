// The metrics charts of a subscription or a room (docs/console.md, "Charts"): a range selector
// (1 h, 24 h, 7 d, 30 d), the window's totals as text, and five charts drawn by uPlot (vendored,
// ./uPlot.esm.js) on canvases from one metrics answer. uPlot styles its own elements through the
// CSSOM (element.style), which the page's style-src 'self' allows; it writes no HTML.

import uPlot from "./uPlot.esm.js";
import { details, h, region } from "./dom.js";
import { chartSeries, DEFAULT_RANGE, metricsQuery, outcomesText, percentilesText, RANGES, successText, backlogText } from "./metrics.js";

const HEIGHT = 200;
const PERCENTILES = [["p50", "--accent"], ["p95", "--wait"], ["p99", "--bad"]];
// Each chart: its title, its series (label, colour as a custom property of console.css, y scale).
const CHARTS = [
  { key: "volume", title: "Volume by outcome", unit: "count", series: [
    ["delivered", "--ok"], ["failed attempts", "--bad"], ["dead", "--dead"], ["expired", "--off"], ["aborted, cleared, cancelled", "--wait"]] },
  { key: "successRate", title: "Success rate", unit: "%", series: [["success rate", "--ok"]] },
  { key: "latency", title: "Attempt latency", unit: "ms", series: PERCENTILES },
  { key: "delay", title: "Delivery delay", unit: "ms", series: PERCENTILES },
  { key: "backlog", title: "Backlog and oldest open age", unit: "count", series: [["open deliveries", "--accent"], ["oldest open age", "--bad", "age"]] },
];

// The range chosen last, kept from screen to screen while the tab is open.
let chosenRange = DEFAULT_RANGE;

function colour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#57606a";
}

function compactMs(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${+ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)} min`;
  if (ms < 172_800_000) return `${+(ms / 3_600_000).toFixed(1)} h`;
  return `${+(ms / 86_400_000).toFixed(1)} d`;
}

const UNITS = {
  count: { range: (u, min, max) => [0, Math.max(1, Math.ceil(max * 1.1))], text: (value) => (value === null ? "—" : String(Math.round(value * 100) / 100)) },
  "%": { range: [0, 100], text: (value) => (value === null ? "—" : `${+value.toFixed(1)}%`) },
  ms: { range: (u, min, max) => [0, Math.max(1, max * 1.1)], text: compactMs },
  age: { range: (u, min, max) => [0, Math.max(60, max * 1.1)], text: (value) => compactMs(value === null ? null : value * 1000) },
};

// The time axis in UTC, 24-hour: a minute's time, or a day's date once ticks are days apart.
const [clock, day] = [uPlot.fmtDate("{HH}:{mm}"), uPlot.fmtDate("{YYYY}-{MM}-{DD}")];
const utcDate = (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC");
const timeTicks = (u, splits, axis, space, increment) =>
  splits.map((seconds) => (increment >= 86_400 ? day : clock)(utcDate(seconds)));

function options(chart, width, resolution) {
  const ink = colour("--ink");
  const grid = { stroke: colour("--line"), width: 1 };
  const axis = (scale, side) => ({
    scale, side, stroke: ink, grid: side === 1 ? { show: false } : grid, ticks: grid, size: 64,
    values: (u, splits) => splits.map(UNITS[scale === "y" ? chart.unit : scale].text),
  });
  const scales = { x: { time: true }, y: { range: UNITS[chart.unit].range } };
  const axes = [{ stroke: ink, grid, ticks: grid, values: timeTicks }, axis("y", 3)];
  if (chart.series.some(([, , scale]) => scale === "age")) {
    scales.age = { range: UNITS.age.range };
    axes.push(axis("age", 1));
  }
  return {
    width,
    height: HEIGHT,
    class: "metrics-chart",
    tzDate: utcDate, // the console's times are UTC
    scales,
    axes,
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: resolution === "1h" ? "hour (UTC)" : "minute (UTC)", value: (u, seconds) => (seconds === null ? "—" : `${day(utcDate(seconds))} ${clock(utcDate(seconds))}`) },
      ...chart.series.map(([label, name, scale = "y"]) => ({
        label,
        scale,
        stroke: colour(name),
        width: 2,
        spanGaps: false,
        points: { show: chart.unit !== "count" || scale === "age", size: 5 },
        value: (u, value) => UNITS[scale === "y" ? chart.unit : scale].text(value),
      })),
    ],
  };
}

// One chart's figure: its caption, and the host uPlot draws in once the figure has a width.
function figure(chart) {
  const host = h("div", { class: "chart-plot", role: "img", "aria-label": chart.title });
  const element = h("figure", { class: "chart", "data-chart": chart.key }, h("figcaption", {}, chart.title), host);
  return { chart, element, host, plot: null, resolution: null };
}

function draw(each, columns, resolution) {
  const width = Math.floor(each.host.clientWidth);
  if (width === 0) return; // not on the page yet: the resize observer draws it once it is
  if (each.plot && each.resolution === resolution) {
    each.plot.setData(columns);
    if (each.plot.width !== width) each.plot.setSize({ width, height: HEIGHT });
  } else {
    each.plot?.destroy(); // its axes' labels depend on the resolution
    each.plot = new uPlot(options(each.chart, width, resolution), columns, each.host);
    each.resolution = resolution;
  }
  const drawn = columns.slice(1).reduce((count, values) => count + values.filter((value) => value !== null && value !== 0).length, 0);
  each.element.dataset.points = String(columns[0].length);
  each.element.dataset.drawn = String(drawn);
  each.element.dataset.resolution = resolution;
}

// The panel: `read(query)` answers a metrics query (the screen's GET …/metrics). refresh() reads the
// chosen range again and draws it (refresh(true): only if its range's everyMs has passed since the
// last read); it answers {range, answer} (answer null when the read failed: the panel says so).
export function metricsPanel(idPrefix, read) {
  const select = h("select", { id: `${idPrefix}-range`, name: `${idPrefix}-range` },
    Object.entries(RANGES).map(([key, range]) => h("option", { value: key, selected: key === chosenRange }, range.label)));
  const totals = region({ class: "metrics-totals" });
  totals.show(null, () => h("p", { class: "hint" }, "Reading the metrics…"));
  const figures = CHARTS.map(figure);
  const grid = h("div", { class: "charts" }, figures.map((each) => each.element));
  let latest = null;
  let reading = 0;
  const drawAll = () => {
    if (!latest) return;
    const series = chartSeries(latest);
    for (const each of figures) draw(each, series[each.chart.key], latest.resolution);
    grid.dataset.range = latest.range;
  };
  // Drawn again when the grid's width changes (and once it is on the page), in the next frame: a
  // chart drawn inside the observer's callback would resize what it observes (a "loop" error).
  let frame = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(drawAll);
  }).observe(grid);

  let readAt = -Infinity;
  const refresh = async (ifDue = false) => {
    const range = select.value;
    // Due half a second early: the screens ask every 5 s, and 1 h's answer is theirs too.
    if (ifDue && latest?.range === range && Date.now() - readAt < RANGES[range].everyMs - 500) return { range, answer: latest };
    readAt = Date.now();
    const ticket = (reading += 1);
    let answer;
    try {
      answer = await read(metricsQuery(range, Date.now()));
    } catch (error) {
      totals.show({ failed: error.message }, () => h("p", { class: "empty" }, `The metrics could not be read: ${error.message}`));
      return { range, answer: null };
    }
    if (ticket !== reading) return { range, answer }; // a later read started meanwhile: it draws
    latest = { ...answer, range };
    totals.show([range, answer.resolution, answer.points.length, answer.summary, answer.backlog], () => [
      details([
        ["Window", `${RANGES[range].label}, by ${answer.resolution === "1h" ? "hour" : "minute"} (${answer.points.length} points, UTC)`],
        ["Attempts", successText(answer.summary)],
        ["Outcomes", outcomesText(answer.summary)],
        ["Attempt latency", percentilesText(answer.summary.attemptLatencyMs)],
        ["Delivery delay", percentilesText(answer.summary.deliveryDelayMs)],
        ["Backlog now", backlogText(answer.backlog)],
      ]),
    ]);
    drawAll();
    return { range, answer };
  };
  select.addEventListener("change", () => {
    chosenRange = select.value;
    refresh();
  });
  const element = h("div", { class: "metrics" },
    h("div", { class: "actions" }, h("div", { class: "field" }, h("label", { for: select.id }, "Range"), select)),
    totals,
    grid);
  return { element, refresh };
}
