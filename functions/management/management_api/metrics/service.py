"""Metrics over time: a window of a subscription's, a room's or the tenant's buckets, as points
(roomcast.metrics), and its backlog now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from management_api.metrics.window import Window
from roomcast.catalog import Catalog
from roomcast.metrics import Backlog, Resolution, Scope, Series, series_of
from roomcast.platform import items, now_ms


class MetricsReader(Protocol):
    def buckets(self, scope: Scope, resolution: Resolution, from_ms: int, to_ms: int) -> list[items.Item]: ...

    def bucket_before(self, scope: Scope, resolution: Resolution, from_ms: int) -> items.Item | None: ...

    def backlog(self, scope: Scope) -> Backlog: ...


@dataclass
class MetricsService:
    catalog: Catalog
    metrics: MetricsReader

    def of_subscription(
        self, tenant_id: str, room_id: str, subscription_id: str, asked: Window
    ) -> tuple[Series, Backlog]:
        """404 for a subscription the tenant does not have in that room."""
        self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        return self._read(Scope.subscription(tenant_id, subscription_id), asked)

    def of_room(self, tenant_id: str, room_id: str, asked: Window) -> tuple[Series, Backlog]:
        self.catalog.get_room(tenant_id, room_id)
        return self._read(Scope.room(tenant_id, room_id), asked)

    def of_tenant(self, tenant_id: str, asked: Window) -> tuple[Series, Backlog]:
        return self._read(Scope.tenant(tenant_id), asked)

    def _read(self, scope: Scope, asked: Window) -> tuple[Series, Backlog]:
        found = self.metrics.buckets(scope, asked.resolution, asked.from_ms, asked.to_ms)
        before = self.metrics.bucket_before(scope, asked.resolution, asked.from_ms)
        points = series_of(asked.resolution, asked.from_ms, asked.to_ms, found, before, now_ms())
        return points, self.metrics.backlog(scope)
