"""The outbox: first envelopes a publish stored but could not send (an SQS outage, a PULL queue
deleted between routing and sending), sent from the table's stream.

A message item whose first envelopes were not all sent carries ``outbox`` = ``unsent`` and the
destinations in ``unsent`` (roomcast.delivery.publishing); the stream hands such changes here.
Each destination is sent again, unless its subscription (or its PULL queue) is gone: then its
delivery ends ``cleared``, as Clear All ends one, never ``pending`` for ever. Once every
destination is sent or cleared the marks are removed. Anything else that fails raises: the
stream hands the change back, so a message stored with a 202 is never left unsent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from roomcast.dal import items
from roomcast.dal.messages import UNSENT_ATTRIBUTE, message_from_item
from roomcast.dal.ports import Catalog, MessageRecords, Sender
from roomcast.dal.sender import Destinations, Outgoing
from roomcast.dal.stores import Stores
from roomcast.delivery.log import LogRecord, LogSink
from roomcast.domain.envelope import first_envelope
from roomcast.domain.messages import DeliveryStatus, Message
from roomcast.domain.models import Subscription, SubscriptionType
from roomcast.errors import NotFound

GONE = "the subscription or its queue was deleted before the message could be sent"


class OutboxSendFailed(RuntimeError):
    """Some envelopes could still not be sent: the stream record is handed back and retried."""


@dataclass(frozen=True)
class OutboxResult:
    sent: list[str]
    cleared: list[str]


@dataclass
class OutboxService:
    catalog: Catalog
    messages: MessageRecords
    sender: Sender
    destinations: Destinations
    log: LogSink

    @classmethod
    def of(cls, stores: Stores) -> OutboxService:
        return cls(stores.catalog, stores.messages, stores.sender, stores.destinations, stores.log)

    def send_unsent(self, new_image: items.AttributeMap) -> OutboxResult:
        """Send (or clear) the unsent destinations of the message item in a stream record."""
        item = items.from_attributes(new_image)
        unsent_ids: list[str] = [str(i) for i in item.get(UNSENT_ATTRIBUTE) or []]
        message = message_from_item(item)
        subscriptions = self._subscriptions(message)
        outgoing: list[Outgoing] = []
        gone: list[str] = []
        for subscription_id in unsent_ids:
            subscription = subscriptions.get(subscription_id)
            if subscription is None or (
                subscription.type is SubscriptionType.PULL and not subscription.queue_url
            ):
                gone.append(subscription_id)
            else:
                outgoing.append(
                    self.destinations.outgoing_for(subscription, first_envelope(message, subscription_id))
                )
        failed = self.sender.try_send(outgoing)
        gone += [u.subscription_id for u in failed if u.queue_missing and u.subscription_id]
        still = [u for u in failed if not u.queue_missing]
        self._clear(message, gone, {s.id: s.type for s in subscriptions.values()})
        if still:
            raise OutboxSendFailed(f"{len(still)} envelopes of {message.id} not sent: {still[0].reason}")
        self.messages.mark_sent(message.tenant_id, message.id)
        not_sent = {u.subscription_id for u in failed}
        return OutboxResult([s for s in unsent_ids if s not in not_sent and s not in gone], gone)

    def _subscriptions(self, message: Message) -> dict[str, Subscription]:
        try:
            return {s.id: s for s in self.catalog.all_subscriptions(message.tenant_id, message.room_id)}
        except NotFound:  # the room is gone, and its subscriptions with it
            return {}

    def _clear(
        self, message: Message, subscription_ids: Sequence[str], types: dict[str, SubscriptionType]
    ) -> None:
        for subscription_id in subscription_ids:
            envelope = first_envelope(message, subscription_id)
            kind = types.get(subscription_id, SubscriptionType.PULL)
            self.messages.update_delivery(envelope.record(kind, DeliveryStatus.CLEARED, 0, GONE))
            self.log.add(LogRecord.about(envelope, "cleared", kind.value, attempt=0, error=GONE))
