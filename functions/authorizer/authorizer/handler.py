"""HTTP API Lambda authorizer (payload 2.0, simple responses): ``Authorization: Bearer <key>`` → tenant.

Keys are stored as SHA-256 hashes; the tenant id travels to the functions in the
authorizer context (``requestContext.authorizer.lambda.tenantId``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.config import load_settings
from roomcast.credentials import API_KEY_PREFIX, hash_api_key
from roomcast.dal.repository import Repository
from roomcast.observability import logger

MAX_KEY_LENGTH = 256
DENY: dict[str, Any] = {"isAuthorized": False}


@cache
def repository() -> Repository:
    return Repository(load_settings().table_name)


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
    tenant_id = repository().tenant_for_api_key(hash_api_key(key))
    if tenant_id is None:
        logger.info("authorization refused: unknown key")
        return DENY
    return {"isAuthorized": True, "context": {"tenantId": tenant_id}}
