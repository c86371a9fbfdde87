"""Management logic: rooms and subscriptions. Takes domain values and a repository; no HTTP here."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from roomcast.credentials import new_signing_secret
from roomcast.dal.messages import MessageStore
from roomcast.dal.pages import Page
from roomcast.dal.queues import QueueAdmin
from roomcast.dal.repository import Repository
from roomcast.domain import ids, limits
from roomcast.domain.clock import now_iso
from roomcast.domain.messages import Delivery, DeliveryStatus, Message
from roomcast.domain.models import (
    DeliveryOverrides,
    EventTypeFilter,
    Room,
    SigningSecret,
    Subscription,
    SubscriptionStatus,
    SubscriptionType,
)
from roomcast.domain.policy import DeliveryPolicy, effective_policy
from roomcast.domain.push_urls import (
    PushUrlPolicy,
    PushUrlRejected,
    Resolver,
    check_push_url,
    system_resolver,
)
from roomcast.errors import Conflict, InvalidRequest, LimitExceeded, NotFound

if TYPE_CHECKING:
    from roomcast.dal.dead_letters import DeadLetter, DeadLetterStore
    from roomcast.delivery.endings import Endings

_MESSAGE_ID = re.compile(ids.MESSAGE_ID_PATTERN)
SECRET_ROTATION_GRACE_MS = 24 * 3600 * 1000
REPLAY_BATCH = 100


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class ManagementService:
    repository: Repository
    queues: QueueAdmin
    messages: MessageStore
    dead_letter_store: DeadLetterStore
    endings: Endings
    push_url_policy: PushUrlPolicy
    resolve: Resolver = system_resolver

    # -- rooms ----------------------------------------------------------------------------------

    def create_room(self, tenant_id: str, fields: dict[str, Any]) -> Room:
        now = now_iso()
        room = Room(
            id=ids.new_room_id(),
            tenant_id=tenant_id,
            name=fields["name"],
            message_expiration_ms=fields.get("messageExpirationMs") or None,
            delivery_delay_ms=fields["deliveryDelayMs"],
            delivery_delay_multiplier=fields["deliveryDelayMultiplier"],
            delivery_attempts=fields["deliveryAttempts"],
            event_types=event_type_filters(fields.get("eventTypes") or []),
            created_at=now,
            updated_at=now,
        )
        self.repository.create_room(room)
        return room

    def get_room(self, tenant_id: str, room_id: str) -> Room:
        return self.repository.get_room(tenant_id, room_id)

    def list_rooms(self, tenant_id: str, limit: int, cursor: str | None) -> Page[Room]:
        return self.repository.list_rooms(tenant_id, limit, cursor)

    def update_room(self, tenant_id: str, room_id: str, changes: dict[str, Any]) -> Room:
        """Apply the fields present in ``changes``; an explicit null is refused except for the expiration."""
        room = self.get_room(tenant_id, room_id)
        if not changes:
            return room
        for name in ("name", "deliveryDelayMs", "deliveryDelayMultiplier", "deliveryAttempts", "eventTypes"):
            if name in changes and changes[name] is None:
                raise InvalidRequest(
                    f"{name} cannot be null",
                    details=[
                        {"field": f"body.{name}", "problem": "may not be null", "type": "null_not_allowed"}
                    ],
                )
        updated = replace(
            room,
            name=changes.get("name", room.name),
            message_expiration_ms=(changes["messageExpirationMs"] or None)
            if "messageExpirationMs" in changes
            else room.message_expiration_ms,
            delivery_delay_ms=changes.get("deliveryDelayMs", room.delivery_delay_ms),
            delivery_delay_multiplier=changes.get("deliveryDelayMultiplier", room.delivery_delay_multiplier),
            delivery_attempts=changes.get("deliveryAttempts", room.delivery_attempts),
            event_types=event_type_filters(changes["eventTypes"])
            if "eventTypes" in changes
            else room.event_types,
            updated_at=now_iso(),
        )
        self.repository.replace_room(updated)
        return updated

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        """Delete a room with all its subscriptions (and their queues)."""
        self.get_room(tenant_id, room_id)
        for subscription in self.repository.all_subscriptions(tenant_id, room_id):
            self._delete_subscription_and_queues(subscription)
        self.repository.delete_room(tenant_id, room_id)

    # -- subscriptions --------------------------------------------------------------------------

    def create_subscription(
        self, tenant_id: str, room_id: str, fields: dict[str, Any]
    ) -> tuple[Subscription, str | None]:
        """Create a subscription; returns it and, for PUSH, its signing secret (shown only now)."""
        self.get_room(tenant_id, room_id)
        if self.repository.count_subscriptions(tenant_id, room_id) >= limits.MAX_SUBSCRIPTIONS_PER_ROOM:
            raise LimitExceeded(f"a room holds at most {limits.MAX_SUBSCRIPTIONS_PER_ROOM} subscriptions")
        subscription_type = SubscriptionType(fields["type"])
        subscription_id = ids.new_subscription_id()
        failover = fields.get("failoverSubscriptionId")
        if failover is not None:
            self._check_failover(tenant_id, room_id, subscription_id, failover)
        now = now_iso()
        subscription = Subscription(
            id=subscription_id,
            room_id=room_id,
            tenant_id=tenant_id,
            type=subscription_type,
            status=SubscriptionStatus.ACTIVE,
            event_types=event_type_filters(fields.get("eventTypes") or []),
            overrides=_overrides(fields),
            failover_subscription_id=failover,
            created_at=now,
            updated_at=now,
        )
        signing_secret: str | None = None
        if subscription_type is SubscriptionType.PUSH:
            self._check_push_url(fields["pushUrl"])
            signing_secret = new_signing_secret()
            subscription = replace(
                subscription,
                push_url=fields["pushUrl"],
                timeout_ms=fields.get("timeoutMs") or limits.DEFAULT_PUSH_TIMEOUT_MS,
                signing_secrets=(SigningSecret(signing_secret),),
            )
            self.repository.create_subscription(subscription)
            return subscription, signing_secret

        subscription = replace(
            subscription, ack_wait_ms=fields.get("ackWaitMs") or limits.DEFAULT_ACK_WAIT_MS
        )
        # Queues first, then the record: a record never points at a queue that does not exist.
        queues = self.queues.create_pull_queues(
            subscription_id, tenant_id, room_id, subscription.ack_wait_ms or 0
        )
        subscription = replace(
            subscription, queue_url=queues.queue_url, dead_letter_queue_url=queues.dead_letter_queue_url
        )
        try:
            self.repository.create_subscription(subscription)
        except Exception:
            self.queues.delete_queues([queues.queue_url, queues.dead_letter_queue_url])
            raise
        return subscription, None

    def get_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.get_room(tenant_id, room_id)
        return self.repository.get_subscription(tenant_id, room_id, subscription_id)

    def list_subscriptions(
        self, tenant_id: str, room_id: str, limit: int, cursor: str | None
    ) -> Page[Subscription]:
        self.get_room(tenant_id, room_id)
        return self.repository.list_subscriptions(tenant_id, room_id, limit, cursor)

    def update_subscription(
        self, tenant_id: str, room_id: str, subscription_id: str, changes: dict[str, Any]
    ) -> Subscription:
        current = self.get_subscription(tenant_id, room_id, subscription_id)
        if not changes:
            return current
        is_push = current.type is SubscriptionType.PUSH
        for name in ("pushUrl", "timeoutMs") if not is_push else ("ackWaitMs",):
            if name in changes:
                raise InvalidRequest(
                    f"{name} does not apply to a {current.type.value} subscription",
                    details=[
                        {
                            "field": f"body.{name}",
                            "problem": "not allowed for this type",
                            "type": "not_allowed",
                        }
                    ],
                )
        for name in ("eventTypes", "pushUrl", "status"):
            if name in changes and changes[name] is None:
                raise InvalidRequest(
                    f"{name} cannot be null",
                    details=[
                        {"field": f"body.{name}", "problem": "may not be null", "type": "null_not_allowed"}
                    ],
                )
        if "pushUrl" in changes:
            self._check_push_url(changes["pushUrl"])
        if changes.get("failoverSubscriptionId") is not None:
            self._check_failover(tenant_id, room_id, subscription_id, changes["failoverSubscriptionId"])
        merged_overrides = {**_override_fields(current.overrides), **changes}
        updated = replace(
            current,
            event_types=event_type_filters(changes["eventTypes"])
            if "eventTypes" in changes
            else current.event_types,
            overrides=_overrides(merged_overrides),
            failover_subscription_id=changes.get("failoverSubscriptionId", current.failover_subscription_id),
            push_url=changes.get("pushUrl", current.push_url),
            timeout_ms=(changes.get("timeoutMs") or limits.DEFAULT_PUSH_TIMEOUT_MS)
            if is_push and "timeoutMs" in changes
            else current.timeout_ms,
            ack_wait_ms=(changes.get("ackWaitMs") or limits.DEFAULT_ACK_WAIT_MS)
            if not is_push and "ackWaitMs" in changes
            else current.ack_wait_ms,
            status=SubscriptionStatus(changes["status"]) if "status" in changes else current.status,
            updated_at=now_iso(),
        )
        self.repository.replace_subscription(updated, expected_updated_at=current.updated_at)
        if updated.queue_url and updated.ack_wait_ms != current.ack_wait_ms and updated.ack_wait_ms:
            self.queues.set_ack_wait(updated.queue_url, updated.ack_wait_ms)
        return updated

    def delete_subscription(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        subscription = self.get_subscription(tenant_id, room_id, subscription_id)
        referrers = [
            other.id
            for other in self.repository.all_subscriptions(tenant_id, room_id)
            if other.failover_subscription_id == subscription_id and other.id != subscription_id
        ]
        if referrers:
            raise Conflict(
                f"subscription {subscription_id} is the failover of {', '.join(referrers)}; "
                "change their failoverSubscriptionId first"
            )
        self._delete_subscription_and_queues(subscription)

    # -- messages -------------------------------------------------------------------------------

    def message_status(self, tenant_id: str, room_id: str, message_id: str) -> tuple[Message, list[Delivery]]:
        missing = NotFound(f"message {message_id[:80]} not found in room {room_id[:80]}")
        if not _MESSAGE_ID.match(message_id):
            raise missing
        message, deliveries = self.messages.get_message(tenant_id, message_id)
        if message.room_id != room_id:
            raise missing
        return message, deliveries

    # -- signing secrets, schedule, dead letters -----------------------------------------------

    def rotate_secret(self, tenant_id: str, room_id: str, subscription_id: str) -> tuple[str, int | None]:
        """A new signing secret; the current ones keep signing for the grace period."""
        current = self.get_subscription(tenant_id, room_id, subscription_id)
        if current.type is not SubscriptionType.PUSH:
            raise Conflict(f"subscription {subscription_id} is PULL; only PUSH subscriptions sign webhooks")
        now = now_ms()
        grace_until = now + SECRET_ROTATION_GRACE_MS
        kept = tuple(
            SigningSecret(s.secret, s.expires_at_ms if s.expires_at_ms is not None else grace_until)
            for s in current.signing_secrets
            if s.active(now)
        )
        secret = new_signing_secret()
        updated = replace(current, signing_secrets=(SigningSecret(secret), *kept), updated_at=now_iso())
        self.repository.replace_subscription(updated, expected_updated_at=current.updated_at)
        return secret, max((s.expires_at_ms or 0 for s in kept), default=None)

    def schedule(
        self, tenant_id: str, room_id: str, subscription_id: str
    ) -> tuple[DeliveryPolicy, int | None]:
        room = self.get_room(tenant_id, room_id)
        subscription = self.repository.get_subscription(tenant_id, room_id, subscription_id)
        return effective_policy(room, subscription), room.message_expiration_ms

    def dead_letters(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, cursor: str | None
    ) -> Page[DeadLetter]:
        self.get_subscription(tenant_id, room_id, subscription_id)
        return self.dead_letter_store.page(tenant_id, room_id, subscription_id, limit, cursor)

    def replay(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str] | None
    ) -> tuple[list[str], list[str], bool]:
        """Send dead letters again from attempt 0; returns (replayed, not found, more left)."""
        subscription = self.get_subscription(tenant_id, room_id, subscription_id)
        if message_ids is None:
            page = self.dead_letter_store.page(tenant_id, room_id, subscription_id, REPLAY_BATCH, None)
            letters, remaining = page.items, page.next_cursor is not None
        else:
            letters, remaining = (
                self.dead_letter_store.get_many(tenant_id, room_id, subscription_id, message_ids),
                False,
            )
        now = now_ms()
        outgoing = [
            self.endings.outgoing_for(
                subscription, replace(letter.envelope.next_attempt(0, 0, now), failovers=0)
            )
            for letter in letters
        ]
        # Sent first, then marked and removed: a crash in between replays twice, never zero times.
        self.endings.sender.send(outgoing)
        for letter in letters:
            self.messages.update_delivery(
                Delivery(
                    message_id=letter.envelope.message_id,
                    tenant_id=tenant_id,
                    subscription_id=subscription_id,
                    subscription_type=subscription.type,
                    status=DeliveryStatus.PENDING,
                    attempts=0,
                    last_error=f"replayed from dead letters ({letter.reason})",
                    next_attempt_at=now_iso(),
                    updated_at=now_iso(),
                ),
                force=True,
            )
        from roomcast.delivery.log import LogRecord, log_record_fields

        for letter in letters:
            self.endings.log.add(
                LogRecord(
                    event="replayed",
                    subscription_type=subscription.type.value,
                    attempt=letter.envelope.attempt,
                    error=letter.reason,
                    **log_record_fields(letter.envelope),
                )
            )
        replayed = [letter.envelope.message_id for letter in letters]
        self.dead_letter_store.delete(tenant_id, room_id, subscription_id, replayed)
        not_found = [m for m in dict.fromkeys(message_ids or []) if m not in set(replayed)]
        return replayed, not_found, remaining

    def purge_dead_letters(self, tenant_id: str, room_id: str, subscription_id: str) -> int:
        subscription = self.get_subscription(tenant_id, room_id, subscription_id)
        purged = 0
        while True:
            page = self.dead_letter_store.page(tenant_id, room_id, subscription_id, REPLAY_BATCH, None)
            if not page.items:
                break
            self.dead_letter_store.delete(
                tenant_id, room_id, subscription_id, [letter.envelope.message_id for letter in page.items]
            )
            purged += len(page.items)
        if subscription.dead_letter_queue_url:
            self.queues.purge(subscription.dead_letter_queue_url)
        return purged

    # -- helpers --------------------------------------------------------------------------------

    def _delete_subscription_and_queues(self, subscription: Subscription) -> None:
        # Record first: once it is gone nothing routes to the queues, which then go too.
        self.repository.delete_subscription(subscription.tenant_id, subscription.room_id, subscription.id)
        urls = [u for u in (subscription.queue_url, subscription.dead_letter_queue_url) if u]
        self.queues.delete_queues(urls)

    def _check_push_url(self, url: str) -> None:
        try:
            check_push_url(url, self.push_url_policy, self.resolve)
        except PushUrlRejected as error:
            raise InvalidRequest(
                str(error),
                code="invalid_push_url",
                details=[{"field": "body.pushUrl", "problem": str(error), "type": "invalid_push_url"}],
            ) from error

    def _check_failover(self, tenant_id: str, room_id: str, subscription_id: str, failover_id: str) -> None:
        """The failover must be another subscription of the same room, and the chain must not loop."""
        problem: str | None = None
        if failover_id == subscription_id:
            problem = "a subscription cannot be its own failover"
        else:
            seen = {subscription_id}
            current: str | None = failover_id
            while current is not None and problem is None:
                if current in seen:
                    problem = "failover chain would loop back to this subscription"
                    break
                seen.add(current)
                try:
                    target = self.get_subscription(tenant_id, room_id, current)
                except NotFound:
                    problem = f"failover subscription {failover_id} is not a subscription of room {room_id}"
                    break
                current = target.failover_subscription_id
        if problem is not None:
            raise InvalidRequest(
                problem,
                code="invalid_failover",
                details=[
                    {"field": "body.failoverSubscriptionId", "problem": problem, "type": "invalid_failover"}
                ],
            )


def event_type_filters(raw: list[dict[str, Any]]) -> tuple[EventTypeFilter, ...]:
    return tuple(EventTypeFilter(name=e["name"], versions=tuple(e.get("versions") or ())) for e in raw)


_OVERRIDE_FIELDS = {
    "deliveryDelayMs": "delivery_delay_ms",
    "deliveryDelayMultiplier": "delivery_delay_multiplier",
    "deliveryAttempts": "delivery_attempts",
    "maxDelayMs": "max_delay_ms",
    "jitter": "jitter",
    "retryScheduleMs": "retry_schedule_ms",
}


def _overrides(fields: dict[str, Any]) -> DeliveryOverrides:
    values = {attribute: fields.get(name) for name, attribute in _OVERRIDE_FIELDS.items()}
    if values["retry_schedule_ms"] is not None:
        values["retry_schedule_ms"] = tuple(values["retry_schedule_ms"])
    return DeliveryOverrides(**values)


def _override_fields(overrides: DeliveryOverrides) -> dict[str, Any]:
    return {name: getattr(overrides, attribute) for name, attribute in _OVERRIDE_FIELDS.items()}
