"""Sending ordered deliveries in their key's turn (docs/decisions/0041-ordering-keys.md). The
outbox function calls it for the table's stream records — a message stored with ordered
destinations (each destination's key gets an ``Arrived``), an ordered delivery's record reaching
its end (an ``Ended``) — and the management API for an operator's resume. Each key step
(roomcast.ordering.steps) answers the message to send now, if any; it is sent here, from the
stored message, unless its record ended meanwhile (its own ending then moves the key on)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from roomcast.catalog import Catalog, Subscription, SubscriptionType
from roomcast.messages import (
    HANDED_TO_FAILOVER,
    TERMINAL_STATUSES,
    Delivery,
    DeliveryStatus,
    Message,
    MessageRecords,
    Outgoing,
    QueueAddresses,
    Sender,
    first_envelope,
)
from roomcast.ordering.model import Arrived, Ended, KeyEvent, KeyRef
from roomcast.ordering.steps import KeySteps
from roomcast.platform import NotFound, logger, now_ms


@dataclass
class OrderedSends:
    keys: KeySteps
    catalog: Catalog
    messages: MessageRecords
    sender: Sender
    addresses: QueueAddresses
    clock: Callable[[], int] = now_ms
    # Subscriptions read so far, by (tenant, room, subscription); None: deleted. Only in a copy
    # made for one invocation's records (``for_invocation``): a step never acts on an older read.
    remembered: dict[tuple[str, str, str], Subscription | None] | None = None
    # Envelopes held back until ``send_held`` (also only in a copy for one invocation): the steps of
    # a stream batch send ten envelopes an SQS call rather than one each. None: each goes at once.
    held: list[Outgoing] | None = None
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def for_invocation(self) -> OrderedSends:
        """A copy for the records of one invocation: it reads each subscription once, and holds its
        envelopes back until ``send_held`` (which the invocation must call before it answers)."""
        keys = KeySteps(self.keys.keys.holding())
        return replace(self, keys=keys, remembered={}, held=[], _reading=threading.Lock())

    def send_held(self) -> None:
        """Send the envelopes held back, ten an SQS call, and delete the places held back; raises
        when an envelope could not be sent, so that the invocation fails and the stream hands its
        records back: each step's trigger then finds its own claim and sends again (a duplicate at
        worst, never a key left claimed with nothing in flight)."""
        with self._reading:
            held, self.held = list(self.held or []), ([] if self.held is not None else None)
        if held:
            self.sender.send(held)
        self.keys.keys.forget_held()

    def _send(self, outgoing: Outgoing) -> None:
        if self.held is None:
            self.sender.send([outgoing])
            return
        with self._reading:
            self.held.append(outgoing)

    def arrived(self, message: Message) -> list[str]:
        """A message stored with ordered destinations: each one's key goes on if it was free (the
        oldest waiting message is sent, not necessarily this one); the messages sent."""
        key = message.ordering_key
        if key is None:
            return []
        sent: list[str] = []
        for subscription_id in message.ordered_to:
            ref = KeyRef(message.tenant_id, message.room_id, subscription_id, key)
            sent += self._step(ref, Arrived(message.id), message.ordering_number or 0, known=message)
        return sent

    def recorded(self, delivery: Delivery) -> list[str]:
        """An ordered delivery's record reached its end: its key goes on (or pauses on it). A
        record written ``waiting`` (a message handed to an ordered failover) arrives in its line."""
        slot = delivery.ordering
        if slot is None:
            return []
        ref = KeyRef(delivery.tenant_id, slot.room_id, delivery.subscription_id, slot.key)
        if delivery.status is DeliveryStatus.WAITING:
            return self._step(ref, Arrived(delivery.message_id))
        if delivery.status not in TERMINAL_STATUSES:
            return []
        return self._step(ref, _ending(delivery), slot.number)

    def _step(self, ref: KeyRef, event: KeyEvent, number: int = 0, known: Message | None = None) -> list[str]:
        subscription = self._subscription(ref)
        if subscription is None:
            return []  # deleted: its deliveries end cleared by the sweep, its keys with them
        return self._step_for(subscription, ref, event, number, known)

    def _subscription(self, ref: KeyRef) -> Subscription | None:
        known = (ref.tenant_id, ref.room_id, ref.subscription_id)
        if self.remembered is None:
            return self._read_subscription(known)
        with self._reading:  # steps run side by side: the first reads, the others wait for it
            if known not in self.remembered:
                self.remembered[known] = self._read_subscription(known)
            return self.remembered[known]

    def _read_subscription(self, known: tuple[str, str, str]) -> Subscription | None:
        try:
            return self.catalog.get_subscription(*known)
        except NotFound:
            return None

    def _step_for(
        self,
        subscription: Subscription,
        ref: KeyRef,
        event: KeyEvent,
        number: int,
        known: Message | None = None,
    ) -> list[str]:
        steps = self.keys.step(ref, event, subscription.on_dead_key, self.clock(), number)
        to_send = steps.sends
        if to_send is None:
            return []
        if known is not None and known.id == to_send and steps.replay is None:
            sent = self._send_arrived(subscription, known)
        else:
            outcome = self._send_in_turn(subscription, to_send, again=steps.replay is not None)
            if isinstance(outcome, Delivery) and steps.claim == to_send:
                # Claimed a message whose record had ended: its ending moves the key on now (the
                # same step its own record makes, which then finds the key moved). Its place was
                # still in line: an ending on its way, or a place whose deletion was lost.
                return self._step_for(subscription, ref, _ending(outcome), 0)
            sent = outcome is True
        return [to_send] if sent else []

    def _send_arrived(self, subscription: Subscription, message: Message) -> bool:
        """The message that just arrived is its key's turn: its envelope from the stored message the
        stream handed over, without reading it again. Its record was written ``waiting`` with it; an
        ending since (an expiry, a Clear All, a deletion) is one the envelope's own checks see."""
        if not _reachable(subscription):
            return False
        self._send(self.addresses.outgoing_for(subscription, first_envelope(message, subscription.id)))
        return True

    def send_in_turn(self, subscription: Subscription, message_id: str, *, again: bool) -> bool:
        """Send a message's envelope to the subscription in its key's turn; ``again``: a dead one
        resumed (its record back to pending first; not sent unless its record is dead: a replay of
        it is on its way, whose ending moves the key on). False when it was not sent: it ended
        meanwhile, or is gone."""
        return self._send_in_turn(subscription, message_id, again=again) is True

    def _send_in_turn(self, subscription: Subscription, message_id: str, *, again: bool) -> bool | Delivery:
        """``send_in_turn``; when it was not sent because its record had ended, that record."""
        try:
            tracked = self.messages.get_message(subscription.tenant_id, message_id)
        except NotFound:
            logger.warning("an ordered message is gone", extra={"messageId": message_id})
            return False
        record = next((d for d in tracked.deliveries if d.subscription_id == subscription.id), None)
        if record is None:
            return False
        if record.status in TERMINAL_STATUSES and not again:
            return record  # ended: its ending moves the key on
        if again and record.status is not DeliveryStatus.DEAD:
            return False  # replayed from the dead letters meanwhile: that replay sends it
        if not _reachable(subscription):
            return False
        envelope = first_envelope(tracked.message, subscription.id)
        if record.ordering is not None:  # (an ordered failover's: not one of the message's own)
            envelope = replace(
                envelope, ordering_key=record.ordering.key, ordering_number=record.ordering.number
            )
        if again:
            resumed = envelope.record(subscription.type, DeliveryStatus.PENDING, 0, "resumed after dead")
            self.messages.update_delivery(resumed, force=True)
        self._send(self.addresses.outgoing_for(subscription, envelope))
        return True


def _ending(delivery: Delivery) -> Ended:
    """A key's event for a delivery's record that reached its end (a DEAD one that handed the
    message to the failover is not a dead letter)."""
    failed_over = delivery.status is DeliveryStatus.DEAD and HANDED_TO_FAILOVER in (delivery.last_error or "")
    return Ended(delivery.message_id, delivery.status, delivery.last_error, failed_over)


def _reachable(subscription: Subscription) -> bool:
    """Whether an envelope can be sent to it (a PULL subscription whose queue is gone cannot)."""
    return not (subscription.type is SubscriptionType.PULL and not subscription.queue_url)
