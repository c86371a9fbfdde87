"""Standard Webhooks signatures (https://www.standardwebhooks.com), with the standard library only.

``webhook-signature`` is ``v1,<base64 HMAC-SHA256 of "id.timestamp.body">``; the key is the base64
after the ``whsec_`` prefix. During a secret rotation every live secret signs, and the signatures
are sent space-separated so a receiver holding either secret accepts the message. The
``standardwebhooks`` package verifies these headers (the tests do); the layer does not ship it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Sequence

from roomcast.platform import SIGNING_SECRET_PREFIX

SIGNATURE_VERSION = "v1"
USER_AGENT = "roomcast-webhooks/1"


def _key_of(secret: str) -> bytes:
    if not secret.startswith(SIGNING_SECRET_PREFIX):
        raise ValueError(f"a signing secret starts with {SIGNING_SECRET_PREFIX!r}")
    encoded = secret.removeprefix(SIGNING_SECRET_PREFIX)
    try:
        # Unpadded base64 is accepted, as the reference implementation does.
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("a signing secret is whsec_ followed by base64") from error
    if not key:
        raise ValueError("a signing secret may not be empty")
    return key


def _require_header_token(name: str, value: str) -> None:
    # These travel in headers: a space would split the signed content from what the receiver
    # reads, and a CR/LF would inject headers.
    if not value or any(not 0x21 <= ord(character) <= 0x7E for character in value):
        raise ValueError(f"{name} must be non-empty visible ASCII without spaces")


def sign(secret: str, message_id: str, timestamp_s: int, body: bytes) -> str:
    """``v1,<base64 signature>`` of ``body`` sent as message ``message_id`` at ``timestamp_s``."""
    signed_content = f"{message_id}.{timestamp_s}.".encode() + body
    digest = hmac.new(_key_of(secret), signed_content, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode('ascii')}"


def webhook_headers(
    message_id: str,
    timestamp_s: int,
    body: bytes,
    secrets: Sequence[str],
    correlation_id: str,
) -> dict[str, str]:
    """The headers of one webhook POST, signed with every secret in ``secrets`` (rotation)."""
    if isinstance(secrets, str):
        raise TypeError("secrets is a sequence of secrets, not one secret")
    if not secrets:
        raise ValueError("a webhook needs at least one signing secret")
    _require_header_token("message_id", message_id)
    _require_header_token("correlation_id", correlation_id)
    return {
        "content-type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp_s),
        "webhook-signature": " ".join(sign(secret, message_id, timestamp_s, body) for secret in secrets),
        "x-correlation-id": correlation_id,
        "user-agent": USER_AGENT,
    }
