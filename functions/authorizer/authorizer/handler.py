"""HTTP API Lambda authorizer (payload 2.0, simple responses): ``Authorization: Bearer <credential>``
→ who calls.

Two credentials, both stored only as SHA-256 hashes: an API key (``rc_…``: its tenant, its id, its
scopes and the rooms it is limited to, if any) and a portal session's token (``rcp_…``: its tenant
and session). The caller travels to the functions in the authorizer context
(roomcast.access.model.to_context), which decide per route (roomcast.access.gate).

The decision depends on the credential only, never on the route: API Gateway caches it per
``Authorization`` header (its identity source), so one key's answer never serves another, and a
key's answer is right for every route it is reused on (docs/decisions/0048-scoped-keys-and-portal.md).
A portal token is let through while its session's item exists, expired or revoked: the function
reads the session on each request and answers 401 then.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.access import Caller, to_context
from roomcast.keys import ApiKeyTable
from roomcast.platform import API_KEY_PREFIX, hash_api_key, load_settings, logger
from roomcast.portal import PORTAL_TOKEN_PREFIX, PortalSessionTable

MAX_KEY_LENGTH = 256
DENY: dict[str, Any] = {"isAuthorized": False}


@cache
def api_keys() -> ApiKeyTable:
    return ApiKeyTable(load_settings().table_name)


@cache
def portal_sessions() -> PortalSessionTable:
    return PortalSessionTable.sharing(api_keys())


def bearer_key(event: dict[str, Any]) -> str | None:
    """The credential of ``Authorization: Bearer <credential>``, or None when absent or malformed."""
    headers = {name.lower(): value for name, value in (event.get("headers") or {}).items()}
    header = headers.get("authorization") or ""
    scheme, _, key = header.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or len(key) > MAX_KEY_LENGTH:
        return None
    if not (key.startswith(API_KEY_PREFIX) or key.startswith(PORTAL_TOKEN_PREFIX)):
        return None
    return key


def caller_of(credential: str) -> Caller | None:
    if credential.startswith(PORTAL_TOKEN_PREFIX):
        token = portal_sessions().token_owner(hash_api_key(credential))
        return None if token is None else Caller(token.tenant_id, portal_session_id=token.session_id)
    owner = api_keys().owner(hash_api_key(credential))
    if owner is None:
        return None
    return Caller(owner.tenant_id, owner.key_id or "", owner.scopes, owner.rooms)


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    credential = bearer_key(event)
    if credential is None:
        logger.info("authorization refused: no bearer credential")
        return DENY
    caller = caller_of(credential)
    if caller is None:
        logger.info("authorization refused: unknown credential")
        return DENY
    return {"isAuthorized": True, "context": to_context(caller)}
