"""Retry now of named deliveries (roomcast.jobs.retry_now); retry now of all of them and
Clear All are jobs (management_api.jobs, roomcast.jobs.steps)."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.catalog import Catalog, Subscription
from roomcast.jobs import RetryNow, require_push
from roomcast.messages import Delivery, DeliveryStatus, Message, MessageRecords


@dataclass(frozen=True)
class RetriedNow:
    retried: list[str]
    not_retrying: list[str]  # named ids that are not a retrying delivery of the subscription


@dataclass
class DeliveriesService:
    catalog: Catalog
    messages: MessageRecords
    retrier: RetryNow

    def retry_now(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]
    ) -> RetriedNow:
        """Retry the named messages' deliveries now (a job retries all of them: JobsService)."""
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        require_push(subscription)
        retried = self.retrier.retry(subscription, self._named(subscription, message_ids))
        not_retrying = [m for m in dict.fromkeys(message_ids) if m not in set(retried)]
        return RetriedNow(retried, not_retrying)

    def _named(self, subscription: Subscription, message_ids: list[str]) -> list[tuple[Message, Delivery]]:
        messages = self.messages.get_messages(subscription.tenant_id, list(dict.fromkeys(message_ids)))
        found = []
        for message in messages.values():
            if message.room_id != subscription.room_id:
                continue
            record = self.messages.get_delivery(subscription.tenant_id, message.id, subscription.id)
            if record is not None and record.status is DeliveryStatus.RETRYING:
                found.append((message, record))
        return found

    def _subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.catalog.get_room(tenant_id, room_id)
        return self.catalog.get_subscription(tenant_id, room_id, subscription_id)
