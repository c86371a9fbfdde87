"""The Python SDK (roomcast_client) against the local stack: every route through ``Client``,
pagination, typed errors, webhook verification of a real delivery and the PULL consumer loop."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from roomcast_client import (
    BadRequest,
    Client,
    Conflict,
    Forbidden,
    NotFound,
    PulledMessage,
    Unauthorized,
    UnprocessableEntity,
)
from tests.e2e.conftest import ApiClient

ORDER_CREATED = {"name": "order.created", "versions": ["1"]}


@pytest.fixture
def client(tenant_a: ApiClient) -> Iterator[Client]:
    with Client(tenant_a.base_url, tenant_a.api_key, max_retries=1) as sdk:
        yield sdk


def pull_until(client: Client, room_id: str, subscription_id: str, count: int) -> list[PulledMessage]:
    """Long-poll until ``count`` messages were pulled (within 30 s)."""
    pulled: list[PulledMessage] = []
    deadline = time.monotonic() + 30
    while len(pulled) < count and time.monotonic() < deadline:
        pulled += client.pull(room_id, subscription_id, max_messages=10, wait_ms=1000)
    assert len(pulled) >= count, f"pulled {len(pulled)} of {count}"
    return pulled


def test_rooms_create_get_update_list_and_delete(client: Client) -> None:
    # Given
    room = client.rooms.create(name="orders", delivery_attempts=5, eventTypes=[ORDER_CREATED])

    # When
    fetched = client.rooms.get(room.id)
    updated = client.rooms.update(room.id, name="orders-eu", delivery_delay_ms=2000)
    listed = client.rooms.list()
    client.rooms.delete(room.id)

    # Then
    assert fetched == room
    assert room.delivery_attempts == 5
    assert room.event_types[0].name == "order.created"
    assert (updated.name, updated.delivery_delay_ms) == ("orders-eu", 2000)
    assert [r.id for r in listed.items] == [room.id]
    assert listed.next_cursor is None
    with pytest.raises(NotFound) as missing:
        client.rooms.get(room.id)
    assert missing.value.code == "not_found"


def test_a_model_dumps_back_to_the_apis_json(client: Client, tenant_a: ApiClient) -> None:
    # Given
    room = client.rooms.create(name="orders")

    # When
    dumped = room.model_dump(mode="json", by_alias=True)

    # Then
    assert dumped == tenant_a.get(f"/rooms/{room.id}").json()


def test_iter_follows_cursors_over_more_than_one_page(client: Client) -> None:
    # Given five rooms
    created = {client.rooms.create(name=f"room-{n}").id for n in range(5)}

    # When read two at a time
    first = client.rooms.list(limit=2)
    every = list(client.rooms.iter(limit=2))

    # Then
    assert len(first.items) == 2
    assert first.next_cursor is not None
    assert {room.id for room in every} == created
    assert len(every) == 5


def test_publish_pull_and_ack(client: Client) -> None:
    # Given
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, type="PULL")

    # When
    published = client.messages.publish(room.id, {"orderId": 1}, event_type="order.created")
    pulled = pull_until(client, room.id, subscription.id, 1)
    acked = client.ack(room.id, subscription.id, [m.receipt for m in pulled])

    # Then
    assert pulled[0].message_id == published.message_id
    assert pulled[0].payload == {"orderId": 1}
    assert acked.acked == [published.message_id]
    status = client.messages.get(room.id, published.message_id)
    assert status.deliveries[0].status == "delivered"


def test_errors_are_typed_with_the_apis_code_and_details(client: Client) -> None:
    # Given
    room = client.rooms.create(name="orders")

    # When / Then: 422 with the offending field
    with pytest.raises(UnprocessableEntity) as invalid:
        client.rooms.create(name="orders", delivery_attempts=500)
    assert invalid.value.status == 422
    assert invalid.value.code == "validation_error"
    assert invalid.value.details[0]["field"] == "body.deliveryAttempts"
    # 400 for a cursor this list did not hand out
    with pytest.raises(BadRequest) as bad_cursor:
        client.rooms.list(cursor="not-a-cursor")
    assert bad_cursor.value.code == "invalid_cursor"
    # 409 for pulling from a PUSH subscription
    push = client.subscriptions.create(room.id, push_url="http://127.0.0.1:9/hook")
    with pytest.raises(Conflict) as conflict:
        client.pull(room.id, push.id)
    assert conflict.value.code == "conflict"


def test_a_missing_or_wrong_key_is_unauthorized_or_forbidden(tenant_a: ApiClient) -> None:
    # Given
    wrong = Client(tenant_a.base_url, "rc_wrong", max_retries=0)
    without_header = httpx.Client(
        event_hooks={"request": [lambda request: request.headers.pop("Authorization")]}
    )
    missing = Client(tenant_a.base_url, "rc_unsent", max_retries=0, http=without_header)

    # When / Then
    with pytest.raises(Forbidden) as forbidden:
        wrong.rooms.list()
    with pytest.raises(Unauthorized) as unauthorized:
        missing.rooms.list()
    assert (forbidden.value.status, forbidden.value.message) == (403, "Forbidden")
    assert (unauthorized.value.status, unauthorized.value.code) == (401, "unauthorized")
