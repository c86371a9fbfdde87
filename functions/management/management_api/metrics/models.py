"""What the metrics routes answer (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from roomcast.api import examples
from roomcast.metrics import Count, Sample
from roomcast.platform import iso_from_ms, now_ms

if TYPE_CHECKING:  # the series' module imports ddsketch: not at the management function's cold start
    from roomcast.metrics import Backlog, Percentiles, Point, Series

ResolutionName = Literal["1m", "1h"]

_PERCENTILES = {"p50": 42.3, "p95": 180.2, "p99": 950.7}
_COUNTS = {
    "attempts": 25,
    "delivered": 20,
    "failedAttempts": 5,
    "dead": 0,
    "expired": 0,
    "aborted": 0,
    "cleared": 0,
    "cancelled": 0,
    "failedOver": 0,
    "filteredOut": 2,
    "successRate": 0.8,
}
_POINT = {
    "at": "2026-11-22T10:05:00.000Z",
    **_COUNTS,
    "attemptLatencyMs": _PERCENTILES,
    "deliveryDelayMs": {"p50": 310.0, "p95": 4_100.0, "p99": 8_150.0},
    "backlog": 3,
    "oldestOpenAgeMs": 12_400,
}


class PercentilesView(BaseModel):
    p50: float
    p95: float
    p99: float

    @classmethod
    def of(cls, found: Percentiles | None) -> PercentilesView | None:
        return None if found is None else cls(p50=found.p50, p95=found.p95, p99=found.p99)


class CountsView(BaseModel):
    attempts: int = Field(description="Webhook requests made; PULL hand-outs.")
    delivered: int = Field(description="Deliveries that ended delivered (2xx; a PULL ack).")
    failedAttempts: int = Field(
        description="Attempts that failed: no 2xx answer in time; a PULL nack or an ack wait that expired."
    )
    dead: int
    expired: int
    aborted: int
    cleared: int
    cancelled: int
    failedOver: int = Field(description="Dead here and handed to the subscription's failover.")
    filteredOut: int = Field(description="Messages of the room its filter policy did not route here.")
    successRate: float | None = Field(
        description="1 - failedAttempts / attempts; null without attempts.", examples=[0.8]
    )

    @staticmethod
    def fields_of(counts: dict[Count, int]) -> dict[str, float | int | None]:
        attempts = counts[Count.ATTEMPTS]
        failed = counts[Count.FAILED_ATTEMPTS]
        rate = None if attempts == 0 else round(max(0.0, 1 - failed / attempts), 4)
        return {**{count.value: value for count, value in counts.items()}, "successRate": rate}


class MetricsPoint(CountsView):
    model_config = examples(_POINT)

    at: str = Field(description="The bucket's start (UTC); a bucket is a minute or an hour.")
    attemptLatencyMs: PercentilesView | None = Field(
        description="How long the endpoint took to answer its webhooks (PUSH); null without one."
    )
    deliveryDelayMs: PercentilesView | None = Field(
        description="From when a message was first due (its publishing, or its deliverAt) to its "
        "delivery, of the deliveries that ended delivered in the bucket; null without one."
    )
    backlog: int = Field(description="Open deliveries (pending, retrying or waiting) at the bucket's end.")
    oldestOpenAgeMs: int | None = Field(
        description="How long the oldest open delivery had waited then, to the minute; null when none."
    )

    @classmethod
    def of(cls, point: Point) -> MetricsPoint:
        return cls.model_validate(
            {
                "at": iso_from_ms(point.at_ms),
                **CountsView.fields_of(point.counts),
                "attemptLatencyMs": PercentilesView.of(point.percentiles[Sample.ATTEMPT_LATENCY_MS]),
                "deliveryDelayMs": PercentilesView.of(point.percentiles[Sample.DELIVERY_DELAY_MS]),
                "backlog": point.backlog,
                "oldestOpenAgeMs": point.oldest_open_age_ms,
            }
        )


class MetricsSummary(CountsView):
    attemptLatencyMs: PercentilesView | None
    deliveryDelayMs: PercentilesView | None


class BacklogView(BaseModel):
    open: int = Field(description="Open deliveries now.")
    oldestOpenAgeMs: int | None = Field(
        description="How long the oldest has waited, to the minute; null when none."
    )

    @classmethod
    def of(cls, backlog: Backlog) -> BacklogView:
        oldest = backlog.oldest_from_ms
        return cls(open=backlog.open, oldestOpenAgeMs=None if oldest is None else max(0, now_ms() - oldest))


class MetricsResponse(BaseModel):
    model_config = examples(
        {
            "resolution": "1m",
            "start": "2026-11-22T10:05:00.000Z",
            "end": "2026-11-22T10:06:00.000Z",
            "points": [_POINT],
            "summary": {**_COUNTS, "attemptLatencyMs": _PERCENTILES, "deliveryDelayMs": None},
            "backlog": {"open": 3, "oldestOpenAgeMs": 12_400},
        }
    )

    resolution: ResolutionName
    start: str = Field(description="The first point's start.")
    end: str = Field(description="The window's end (exclusive): `to`, or now.")
    points: list[MetricsPoint] = Field(
        description="Every bucket of the window, oldest first, zeros where nothing happened; at most "
        "1,440 minutes or 840 hours."
    )
    summary: MetricsSummary = Field(description="The whole window: its counts added, its percentiles merged.")
    backlog: BacklogView = Field(description="The backlog now.")

    @classmethod
    def of(cls, found: Series, backlog: Backlog, end_ms: int) -> MetricsResponse:
        start = found.points[0].at_ms if found.points else end_ms
        summary = {
            **CountsView.fields_of(found.totals),
            "attemptLatencyMs": PercentilesView.of(found.percentiles[Sample.ATTEMPT_LATENCY_MS]),
            "deliveryDelayMs": PercentilesView.of(found.percentiles[Sample.DELIVERY_DELAY_MS]),
        }
        return cls(
            resolution=found.resolution.value,
            start=iso_from_ms(start),
            end=iso_from_ms(end_ms),
            points=[MetricsPoint.of(point) for point in found.points],
            summary=MetricsSummary.model_validate(summary),
            backlog=BacklogView.of(backlog),
        )
