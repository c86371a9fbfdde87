"""Verifying a roomcast webhook: Standard Webhooks signatures, checked by the ``standardwebhooks``
package, and the body read as a ``WebhookMessage``; and the answer header a receiver steers its
delivery with (``webhook-delivery: abort`` or ``disable``).

``WebhookMessage`` (the body: the message, where it was sent and which attempt this is, 0 the
first) and ``DeliveryControl`` (what the header may ask) are generated from the API's OpenAPI
document, its ``webhooks`` (docs/decisions/0044-generated-sdk-models.md). ``ABORT``: no more
attempts of this message (on an answer that is not 2xx), its delivery ends `aborted`;
``DISABLE``: the subscription is disabled (a 2xx still delivers this message)."""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from typing import Any

import standardwebhooks

from roomcast_client._generated.enums import DeliveryControl
from roomcast_client._generated.models import WebhookMessage
from roomcast_client.errors import WebhookVerificationError

__all__ = [
    "WEBHOOK_DELIVERY_HEADER",
    "DeliveryControl",
    "WebhookMessage",
    "delivery_control_header",
    "verify_webhook",
]

WEBHOOK_DELIVERY_HEADER = "webhook-delivery"


def delivery_control_header(control: DeliveryControl | str) -> dict[str, str]:
    """The answer header asking for ``control``: ``{"webhook-delivery": "abort"}``. A value that is
    not one of DeliveryControl raises ValueError (roomcast would ignore it)."""
    return {WEBHOOK_DELIVERY_HEADER: DeliveryControl(control).value}


def verify_webhook(secret: str, headers: Mapping[str, str], body: bytes | str) -> WebhookMessage:
    """The webhook's message once its signature verifies, else ``WebhookVerificationError``.

    ``secret`` is the subscription's signing secret (``whsec_…``); ``headers`` the request's
    headers (any case; ``webhook-id``, ``webhook-timestamp``, ``webhook-signature``); ``body`` the
    raw bytes received, before any JSON parsing. A timestamp more than 5 minutes from now is
    refused (replays). During a secret rotation either secret verifies.
    """
    try:
        webhook = standardwebhooks.Webhook(secret)
        payload: Any = webhook.verify(body, {str(name): str(value) for name, value in headers.items()})
    except (
        standardwebhooks.WebhookVerificationError,
        standardwebhooks.webhooks.EmptyWebhookSecretError,
        binascii.Error,
        UnicodeDecodeError,
        ValueError,
    ) as error:
        raise WebhookVerificationError(f"webhook not verified: {error}") from error
    try:
        return WebhookMessage.model_validate(payload)
    except ValueError as error:  # signed, but not a roomcast webhook body
        raise WebhookVerificationError(f"webhook body is not a roomcast message: {error}") from error
