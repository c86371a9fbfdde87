"""The Python SDK's AsyncClient against the local stack: the core paths of test_sdk.py, awaited
(the operations are the same Call descriptions; this proves the async executor runs them)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from roomcast_client import (
    AsyncClient,
    AsyncPullConsumer,
    BatchAccepted,
    Forbidden,
    NotFound,
    PulledMessage,
    UnprocessableEntity,
    verify_webhook,
)
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient
from tests.e2e.webhook_server import WebhookServers

webhook_servers = webhook_server.webhook_servers

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(tenant_a: ApiClient) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(tenant_a.base_url, tenant_a.api_key, max_retries=1) as sdk:
        yield sdk


async def pull_until(
    client: AsyncClient, room_id: str, subscription_id: str, count: int
) -> list[PulledMessage]:
    pulled: list[PulledMessage] = []
    deadline = time.monotonic() + 30
    while len(pulled) < count and time.monotonic() < deadline:
        pulled += await client.pull(room_id, subscription_id, wait_ms=1000)
    assert len(pulled) >= count, f"pulled {len(pulled)} of {count}"
    return pulled


async def test_rooms_crud_and_pagination(client: AsyncClient) -> None:
    # Given
    rooms = await asyncio.gather(*(client.rooms.create(name=f"room-{n}") for n in range(3)))

    # When
    updated = await client.rooms.update(rooms[0].id, delivery_attempts=7)
    first_page = await client.rooms.list(limit=2)
    every = [room.id async for room in client.rooms.iter(limit=2)]
    deletion = await client.jobs.wait((await client.rooms.delete(rooms[0].id)).id, poll_interval_s=0.2)

    # Then
    assert updated.delivery_attempts == 7
    assert (deletion.state, deletion.counts.subscriptions_deleted) == ("succeeded", 0)
    assert first_page.next_cursor is not None
    assert sorted(every) == sorted(room.id for room in rooms)
    with pytest.raises(NotFound):
        await client.rooms.get(rooms[0].id)


async def test_publish_pull_ack_and_status(client: AsyncClient) -> None:
    # Given
    room = await client.rooms.create(name="orders")
    subscription = await client.subscriptions.create(room.id, type="PULL")

    # When
    published = await client.messages.publish(room.id, {"n": 1}, event_type="order.created")
    batch = await client.messages.publish_batch(
        room.id, [{"eventType": "order.created", "eventVersion": "1", "payload": {"n": 2}}]
    )
    pulled = await pull_until(client, room.id, subscription.id, 2)
    acked = await client.ack(room.id, subscription.id, [m.receipt for m in pulled])
    status = await client.messages.get(room.id, published.message_id)

    # Then
    assert isinstance(batch.results[0], BatchAccepted)
    assert sorted(acked.acked) == sorted([published.message_id, batch.results[0].message_id])
    assert [d.status for d in status.deliveries] == ["delivered"]
    assert [a.event async for a in client.messages.iter_attempts(room.id, published.message_id)] == [
        "pull",
        "ack",
    ]


async def test_errors_are_typed(client: AsyncClient, tenant_a: ApiClient) -> None:
    # When / Then
    with pytest.raises(UnprocessableEntity) as invalid:
        await client.rooms.create(name="")
    assert invalid.value.code == "validation_error"
    assert invalid.value.details[0]["field"] == "body.name"
    async with AsyncClient(tenant_a.base_url, "rc_wrong", max_retries=0) as wrong:
        with pytest.raises(Forbidden):
            await wrong.rooms.list()


async def test_a_webhook_delivered_to_a_push_subscription_verifies(
    client: AsyncClient, webhook_servers: WebhookServers
) -> None:
    # Given
    server = webhook_servers()
    room = await client.rooms.create(name="orders")
    subscription = await client.subscriptions.create(room.id, push_url=server.url())
    assert subscription.signing_secret is not None

    # When
    published = await client.messages.publish(room.id, {"n": 1}, event_type="order.created")
    (request,) = await asyncio.to_thread(server.wait_for_requests, 1, 30)

    # Then
    assert verify_webhook(subscription.signing_secret, request.headers, request.body).message_id == (
        published.message_id
    )


async def test_the_async_consumer_acks_nacks_and_extends(client: AsyncClient) -> None:
    # Given a 2 s ack wait, one-second redeliveries, and a handler that fails order 2 once and
    # takes longer than the ack wait on order 1
    room = await client.rooms.create(name="orders")
    subscription = await client.subscriptions.create(
        room.id, type="PULL", ack_wait_ms=2000, delivery_delay_ms=1000
    )
    for n in (1, 2):
        await client.messages.publish(room.id, {"n": n}, event_type="order.created")
    seen: list[tuple[int, int]] = []

    async def handler(message: PulledMessage) -> None:
        seen.append((message.payload["n"], message.attempt))
        if message.payload["n"] == 1:
            await asyncio.sleep(4)  # the slow work itself: twice the ack wait
        elif message.attempt == 0:
            raise RuntimeError("downstream unavailable")

    # When
    stats = await AsyncPullConsumer(client, room.id, subscription.id, handler, wait_seconds=2).run(limit=3)

    # Then order 1 was handled once (extended meanwhile), order 2 twice
    assert sorted(seen) == [(1, 0), (2, 0), (2, 1)]
    assert (stats.acked, stats.nacked) == (2, 1)
    assert stats.extensions >= 2
