"""The webhook a subscriber receives: its body in the subscription's format (roomcast's JSON body,
documented in docs/delivery-semantics.md and the SDK's ``WebhookMessage``, or a CloudEvent:
roomcast.webhooks.cloudevents), after the subscription's transformation (roomcast.transformations),
and the signed request that carries it (Standard Webhooks headers, every live signing secret)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from roomcast.catalog import CloudEventsMode, Subscription, WebhookFormat
from roomcast.messages import Envelope
from roomcast.platform import JsonValue, camel_fields
from roomcast.transformations import Transformed, WebhookShape, run_transformation
from roomcast.webhooks import (
    CloudEvent,
    HttpResult,
    PostWebhook,
    PushUrlPolicy,
    binary,
    post_signed,
    structured,
)

__all__ = [
    "Cancelled",
    "Outgoing",
    "PostWebhook",
    "WebhookBody",
    "outgoing_webhook",
    "send_webhook",
    "transformed",
]

Transform = Callable[[str, WebhookShape], Transformed]


@dataclass(frozen=True)
class WebhookBody:
    message_id: str
    room_id: str
    subscription_id: str
    event_type: str
    event_version: str
    correlation_id: str
    published_at: str
    attempt: int
    payload: JsonValue

    @classmethod
    def of(cls, envelope: Envelope) -> WebhookBody:
        return cls(
            envelope.message_id,
            envelope.room_id,
            envelope.subscription_id,
            envelope.event_type,
            envelope.event_version,
            envelope.correlation_id,
            envelope.published_at,
            envelope.attempt,
            envelope.payload,
        )

    def to_bytes(self) -> bytes:
        """Compact JSON, UTF-8, in the field order above (what the signature covers)."""
        return json.dumps(camel_fields(self), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class Outgoing:
    """One webhook request as it will be made (``url`` None: the subscription's push URL)."""

    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    method: str = "POST"


@dataclass(frozen=True)
class Cancelled:
    """The transformation set ``cancel``: no request (the delivery ends ``filtered``)."""

    version: int


def transformed(
    envelope: Envelope, subscription: Subscription, transform: Transform = run_transformation
) -> Transformed | Cancelled:
    """The envelope as its subscription's transformation leaves it (TransformationFailed when that
    fails); a webhook's has its URL, method and headers, an AWS destination's its payload only."""
    transformation, payload = subscription.transformation, envelope.payload
    if transformation is None:
        return Transformed(payload)
    url = subscription.push_url if subscription.destination is None else None
    changed = transform(transformation.source, WebhookShape(envelope.event_type, payload, url))
    return Cancelled(transformation.version) if changed.cancel else changed


def outgoing_webhook(
    envelope: Envelope, subscription: Subscription, transform: Transform = run_transformation
) -> Outgoing | Cancelled:
    """The request for this envelope: transformed first (TransformationFailed when the
    transformation fails), then shaped in the subscription's format."""
    changed = transformed(envelope, subscription, transform)
    if isinstance(changed, Cancelled):
        return changed
    body, headers = _formatted(replace(WebhookBody.of(envelope), payload=changed.payload), subscription)
    return Outgoing(body, changed.headers | headers, changed.url, changed.method)


def _formatted(body: WebhookBody, subscription: Subscription) -> tuple[bytes, dict[str, str]]:
    if subscription.format is not WebhookFormat.CLOUDEVENTS:
        return body.to_bytes(), {}
    event = CloudEvent(
        body.message_id,
        body.room_id,
        body.event_type,
        body.published_at,
        body.payload,
        body.event_version,
        body.subscription_id,
        body.attempt,
        body.correlation_id,
    )
    return binary(event) if subscription.cloud_events_mode is CloudEventsMode.BINARY else structured(event)


def send_webhook(
    post: PostWebhook,
    outgoing: Outgoing,
    envelope: Envelope,
    subscription: Subscription,
    policy: PushUrlPolicy,
    now_ms: int,
) -> HttpResult:
    """Make the request, signed (roomcast.webhooks.signed_post). Raises PushUrlRejected when the
    URL now resolves where roomcast never sends."""
    ids = (envelope.message_id, envelope.correlation_id)
    return post_signed(
        post,
        subscription,
        *ids,
        outgoing.body,
        policy,
        now_ms,
        envelope.traceparent,
        url=outgoing.url,
        method=outgoing.method,
        headers=outgoing.headers,
    )
