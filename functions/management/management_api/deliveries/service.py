"""Bulk actions on one subscription's deliveries.

- retry now: each retrying PUSH delivery is claimed (a conditional write: of concurrent retry-nows
  exactly one gets it), then gets a new envelope due now (its next attempt, the count goes on),
  then its record's ``nextAttemptAt`` moves to now, so the envelope still waiting in SQS is
  recognised as superseded by the push function and dropped. Sent before recorded: a crash in
  between leaves the old schedule in force (the claim lapses), never a lost delivery. Counted
  once, by the call that moved it: concurrent calls' counts add up to the envelopes sent.
- clear all is a job (management_api.jobs, roomcast.delivery.job_steps).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from roomcast.dal.pages import Position
from roomcast.dal.ports import Catalog, LogSink, MessageRecords, Sender
from roomcast.dal.sender import QueueAddresses
from roomcast.domain.clock import iso_from_ms, now_iso, now_ms
from roomcast.domain.envelope import first_envelope
from roomcast.domain.limits import MAX_PAGE_SIZE
from roomcast.domain.log_records import LogEvent, LogRecord
from roomcast.domain.messages import Delivery, DeliveryStatus, Message, MessageFilter, deliveries_to
from roomcast.domain.models import Subscription, SubscriptionType
from roomcast.errors import Conflict

_OPEN = (DeliveryStatus.PENDING, DeliveryStatus.RETRYING)


@dataclass(frozen=True)
class RetriedNow:
    retried: list[str]
    not_retrying: list[str]  # named ids that are not a retrying delivery of the subscription


@dataclass
class DeliveriesService:
    catalog: Catalog
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    clock: Callable[[], int] = now_ms

    def retry_now(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str] | None
    ) -> RetriedNow:
        subscription = self._subscription(tenant_id, room_id, subscription_id)
        if subscription.type is not SubscriptionType.PUSH:
            raise Conflict("retry now applies to PUSH subscriptions; a PULL consumer pulls when it is ready")
        if message_ids is None:
            found = [(m, d) for m, d in self._open(subscription) if d.status is DeliveryStatus.RETRYING]
        else:
            found = self._named(subscription, message_ids)
        now = self.clock()
        retried = []
        for message, record in found:
            claim = secrets.token_hex(8)
            if not self.messages.claim_retry(record, claim, now):
                continue  # another retry-now has it, it is due already, or it moved on meanwhile
            envelope = replace(
                first_envelope(message, subscription.id).next_attempt(record.attempts, 0, now),
                queued_at_ms=now,
            )
            self.sender.send([self.addresses.outgoing_for(subscription, envelope)])
            moved = replace(record, next_attempt_at=iso_from_ms(now), updated_at=now_iso(), history=())
            if self.messages.move_claimed_retry(moved, claim):
                retried.append(message.id)
                self.log.add(
                    LogRecord.about(envelope, LogEvent.RETRY_NOW, subscription.type, attempt=envelope.attempt)
                )
        not_retrying = [m for m in dict.fromkeys(message_ids or []) if m not in set(retried)]
        return RetriedNow(retried, not_retrying)

    def _open(self, subscription: Subscription) -> Iterator[tuple[Message, Delivery]]:
        """Every pending or retrying delivery of the subscription, page after page."""
        wanted = MessageFilter(subscription_id=subscription.id)
        start: Position | None = None
        while True:
            page = self.messages.list_room_messages(
                subscription.tenant_id, subscription.room_id, MAX_PAGE_SIZE, start, wanted
            )
            yield from deliveries_to(page.items, subscription.id, _OPEN)
            if page.next_position is None:
                return
            start = page.next_position

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
