"""The outbox: every delivery a stored message owes is sent, or ends.

- **Unsent marks** (the table's stream): a message item whose first envelopes were not all sent
  carries ``outbox`` = ``unsent`` and the destinations in ``unsent`` (roomcast.publishing.publisher).
- **Publish checks** (the outbox queue, after the settle time): a publish request that did not
  record its first sends done died between storing and sending; the messages it stored are sent.
- **Sweeps** (the outbox queue, at a subscription's or room's deletion and again after the settle
  time): the open deliveries of deleted subscriptions end ``cleared``.
- **Releases** (the outbox queue, or a schedule that puts them there): a scheduled message's time
  has come; its first envelopes are sent (roomcast.deliver_at.rules). A scheduled message met by
  an unsent mark or a publish check has its release armed instead.

Each destination is sent again, unless its subscription (or its PULL queue) is gone: then its
delivery ends ``cleared``, as Clear All ends one, never ``pending`` for ever. Anything else that
fails raises: the record is handed back (stream or queue), so nothing owed is left undone.
See docs/decisions/0018-signed-receipts-and-outbox.md and 0028-every-delivery-ends.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass

from roomcast.catalog import Subscription, SubscriptionType
from roomcast.deliver_at import LAST_STRETCH_MS, ScheduledRecords
from roomcast.endings import end_cleared
from roomcast.log import LogEvent, LogRecord
from roomcast.messages import (
    UNSENT_ATTRIBUTE,
    Delivery,
    DeliveryStatus,
    Message,
    Outgoing,
    OwedFilter,
    first_envelope,
    message_from_item,
)
from roomcast.outbox import PublishCheck, Release, Sweep
from roomcast.platform import NotFound, Position, items, now_ms
from roomcast.publishing import MessageSending, release_of

GONE = "the subscription or its queue was deleted before the message could be sent"
# Messages of a room a sweep looks at per page, and how long one invocation sweeps before it
# hands the rest on (well inside the function's 60 s timeout).
SWEEP_PAGE_MESSAGES = 100
SWEEP_BUDGET_SECONDS = 20.0


class OutboxSendFailed(RuntimeError):
    """Some envelopes could still not be sent: the record is handed back and retried."""


@dataclass(frozen=True)
class OutboxResult:
    sent: list[str]
    cleared: list[str]


@dataclass
class OutboxService(MessageSending):
    monotonic: Callable[[], float] = time.monotonic
    clock: Callable[[], int] = now_ms
    sleep: Callable[[float], None] = time.sleep  # a release's last stretch (LAST_STRETCH_MS)
    _: KW_ONLY
    scheduled: ScheduledRecords  # the scheduled messages it releases

    def send_unsent(self, new_image: items.AttributeMap) -> OutboxResult:
        """Send (or clear) the unsent destinations of the message item in a stream record; arm a
        scheduled message's release."""
        item = items.from_attributes(new_image)
        unsent_ids: list[str] = [str(i) for i in item.get(UNSENT_ATTRIBUTE) or []]
        message = message_from_item(item)
        if message.deliver_at_ms is not None:
            self._arm(message)
            result = OutboxResult([], [])
        else:
            result = self._send(message, unsent_ids)
        self.marks.mark_sent(message.tenant_id, message.id)
        return result

    def release(self, task: Release) -> OutboxResult:
        """A scheduled message's release: a second or more early, it waits on the queue; less, it
        waits out the rest here (SQS delays count whole seconds). On time, the message is marked
        released by this release (unless cancelled, or released by another) and its first
        envelopes are sent, each destination gone meanwhile cleared; then the release is recorded
        done, so that the task, handed back after a crash, sends again but never after that."""
        now = self.clock()
        if task.due_at_ms - now >= LAST_STRETCH_MS:
            if self.outbox.release([task], now):
                raise OutboxSendFailed(f"the release of {task.message_id} could not wait on")
            return OutboxResult([], [])
        if task.due_at_ms > now:
            self.sleep((task.due_at_ms - now) / 1000)
        if self.marks.sends_done(task.tenant_id, [task.release_id]):
            return OutboxResult([], [])
        message = self.scheduled.claim_release(task.tenant_id, task.message_id, task.release_id)
        if message is None:  # cancelled, released by another release, or gone
            return OutboxResult([], [])
        result = self._send(message, list(message.destinations))
        self.marks.mark_sends_done(task.tenant_id, [task.release_id])
        return result

    def _arm(self, message: Message) -> None:
        """Arm a scheduled message's release (nothing for one released or cancelled already)."""
        if message.scheduled and self.outbox.release([release_of(message)], self.clock()):
            raise OutboxSendFailed(f"the release of {message.id} could not be armed")

    def check_publish(self, check: PublishCheck) -> OutboxResult:
        """Finish the sends of a publish request that died before recording them done: each
        destination of each message it stored whose record never moved (a moved one got its
        envelope) is sent its first envelope again, or cleared when gone. At worst a duplicate."""
        if self.marks.sends_done(check.tenant_id, [check.request_id]):
            return OutboxResult([], [])
        finished = self.marks.sends_done(check.tenant_id, check.message_ids)
        sent: list[str] = []
        cleared: list[str] = []
        for message_id in (m for m in check.message_ids if m not in finished):
            try:
                tracked = self.messages.get_message(check.tenant_id, message_id)
            except NotFound:  # never stored (the request died first, or stored nothing here)
                continue
            if tracked.message.request_id not in (None, check.request_id):
                continue  # stored by another request (a keyed retry): that request answers for it
            if tracked.message.deliver_at_ms is not None:
                self._arm(tracked.message)  # a scheduled message: its release sends it
                continue
            waiting = [d for d in tracked.deliveries if _never_moved(d)]
            kinds = {d.subscription_id: d.subscription_type for d in waiting}
            result = self._send(tracked.message, list(kinds), kinds)
            sent += result.sent
            cleared += result.cleared
        self.marks.mark_sends_done(check.tenant_id, [check.request_id])
        return OutboxResult(sent, cleared)

    def sweep(self, sweep: Sweep) -> int:
        """End the open deliveries of a sweep's deleted subscriptions ``cleared``, page by page,
        and send the sweep on where it stopped when its time is up. A subscription still there
        (its deletion failed, or has not happened yet) is left alone. Returns how many ended."""
        gone = dict(sweep.subscriptions)
        if self._room_still_there(sweep):
            gone = {i: t for i, t in gone.items() if not self._still_there(sweep, i)}
        if not gone:
            return 0
        started = self.monotonic()
        position: Position | None = (sweep.position,) if sweep.position else None
        ended = 0
        while True:
            owed = OwedFilter(sweep.room_id, gone)
            page = self.messages.open_deliveries(sweep.tenant_id, owed, position, SWEEP_PAGE_MESSAGES)
            found, reason, known = page.found, sweep.reason, page.messages
            ended += end_cleared(self.messages, self.log, sweep.tenant_id, found, reason, known)
            position = page.next_position
            if position is None:
                return ended
            if self.monotonic() - started > SWEEP_BUDGET_SECONDS:
                self.outbox.now(sweep.resumed_at(position[0]))
                return ended

    def _room_still_there(self, sweep: Sweep) -> bool:
        try:
            self.catalog.get_room(sweep.tenant_id, sweep.room_id)
        except NotFound:
            return False
        return True

    def _still_there(self, sweep: Sweep, subscription_id: str) -> bool:
        try:
            self.catalog.get_subscription(sweep.tenant_id, sweep.room_id, subscription_id)
        except NotFound:
            return False
        return True

    def _send(
        self,
        message: Message,
        subscription_ids: Sequence[str],
        kinds: Mapping[str, SubscriptionType] | None = None,
    ) -> OutboxResult:
        """Send a message's first envelope to each of these destinations, clearing those whose
        subscription or PULL queue is gone (``kinds``: their types, as far as known); raises when
        SQS refused some (after clearing)."""
        # An ordered destination is sent in its key's turn (roomcast.ordering.sends).
        subscription_ids = [s for s in subscription_ids if s not in message.ordered_to]
        subscriptions = self._subscriptions(message)
        outgoing: list[Outgoing] = []
        gone: list[str] = []
        for subscription_id in subscription_ids:
            subscription = subscriptions.get(subscription_id)
            if subscription is None or (
                subscription.type is SubscriptionType.PULL and not subscription.queue_url
            ):
                gone.append(subscription_id)
            else:
                outgoing.append(
                    self.addresses.outgoing_for(subscription, first_envelope(message, subscription_id))
                )
        failed = self.sender.try_send(outgoing)
        gone += [u.subscription_id for u in failed if u.queue_missing and u.subscription_id]
        still = [u for u in failed if not u.queue_missing]
        self._clear(message, gone, {**(kinds or {}), **{s.id: s.type for s in subscriptions.values()}})
        if still:
            raise OutboxSendFailed(f"{len(still)} envelopes of {message.id} not sent: {still[0].reason}")
        not_sent = {u.subscription_id for u in failed}
        return OutboxResult([s for s in subscription_ids if s not in not_sent and s not in gone], gone)

    def _subscriptions(self, message: Message) -> dict[str, Subscription]:
        try:
            return {s.id: s for s in self.catalog.all_subscriptions(message.tenant_id, message.room_id)}
        except NotFound:  # the room is gone, and its subscriptions with it
            return {}

    def _clear(
        self, message: Message, subscription_ids: Sequence[str], types: Mapping[str, SubscriptionType]
    ) -> None:
        for subscription_id in subscription_ids:
            envelope = first_envelope(message, subscription_id)
            kind = types.get(subscription_id, SubscriptionType.PULL)
            self.messages.update_delivery(envelope.record(kind, DeliveryStatus.CLEARED, 0, GONE))
            self.log.add(LogRecord.about(envelope, LogEvent.CLEARED, kind, attempt=0, error=GONE))


def _never_moved(delivery: Delivery) -> bool:
    """A destination still at its first record: pending, no attempt made (its envelope may never
    have been sent)."""
    return delivery.status is DeliveryStatus.PENDING and delivery.attempts == 0 and not delivery.history
