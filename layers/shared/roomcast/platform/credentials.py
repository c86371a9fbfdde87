"""API keys and webhook signing secrets.

API keys carry 256 random bits, so a single SHA-256 is a safe way to store them: there is
nothing to brute-force that a slow hash would protect (docs/decisions/0003-api-keys.md).
"""

from __future__ import annotations

import base64
import hashlib
import secrets

API_KEY_PREFIX = "rc_"
SIGNING_SECRET_PREFIX = "whsec_"
SIGNING_SECRET_BYTES = 32


def new_api_key() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


API_KEY_ID_PREFIX = "key_"
API_KEY_ID_PATTERN = r"^key_[0-9a-f]{16}$"


def new_api_key_id() -> str:
    """A key's public name in the API (random: it says nothing about the key)."""
    return API_KEY_ID_PREFIX + secrets.token_hex(8)


def hash_api_key(api_key: str) -> str:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def new_signing_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and the base64 of random bytes."""
    return SIGNING_SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SIGNING_SECRET_BYTES)).decode("ascii")
