"""``client.api_keys``: the tenant's API keys: create, list, delete (revoke)."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast_client._core import Call, query, read_model, read_nothing, segment
from roomcast_client._executors import E, operation
from roomcast_client.models import ApiKey, CreatedApiKey
from roomcast_client.resources.common import TenantList


class ApiKeys(TenantList[E, ApiKey]):
    listing = ("/api-keys", ApiKey, "apiKeys")

    @operation
    def create(
        self,
        name: str | None = None,
        *,
        scopes: Sequence[str] | None = None,
        rooms: Sequence[str] | None = None,
    ) -> Call[CreatedApiKey]:
        """A new key of the tenant; its ``key`` is shown only in this answer. ``scopes``: what it
        may do (``admin``, the default; ``manage``, ``read``, ``publish``, ``consume``);
        ``rooms``: the only rooms it works on."""
        body = query(
            name=name,
            scopes=None if scopes is None else list(scopes),
            rooms=None if rooms is None else list(rooms),
        )
        return Call("POST", "/api-keys", read_model(CreatedApiKey), json=body, retry_safe=False)

    @operation
    def delete(self, key_id: str) -> Call[None]:
        """Revoke a key (it works until the authorizer's cache forgets it, 300 s by default)."""
        return Call("DELETE", f"/api-keys/{segment(key_id)}", read_nothing)
