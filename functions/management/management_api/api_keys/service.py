"""Creating, listing and revoking a tenant's API keys (storage and its races: roomcast.keys.store)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from management_api.common import require_rooms
from roomcast.access import Scope
from roomcast.catalog import CatalogTable
from roomcast.keys import ApiKeyEntry, ApiKeyTable, issue_api_key
from roomcast.platform import Page, Position, now_iso


@dataclass
class ApiKeysService:
    store: ApiKeyTable
    catalog: CatalogTable
    clock: Callable[[], str] = now_iso

    def create(
        self, tenant_id: str, name: str | None, scopes: list[str], rooms: list[str] | None
    ) -> tuple[ApiKeyEntry, str]:
        """A new key for the tenant: its entry and the key itself (to show once). Each room it is
        limited to must be one of the tenant's (422 naming the first that is not)."""
        require_rooms(self.catalog, tenant_id, rooms or ())
        return issue_api_key(
            self.store,
            tenant_id,
            name or "",
            self.clock(),
            scopes=frozenset(Scope(scope) for scope in scopes),
            rooms=None if rooms is None else tuple(rooms),
        )

    def page(self, tenant_id: str, limit: int, start: Position | None) -> Page[ApiKeyEntry]:
        return self.store.page(tenant_id, limit, start)

    def revoke(self, tenant_id: str, key_id: str) -> None:
        self.store.delete(tenant_id, key_id)
