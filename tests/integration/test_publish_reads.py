"""What a publish reads, against moto: the room every time, its subscriptions only when they
changed (the room's subscriptions version) or the cache's time to live ran out
(docs/decisions/0021-publish-batches-and-reads.md)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import time_machine

from roomcast.catalog import items as catalog_items
from roomcast.catalog.routing_cache import TTL_SECONDS
from roomcast.catalog.store import CatalogTable
from roomcast.platform import items
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

TENANT = "acme"
START = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant=TENANT), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"]) if response.get("body") else None


class Room:
    """A room driven through the management and publish handlers (two containers)."""

    def __init__(self, function_handler: Callable[[str], Handler]) -> None:
        self.manage = function_handler("ManagementFunction")
        self.publish_handler = function_handler("PublishFunction")
        self.id = _call(self.manage, "POST", "/rooms", {"name": "orders"})["id"]

    def subscribe(self, **fields: Any) -> str:
        body = {"type": "PULL", **fields}
        return str(_call(self.manage, "POST", f"/rooms/{self.id}/subscriptions", body)["id"])

    def change(self, subscription_id: str, **fields: Any) -> None:
        _call(self.manage, "PATCH", f"/rooms/{self.id}/subscriptions/{subscription_id}", fields)

    def publish(self) -> list[str]:
        body = {"eventType": "order.created", "eventVersion": "1", "payload": {}}
        return sorted(_call(self.publish_handler, "POST", f"/rooms/{self.id}/messages", body)["destinations"])


def test_an_unchanged_room_is_read_with_one_get_and_no_query(
    function_handler: Callable[[str], Handler], aws_calls: Counter[str]
) -> None:
    # Given: a room with a subscription, published to once
    room = Room(function_handler)
    room.subscribe()
    room.publish()

    # When
    aws_calls.clear()
    room.publish()

    # Then: the room, and the catalog's entry for the message's event type (read beside it)
    assert (aws_calls["GetItem"], aws_calls["Query"]) == (1 + 1, 0)


def test_every_subscription_change_is_routed_by_the_next_publish(
    function_handler: Callable[[str], Handler],
) -> None:
    # Given: a room whose subscriptions the publish function has cached
    room = Room(function_handler)
    first = room.subscribe()
    assert room.publish() == [first]

    # When / Then: each change is seen by the publish right after it
    second = room.subscribe()
    assert room.publish() == sorted([first, second])
    room.change(second, eventTypes=[{"name": "order.deleted"}])
    assert room.publish() == [first]
    room.change(second, eventTypes=[])
    room.change(first, status="disabled")
    assert room.publish() == [second]
    _call(room.manage, "DELETE", f"/rooms/{room.id}/subscriptions/{second}")
    assert room.publish() == []


def test_a_change_that_does_not_move_the_version_is_seen_within_the_cache_time_to_live(
    function_handler: Callable[[str], Handler], stack_model: StackModel
) -> None:
    # Given: a cached room, and a subscription written behind the repository's back (as code
    # older than the version would write it: no version bump)
    room = Room(function_handler)
    first = room.subscribe()
    repository = CatalogTable(stack_model.tables["Table"]["TableName"])
    stored = repository.get_subscription(TENANT, room.id, first)
    with time_machine.travel(START, tick=False) as clock:
        assert room.publish() == [first]
        hidden = dataclasses.replace(stored, id="sub_" + "f" * 32)
        repository._client.put_item(
            TableName=repository._table_name,
            Item=items.to_attributes(catalog_items.subscription_to_item(hidden)),
        )

        # When / Then: still the cached subscriptions just before the bound, the new one after it
        clock.shift(TTL_SECONDS - 1)
        assert room.publish() == [first]
        clock.shift(1)
        assert room.publish() == sorted([first, hidden.id])
