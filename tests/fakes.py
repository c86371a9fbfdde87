"""In-memory stand-ins for the data-access interfaces (each capability's ``ports`` module), for service tests.

They keep the rules the real stores enforce that services rely on — tenant-scoped keys,
NotFound for what is missing, optimistic locking on subscriptions, a delivery record that
never leaves a terminal status — and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from roomcast.catalog.model import Room, Subscription, SubscriptionStatus
from roomcast.catalog.ports import FailoverLink
from roomcast.dead_letters.ports import Claimed, DeadLetter, ReplayClaim
from roomcast.flow.ports import FlowKey, RateAnswer, RateKey
from roomcast.flow.rules import live_leases, reserve_start
from roomcast.jobs.model import Job
from roomcast.log.records import LogRecord
from roomcast.messages.deliveries import RETRY_CLAIM_MS
from roomcast.messages.first_tries import one_per_destination
from roomcast.messages.model import (
    TERMINAL_STATUSES,
    Delivery,
    DeliveryStatus,
    Message,
    MessageFilter,
    OwedFilter,
    TrackedMessage,
)
from roomcast.messages.ports import DeliveryPage, MessageExists, Outgoing, Unsent
from roomcast.platform.clock import iso_from_ms
from roomcast.platform.errors import Conflict, LimitExceeded, NotFound
from roomcast.platform.pages import Page, Position
from roomcast.pull.ports import PullQueues, Received


def _page[T](items: list[T], limit: int, start: Position | None) -> Page[T]:
    """A page from ``start`` (the offset a previous page answered as its position)."""
    first = int(start[0]) if start else 0
    end = first + limit
    return Page(items[first:end], (str(end),) if end < len(items) else None)


@dataclass
class FakeCatalog:
    rooms: dict[tuple[str, str], Room] = field(default_factory=dict)
    subscriptions: dict[tuple[str, str, str], Subscription] = field(default_factory=dict)

    def create_room(self, room: Room) -> None:
        self.rooms[(room.tenant_id, room.id)] = room

    def get_room(self, tenant_id: str, room_id: str) -> Room:
        try:
            return self.rooms[(tenant_id, room_id)]
        except KeyError:
            raise NotFound(f"room {room_id} not found") from None

    def list_rooms(self, tenant_id: str, limit: int, start: Position | None) -> Page[Room]:
        found = sorted((r for (t, _), r in self.rooms.items() if t == tenant_id), key=lambda r: r.id)
        return _page(found, limit, start)

    def replace_room(self, room: Room) -> None:
        self.get_room(room.tenant_id, room.id)
        self.rooms[(room.tenant_id, room.id)] = room

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        self.rooms.pop((tenant_id, room_id), None)

    def create_subscription(self, subscription: Subscription) -> None:
        self.get_room(subscription.tenant_id, subscription.room_id)
        self.subscriptions[(subscription.tenant_id, subscription.room_id, subscription.id)] = subscription

    def get_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        try:
            return self.subscriptions[(tenant_id, room_id, subscription_id)]
        except KeyError:
            raise NotFound(f"subscription {subscription_id} not found in room {room_id}") from None

    def list_subscriptions(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[Subscription]:
        return _page(self.all_subscriptions(tenant_id, room_id), limit, start)

    def all_subscriptions(self, tenant_id: str, room_id: str) -> list[Subscription]:
        found = (s for (t, r, _), s in self.subscriptions.items() if (t, r) == (tenant_id, room_id))
        return sorted(found, key=lambda s: s.id)

    def count_subscriptions(self, tenant_id: str, room_id: str) -> int:
        return len(self.all_subscriptions(tenant_id, room_id))

    def routing_view(self, tenant_id: str, room_id: str) -> tuple[Room, list[Subscription]]:
        return self.get_room(tenant_id, room_id), self.all_subscriptions(tenant_id, room_id)

    def replace_subscription(self, subscription: Subscription, expected_updated_at: str) -> None:
        key = (subscription.tenant_id, subscription.room_id, subscription.id)
        current = self.subscriptions.get(key)
        if current is None or current.updated_at != expected_updated_at:
            raise Conflict(f"subscription {subscription.id} was changed or deleted meanwhile; read it again")
        self.subscriptions[key] = subscription

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        self.subscriptions.pop((tenant_id, room_id, subscription_id), None)

    def raise_cleared_watermark(
        self, subscription: Subscription, cleared_before_ms: int, updated_at: str
    ) -> None:
        key = (subscription.tenant_id, subscription.room_id, subscription.id)
        current = self.subscriptions.get(key)
        if current is None:
            raise NotFound(f"subscription {subscription.id} not found")
        if current.cleared_before_ms is None or current.cleared_before_ms < cleared_before_ms:
            self.subscriptions[key] = replace(
                current, cleared_before_ms=cleared_before_ms, updated_at=updated_at
            )

    def mark_failing(self, subscription: Subscription, now_ms: int) -> int:
        return self._start(subscription, "failing_since_ms", now_ms)

    def clear_failing(self, subscription: Subscription) -> None:
        self._end(subscription, "failing_since_ms")
        self._end(subscription, "failing_warned_at_ms")

    def warn_failing(self, subscription: Subscription, now_ms: int) -> bool:
        return self._start(subscription, "failing_warned_at_ms", now_ms) == now_ms

    def claim_probe(self, subscription: Subscription, chain_ms: int, attempt: int) -> bool:
        key = (subscription.tenant_id, subscription.room_id, subscription.id)
        current = self.subscriptions.get(key)
        if current is None or current.status is not SubscriptionStatus.DISABLED:
            return False
        if current.probing_since_ms != chain_ms or current.probe_attempts != attempt:
            return False
        self.subscriptions[key] = replace(current, probe_attempts=attempt + 1)
        return True

    def mark_slow(self, subscription: Subscription, now_ms: int) -> int:
        return self._start(subscription, "slow_since_ms", now_ms)

    def clear_slow(self, subscription: Subscription) -> None:
        self._end(subscription, "slow_since_ms")

    def _start(self, subscription: Subscription, mark: str, now_ms: int) -> int:
        key = (subscription.tenant_id, subscription.room_id, subscription.id)
        current = self.subscriptions.get(key)
        if current is None:
            return now_ms
        since: int = getattr(current, mark) or now_ms
        self.subscriptions[key] = _with_mark(current, mark, since)
        return since

    def _end(self, subscription: Subscription, mark: str) -> None:
        key = (subscription.tenant_id, subscription.room_id, subscription.id)
        if key in self.subscriptions:
            self.subscriptions[key] = _with_mark(self.subscriptions[key], mark, None)

    # Rooms being deleted take no new subscription (the room item's mark in DynamoDB).
    deleting: set[tuple[str, str]] = field(default_factory=set)
    deletion_jobs: dict[tuple[str, str], str] = field(default_factory=dict)

    def start_room_deletion(self, tenant_id: str, room_id: str, started_at: str, job_id: str) -> str:
        self.get_room(tenant_id, room_id)
        self.deleting.add((tenant_id, room_id))
        return self.deletion_jobs.setdefault((tenant_id, room_id), job_id)

    def add_subscription(
        self, subscription: Subscription, max_per_room: int | None, failover_chain: Sequence[FailoverLink]
    ) -> None:
        tenant_id, room_id = subscription.tenant_id, subscription.room_id
        if (tenant_id, room_id) in self.deleting:
            raise NotFound(f"room {room_id} not found")
        self.get_room(tenant_id, room_id)
        held = sum(1 for (t, r, _) in self.subscriptions if (t, r) == (tenant_id, room_id))
        if max_per_room is not None and held >= max_per_room:
            raise LimitExceeded(f"a room holds at most {max_per_room} subscriptions")
        self._check_unchanged(tenant_id, room_id, failover_chain)
        self.create_subscription(subscription)

    def replace_subscription_checked(
        self, subscription: Subscription, expected_updated_at: str, failover_chain: Sequence[FailoverLink]
    ) -> None:
        self._check_unchanged(subscription.tenant_id, subscription.room_id, failover_chain)
        self.replace_subscription(subscription, expected_updated_at)

    def _check_unchanged(self, tenant_id: str, room_id: str, chain: Sequence[FailoverLink]) -> None:
        for link in chain:
            current = self.subscriptions.get((tenant_id, room_id, link.subscription_id))
            if current is None or current.failover_subscription_id != link.failover_subscription_id:
                raise Conflict(f"the failover chain changed at {link.subscription_id}; read it again")


@dataclass
class FakeMessages:
    messages: dict[tuple[str, str], Message] = field(default_factory=dict)
    # Every record ever written, in order; ``current`` is the latest per destination.
    written: list[Delivery] = field(default_factory=list)
    # The outbox: (tenant, message) -> destinations whose first envelope was not sent.
    unsent: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # Publish units (requests, or messages a retry finished) whose first sends are recorded done.
    done_marks: set[tuple[str, str]] = field(default_factory=set)
    # Retry-now claims: (tenant, message, subscription) -> (claim, when).
    claims: dict[tuple[str, str, str], tuple[str, int]] = field(default_factory=dict)
    ordering_numbers: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def current(self, tenant_id: str, message_id: str, subscription_id: str) -> Delivery | None:
        found = [
            d
            for d in self.written
            if (d.tenant_id, d.message_id, d.subscription_id) == (tenant_id, message_id, subscription_id)
        ]
        return found[-1] if found else None

    def put_message(
        self,
        message: Message,
        deliveries: Sequence[Delivery],
        *,
        if_new: bool = False,
        left_to_outbox: bool = False,
    ) -> int:
        if if_new and (message.tenant_id, message.id) in self.messages:
            raise MessageExists(message.id, self.messages[(message.tenant_id, message.id)])
        self.messages[(message.tenant_id, message.id)] = message
        self.written.extend(deliveries)
        if left_to_outbox and message.destinations:
            self.unsent[(message.tenant_id, message.id)] = list(message.destinations)
        return 1

    def put_messages(
        self,
        batch: Sequence[tuple[Message, Sequence[Delivery]]],
        *,
        if_new: bool = False,
        left_to_outbox: bool = False,
        places: Callable[[Message], Sequence[Mapping[str, Any]]] | None = None,
    ) -> dict[str, Exception]:
        failed: dict[str, Exception] = {}
        for message, deliveries in batch:
            try:
                self.put_message(message, deliveries, if_new=if_new, left_to_outbox=left_to_outbox)
            except MessageExists as error:
                failed[message.id] = error
        return failed

    def mark_sends_done(self, tenant_id: str, units: Sequence[str]) -> None:
        self.done_marks.update((tenant_id, unit) for unit in units)

    def take_ordering_numbers(
        self, tenant_id: str, room_id: str, counts: Mapping[str, int]
    ) -> dict[str, int]:
        for ordering_key, count in counts.items():
            key = (tenant_id, room_id, ordering_key)
            self.ordering_numbers[key] = self.ordering_numbers.get(key, 0) + count
        return {k: self.ordering_numbers[(tenant_id, room_id, k)] for k in counts}

    def sends_done(self, tenant_id: str, units: Sequence[str]) -> set[str]:
        return {unit for unit in units if (tenant_id, unit) in self.done_marks}

    def mark_unsent(self, tenant_id: str, message_id: str, subscription_ids: Sequence[str]) -> None:
        self.unsent[(tenant_id, message_id)] = list(subscription_ids)

    def mark_sent(self, tenant_id: str, message_id: str) -> None:
        self.unsent.pop((tenant_id, message_id), None)

    def record_first_tries(self, deliveries: Sequence[Delivery]) -> None:
        # Delivered: a put, the record (and its history) as given; retrying: as update_delivery.
        for delivery in one_per_destination(deliveries):
            if delivery.status is DeliveryStatus.DELIVERED:
                self.written.append(delivery)
            else:
                self._update(delivery)

    def update_delivery(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool:
        return self._update(delivery, force=force, only_if_attempts_below=only_if_attempts_below)

    def _update(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool:
        current = self.current(delivery.tenant_id, delivery.message_id, delivery.subscription_id)
        if current is not None and not force:
            if current.status in TERMINAL_STATUSES:
                return False
            if only_if_attempts_below is not None and current.attempts >= only_if_attempts_below:
                return False
        kept = current.history if current is not None else ()
        self.written.append(replace(delivery, history=kept + delivery.history))
        return True

    def update_deliveries(self, deliveries: Sequence[Delivery]) -> dict[str, DeliveryStatus]:
        ended: dict[str, DeliveryStatus] = {}
        for delivery in deliveries:
            current = self.current(delivery.tenant_id, delivery.message_id, delivery.subscription_id)
            if not self.update_delivery(delivery) and current is not None:
                ended[delivery.message_id] = current.status
        return ended

    def claim_retry(self, delivery: Delivery, claim: str, now_ms: int) -> bool:
        key = (delivery.tenant_id, delivery.message_id, delivery.subscription_id)
        current = self.current(*key)
        held = self.claims.get(key)
        if (
            current is None
            or current.status is not DeliveryStatus.RETRYING
            or current.next_attempt_at != delivery.next_attempt_at
            or (current.next_attempt_at or "") <= iso_from_ms(now_ms)
            or (held is not None and held[1] >= now_ms - RETRY_CLAIM_MS)
        ):
            return False
        self.claims[key] = (claim, now_ms)
        return True

    def move_claimed_retry(self, delivery: Delivery, claim: str) -> bool:
        key = (delivery.tenant_id, delivery.message_id, delivery.subscription_id)
        current = self.current(*key)
        held = self.claims.get(key)
        if (
            current is None
            or current.status is not DeliveryStatus.RETRYING
            or held is None
            or held[0] != claim
        ):
            return False
        del self.claims[key]
        return self.update_delivery(delivery)

    def get_message(self, tenant_id: str, message_id: str) -> TrackedMessage:
        message = self.messages.get((tenant_id, message_id))
        if message is None:
            raise NotFound(f"message {message_id} not found")
        deliveries = [self.current(tenant_id, message_id, s) for s in message.destinations]
        return TrackedMessage(message, tuple(d for d in deliveries if d is not None))

    def get_messages(self, tenant_id: str, message_ids: Sequence[str]) -> dict[str, Message]:
        return {m: self.messages[(tenant_id, m)] for m in message_ids if (tenant_id, m) in self.messages}

    def get_delivery(self, tenant_id: str, message_id: str, subscription_id: str) -> Delivery | None:
        return self.current(tenant_id, message_id, subscription_id)

    def list_room_messages(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]:
        found = [
            self.get_message(tenant_id, m.id)
            for (t, _), m in self.messages.items()
            if (t, m.room_id) == (tenant_id, room_id)
            and wanted.event_type in (None, m.event_type)
            and wanted.subscription_id in (None, *m.destinations)
            and (wanted.since or "") <= m.published_at <= (wanted.until or "9999")
        ]
        newest_first = sorted(found, key=lambda t: (t.message.published_at, t.message.id), reverse=True)
        return _page(newest_first, limit, start)

    def open_deliveries(
        self, tenant_id: str, owed: OwedFilter, start: Position | None, limit: int
    ) -> DeliveryPage:
        in_room = sorted(
            (m for (t, _), m in self.messages.items() if (t, m.room_id) == (tenant_id, owed.room_id)),
            key=lambda m: (m.published_at, m.id),
            reverse=True,
        )
        page = _page(in_room, limit, start)
        found = []
        for message in page.items:
            if owed.published_until is not None and message.published_at > owed.published_until:
                continue
            for subscription_id, kind in owed.subscriptions.items():
                record = self.current(tenant_id, message.id, subscription_id)
                if record is None and subscription_id in message.destinations:
                    record = Delivery(message.id, tenant_id, subscription_id, kind, DeliveryStatus.PENDING, 0)
                if record is not None and record.status not in TERMINAL_STATUSES:
                    found.append((message.id, record))
        return DeliveryPage(found, page.next_position)

    def list_scheduled(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None
    ) -> Page[TrackedMessage]:
        waiting = [
            self.get_message(tenant_id, m.id)
            for (t, _), m in self.messages.items()
            if (t, m.room_id) == (tenant_id, room_id) and m.scheduled
        ]
        soonest_first = sorted(waiting, key=lambda t: (t.message.deliver_at_ms or 0, t.message.id))
        return _page(soonest_first, limit, start)

    def claim_release(self, tenant_id: str, message_id: str, release_id: str) -> Message | None:
        message = self.messages.get((tenant_id, message_id))
        if message is None or message.deliver_at_ms is None or message.cancelled_at is not None:
            return None
        if message.released_by not in (None, release_id):
            return None
        self.messages[(tenant_id, message_id)] = replace(message, released_by=release_id)
        return self.messages[(tenant_id, message_id)]

    def cancel_scheduled(self, tenant_id: str, message_id: str, cancelled_at: str) -> Message:
        message = self.messages.get((tenant_id, message_id))
        if message is None:
            raise NotFound(f"message {message_id} not found")
        if message.cancelled_at is not None:
            return message
        if not message.scheduled:
            raise Conflict(f"message {message_id} cannot be cancelled", code="not_scheduled")
        self.messages[(tenant_id, message_id)] = replace(message, cancelled_at=cancelled_at)
        return self.messages[(tenant_id, message_id)]


@dataclass
class FakeDeadLetters:
    letters: dict[tuple[str, str, str, str], DeadLetter] = field(default_factory=dict)

    def put(self, dead_letter: DeadLetter) -> None:
        e = dead_letter.envelope
        self.letters[(e.tenant_id, e.room_id, e.subscription_id, e.message_id)] = dead_letter

    def _of(self, tenant_id: str, room_id: str, subscription_id: str) -> list[DeadLetter]:
        return [
            letter
            for key, letter in sorted(self.letters.items())
            if key[:3] == (tenant_id, room_id, subscription_id)
        ]

    def page(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, start: Position | None
    ) -> Page[DeadLetter]:
        # By message id from the last one a page ended at, as DynamoDB's ExclusiveStartKey pages:
        # letters deleted meanwhile move nothing.
        after = [
            d
            for d in self._of(tenant_id, room_id, subscription_id)
            if not start or d.envelope.message_id > start[0]
        ]
        rest = len(after) > limit
        return Page(after[:limit], (after[limit - 1].envelope.message_id,) if rest else None)

    def get_many(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]
    ) -> list[DeadLetter]:
        keys = [(tenant_id, room_id, subscription_id, m) for m in dict.fromkeys(message_ids)]
        return [self.letters[k] for k in keys if k in self.letters]

    def delete(self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]) -> None:
        for message_id in message_ids:
            self.letters.pop((tenant_id, room_id, subscription_id, message_id), None)

    # (tenant, room, subscription, message) -> the replay claim that holds it
    claims: dict[tuple[str, str, str, str], ReplayClaim] = field(default_factory=dict)

    def claim(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str], claim: ReplayClaim
    ) -> Claimed:
        letters, held_elsewhere = [], []
        for message_id in dict.fromkeys(message_ids):
            key = (tenant_id, room_id, subscription_id, message_id)
            if key not in self.letters:
                continue
            if key in self.claims and self.claims[key].held_until_ms > claim.made_at_ms:
                held_elsewhere.append(message_id)
                continue
            self.claims[key] = claim
            letters.append(self.letters[key])
        return Claimed(letters, held_elsewhere)

    def delete_claimed(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str], claim: ReplayClaim
    ) -> None:
        for message_id in message_ids:
            key = (tenant_id, room_id, subscription_id, message_id)
            if key in self.claims and self.claims[key].claim_id == claim.claim_id:
                self.letters.pop(key, None)
                self.claims.pop(key)


@dataclass
class FakeSender:
    sent: list[Outgoing] = field(default_factory=list)
    # Queues ``try_send`` fails on: URL -> whether the queue is missing (else an outage).
    failing_queues: dict[str, bool] = field(default_factory=dict)

    def send(self, outgoing: Sequence[Outgoing]) -> None:
        self.sent.extend(outgoing)

    def try_send(self, outgoing: Sequence[Outgoing]) -> list[Unsent]:
        unsent = [
            Unsent(
                o,
                "missing" if self.failing_queues[o.queue_url] else "outage",
                self.failing_queues[o.queue_url],
            )
            for o in outgoing
            if o.queue_url in self.failing_queues
        ]
        self.sent.extend(o for o in outgoing if o.queue_url not in self.failing_queues)
        return unsent


@dataclass
class FakeQueueAdmin:
    queues: dict[str, int] = field(default_factory=dict)  # queue URL -> visibility seconds
    purged: list[str] = field(default_factory=list)

    def create_pull_queues(
        self, subscription_id: str, tenant_id: str, room_id: str, ack_wait_ms: int
    ) -> PullQueues:
        found = PullQueues(
            f"https://sqs.local/pull-{subscription_id}", f"https://sqs.local/pull-{subscription_id}-dlq"
        )
        self.queues[found.queue_url] = -(-ack_wait_ms // 1000)
        self.queues[found.dead_letter_queue_url] = 0
        return found

    def set_ack_wait(self, queue_url: str, ack_wait_ms: int) -> None:
        self.queues[queue_url] = -(-ack_wait_ms // 1000)

    def purge(self, queue_url: str) -> None:
        self.purged.append(queue_url)

    def delete_queues(self, queue_urls: list[str]) -> None:
        for url in queue_urls:
            self.queues.pop(url, None)


@dataclass
class FakePullQueue:
    """PULL queues by receipt handle: ``in_flight`` maps a handed-out handle to its visibility
    (seconds). A handle SQS does not know (never handed out, or deleted) is refused, as SQS does."""

    waiting: list[Received] = field(default_factory=list)
    in_flight: dict[str, int] = field(default_factory=dict)
    # Every hide call as it was made: (queue URL, [(handle, seconds), ...]).
    hide_calls: list[tuple[str, list[tuple[str, int]]]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def receive(
        self, queue_url: str, max_messages: int, wait_seconds: int, visibility_seconds: int
    ) -> list[Received]:
        handed, self.waiting = self.waiting[:max_messages], self.waiting[max_messages:]
        for message in handed:
            self.in_flight[message.handle] = visibility_seconds
        return handed

    def delete(self, queue_url: str, handles: list[str]) -> dict[str, str]:
        failed = {h: "ReceiptHandleIsInvalid" for h in handles if h not in self.in_flight}
        for handle in handles:
            if self.in_flight.pop(handle, None) is not None:
                self.deleted.append(handle)
        return failed

    def hide(self, queue_url: str, visibility: list[tuple[str, int]]) -> dict[str, str]:
        self.hide_calls.append((queue_url, list(visibility)))
        failed: dict[str, str] = {}
        for handle, seconds in visibility:
            if handle in self.in_flight:
                self.in_flight[handle] = seconds
            else:
                failed[handle] = "ReceiptHandleIsInvalid"
        return failed


@dataclass
class FakeLog:
    records: list[LogRecord] = field(default_factory=list)
    flushes: int = 0

    def add(self, record: LogRecord) -> None:
        self.records.append(record)

    def flush(self, invocation_id: str | None = None, beside: Callable[[], object] | None = None) -> int:
        self.flushes += 1
        if beside is not None:
            beside()
        return 0

    def events(self) -> list[str]:
        return [r.event for r in self.records]


@dataclass
class FakeFlowGate:
    """The flow store's rules in memory: a rate slot moves ``tat_ms`` on; at most ``max`` live
    leases, lapsed ones taken over. Counts its writes like the DynamoDB store would make them."""

    tat_ms: dict[RateKey, int] = field(default_factory=dict)
    leases: dict[FlowKey, dict[str, int]] = field(default_factory=dict)
    writes: int = 0
    reads: int = 0

    def reserve_rate(self, flow: RateKey, interval_ms: int, now_ms: int, max_wait_ms: int) -> RateAnswer:
        reservation = reserve_start(now_ms, self.tat_ms.get(flow), interval_ms)
        if reservation.wait_ms(now_ms) > max_wait_ms:
            return RateAnswer(False, reservation)
        self.writes += 1
        self.tat_ms[flow] = reservation.next_tat_ms
        return RateAnswer(True, reservation)

    def lease_free(self, flow: FlowKey, max_concurrency: int, now_ms: int) -> bool:
        self.reads += 1
        return len(live_leases(self.leases.get(flow, {}), now_ms)) < max_concurrency

    def acquire_lease(
        self, flow: FlowKey, lease_id: str, max_concurrency: int, expires_at_ms: int, now_ms: int
    ) -> bool:
        self.writes += 1
        held = live_leases(self.leases.setdefault(flow, {}), now_ms)
        if len(held) >= max_concurrency:
            return False
        self.leases[flow] = held | {lease_id: expires_at_ms}
        return True

    def release_lease(self, flow: FlowKey, lease_id: str) -> None:
        self.writes += 1
        self.leases.get(flow, {}).pop(lease_id, None)


def _with_mark(subscription: Subscription, mark: str, since: int | None) -> Subscription:
    """The subscription with its failing streak or slow mark (``mark``: the field) set or ended."""
    if mark == "failing_since_ms":
        return replace(subscription, failing_since_ms=since)
    return replace(subscription, slow_since_ms=since)


@dataclass
class FakeJobs:
    jobs: dict[tuple[str, str], Job] = field(default_factory=dict)

    def create(self, job: Job) -> None:
        assert (job.tenant_id, job.id) not in self.jobs
        self.jobs[(job.tenant_id, job.id)] = job

    def get(self, tenant_id: str, job_id: str) -> Job | None:
        return self.jobs.get((tenant_id, job_id))

    def save(self, job: Job, read_steps: int) -> bool:
        stored = self.jobs.get((job.tenant_id, job.id))
        if stored is None or stored.steps != read_steps:
            return False
        self.jobs[(job.tenant_id, job.id)] = job
        return True
