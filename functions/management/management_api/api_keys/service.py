"""Creating, listing and revoking a tenant's API keys (storage and its races: roomcast.keys.store)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from roomcast.access import Scope
from roomcast.catalog import CatalogTable
from roomcast.keys import ApiKeyEntry, ApiKeyTable, issue_api_key
from roomcast.platform import InvalidRequest, NotFound, Page, Position, now_iso


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
        for index, room_id in enumerate(rooms or ()):
            try:
                self.catalog.get_room(tenant_id, room_id)
            except NotFound:
                raise InvalidRequest(
                    f"body.rooms.{index}: room {room_id} not found",
                    details=[
                        {"field": f"body.rooms.{index}", "problem": "no such room", "type": "room_not_found"}
                    ],
                ) from None
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
