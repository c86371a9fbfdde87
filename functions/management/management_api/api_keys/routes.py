"""/api-keys routes: a tenant manages its own keys with one of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from management_api.api_keys.models import ApiKeyCreate, ApiKeyList, ApiKeyView, CreatedApiKey
from management_api.common import PAGE_SIZE, Cursor, Limit, no_content
from management_api.dependencies import ApiKeys, Lists
from roomcast.access import PortalUse, Scope, access
from roomcast.api import CallerKeyId, Routes, Tenant, list_scope

if TYPE_CHECKING:
    from roomcast.keys import ApiKeyEntry

routes = Routes("api keys")
KeyId = Annotated[
    str, Path(description="The key's id (`key_` and 16 hex digits).", examples=["key_3f9a1c7e5b2d4f60"])
]


ADMIN_ONLY = access(Scope.ADMIN)
ADMIN_OR_READ = access(Scope.ADMIN, Scope.READ, portal=PortalUse.NEVER)


@routes.post(
    "/api-keys", "createApiKey", "The new key, shown once", 400, 409, 415, status=201, access=ADMIN_ONLY
)
def create_api_key(body: ApiKeyCreate, tenant: Tenant, service: ApiKeys) -> CreatedApiKey:
    """Create an API key

    A new key for your tenant: the answer is the only time the key is shown (only its hash is
    stored). `scopes` says what it may do (`admin`, the default, everything) and `rooms` the only
    rooms it works on. A tenant holds at most 20 keys (`too_many_keys`, 409). Only an `admin` key
    makes keys. Rotate a key by creating the new one, moving your callers, then revoking the old one.
    """
    entry, key = service.create(tenant, body.name, list(body.scopes), body.rooms)
    return CreatedApiKey(
        keyId=entry.key_id,
        name=entry.name,
        createdAt=entry.created_at,
        scopes=sorted(entry.scopes),
        rooms=None if entry.rooms is None else list(entry.rooms),
        key=key,
    )


@routes.get("/api-keys", "listApiKeys", "A page of keys", 400, access=ADMIN_OR_READ)
def list_api_keys(
    caller: CallerKeyId, service: ApiKeys, lists: Lists, limit: Limit = PAGE_SIZE, cursor: Cursor = None
) -> ApiKeyList:
    """List API keys

    Your tenant's keys (never the keys themselves), oldest id order, a page at a time; `current`
    marks the key this request was made with.
    """
    scope = list_scope("api-keys")
    page = service.page(lists.tenant_id, limit, lists.open(cursor, scope))
    next_cursor = lists.seal(page.next_position, scope)
    return ApiKeyList(apiKeys=[_view(entry, caller) for entry in page.items], nextCursor=next_cursor)


@routes.delete("/api-keys/<keyId>", "revokeApiKey", "Revoked", 404, 409, status=204, access=ADMIN_ONLY)
def revoke_api_key(keyId: KeyId, tenant: Tenant, service: ApiKeys) -> Response[None]:
    """Revoke an API key

    The key stops authorizing requests within the authorizer's cache time (`AuthorizerCacheTtlSeconds`,
    300 s by default). Your tenant's only key cannot be revoked (`last_key`, 409): create another
    first. Another tenant's key is not found.
    """
    service.revoke(tenant, keyId)
    return no_content()


def _view(entry: ApiKeyEntry, caller_key_id: str) -> ApiKeyView:
    return ApiKeyView(
        keyId=entry.key_id,
        name=entry.name,
        createdAt=entry.created_at,
        scopes=sorted(entry.scopes),
        rooms=None if entry.rooms is None else list(entry.rooms),
        current=entry.key_id == caller_key_id,
    )
