"""A scope's buckets read back as the points of a window (pure): every bucket of the window, with
nothing counted where nothing happened, and the backlog carried forward from the last bucket that
saw it (roomcast.metrics.store writes it with every bucket it touches)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roomcast.metrics.backlog import BACKLOG, OLDEST_OPEN_FROM
from roomcast.metrics.model import Count, Percentiles, Point, Resolution, Sample
from roomcast.metrics.sketch import is_bin, percentiles
from roomcast.platform import ms_from_iso

if TYPE_CHECKING:
    from roomcast.platform import items


@dataclass(frozen=True)
class Series:
    """A window's points, and the whole window's totals and percentiles."""

    resolution: Resolution
    points: tuple[Point, ...]
    totals: dict[Count, int]
    percentiles: dict[Sample, Percentiles | None]


def _start(bucket: items.Item) -> int:
    return ms_from_iso(str(bucket["SK"]).partition("#")[2])


def series_of(
    resolution: Resolution,
    from_ms: int,
    to_ms: int,
    buckets: Sequence[items.Item],
    before: items.Item | None,
    now_ms: int,
) -> Series:
    """The points of [from_ms, to_ms) (whole buckets: the first starts at from_ms's bucket) from
    the window's ``buckets`` and the last one ``before`` it; ages are measured at each bucket's end
    (or now, for the bucket going on)."""
    by_start = {_start(bucket): bucket for bucket in buckets}
    backlog, oldest = _backlog(before) if before is not None else (0, None)
    points = []
    for start in range(resolution.start_of(from_ms), to_ms, resolution.ms):
        bucket = by_start.get(start, {})
        if BACKLOG in bucket:
            backlog, oldest = _backlog(bucket)
        end = min(start + resolution.ms, now_ms)
        age = None if oldest is None or backlog <= 0 else max(0, end - oldest)
        points.append(
            Point(
                at_ms=start,
                counts={count: int(bucket.get(count.value, 0)) for count in Count},
                percentiles={sample: percentiles(sample, bucket) for sample in Sample},
                backlog=max(0, backlog),
                oldest_open_age_ms=age,
            )
        )
    return Series(resolution, tuple(points), _totals(buckets), _merged_percentiles(buckets))


def _backlog(bucket: items.Item) -> tuple[int, int | None]:
    oldest = bucket.get(OLDEST_OPEN_FROM)
    return int(bucket.get(BACKLOG, 0)), None if oldest is None else int(oldest)


def _totals(buckets: Iterable[items.Item]) -> dict[Count, int]:
    totals: Counter[Count] = Counter()
    for bucket in buckets:
        for count in Count:
            totals[count] += int(bucket.get(count.value, 0))
    return {count: totals[count] for count in Count}


def _merged_percentiles(buckets: Iterable[items.Item]) -> dict[Sample, Percentiles | None]:
    """The window's percentiles: its buckets' sketches added (exact merge)."""
    merged: Counter[str] = Counter()
    for bucket in buckets:
        for name, value in bucket.items():
            if any(is_bin(sample, name) for sample in Sample):
                merged[name] += int(value)
    return {sample: percentiles(sample, merged) for sample in Sample}
