"""The SDK's examples (clients/python/examples) run against the local stack: each main()
does what its docstring promises."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from roomcast_client import Client, WebhookMessage
from tests.e2e.conftest import ApiClient, wait_until

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples"


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"sdk_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def client(tenant_a: ApiClient) -> Iterator[Client]:
    with Client(tenant_a.base_url, tenant_a.api_key) as sdk:
        yield sdk


def test_publish_then_iterate_then_consume(client: Client, tenant_a: ApiClient) -> None:
    # Given
    room_id = client.rooms.create(name="orders").id
    subscription = client.subscriptions.create(room_id, type="PULL")

    # When
    published = example("publish").main(room_id, client=Client(tenant_a.base_url, tenant_a.api_key))
    listed = example("iterate_messages").main(room_id, client=Client(tenant_a.base_url, tenant_a.api_key))
    stats = example("pull_consumer").main(
        room_id, subscription.id, client=Client(tenant_a.base_url, tenant_a.api_key), until_idle=True
    )

    # Then
    assert len(published) == 4
    assert {m.message_id for m in listed} == {p.message_id for p in published}
    assert (stats.acked, stats.nacked) == (4, 0)


def test_publish_creates_a_room_when_given_none(tenant_a: ApiClient) -> None:
    # When
    published = example("publish").main(client=Client(tenant_a.base_url, tenant_a.api_key))

    # Then
    assert all(len(p.destinations) == 1 for p in published)


def test_the_webhook_receiver_verifies_what_it_receives(client: Client, tenant_a: ApiClient) -> None:
    # Given a receiver waiting for two messages
    room_id = client.rooms.create(name="orders").id
    receiver = example("webhook_receiver")
    received: list[WebhookMessage] = []
    thread = threading.Thread(
        target=lambda: received.extend(
            receiver.main(room_id, 0, client=Client(tenant_a.base_url, tenant_a.api_key), count=2)
        )
    )
    thread.start()

    # When two messages are published once it has subscribed
    wait_until(lambda: client.subscriptions.list(room_id).items, "the receiver subscribed")
    published = [client.messages.publish(room_id, {"orderId": n}, event_type="order.created") for n in (1, 2)]
    thread.join(60)

    # Then both arrived verified, and the receiver unsubscribed
    assert not thread.is_alive()
    assert sorted(m.message_id for m in received) == sorted(p.message_id for p in published)
    assert client.subscriptions.list(room_id).items == []
