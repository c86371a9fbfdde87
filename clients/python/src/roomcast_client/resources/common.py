"""What the resource modules share: the API's paths for a room and a subscription (each id
escaped), the call that reads one page of a list, and the ``list``/``iter`` of a tenant-wide
collection."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

import pydantic

from roomcast_client._core import Call, query, read_page, segment
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.models import Page

M = TypeVar("M", bound=pydantic.BaseModel)


def room_path(room_id: str) -> str:
    return f"/rooms/{segment(room_id)}"


def subscription_path(room_id: str, subscription_id: str) -> str:
    return f"{room_path(room_id)}/subscriptions/{segment(subscription_id)}"


def page_call(path: str, model: type[M], items_key: str, **params: str | int | None) -> Call[Page[M]]:
    """GET one page of a list (``{items_key: [...], "nextCursor": ...}``); the query is the
    ``params`` given (None: absent), by the API's names."""
    return Call("GET", path, read_page(model, items_key), params=query(**params))


class TenantList(Resource[E], Generic[E, M]):
    """A resource of one of the tenant's collections (rooms, API keys), listed without filters:
    ``listing`` is its path, its items' model and the answer's key of the items."""

    listing: ClassVar[tuple[str, type[Any], str]]

    @operation
    def list(self, *, limit: int | None = None, cursor: str | None = None) -> Call[Page[M]]:
        """One page of the tenant's collection."""
        path, model, items_key = self.listing
        return page_call(path, model, items_key, limit=limit, cursor=cursor)

    iter = paginated(list.build)
