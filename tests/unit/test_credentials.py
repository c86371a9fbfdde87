"""API keys and webhook signing secrets."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from roomcast.platform.credentials import (
    API_KEY_PREFIX,
    SIGNING_SECRET_BYTES,
    SIGNING_SECRET_PREFIX,
    hash_api_key,
    new_api_key,
    new_signing_secret,
)


def _urlsafe_b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_api_key_starts_with_the_prefix() -> None:
    # When
    api_key = new_api_key()

    # Then
    assert api_key.startswith("rc_")
    assert API_KEY_PREFIX == "rc_"


def test_api_key_carries_256_random_bits_in_url_safe_characters() -> None:
    # When
    body = new_api_key().removeprefix(API_KEY_PREFIX)

    # Then
    assert re.fullmatch(r"[A-Za-z0-9_-]+", body)
    assert len(_urlsafe_b64decode(body)) == 32


def test_api_keys_are_unique() -> None:
    # When
    keys = {new_api_key() for _ in range(1_000)}

    # Then
    assert len(keys) == 1_000


def test_api_key_hash_is_the_hex_sha256_of_the_key() -> None:
    # Given
    api_key = "rc_example"

    # When
    digest = hash_api_key(api_key)

    # Then
    assert digest == hashlib.sha256(b"rc_example").hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)


def test_api_key_hash_is_stable() -> None:
    # Given
    api_key = new_api_key()

    # When / Then
    assert hash_api_key(api_key) == hash_api_key(api_key)


def test_different_api_keys_hash_differently() -> None:
    # When / Then
    assert hash_api_key("rc_a") != hash_api_key("rc_b")


def test_signing_secret_is_whsec_and_the_base64_of_32_bytes() -> None:
    # When
    secret = new_signing_secret()

    # Then
    assert secret.startswith("whsec_")
    assert SIGNING_SECRET_PREFIX == "whsec_"
    raw = base64.b64decode(secret.removeprefix(SIGNING_SECRET_PREFIX), validate=True)
    assert len(raw) == SIGNING_SECRET_BYTES == 32


def test_signing_secrets_are_unique() -> None:
    # When
    secrets = {new_signing_secret() for _ in range(1_000)}

    # Then
    assert len(secrets) == 1_000


def test_signing_secret_signs_webhooks_that_standardwebhooks_verifies() -> None:
    # Given
    webhook = Webhook(new_signing_secret())
    now = datetime.now(UTC)
    body = '{"eventType":"order.created","payload":{"id":1}}'
    signature = webhook.sign("msg_1", now, body)
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
    }

    # When
    verified = webhook.verify(body, headers)

    # Then
    assert signature.startswith("v1,")
    assert verified == {"eventType": "order.created", "payload": {"id": 1}}


def test_signature_made_with_one_secret_does_not_verify_with_another() -> None:
    # Given
    now = datetime.now(UTC)
    body = '{"a":1}'
    signature = Webhook(new_signing_secret()).sign("msg_1", now, body)
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
    }

    # When / Then
    with pytest.raises(WebhookVerificationError):
        Webhook(new_signing_secret()).verify(body, headers)
