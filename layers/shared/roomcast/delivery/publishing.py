"""Publishing a message into a room: route, store the message and its first delivery records in
one write, then enqueue one envelope per destination. Used by the publish function, and by every
function that reports operational events (roomcast.delivery.operational)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from roomcast.dal.messages import MessageExists
from roomcast.dal.ports import Catalog, MessageRecords, Sender
from roomcast.dal.sender import Destinations, Unsent
from roomcast.dal.stores import Stores
from roomcast.delivery.log import LogRecord, LogSink
from roomcast.domain import ids, limits
from roomcast.domain.clock import iso_from_ms, now_ms
from roomcast.domain.envelope import first_envelope
from roomcast.domain.messages import Delivery, DeliveryStatus, Message
from roomcast.domain.models import Subscription
from roomcast.domain.payloads import JsonValue
from roomcast.domain.policy import expires_at
from roomcast.domain.routing import resolve_destinations
from roomcast.observability import logger


def _same_publish(stored: Message, retried: Message, correlation_id: str | None, now_ms: int) -> bool:
    """Whether a stored message is what a retried publish under the same key asked for, within
    the key's window (after it, the key may name a new message)."""
    return (
        (stored.event_type, stored.event_version, stored.payload)
        == (retried.event_type, retried.event_version, retried.payload)
        and (correlation_id is None or stored.correlation_id == correlation_id)
        and now_ms - stored.published_at_ms < limits.IDEMPOTENCY_WINDOW_MS
    )


def unsent_destinations(unsent: Sequence[Unsent]) -> list[str]:
    """The subscriptions whose envelopes were not sent, each once, in order."""
    return list(dict.fromkeys(u.subscription_id for u in unsent if u.subscription_id))


@dataclass
class Publisher:
    catalog: Catalog
    messages: MessageRecords
    sender: Sender
    destinations: Destinations
    log: LogSink
    clock: Callable[[], int] = now_ms

    @classmethod
    def of(cls, stores: Stores) -> Publisher:
        st = stores
        return cls(st.catalog, st.messages, st.sender, st.destinations, st.log)

    def publish_message(
        self,
        tenant_id: str,
        room_id: str,
        event_type: str,
        event_version: str,
        payload: JsonValue,
        correlation_id: str | None = None,
        explicit: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> Message:
        """Route, store (message and first records in one write), then send one envelope per
        destination; a message routed nowhere is stored and logged all the same.

        With an ``idempotency_key`` the message id comes from it: a retry whose first try stored
        the message and died before answering finds that message and finishes its sends (at
        worst sending an envelope twice) instead of storing a second message."""
        room = self.catalog.get_room(tenant_id, room_id)
        subscriptions = self.catalog.all_subscriptions(tenant_id, room_id)
        targets = resolve_destinations(room, subscriptions, event_type, event_version, explicit)
        published_at_ms = self.clock()
        message = Message(
            id=ids.message_id_for(tenant_id, room_id, idempotency_key)
            if idempotency_key
            else ids.new_message_id(),
            tenant_id=tenant_id,
            room_id=room_id,
            event_type=event_type,
            event_version=event_version,
            correlation_id=correlation_id or str(uuid.uuid4()),
            payload=payload,
            published_at=iso_from_ms(published_at_ms),
            published_at_ms=published_at_ms,
            expires_at_ms=expires_at(published_at_ms, room.message_expiration_ms),
            destinations=tuple(s.id for s in targets),
        )
        at = message.published_at
        first_records = [
            Delivery(message.id, tenant_id, s.id, s.type, DeliveryStatus.PENDING, 0, None, at, at)
            for s in targets
        ]
        # Stored first: a message is never on a queue without its record.
        try:
            self.messages.put_message(message, first_records, if_new=idempotency_key is not None)
        except MessageExists:
            stored = self.messages.get_messages(tenant_id, [message.id]).get(message.id)
            if stored is None or not _same_publish(stored, message, correlation_id, published_at_ms):
                # The key's message is another one (the key reused after its window): a new id.
                return self.publish_message(
                    tenant_id, room_id, event_type, event_version, payload, correlation_id, explicit
                )
            by_id = {s.id: s for s in subscriptions}
            resumed = [by_id[i] for i in stored.destinations if i in by_id]
            self._send(stored, resumed, stored.destinations)
            self._log(stored, resumed)
            return stored
        self._send(message, targets, message.destinations)
        self._log(message, targets)
        return message

    def _send(self, message: Message, targets: Sequence[Subscription], destinations: Sequence[str]) -> None:
        """One envelope per destination. What cannot be sent now (an SQS outage, a PULL queue
        deleted since routing, a subscription gone) is left to the outbox: marked on the message
        item, sent (or ended cleared) by the outbox function from the table's stream. The publish
        is accepted either way: the message is stored and will be sent or end cleared."""
        outgoing = [self.destinations.outgoing_for(s, first_envelope(message, s.id)) for s in targets]
        unsent = unsent_destinations(self.sender.try_send(outgoing))
        routed = {s.id for s in targets}
        unsent += [i for i in destinations if i not in routed]
        if unsent:
            self.messages.mark_unsent(message.tenant_id, message.id, unsent)
            logger.warning(
                "first envelopes left to the outbox", extra={"message_id": message.id, "unsent": unsent}
            )

    def _log(self, message: Message, targets: list[Subscription]) -> None:
        # One record per destination, or one without a subscription for a message routed nowhere.
        none: list[Subscription | None] = [None]
        for target in [*targets] or none:
            self.log.add(
                LogRecord(
                    event="published",
                    message_id=message.id,
                    correlation_id=message.correlation_id,
                    tenant_id=message.tenant_id,
                    room_id=message.room_id,
                    subscription_id=target.id if target else None,
                    subscription_type=target.type.value if target else None,
                    published_at=message.published_at,
                    timestamp=message.published_at,
                )
            )
