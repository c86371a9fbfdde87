"""Verifying a roomcast webhook: Standard Webhooks signatures, checked by the ``standardwebhooks``
package, and the body read as a ``WebhookMessage``; and the answer header a receiver steers its
delivery with (``webhook-delivery: abort`` or ``disable``)."""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

import standardwebhooks

from roomcast_client.errors import WebhookVerificationError
from roomcast_client.models import Envelope

WEBHOOK_DELIVERY_HEADER = "webhook-delivery"


class DeliveryControl(StrEnum):
    """What a receiver may ask in its answer's ``webhook-delivery`` header."""

    ABORT = "abort"  # no more attempts of this message (on an answer that is not 2xx): ends `aborted`
    DISABLE = "disable"  # disable the subscription (a 2xx still delivers this message)


def delivery_control_header(control: DeliveryControl | str) -> dict[str, str]:
    """The answer header asking for ``control``: ``{"webhook-delivery": "abort"}``. A value that is
    not one of DeliveryControl raises ValueError (roomcast would ignore it)."""
    return {WEBHOOK_DELIVERY_HEADER: DeliveryControl(control).value}


class WebhookMessage(Envelope):
    """A webhook's body: the message, where it was sent and which attempt this is (0 the first)."""

    room_id: str
    subscription_id: str
    attempt: int


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
