"""Subscription use cases: create (with a signing secret or queues), read, list, change, delete."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from management_api.common import updated_now
from management_api.filters.policy import checked_policy
from management_api.subscriptions.destinations import refuse_other_target, with_destination
from management_api.subscriptions.models import (
    PullSubscriptionCreate,
    PushSubscriptionCreate,
    PushSubscriptionPatch,
    SubscriptionPatch,
)
from management_api.subscriptions.patching import (
    OVERRIDE_ATTRIBUTES,
    PUSH_ATTRIBUTES,
    refuse_push_only,
    with_status,
)
from management_api.subscriptions.shaping import shaped
from roomcast.catalog import (
    Catalog,
    FailoverLink,
    OnDeadKey,
    SigningSecret,
    Subscription,
    SubscriptionStatus,
    SubscriptionType,
    checked_failover_chain,
)
from roomcast.jobs import remove_subscriptions
from roomcast.ordering import MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM
from roomcast.outbox import SUBSCRIPTION_DELETED, OutboxQueue
from roomcast.platform import (
    Conflict,
    LimitExceeded,
    Page,
    Position,
    ids,
    limits,
    new_signing_secret,
    now_iso,
)
from roomcast.pull import PullQueueAdmin
from roomcast.webhooks import PushUrlPolicy, Resolver, check_requested_url, system_resolver

if TYPE_CHECKING:
    from roomcast.destinations import DestinationSender


@dataclass(frozen=True)
class CreatedSubscription:
    subscription: Subscription
    signing_secret: str | None  # PUSH only, shown once


Wanted = Callable[[Subscription], bool] | None
# The origin a validation handshake names when no request says which host the API is (tests).
HANDSHAKE_ORIGIN = "roomcast"


@dataclass
class SubscriptionsService:
    catalog: Catalog
    queues: PullQueueAdmin
    outbox: OutboxQueue
    push_url_policy: PushUrlPolicy
    resolve: Resolver = system_resolver
    # AWS destinations: what sends their dry run, and the partition they may be in.
    aws: tuple[DestinationSender | None, str] = (None, "aws")

    def create(
        self,
        tenant_id: str,
        room_id: str,
        request: PushSubscriptionCreate | PullSubscriptionCreate,
        origin: str = HANDSHAKE_ORIGIN,
    ) -> CreatedSubscription:
        """A PUSH subscription gets a signing secret (returned once); a PULL one its queues.
        ``origin``: the API's host, as a validation handshake names it."""
        filter_policy = checked_policy(request.filterPolicy)
        self.catalog.get_room(tenant_id, room_id)
        # Refused early when full (before any queue is made); the write checks again, atomically.
        if self.catalog.count_subscriptions(tenant_id, room_id) >= limits.MAX_SUBSCRIPTIONS_PER_ROOM:
            raise LimitExceeded(f"a room holds at most {limits.MAX_SUBSCRIPTIONS_PER_ROOM} subscriptions")
        subscription_id = ids.new_subscription_id()
        chain: tuple[FailoverLink, ...] = ()
        if request.failoverSubscriptionId is not None:
            # Nothing names a new subscription yet, so it cannot close a loop: its write only
            # needs its failover to be still there as it was read.
            checked = checked_failover_chain(
                self.catalog, tenant_id, room_id, subscription_id, request.failoverSubscriptionId
            )
            chain = checked[:1]
        now = now_iso()
        subscription = Subscription(
            id=subscription_id,
            room_id=room_id,
            tenant_id=tenant_id,
            type=SubscriptionType(request.type),
            status=SubscriptionStatus.ACTIVE,
            event_types=tuple(e.to_domain() for e in request.eventTypes),
            filter_policy=filter_policy,
            overrides=request.overrides(),
            failover_subscription_id=request.failoverSubscriptionId,
            created_at=now,
            updated_at=now,
            ordered=request.ordered is True,
            on_dead_key=OnDeadKey(request.onDeadKey or OnDeadKey.PAUSE),
            consumer_id=request.consumerId,
        )
        if subscription.ordered:
            self._check_ordered_room(tenant_id, room_id, subscription_id)
        if isinstance(request, PushSubscriptionCreate):
            if request.pushUrl is not None:
                self._check_push_url(request.pushUrl)
            secret = new_signing_secret()
            subscription = replace(
                subscription,
                push_url=request.pushUrl,
                timeout_ms=request.timeoutMs or limits.DEFAULT_PUSH_TIMEOUT_MS,
                signing_secrets=(SigningSecret(secret),),
                max_concurrency=request.maxConcurrency,
                rate_limit_per_second=request.rateLimitPerSecond,
                disable_after_failing_ms=request.disableAfterFailingMs
                or limits.DEFAULT_DISABLE_AFTER_FAILING_MS,
                recovery_probes=request.recoveryProbes is not False,
            )
            given = request.model_fields_set
            subscription = shaped(
                subscription, request, given, self.push_url_policy, origin, url_changed=True
            )
            subscription = with_destination(subscription, request.destination, *self.aws)
            self._add(subscription, chain)
            return CreatedSubscription(subscription, secret)
        ack_wait_ms = request.ackWaitMs or limits.DEFAULT_ACK_WAIT_MS
        # Queues first, then the record: a record never points at a queue that does not exist.
        queues = self.queues.create_pull_queues(subscription_id, tenant_id, room_id, ack_wait_ms)
        subscription = replace(
            subscription,
            ack_wait_ms=ack_wait_ms,
            queue_url=queues.queue_url,
            dead_letter_queue_url=queues.dead_letter_queue_url,
        )
        try:
            self._add(subscription, chain)
        except Exception:
            self.queues.delete_queues([queues.queue_url, queues.dead_letter_queue_url])
            raise
        return CreatedSubscription(subscription, None)

    def get(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.catalog.get_room(tenant_id, room_id)
        return self.catalog.get_subscription(tenant_id, room_id, subscription_id)

    def page(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: Wanted = None
    ) -> Page[Subscription]:
        """A page of the room's subscriptions; ``wanted``: only those it accepts (all read, ≤ 200)."""
        self.catalog.get_room(tenant_id, room_id)
        if wanted is None:
            return self.catalog.list_subscriptions(tenant_id, room_id, limit, start)
        after = start[0] if start else ""
        found = [s for s in self.catalog.all_subscriptions(tenant_id, room_id) if s.id > after and wanted(s)]
        found.sort(key=lambda subscription: subscription.id)
        return Page(found[:limit], (found[limit - 1].id,) if len(found) > limit else None)

    def update(
        self,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        patch: SubscriptionPatch,
        origin: str = HANDSHAKE_ORIGIN,
    ) -> Subscription:
        current = self.get(tenant_id, room_id, subscription_id)
        changes = patch.for_type(current.type)
        changed = changes.model_fields_set
        if current.type is SubscriptionType.PULL:
            refuse_push_only(changed)
        refuse_other_target(current, changed)
        if not changed:
            return current
        if isinstance(changes, PushSubscriptionPatch) and changes.pushUrl is not None:
            self._check_push_url(changes.pushUrl)
        filter_policy = (
            checked_policy(changes.filterPolicy) if "filterPolicy" in changed else current.filter_policy
        )
        chain: tuple[FailoverLink, ...] = ()
        if changes.failoverSubscriptionId is not None:
            chain = checked_failover_chain(
                self.catalog, tenant_id, room_id, subscription_id, changes.failoverSubscriptionId
            )
        kept = current.overrides
        given = changes.overrides()
        updated = replace(
            current,
            event_types=tuple(e.to_domain() for e in changes.eventTypes)
            if changes.eventTypes is not None
            else current.event_types,
            filter_policy=filter_policy,
            overrides=replace(
                kept,
                **{
                    name: getattr(given, name)
                    for name in OVERRIDE_ATTRIBUTES
                    if OVERRIDE_ATTRIBUTES[name] in changed
                },
            ),
            failover_subscription_id=changes.failoverSubscriptionId
            if "failoverSubscriptionId" in changed
            else current.failover_subscription_id,
            updated_at=updated_now(current.updated_at),
        )
        if changes.status is not None:
            updated = with_status(updated, SubscriptionStatus(changes.status))
        if "ordered" in changed:
            updated = replace(updated, ordered=changes.ordered is True)
        if "onDeadKey" in changed:
            updated = replace(updated, on_dead_key=OnDeadKey(changes.onDeadKey or OnDeadKey.PAUSE))
        if updated.ordered and not current.ordered:
            self._check_ordered_room(tenant_id, room_id, subscription_id)
        if isinstance(changes, PushSubscriptionPatch):
            # null puts a setting back to its default (None where the default is "no limit").
            given_push: dict[str, Any] = {
                "timeout_ms": changes.timeoutMs or limits.DEFAULT_PUSH_TIMEOUT_MS,
                "max_concurrency": changes.maxConcurrency,
                "rate_limit_per_second": changes.rateLimitPerSecond,
                "disable_after_failing_ms": changes.disableAfterFailingMs
                or limits.DEFAULT_DISABLE_AFTER_FAILING_MS,
                "recovery_probes": changes.recoveryProbes is not False,
            }
            updated = replace(
                updated,
                push_url=changes.pushUrl if changes.pushUrl is not None else current.push_url,
                **{name: value for name, value in given_push.items() if PUSH_ATTRIBUTES[name] in changed},
            )
            moved = updated.push_url != current.push_url
            updated = shaped(updated, changes, changed, self.push_url_policy, origin, url_changed=moved)
            updated = with_destination(updated, changes.destination, *self.aws)
        elif "ackWaitMs" in changed:
            updated = replace(updated, ack_wait_ms=changes.ackWaitMs or limits.DEFAULT_ACK_WAIT_MS)
        # A new failover is stored only while the chain it was checked against is unchanged: two
        # PATCHes racing to close a loop cannot both land (the later one answers 409).
        self.catalog.replace_subscription_checked(updated, current.updated_at, chain)
        if updated.queue_url and updated.ack_wait_ms and updated.ack_wait_ms != current.ack_wait_ms:
            self.queues.set_ack_wait(updated.queue_url, updated.ack_wait_ms)
        return updated

    def _check_ordered_room(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        """A keyed message is stored with its place in each ordered destination's line in one
        transaction (docs/decisions/0041-ordering-keys.md): a room holds few ordered subscriptions."""
        others = [
            s
            for s in self.catalog.all_subscriptions(tenant_id, room_id)
            if s.ordered and s.id != subscription_id
        ]
        if len(others) >= MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM:
            raise LimitExceeded(
                f"a room holds at most {MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM} ordered subscriptions"
            )

    def delete(self, tenant_id: str, room_id: str, subscription_id: str) -> None:
        subscription = self.get(tenant_id, room_id, subscription_id)
        referrers = [
            other.id
            for other in self.catalog.all_subscriptions(tenant_id, room_id)
            if other.failover_subscription_id == subscription_id and other.id != subscription_id
        ]
        if referrers:
            raise Conflict(
                f"subscription {subscription_id} is the failover of {', '.join(referrers)}; "
                "change their failoverSubscriptionId first"
            )
        remove_subscriptions(self.catalog, self.queues, self.outbox, [subscription], SUBSCRIPTION_DELETED)

    def _check_push_url(self, url: str) -> None:
        check_requested_url(url, self.push_url_policy, "body.pushUrl", self.resolve)

    def _add(self, subscription: Subscription, chain: tuple[FailoverLink, ...]) -> None:
        """Stored only while the room has room for it (counted in the same transaction)."""
        self.catalog.add_subscription(subscription, limits.MAX_SUBSCRIPTIONS_PER_ROOM, chain)
