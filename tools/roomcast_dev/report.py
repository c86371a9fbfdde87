"""The day's delivery analytics as one self-contained HTML page (``make analytics OUT=dir`` writes
``dir/report.html``): per subscription its deliveries, first-try success, retries, dead and expired
messages, latency percentiles and attempts histogram, drawn as inline SVG.

No script, no external asset, no library: the page opens from disk anywhere, and every chart
has its figures in text beside it (and in the table at the end) for screen readers and copying.
Every value from the log is escaped: ids and names come from the data, not from us.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, Final

_BAR_HEIGHT_PX: Final = 18
_BAR_GAP_PX: Final = 6
_LABEL_WIDTH_PX: Final = 110
_CHART_WIDTH_PX: Final = 300
_VALUE_WIDTH_PX: Final = 90

_COUNTS: Final = (
    ("published", "published"),
    ("delivered", "delivered"),
    ("retries", "retries"),
    ("dead", "dead"),
    ("expired", "expired"),
    ("failovers", "failovers"),
)
_LATENCIES: Final = (("latency_p50_ms", "p50"), ("latency_p95_ms", "p95"), ("latency_p99_ms", "p99"))

_STYLE: Final = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem;
       color: #1d2330; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccd; }
h3 { margin-bottom: .3rem; }
.totals { display: flex; flex-wrap: wrap; gap: 1rem; padding: 0; list-style: none; }
.totals li { background: #f2f4f8; border-radius: 6px; padding: .5rem .9rem; }
.totals strong { display: block; font-size: 1.3rem; }
.subscription { border: 1px solid #dde; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5rem; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: .3rem; }
svg text { font: 12px system-ui, sans-serif; fill: #1d2330; }
.bar { fill: #3867d6; } .bar.bad { fill: #c0392b; } .bar.warn { fill: #e1a12b; } .bar.good { fill: #20875a; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid #dde; padding: .3rem .4rem; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, th:nth-child(2), td:nth-child(2) { text-align: left; }
.empty { color: #667; font-style: italic; }
.scroll { overflow-x: auto; }
"""


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str  # the figure as shown beside the bar
    tone: str = ""  # "", "good", "warn", "bad"


def render_report(day: str, rows: Sequence[Mapping[str, Any]]) -> str:
    """The report page for ``day`` from the analytics job's rows (``DAILY_ANALYTICS`` fields)."""
    ordered = sorted(
        rows, key=lambda r: (str(r.get("tenantId")), str(r.get("roomId")), str(r.get("subscriptionId")))
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>roomcast delivery analytics — {escape(day)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>roomcast delivery analytics — {escape(day)} (UTC)</h1>",
        _totals(ordered),
    ]
    if not ordered:
        parts.append('<p class="empty">No deliveries were logged this day.</p>')
    room = None
    for row in ordered:
        here = (str(row.get("tenantId")), str(row.get("roomId")))
        if here != room:
            room = here
            parts.append(f"<h2>Room {escape(here[1])} <small>(tenant {escape(here[0])})</small></h2>")
        parts.append(_subscription(row))
    parts.append(_table(ordered))
    parts.append("</body></html>")
    return "\n".join(parts)


def _totals(rows: Sequence[Mapping[str, Any]]) -> str:
    total = {name: sum(int(r.get(name) or 0) for r in rows) for name, _ in _COUNTS}
    first_try = [
        (float(r["first_try_success_rate"]), int(r.get("delivered") or 0))
        for r in rows
        if r.get("first_try_success_rate") is not None
    ]
    delivered = sum(weight for _, weight in first_try)
    rate = sum(value * weight for value, weight in first_try) / delivered if delivered else None
    items = [f"<li>subscriptions<strong>{len(rows)}</strong></li>"]
    items += [f"<li>{escape(label)}<strong>{total[name]}</strong></li>" for name, label in _COUNTS]
    items.append(f"<li>first-try success<strong>{_percent(rate)}</strong></li>")
    return f'<ul class="totals" aria-label="The day in totals">{"".join(items)}</ul>'


def _subscription(row: Mapping[str, Any]) -> str:
    subscription = escape(str(row.get("subscriptionId")))
    counts = [
        Bar(label, float(row.get(name) or 0), str(int(row.get(name) or 0)), _count_tone(name))
        for name, label in _COUNTS
    ]
    rate = row.get("first_try_success_rate")
    success = [Bar("first try", float(rate or 0.0), _percent(rate), _rate_tone(rate))]
    latencies = [
        Bar(label, float(row.get(name) or 0.0), _milliseconds(row.get(name))) for name, label in _LATENCIES
    ]
    histogram = row.get("attempts_histogram") or {}
    attempts = [
        Bar(f"attempt {attempt}", float(count), str(count), "good" if int(attempt) == 0 else "warn")
        for attempt, count in sorted(histogram.items(), key=lambda item: int(item[0]))
    ]
    charts = [
        _bar_chart("Messages", counts, f"{subscription}-counts"),
        _bar_chart("First-try success", success, f"{subscription}-success", maximum=1.0),
        _bar_chart("Publish → delivered latency", latencies, f"{subscription}-latency")
        if row.get("latency_p99_ms") is not None
        else _no_data("Publish → delivered latency", "nothing was delivered"),
        _bar_chart("Delivered at attempt", attempts, f"{subscription}-attempts")
        if attempts
        else _no_data("Delivered at attempt", "nothing was delivered"),
    ]
    return (
        f'<section class="subscription" aria-labelledby="{subscription}">'
        f'<h3 id="{subscription}">Subscription {subscription}</h3>'
        f'<div class="charts">{"".join(charts)}</div></section>'
    )


def _bar_chart(title: str, bars: Sequence[Bar], chart_id: str, maximum: float | None = None) -> str:
    """Horizontal bars with their label on the left and their figure on the right."""
    top = max([maximum or 0.0, *(bar.value for bar in bars)]) or 1.0
    height = len(bars) * (_BAR_HEIGHT_PX + _BAR_GAP_PX)
    width = _LABEL_WIDTH_PX + _CHART_WIDTH_PX + _VALUE_WIDTH_PX
    title_id = f"{chart_id}-title"
    described = "; ".join(f"{bar.label}: {bar.text}" for bar in bars)
    shapes = []
    for index, bar in enumerate(bars):
        y = index * (_BAR_HEIGHT_PX + _BAR_GAP_PX)
        length = max(0.0, bar.value) / top * _CHART_WIDTH_PX
        middle = y + _BAR_HEIGHT_PX / 2 + 4
        shapes.append(
            f'<text x="{_LABEL_WIDTH_PX - 8}" y="{middle:.0f}" text-anchor="end">{escape(bar.label)}</text>'
            f'<rect class="bar {bar.tone}" x="{_LABEL_WIDTH_PX}" y="{y}" width="{length:.1f}" '
            f'height="{_BAR_HEIGHT_PX}"><title>{escape(bar.label)}: {escape(bar.text)}</title></rect>'
            f'<text x="{_LABEL_WIDTH_PX + length + 6:.1f}" y="{middle:.0f}">{escape(bar.text)}</text>'
        )
    return (
        f'<figure><figcaption id="{title_id}">{escape(title)}</figcaption>'
        f'<svg role="img" aria-labelledby="{title_id}" aria-describedby="{chart_id}-desc" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f'<desc id="{chart_id}-desc">{escape(described)}</desc>{"".join(shapes)}</svg></figure>'
    )


def _no_data(title: str, why: str) -> str:
    return f'<figure><figcaption>{escape(title)}</figcaption><p class="empty">{escape(why)}</p></figure>'


def _table(rows: Iterable[Mapping[str, Any]]) -> str:
    headers = [
        "room",
        "subscription",
        *(label for _, label in _COUNTS),
        "first try",
        "p50",
        "p95",
        "p99",
        "attempts",
    ]
    body = []
    for row in rows:
        histogram = row.get("attempts_histogram") or {}
        cells = [
            escape(str(row.get("roomId"))),
            escape(str(row.get("subscriptionId"))),
            *(str(int(row.get(name) or 0)) for name, _ in _COUNTS),
            _percent(row.get("first_try_success_rate")),
            *(_milliseconds(row.get(name)) for name, _ in _LATENCIES),
            escape(", ".join(f"{k}: {v}" for k, v in sorted(histogram.items(), key=lambda i: int(i[0])))),
        ]
        body.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headers)
    return (
        '<h2>All figures</h2><div class="scroll"><table><caption class="empty">One row per subscription '
        f"and day, as the analytics job wrote it</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _percent(rate: Any) -> str:
    return "–" if rate is None else f"{float(rate) * 100:.1f} %"


def _milliseconds(value: Any) -> str:
    return "–" if value is None else f"{float(value):,.0f} ms"


def _count_tone(name: str) -> str:
    return {"delivered": "good", "retries": "warn", "dead": "bad", "expired": "bad"}.get(name, "")


def _rate_tone(rate: Any) -> str:
    if rate is None:
        return ""
    value = float(rate)
    return "good" if value >= 0.99 else "warn" if value >= 0.9 else "bad"
