"""Metrics over time: what happened to deliveries (attempts, ends, latency and delay percentiles,
backlog), per subscription, room and tenant, in minute and hour buckets, derived exactly once
from the table's stream (docs/metrics.md, docs/decisions/0046-metrics-from-the-table-stream.md).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.metrics.backlog import Backlog as Backlog
    from roomcast.metrics.facts import Change as Change, Fact as Fact, facts_of as facts_of
    from roomcast.metrics.model import (
        Count as Count,
        Percentiles as Percentiles,
        Place as Place,
        Point as Point,
        Resolution as Resolution,
        Sample as Sample,
        Scope as Scope,
    )
    from roomcast.metrics.series import Series as Series, series_of as series_of
    from roomcast.metrics.store import MetricsTable as MetricsTable
    from roomcast.metrics.tally import Tally as Tally

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
