"""``client.ordering_keys``: an ordered subscription's paused keys, and their resume."""

from __future__ import annotations

from roomcast_client._core import Call, query, read_model, segment
from roomcast_client._executors import E, Resource, operation
from roomcast_client.ordering_key import OrderingKey, OrderingKeyList
from roomcast_client.resources.common import subscription_path


def _keys_path(room_id: str, subscription_id: str) -> str:
    return f"{subscription_path(room_id, subscription_id)}/ordering-keys"


class OrderingKeys(Resource[E]):
    @operation
    def paused(
        self, room_id: str, subscription_id: str, *, limit: int | None = None
    ) -> Call[OrderingKeyList]:
        """The subscription's paused keys, longest paused first, each with its dead message."""
        params = query(status="paused", limit=limit)
        return Call("GET", _keys_path(room_id, subscription_id), read_model(OrderingKeyList), params=params)

    @operation
    def resume(
        self, room_id: str, subscription_id: str, ordering_key: str, *, skip: bool = False
    ) -> Call[OrderingKey]:
        """Resume a paused key: its dead message sent again first, or (``skip``) left dead and the
        next one sent."""
        return Call(
            "POST",
            f"{_keys_path(room_id, subscription_id)}/{segment(ordering_key)}/resume",
            read_model(OrderingKey),
            json={"skip": skip},
        )
