"""Explicit mapping from domain models to API responses (storage items never reach a response)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from management_api.models import (
    DeadLetterView,
    DeliveryView,
    EffectivePolicy,
    EventTypeModel,
    MessageStatus,
    RoomResponse,
    ScheduledAttemptView,
    SchedulePreview,
    SubscriptionCreated,
    SubscriptionResponse,
)
from roomcast.domain.clock import iso_timestamp
from roomcast.domain.messages import Delivery, Message
from roomcast.domain.models import EventTypeFilter, Room, Subscription
from roomcast.domain.policy import DeliveryPolicy, schedule

if TYPE_CHECKING:
    from roomcast.dal.dead_letters import DeadLetter


def _event_types(filters: tuple[EventTypeFilter, ...]) -> list[EventTypeModel]:
    return [EventTypeModel(name=f.name, versions=list(f.versions)) for f in filters]


def room_response(room: Room) -> RoomResponse:
    return RoomResponse(
        id=room.id,
        name=room.name,
        messageExpirationMs=room.message_expiration_ms,
        deliveryDelayMs=room.delivery_delay_ms,
        deliveryDelayMultiplier=room.delivery_delay_multiplier,
        deliveryAttempts=room.delivery_attempts,
        eventTypes=_event_types(room.event_types),
        createdAt=room.created_at,
        updatedAt=room.updated_at,
    )


def subscription_response(subscription: Subscription) -> SubscriptionResponse:
    overrides = subscription.overrides
    return SubscriptionResponse(
        id=subscription.id,
        roomId=subscription.room_id,
        type=subscription.type.value,
        status=subscription.status.value,
        eventTypes=_event_types(subscription.event_types),
        pushUrl=subscription.push_url,
        deliveryDelayMs=overrides.delivery_delay_ms,
        deliveryDelayMultiplier=overrides.delivery_delay_multiplier,
        deliveryAttempts=overrides.delivery_attempts,
        maxDelayMs=overrides.max_delay_ms,
        jitter=overrides.jitter,
        retryScheduleMs=list(overrides.retry_schedule_ms)
        if overrides.retry_schedule_ms is not None
        else None,
        failoverSubscriptionId=subscription.failover_subscription_id,
        timeoutMs=subscription.timeout_ms,
        ackWaitMs=subscription.ack_wait_ms,
        createdAt=subscription.created_at,
        updatedAt=subscription.updated_at,
    )


def subscription_created(subscription: Subscription, signing_secret: str | None) -> SubscriptionCreated:
    return SubscriptionCreated(
        **subscription_response(subscription).model_dump(), signingSecret=signing_secret
    )


def message_status(message: Message, deliveries: list[Delivery]) -> MessageStatus:
    return MessageStatus(
        messageId=message.id,
        roomId=message.room_id,
        eventType=message.event_type,
        eventVersion=message.event_version,
        correlationId=message.correlation_id,
        payload=message.payload,
        publishedAt=message.published_at,
        expiresAt=iso_timestamp(datetime.fromtimestamp(message.expires_at_ms / 1000, UTC))
        if message.expires_at_ms is not None
        else None,
        destinations=list(message.destinations),
        deliveries=[
            DeliveryView(
                subscriptionId=d.subscription_id,
                subscriptionType=d.subscription_type.value,
                status=d.status.value,
                attempts=d.attempts,
                lastError=d.last_error,
                nextAttemptAt=d.next_attempt_at,
                updatedAt=d.updated_at,
            )
            for d in deliveries
        ],
    )


def iso_ms(epoch_ms: int) -> str:
    return iso_timestamp(datetime.fromtimestamp(epoch_ms / 1000, UTC))


def dead_letter(letter: DeadLetter) -> DeadLetterView:
    envelope = letter.envelope
    return DeadLetterView(
        messageId=envelope.message_id,
        correlationId=envelope.correlation_id,
        eventType=envelope.event_type,
        eventVersion=envelope.event_version,
        payload=envelope.payload,
        publishedAt=envelope.published_at,
        attempts=letter.attempts,
        reason=letter.reason,
        deadAt=letter.dead_at,
    )


def schedule_preview(
    subscription_id: str, policy: DeliveryPolicy, expiration_ms: int | None
) -> SchedulePreview:
    return SchedulePreview(
        subscriptionId=subscription_id,
        policy=EffectivePolicy(
            deliveryDelayMs=policy.delivery_delay_ms,
            deliveryDelayMultiplier=policy.delivery_delay_multiplier,
            deliveryAttempts=policy.delivery_attempts,
            maxDelayMs=policy.max_delay_ms,
            jitter=policy.jitter,
            retryScheduleMs=list(policy.retry_schedule_ms) if policy.retry_schedule_ms else None,
            messageExpirationMs=expiration_ms,
        ),
        attempts=[
            ScheduledAttemptView(
                attempt=row.attempt,
                delayMs=row.delay_ms,
                sincePublishMs=row.since_publish_ms,
                cutByExpiry=row.cut_by_expiry,
            )
            for row in schedule(policy, expiration_ms)
        ],
        note=(
            "Without jitter or Retry-After. Jitter lengthens each delay by up to that fraction; a "
            "subscriber's Retry-After can lengthen one. After the last attempt: dead, or the failover."
        ),
    )
