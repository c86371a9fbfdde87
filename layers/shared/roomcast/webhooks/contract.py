"""The webhook contract as OpenAPI 3.1: the signed headers a receiver gets, the body's fields, and
what it may answer (the status codes and the ``webhook-delivery`` header that steer its delivery).
Both roomcast's own document (its ``webhooks``) and a tenant's catalog export use it, so the two
never disagree. Pure: schemas only (the body itself is push_worker.webhook.WebhookBody; the
answers' rules are roomcast.webhooks.answers; docs/delivery-semantics.md has the table)."""

from __future__ import annotations

from typing import Any, Final

from roomcast.webhooks.answers import CONTROL_HEADER, DeliveryControl

SIGNING_HEADERS: Final = (
    ("webhook-id", "The message's id: the same for every attempt (deduplicate on it)."),
    ("webhook-timestamp", "Seconds since the epoch when this attempt was signed."),
    ("webhook-signature", "`v1,<base64 HMAC-SHA256>` of `id.timestamp.body`, one per live secret."),
)
_RETRY_AFTER: Final = {
    "description": "Seconds, or an HTTP date: the next attempt comes no sooner (at most a week).",
    "schema": {"type": "string"},
    "examples": {"seconds": {"value": "120"}},
}
_CONTROL: Final = {
    "description": (
        "Optional. `abort`: no more attempts of this message for this subscription; its delivery "
        "ends `aborted` (no dead letter, no failover). Read on an answer that is not 2xx. `disable`: "
        "the subscription is disabled, as after failing for its `disableAfterFailingMs`, and its "
        "room's operations room hears of it (`subscription.disabled`); on a 2xx this message is still "
        "delivered, on any other answer it ends as after a 410. Any other value is ignored (and logged)."
    ),
    "schema": {"type": "string", "enum": [control.value for control in DeliveryControl]},
    "examples": {control.value: {"value": control.value} for control in DeliveryControl},
}


def signing_parameters() -> list[dict[str, Any]]:
    return [
        {"name": name, "in": "header", "required": True, "description": text, "schema": {"type": "string"}}
        for name, text in SIGNING_HEADERS
    ]


def webhook_body_schema(
    event_type: dict[str, Any], event_version: dict[str, Any], payload: dict[str, Any]
) -> dict[str, Any]:
    """The JSON body of a webhook, its event type, version and payload as given."""
    text = {"type": "string"}
    fields = {
        "messageId": text,
        "roomId": text,
        "subscriptionId": text,
        "eventType": event_type,
        "eventVersion": event_version,
        "correlationId": text,
        "publishedAt": {"type": "string", "format": "date-time"},
        "attempt": {"type": "integer", "minimum": 0, "description": "0 for the first delivery."},
        "payload": payload,
    }
    return {"type": "object", "required": list(fields), "properties": fields}


def receiver_responses() -> dict[str, Any]:
    """What a receiver may answer, and what each answer does."""
    control = {CONTROL_HEADER: _CONTROL}
    return {
        "2XX": {"description": "Received: the delivery succeeded.", "headers": control},
        "410": {
            "description": "Gone: this message ends dead (or goes to the failover), and the subscription "
            "is disabled: nothing more is sent.",
        },
        "429": {
            "description": "Too many requests: retried with backoff, no sooner than `Retry-After` says.",
            "headers": {"Retry-After": _RETRY_AFTER, **control},
        },
        "default": {
            "description": "Any other answer, or none within the subscription's `timeoutMs`: 408, 425, "
            "5xx, 3xx and no answer are retried with backoff (no sooner than a `Retry-After`); any other "
            "4xx ends the message dead at once (or hands it to the failover).",
            "headers": {"Retry-After": _RETRY_AFTER, **control},
        },
    }


def message_webhook() -> dict[str, Any]:
    """roomcast's own document's webhook: any message, whatever its event type."""
    text = {"type": "string"}
    body = webhook_body_schema(text, text, {"description": "The payload as published: any JSON."})
    return {
        "post": {
            "operationId": "receiveMessage",
            "summary": "A message delivered to a PUSH subscription",
            "description": "roomcast POSTs each message to the subscription's `pushUrl`, signed with "
            "Standard Webhooks headers. Verify the signature before trusting the body. The answer "
            "decides what happens next (below). A tenant's catalog export "
            "(`GET /catalog/openapi.json`) has one such webhook per event type and version, with the "
            "payload's schema.",
            "parameters": signing_parameters(),
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": receiver_responses(),
        }
    }


def ping_webhook() -> dict[str, Any]:
    """The recovery probe a subscription disabled automatically receives (roomcast.catalog.recovery)."""
    text = {"type": "string"}
    body = {
        "type": "object",
        "required": ["type", "roomId", "subscriptionId", "probe", "disabledAt", "sentAt"],
        "properties": {
            "type": {"const": "roomcast.ping"},
            "roomId": text,
            "subscriptionId": text,
            "probe": {
                "type": "integer",
                "minimum": 0,
                "description": "0 for the first probe since the disable.",
            },
            "disabledAt": {"type": ["string", "null"], "format": "date-time"},
            "sentAt": {"type": "string", "format": "date-time"},
        },
        "examples": [
            {
                "type": "roomcast.ping",
                "roomId": "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
                "subscriptionId": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
                "probe": 2,
                "disabledAt": "2026-11-22T10:00:00.000Z",
                "sentAt": "2026-11-22T10:07:00.000Z",
            }
        ],
    }
    return {
        "post": {
            "operationId": "receivePing",
            "summary": "A recovery probe of a subscription disabled automatically",
            "description": "Sent to the push URL of a subscription disabled after failing for its "
            "disableAfterFailingMs (with recoveryProbes on), signed like every webhook (its webhook-id "
            "starts with `ping_`), one at a time: 1, 2, 4 … minutes apart, at most an hour. Answer 2xx "
            "once the endpoint works again: the subscription is re-enabled and what waited is delivered.",
            "parameters": signing_parameters(),
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": {
                "2XX": {"description": "The endpoint works again: the subscription is re-enabled."},
                "default": {"description": "Still failing: probed again later."},
            },
        }
    }
