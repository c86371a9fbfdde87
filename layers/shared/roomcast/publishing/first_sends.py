"""A publish's first envelopes: one per destination, sent together (10 per SQS call, per queue, in
parallel); what SQS refuses (an outage, a PULL queue deleted since routing) or a destination no
longer routed is left to the outbox — marked on the message item, sent (or ended cleared) by the
outbox function from the table's stream. The message is accepted either way: it is stored and will
be sent or end cleared. One ``published`` log line per destination (or one for a message routed
nowhere), once it is answered.

A scheduled message's first sends wait for its deliverAt: here its release is armed (one task on
the outbox queue, roomcast.outbox.queue), and the release sends the envelopes then. A release
that could not be armed is left to the outbox like an unsent envelope: the outbox arms it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass

from roomcast.catalog import Catalog, Subscription
from roomcast.log import LogEvent, LogRecord, LogSink
from roomcast.messages import Envelope, Message, MessageRecords, QueueAddresses, Sender, first_envelope
from roomcast.outbox import OutboxQueue, Release
from roomcast.platform import ids, logger
from roomcast.publishing.ports import PublishMarkRecords


def release_of(message: Message) -> Release:
    """A new release of a scheduled message, due at its deliverAt."""
    due_at_ms = message.sent_from_ms
    return Release(message.tenant_id, message.room_id, message.id, due_at_ms, ids.new_release_id())


@dataclass(frozen=True)
class Routed:
    """A stored message and the destinations its first envelopes go to."""

    message: Message
    destinations: Sequence[Subscription]


@dataclass
class FirstSends:
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    outbox: OutboxQueue
    marks: PublishMarkRecords

    def send(self, routed: Sequence[Routed], direct: bool, request_id: str, now_ms: int) -> list[bool]:
        """Send each message's first envelopes and leave what was not sent to the outbox; whether
        each message was answered (its outbox mark, when it needs one, written). Not ``direct``
        (the publish check could not be sent): nothing is sent here, the outbox sends it all —
        messages of this request were stored marked, one an earlier try stored is marked now."""
        unsent: dict[str, list[str]] = defaultdict(list)
        if direct:
            outgoing = [
                self.addresses.outgoing_for(s, first_envelope(one.message, s.id))
                for one in routed
                for s in one.destinations
                if not one.message.scheduled and s.id not in one.message.ordered_to  # in its key's turn
            ]
            for refused in self.sender.try_send(outgoing):
                if isinstance(refused.outgoing.envelope, Envelope) and refused.subscription_id:
                    unsent[refused.outgoing.envelope.message_id].append(refused.subscription_id)
            releases = [release_of(one.message) for one in routed if one.message.scheduled]
            for release in self.outbox.release(releases, now_ms) if releases else []:
                unsent[release.message_id] += [s.id for s in routed_to(routed, release.message_id)]
        answered = []
        for one in routed:
            message = one.message
            if direct:
                sent_to = {s.id for s in one.destinations}
                left = list(dict.fromkeys(unsent.get(message.id, [])))
                left += [i for i in message.destinations if i not in sent_to]
            else:
                left = list(message.destinations) if message.request_id != request_id else []
            try:
                self._leave_to_outbox(message, left)
            except Exception:
                logger.exception(
                    "marking a message's unsent envelopes failed", extra={"message_id": message.id}
                )
                answered.append(False)
                continue
            self._log(message, one.destinations)
            answered.append(True)
        return answered

    def _leave_to_outbox(self, message: Message, unsent: Sequence[str]) -> None:
        if unsent:
            self.marks.mark_unsent(message.tenant_id, message.id, unsent)
            logger.warning(
                "first envelopes left to the outbox", extra={"message_id": message.id, "unsent": list(unsent)}
            )

    def _log(self, message: Message, subscriptions: Sequence[Subscription]) -> None:
        # One record per destination, or one without a subscription for a message routed nowhere.
        none: list[Subscription | None] = [None]
        for subscription in [*subscriptions] or none:
            self.log.add(
                LogRecord(
                    event=LogEvent.PUBLISHED,
                    message_id=message.id,
                    correlation_id=message.correlation_id,
                    tenant_id=message.tenant_id,
                    room_id=message.room_id,
                    subscription_id=subscription.id if subscription else None,
                    subscription_type=subscription.type if subscription else None,
                    published_at=message.published_at,
                    timestamp=message.published_at,
                )
            )


@dataclass
class MessageSending:
    """What stores a room's messages and sends, logs or leaves to the outbox their envelopes: the
    collaborators of the publisher and of the outbox function, which finishes what a publish left."""

    catalog: Catalog
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    log: LogSink
    outbox: OutboxQueue
    _: KW_ONLY
    marks: PublishMarkRecords  # what a publish records of its sends

    def first_sends(self) -> FirstSends:
        return FirstSends(self.messages, self.sender, self.addresses, self.log, self.outbox, self.marks)


def routed_to(routed: Sequence[Routed], message_id: str) -> Sequence[Subscription]:
    return next((one.destinations for one in routed if one.message.id == message_id), ())
