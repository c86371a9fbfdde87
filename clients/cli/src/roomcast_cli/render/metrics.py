"""`roomcast metrics`: a row per point with activity, the window's summary and a sparkline of what
was delivered, from the API's MetricsResponse."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import add_row, new_table
from roomcast_cli.render.text import Json, parse_time

SPARK_BLOCKS = "▁▂▃▄▅▆▇█"
# At most this many marks: a longer window's points are added up, several to a mark.
SPARK_WIDTH = 60
# The ends of deliveries (and the messages filtered out) the summary names when it has any, and how.
_ENDINGS = {
    "dead": "dead",
    "failedOver": "failed over",
    "expired": "expired",
    "aborted": "aborted",
    "cleared": "cleared",
    "cancelled": "cancelled",
    "filteredOut": "filtered out",
}
# What a point counts: a point with any of them (or whose backlog moved) has a row.
_COUNTS = ("attempts", "delivered", "failedAttempts", *_ENDINGS)
_RESOLUTION_MINUTES = {"1m": 1, "1h": 60}


def show_ms(value: float | None) -> str:
    """A duration in the unit that reads best: ``4.2 ms``, ``180 ms``, ``12.4 s``, ``3.5 min``, ``2.0 h``."""
    if value is None:
        return "-"
    if value < 10:
        return f"{value:.1f} ms"
    if value < 1000:
        return f"{value:.0f} ms"
    if value < 60_000:
        return f"{value / 1000:.1f} s"
    if value < 3_600_000:
        return f"{value / 60_000:.1f} min"
    return f"{value / 3_600_000:.1f} h"


def show_rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def sparkline(values: Sequence[int]) -> str:
    """One mark per value: ``▁`` for none, ``▂`` to ``█`` in proportion to the largest."""
    top = max(values, default=0)
    return "".join(
        SPARK_BLOCKS[0] if value <= 0 else SPARK_BLOCKS[max(1, round(value * 7 / top))] for value in values
    )


def active_points(points: Sequence[Json]) -> list[Json]:
    """The points in which anything was counted, or whose backlog differs from the point before."""
    shown, backlog = [], 0
    for point in points:
        if any(point.get(count) for count in _COUNTS) or point.get("backlog", 0) != backlog:
            shown.append(point)
        backlog = point.get("backlog", 0)
    return shown


def _moment(value: str | None, layout: str = "%Y-%m-%d %H:%M") -> str:
    moment = parse_time(value)
    return moment.strftime(layout) if moment else (value or "-")


def _percentiles(name: str, found: Json | None) -> str:
    if not found:
        return ""
    return f"; {name} p50 {show_ms(found['p50'])}, p95 {show_ms(found['p95'])}, p99 {show_ms(found['p99'])}"


def _point_cells(point: Json, time_layout: str) -> tuple[str, ...]:
    latency = point.get("attemptLatencyMs") or {}
    return (
        _moment(point["at"], time_layout),
        str(point["delivered"]),
        str(point["failedAttempts"]),
        show_rate(point.get("successRate")),
        show_ms(latency.get("p50")),
        show_ms(latency.get("p95")),
        show_ms(latency.get("p99")),
        str(point.get("backlog", 0)),
        show_ms(point.get("oldestOpenAgeMs")),
    )


def window_text(metrics: Json) -> str:
    """``2026-11-22 10:00 → 11:00 UTC`` (the end's day too when it is another)."""
    start, end = parse_time(metrics["start"]), parse_time(metrics["end"])
    same_day = start is not None and end is not None and start.date() == end.date()
    end_layout = "%H:%M" if same_day else "%Y-%m-%d %H:%M"
    return f"{_moment(metrics['start'])} → {_moment(metrics['end'], end_layout)} UTC"


def summary_line(metrics: Json) -> str:
    """The window's counts added up, its percentiles merged, and the backlog now."""
    summary, backlog = metrics["summary"], metrics["backlog"]
    rate = summary.get("successRate")
    success = f" ({show_rate(rate)} success)" if rate is not None else ""
    endings = "".join(f", {summary[key]} {name}" for key, name in _ENDINGS.items() if summary.get(key))
    oldest = backlog.get("oldestOpenAgeMs")
    waiting = f", oldest {show_ms(oldest)}" if oldest is not None else ""
    return (
        f"total: {summary['attempts']} attempts, {summary['delivered']} delivered, "
        f"{summary['failedAttempts']} failed{success}{endings}"
        f"{_percentiles('latency', summary.get('attemptLatencyMs'))}"
        f"{_percentiles('delay', summary.get('deliveryDelayMs'))}"
        f"; backlog now {backlog['open']}{waiting}"
    )


def _span(minutes: int) -> str:
    if minutes % 60:
        return "minute" if minutes == 1 else f"{minutes} minutes"
    return "hour" if minutes == 60 else f"{minutes // 60} hours"


def delivered_sparkline(metrics: Json) -> str:
    """Delivered per point over the whole window (several points to a mark when it is long)."""
    delivered = [int(point["delivered"]) for point in metrics["points"]]
    per_mark = max(1, math.ceil(len(delivered) / SPARK_WIDTH))
    marks = [sum(delivered[at : at + per_mark]) for at in range(0, len(delivered), per_mark)]
    every = _span(per_mark * _RESOLUTION_MINUTES.get(metrics["resolution"], 1))
    scale = f"█ = {max(marks)} per {every}" if any(marks) else "nothing delivered"
    return f"delivered {sparkline(marks)}  ({scale})"


def _time_layout(points: Sequence[Json]) -> str:
    """A row's time: the minute, with its day when the window spans several."""
    days = {moment.date() for point in points if (moment := parse_time(point["at"])) is not None}
    return "%H:%M" if len(days) <= 1 else "%m-%d %H:%M"


def metrics_view(metrics: Json) -> list[RenderableType]:
    """``roomcast metrics``: a row per point with activity, then the summary and the sparkline."""
    every = _span(_RESOLUTION_MINUTES.get(metrics["resolution"], 1))
    shown: list[RenderableType] = [Text(f"{window_text(metrics)}, a point per {every}", style="bold")]
    active = active_points(metrics["points"])
    if active:
        layout = _time_layout(metrics["points"])
        table = new_table(
            "TIME (UTC)", "DELIVERED", "FAILED", "SUCCESS", "P50", "P95", "P99", "BACKLOG", "OLDEST"
        )
        table.columns[0].no_wrap = True
        for point in active:
            add_row(table, *_point_cells(point, layout))
        shown.append(table)
    else:
        shown.append(Text("no activity in the window"))
    shown.append(Text(summary_line(metrics)))
    shown.append(Text(delivered_sparkline(metrics), no_wrap=True))
    return shown
