"""Standard Webhooks signatures, checked against the reference `standardwebhooks` verifier."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from roomcast.platform.credentials import new_signing_secret
from roomcast.webhooks.signing import sign, webhook_headers

# The published Standard Webhooks / Svix example: secret, id, timestamp, payload, signature.
EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
EXAMPLE_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
EXAMPLE_TIMESTAMP_S = 1614265330
EXAMPLE_BODY = b'{"test": 2432232314}'
EXAMPLE_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

BODY = json.dumps({"eventType": "order.created", "payload": {"id": 42, "name": "Zoë"}}).encode()
MESSAGE_ID = "msg_01HZX3M5B2Q9"
CORRELATION_ID = "corr-7f3a"


def now_s() -> int:
    # The verifier only accepts timestamps within five minutes of its own clock.
    return int(time.time())


def test_sign_matches_the_published_example() -> None:
    # When
    signature = sign(EXAMPLE_SECRET, EXAMPLE_ID, EXAMPLE_TIMESTAMP_S, EXAMPLE_BODY)

    # Then
    assert signature == EXAMPLE_SIGNATURE


def test_sign_agrees_with_the_reference_implementation_for_a_fresh_secret() -> None:
    # Given
    secret = new_signing_secret()
    timestamp_s = now_s()

    # When
    signature = sign(secret, MESSAGE_ID, timestamp_s, BODY)

    # Then
    expected = Webhook(secret).sign(MESSAGE_ID, datetime.fromtimestamp(timestamp_s, UTC), BODY.decode())
    assert signature == expected


def test_headers_verify_with_each_secret_of_a_rotation_pair() -> None:
    # Given
    old_secret, new_secret = new_signing_secret(), new_signing_secret()

    # When
    headers = webhook_headers(MESSAGE_ID, now_s(), BODY, [old_secret, new_secret], CORRELATION_ID)

    # Then
    for secret in (old_secret, new_secret):
        assert Webhook(secret).verify(BODY, headers) == json.loads(BODY)


def test_signature_header_holds_one_v1_signature_per_secret() -> None:
    # Given
    secrets = [new_signing_secret(), new_signing_secret()]
    timestamp_s = now_s()

    # When
    headers = webhook_headers(MESSAGE_ID, timestamp_s, BODY, secrets, CORRELATION_ID)

    # Then
    assert headers["webhook-signature"].split(" ") == [
        sign(secret, MESSAGE_ID, timestamp_s, BODY) for secret in secrets
    ]


def test_a_secret_not_in_the_headers_does_not_verify() -> None:
    # Given
    headers = webhook_headers(MESSAGE_ID, now_s(), BODY, [new_signing_secret()], CORRELATION_ID)

    # When / Then
    with pytest.raises(WebhookVerificationError):
        Webhook(new_signing_secret()).verify(BODY, headers)


def test_headers_carry_id_timestamp_content_type_correlation_and_user_agent() -> None:
    # Given
    timestamp_s = now_s()

    # When
    headers = webhook_headers(MESSAGE_ID, timestamp_s, BODY, [new_signing_secret()], CORRELATION_ID)

    # Then
    assert headers["content-type"] == "application/json"
    assert headers["webhook-id"] == MESSAGE_ID
    assert headers["webhook-timestamp"] == str(timestamp_s)
    assert headers["x-correlation-id"] == CORRELATION_ID
    assert headers["user-agent"] == "roomcast-webhooks/1"
    assert set(headers) == {
        "content-type",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "x-correlation-id",
        "user-agent",
    }


def test_a_tampered_body_fails_verification() -> None:
    # Given
    secret = new_signing_secret()
    headers = webhook_headers(MESSAGE_ID, now_s(), BODY, [secret], CORRELATION_ID)

    # When / Then
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY.replace(b"42", b"43"), headers)


def test_a_tampered_timestamp_fails_verification() -> None:
    # Given
    secret = new_signing_secret()
    timestamp_s = now_s()
    headers = webhook_headers(MESSAGE_ID, timestamp_s, BODY, [secret], CORRELATION_ID)

    # When: still inside the verifier's tolerance, so only the signature can catch it
    tampered = {**headers, "webhook-timestamp": str(timestamp_s - 1)}

    # Then
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY, tampered)


def test_a_tampered_id_fails_verification() -> None:
    # Given
    secret = new_signing_secret()
    headers = webhook_headers(MESSAGE_ID, now_s(), BODY, [secret], CORRELATION_ID)

    # When
    tampered = {**headers, "webhook-id": MESSAGE_ID + "x"}

    # Then
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY, tampered)


def test_an_empty_secrets_list_is_refused() -> None:
    # When / Then
    with pytest.raises(ValueError, match="at least one signing secret"):
        webhook_headers(MESSAGE_ID, now_s(), BODY, [], CORRELATION_ID)


def test_a_single_secret_string_is_not_mistaken_for_a_list_of_characters() -> None:
    # When / Then
    with pytest.raises(TypeError):
        webhook_headers(MESSAGE_ID, now_s(), BODY, new_signing_secret(), CORRELATION_ID)


@pytest.mark.parametrize(
    "secret",
    [
        pytest.param("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id="missing whsec_ prefix"),
        pytest.param("whsec_", id="empty key"),
        pytest.param("whsec_not base64!", id="not base64"),
        pytest.param("rc_sample_key_for_sam_local_invoke_0000000000", id="an API key"),
    ],
)
def test_a_malformed_secret_is_refused(secret: str) -> None:
    # When / Then
    with pytest.raises(ValueError, match="secret"):
        sign(secret, MESSAGE_ID, now_s(), BODY)


def test_an_unpadded_secret_signs_like_its_padded_form() -> None:
    # Given: 32 bytes of key encode to 44 characters, the last one padding
    secret = new_signing_secret()
    assert secret.endswith("=")
    timestamp_s = now_s()

    # When
    unpadded = sign(secret.rstrip("="), MESSAGE_ID, timestamp_s, BODY)

    # Then
    assert unpadded == sign(secret, MESSAGE_ID, timestamp_s, BODY)


@pytest.mark.parametrize(
    ("message_id", "correlation_id"),
    [
        pytest.param("msg 1", CORRELATION_ID, id="space in id"),
        pytest.param("msg_1\r\nx-evil: 1", CORRELATION_ID, id="header injection in id"),
        pytest.param("", CORRELATION_ID, id="empty id"),
        pytest.param(MESSAGE_ID, "corr\n1", id="newline in correlation id"),
    ],
)
def test_ids_that_cannot_travel_in_a_header_are_refused(message_id: str, correlation_id: str) -> None:
    # When / Then
    with pytest.raises(ValueError, match="visible ASCII"):
        webhook_headers(message_id, now_s(), BODY, [new_signing_secret()], correlation_id)
