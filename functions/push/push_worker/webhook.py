"""The webhook a subscriber receives: its JSON body (a typed model, documented in
docs/delivery-semantics.md and the SDK's ``WebhookMessage``) and the signed POST that carries it
(Standard Webhooks headers, every live signing secret)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from roomcast.catalog import Subscription
from roomcast.messages import Envelope
from roomcast.platform import JsonValue, camel_fields
from roomcast.webhooks import HttpResult, PostWebhook, PushUrlPolicy, post_signed

__all__ = ["PostWebhook", "WebhookBody", "send_webhook"]


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


def send_webhook(
    post: PostWebhook, envelope: Envelope, subscription: Subscription, policy: PushUrlPolicy, now_ms: int
) -> HttpResult:
    """POST the envelope's webhook, signed (roomcast.webhooks.signed_post). Raises PushUrlRejected
    when the URL now resolves where roomcast never sends."""
    body = WebhookBody.of(envelope).to_bytes()
    ids = (envelope.message_id, envelope.correlation_id)
    return post_signed(post, subscription, *ids, body, policy, now_ms, envelope.traceparent)
