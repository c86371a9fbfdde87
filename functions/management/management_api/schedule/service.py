"""The effective retry policy of a subscription (its overrides, else the room's values)."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.catalog import Catalog, DeliveryPolicy, ScheduledAttempt, effective_policy, schedule


@dataclass(frozen=True)
class Schedule:
    policy: DeliveryPolicy
    message_expiration_ms: int | None
    attempts: list[ScheduledAttempt]


@dataclass
class ScheduleService:
    catalog: Catalog

    def preview(self, tenant_id: str, room_id: str, subscription_id: str) -> Schedule:
        room = self.catalog.get_room(tenant_id, room_id)
        subscription = self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        policy = effective_policy(room, subscription)
        return Schedule(policy, room.message_expiration_ms, schedule(policy, room.message_expiration_ms))
