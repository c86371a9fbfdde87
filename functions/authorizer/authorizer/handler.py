"""HTTP API Lambda authorizer (payload 2.0, simple responses): ``Authorization: Bearer <key>`` → tenant.

Keys are stored as SHA-256 hashes; the tenant id and the key's id travel to the functions in the
authorizer context (``requestContext.authorizer.lambda.tenantId`` and ``keyId``, empty for a key
stored before keys had ids).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.keys import ApiKeyTable
from roomcast.platform import API_KEY_PREFIX, hash_api_key, load_settings, logger

MAX_KEY_LENGTH = 256
DENY: dict[str, Any] = {"isAuthorized": False}


@cache
def api_keys() -> ApiKeyTable:
    return ApiKeyTable(load_settings().table_name)


def bearer_key(event: dict[str, Any]) -> str | None:
    """The API key of ``Authorization: Bearer <key>``, or None when absent or malformed."""
    headers = {name.lower(): value for name, value in (event.get("headers") or {}).items()}
    header = headers.get("authorization") or ""
    scheme, _, key = header.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key.startswith(API_KEY_PREFIX) or len(key) > MAX_KEY_LENGTH:
        return None
    return key


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    key = bearer_key(event)
    if key is None:
        logger.info("authorization refused: no bearer key")
        return DENY
    owner = api_keys().owner(hash_api_key(key))
    if owner is None:
        logger.info("authorization refused: unknown key")
        return DENY
    return {"isAuthorized": True, "context": {"tenantId": owner.tenant_id, "keyId": owner.key_id or ""}}
