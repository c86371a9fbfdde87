"""The Python SDK (roomcast_client) against the local stack: every route through ``Client``,
pagination, typed errors, webhook verification of a real delivery and the PULL consumer loop."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from pydantic import BaseModel

from roomcast_client import (
    BadRequest,
    BatchAccepted,
    BatchRefused,
    Client,
    Conflict,
    Forbidden,
    Job,
    JobCounts,
    NotFound,
    OrderingKey,
    OrderingKeyList,
    PullConsumer,
    PulledMessage,
    Unauthorized,
    UnprocessableEntity,
    WebhookVerificationError,
    models,
    verify_webhook,
)
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, wait_until
from tests.e2e.webhook_server import Reply, WebhookServers, always

webhook_servers = webhook_server.webhook_servers

ORDER_CREATED = {"name": "order.created", "versions": ["1"]}


def test_a_transformations_versions_rollback_and_dry_run(
    client: Client, webhook_servers: WebhookServers
) -> None:
    # Given: a PUSH subscription whose transformation changed once
    room = client.rooms.create(name="orders")
    rename = "function handler(w) { w.payload = {id: w.payload.orderId}; return w; }"
    push = client.subscriptions.create(room.id, push_url=webhook_servers().url(), transformation=rename)
    client.subscriptions.update(room.id, push.id, transformation="function handler(w) { w.cancel = true; }")

    # When
    before = client.subscriptions.transformation(room.id, push.id)
    rolled = client.subscriptions.roll_back_transformation(room.id, push.id)
    tested = client.subscriptions.test_transformation(
        room.id, push.id, event_type="order.created", payload={"orderId": 7}
    )

    # Then
    assert before.current is not None
    assert before.previous is not None
    assert (before.current.version, before.previous.version) == (2, 1)
    assert rolled.current is not None
    assert rolled.current.source == rename
    assert (tested.outcome, tested.version, tested.payload) == ("transformed", 1, {"id": 7})


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
    deletion = client.jobs.wait(client.rooms.delete(room.id).id, timeout_s=60, poll_interval_s=0.2)

    # Then
    assert fetched == room
    assert (deletion.kind, deletion.state) == ("delete-room", "succeeded")
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


def test_subscriptions_every_route(client: Client, webhook_servers: WebhookServers) -> None:
    # Given
    server = webhook_servers()
    room = client.rooms.create(name="orders", eventTypes=[ORDER_CREATED])

    # When
    push = client.subscriptions.create(room.id, push_url=server.url(), timeout_ms=2000)
    pull = client.subscriptions.create(room.id, type="PULL", ack_wait_ms=5000)
    fetched = client.subscriptions.get(room.id, push.id)
    updated = client.subscriptions.update(room.id, push.id, timeout_ms=3000)
    paused = client.subscriptions.pause(room.id, push.id)
    resumed = client.subscriptions.resume(room.id, push.id)
    rotated = client.subscriptions.rotate_secret(room.id, push.id)
    schedule = client.subscriptions.schedule(room.id, push.id)
    first_page = client.subscriptions.list(room.id, limit=1)
    every = list(client.subscriptions.iter(room.id, limit=1))
    client.subscriptions.delete(room.id, pull.id)

    # Then
    assert (push.type, pull.type) == ("PUSH", "PULL")
    assert push.signing_secret is not None
    assert push.signing_secret.startswith("whsec_")
    assert pull.ack_wait_ms == 5000
    assert fetched.push_url == server.url()
    assert updated.timeout_ms == 3000
    assert (paused.status, resumed.status) == ("paused", "active")
    assert rotated.signing_secret != push.signing_secret
    assert rotated.previous_secrets_valid_until is not None
    assert schedule.subscription_id == push.id
    assert schedule.attempts[0].attempt == 0
    assert len(first_page.items) == 1
    assert first_page.next_cursor is not None
    assert {s.id for s in every} == {push.id, pull.id}
    assert [s.id for s in client.subscriptions.list(room.id).items] == [push.id]


def test_a_publish_retried_with_its_key_answers_the_first_message(client: Client) -> None:
    # Given
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, type="PULL")

    # When the same key is sent twice, and a message is published without a key twice
    first = client.messages.publish(room.id, {"n": 1}, event_type="order.created", idempotency_key="order-1")
    again = client.messages.publish(room.id, {"n": 1}, event_type="order.created", idempotency_key="order-1")
    keyless = [
        client.messages.publish(
            room.id, {"eventType": "order.created", "eventVersion": "1", "payload": {"n": 2}}
        )
        for _ in range(2)
    ]

    # Then the key names one message; each keyless call is its own message (its own generated key)
    assert again.message_id == first.message_id
    assert keyless[0].message_id != keyless[1].message_id
    assert len(pull_until(client, room.id, subscription.id, 3)) == 3


def test_publish_batch_answers_one_result_per_message(client: Client) -> None:
    # Given a room that accepts only order.created
    room = client.rooms.create(name="orders", eventTypes=[ORDER_CREATED])
    client.subscriptions.create(room.id, type="PULL")
    messages = [
        {"eventType": "order.created", "eventVersion": "1", "payload": {"n": 1}, "idempotencyKey": "b-1"},
        {"event_type": "order.created", "event_version": "1", "payload": {"n": 2}},
        {"eventType": "order.shipped", "eventVersion": "1", "payload": {"n": 3}},
    ]

    # When
    result = client.messages.publish_batch(room.id, messages)
    repeated = client.messages.publish_batch(room.id, messages[:1])

    # Then
    assert result.failed_count == 1
    accepted_1, accepted_2, refused = result.results
    assert isinstance(accepted_1, BatchAccepted)
    assert isinstance(accepted_2, BatchAccepted)
    assert isinstance(refused, BatchRefused)
    assert (refused.status, refused.error.code) == (422, "unroutable")
    first_again = repeated.results[0]
    assert isinstance(first_again, BatchAccepted)
    assert first_again.message_id == accepted_1.message_id


def test_messages_list_get_and_attempts(client: Client) -> None:
    # Given three messages, one pulled and acked
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, type="PULL")
    published = [client.messages.publish(room.id, {"n": n}, event_type="order.created") for n in range(3)]
    pulled = pull_until(client, room.id, subscription.id, 3)
    client.ack(room.id, subscription.id, [m.receipt for m in pulled])

    # When
    page = client.messages.list(room.id, limit=2)
    every = list(client.messages.iter(room.id, limit=2, event_type="order.created"))
    status = client.messages.get(room.id, published[0].message_id)
    attempts = client.messages.attempts(room.id, published[0].message_id, subscription_id=subscription.id)
    iterated = list(client.messages.iter_attempts(room.id, published[0].message_id))

    # Then
    assert len(page.items) == 2
    assert page.next_cursor is not None
    assert {m.message_id for m in every} == {p.message_id for p in published}
    assert status.payload == {"n": 0}
    assert status.destinations == [subscription.id]
    assert [a.event for a in attempts.items] == ["pull", "ack"]
    assert iterated == attempts.items


def test_pull_nack_extend_and_dead_letters(client: Client) -> None:
    # Given a PULL subscription with no redelivery: a nack ends the message dead
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, type="PULL", delivery_attempts=0)
    published = [client.messages.publish(room.id, {"n": n}, event_type="order.created") for n in range(3)]
    pulled = pull_until(client, room.id, subscription.id, 3)

    # When
    extended = client.extend(room.id, subscription.id, [m.receipt for m in pulled], ack_wait_ms=60_000)
    nacked = client.nack(room.id, subscription.id, [m.receipt for m in pulled])
    first_page = client.dead_letters.list(room.id, subscription.id, limit=2)
    letters = list(client.dead_letters.iter(room.id, subscription.id, limit=2))
    replayed = client.dead_letters.replay(room.id, subscription.id, [published[0].message_id])
    again = pull_until(client, room.id, subscription.id, 1)
    purged = client.jobs.wait(client.dead_letters.purge(room.id, subscription.id).id, poll_interval_s=0.2)

    # Then
    assert sorted(extended.extended) == sorted(p.message_id for p in published)
    assert {n.outcome for n in nacked.nacked} == {"dead"}
    assert len(first_page.items) == 2
    assert first_page.next_cursor is not None
    assert {letter.message_id for letter in letters} == {p.message_id for p in published}
    assert replayed.replayed == [published[0].message_id]
    assert again[0].message_id == published[0].message_id
    assert (purged.state, purged.counts.purged) == ("succeeded", 2)
    assert client.dead_letters.list(room.id, subscription.id).items == []


def test_deliveries_list_retry_and_clear(client: Client, webhook_servers: WebhookServers) -> None:
    # Given a webhook that fails, so its deliveries wait to be retried
    server = webhook_servers(always(Reply(500)))
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(
        room.id, push_url=server.url(), delivery_delay_ms=600_000, delivery_attempts=3
    )
    published = [client.messages.publish(room.id, {"n": n}, event_type="order.created") for n in range(3)]
    server.wait_for_requests(3, timeout_seconds=30)
    wait_until(
        lambda: len(client.deliveries.list(room.id, subscription.id, status="retrying").items) == 3,
        "three retrying deliveries",
    )

    # When
    page = client.deliveries.list(room.id, subscription.id, limit=2)
    every = list(client.deliveries.iter(room.id, subscription.id, limit=2))
    retried = client.deliveries.retry(room.id, subscription.id, message_ids=[published[0].message_id])
    server.wait_for_requests(4, timeout_seconds=30)
    started = client.deliveries.clear(room.id, subscription.id)
    cleared = client.jobs.wait(started.id, timeout_s=60, poll_interval_s=0.2)

    # Then
    assert len(page.items) == 2
    assert page.next_cursor is not None
    assert {d.message_id for d in every} == {p.message_id for p in published}
    assert retried.message_ids == [published[0].message_id]
    assert (started.state, cleared.state, cleared.counts.cleared) == ("running", "succeeded", 3)
    assert {d.status for d in client.deliveries.iter(room.id, subscription.id)} == {"cleared"}


def test_api_keys_create_list_and_delete(client: Client, tenant_a: ApiClient) -> None:
    # Given
    created = client.api_keys.create(name="billing service")

    # When
    listed = client.api_keys.list()
    every = list(client.api_keys.iter(limit=1))
    with Client(tenant_a.base_url, created.key) as billing:
        seen_by_new_key = [key.key_id for key in billing.api_keys.iter() if key.current]
    client.api_keys.delete(created.key_id)

    # Then
    assert created.key.startswith("rc_")
    assert {key.name for key in listed.items} >= {"billing service"}
    assert len(every) == 2
    assert seen_by_new_key == [created.key_id]
    with pytest.raises(NotFound):
        client.api_keys.delete(created.key_id)
    (only,) = client.api_keys.list().items
    with pytest.raises(Conflict) as last_key:
        client.api_keys.delete(only.key_id)
    assert last_key.value.code == "last_key"


def test_a_real_webhook_verifies_with_its_secret_and_a_tampered_one_does_not(
    client: Client, webhook_servers: WebhookServers
) -> None:
    # Given
    server = webhook_servers()
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, push_url=server.url())
    assert subscription.signing_secret is not None
    published = client.messages.publish(room.id, {"orderId": 7}, event_type="order.created")

    # When
    (request,) = server.wait_for_requests(1, timeout_seconds=30)
    message = verify_webhook(subscription.signing_secret, request.headers, request.body)

    # Then
    assert (message.message_id, message.room_id) == (published.message_id, room.id)
    assert (message.subscription_id, message.attempt, message.payload) == (subscription.id, 0, {"orderId": 7})
    with pytest.raises(WebhookVerificationError):
        verify_webhook(subscription.signing_secret, request.headers, request.body.replace(b"7", b"8"))
    with pytest.raises(WebhookVerificationError):
        verify_webhook("whsec_" + "A" * 43, request.headers, request.body)


def test_the_consumer_acks_what_its_handler_returns_and_nacks_what_it_raises_on(client: Client) -> None:
    # Given a handler that fails the first delivery of order 2, and one-second redeliveries
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, type="PULL", delivery_delay_ms=1000)
    for n in (1, 2):
        client.messages.publish(room.id, {"n": n}, event_type="order.created")
    seen: list[tuple[int, int]] = []

    def handler(message: PulledMessage) -> None:
        seen.append((message.payload["n"], message.attempt))
        if (message.payload["n"], message.attempt) == (2, 0):
            raise RuntimeError("downstream unavailable")

    # When it runs until three messages were handled
    stats = PullConsumer(client, room.id, subscription.id, handler, wait_seconds=2).run(limit=3)

    # Then order 2 came back after its nack and was acked the second time
    assert sorted(seen) == [(1, 0), (2, 0), (2, 1)]
    assert (stats.acked, stats.nacked) == (2, 1)
    assert "downstream unavailable" in stats.errors[0]
    statuses = {d.status for m in client.messages.iter(room.id) for d in m.deliveries}
    assert statuses == {"delivered"}


def test_the_consumer_extends_the_ack_wait_of_a_handler_slower_than_it(client: Client) -> None:
    # Given a subscription whose messages are handed out again 4 s after a pull (the consumer extends
    # every third of it: each extension has 2.7 s to land, which a busy machine's one request does)
    room = client.rooms.create(name="orders")
    subscription = client.subscriptions.create(room.id, type="PULL", ack_wait_ms=4000)
    published = client.messages.publish(room.id, {"n": 1}, event_type="order.created")
    handling = threading.Event()
    finish = threading.Event()

    def slow_handler(message: PulledMessage) -> None:
        handling.set()
        assert finish.wait(30)

    consumer = PullConsumer(client, room.id, subscription.id, slow_handler, wait_seconds=2)
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(consumer.run, limit=1)
        assert handling.wait(30)

        # When the handler is still busy twice its ack wait later
        time.sleep(8)
        pulled_meanwhile = client.pull(room.id, subscription.id)
        finish.set()
        stats = running.result(timeout=30)

    # Then the message stayed hidden, was extended, and its one delivery was acked
    assert pulled_meanwhile == []
    assert stats.extensions >= 2
    assert stats.acked == 1
    events = [a.event for a in client.messages.attempts(room.id, published.message_id).items]
    assert events == ["pull", "ack"]


# Each model and the response schema of the API's OpenAPI document it mirrors.
MODEL_OF_SCHEMA: dict[str, type[BaseModel]] = {
    "RoomResponse": models.Room,
    "EventTypeModel": models.EventType,
    "SubscriptionResponse": models.Subscription,
    "SubscriptionCreated": models.SubscriptionCreated,
    "RotatedSecret": models.RotatedSecret,
    "EffectivePolicy": models.EffectivePolicy,
    "ScheduledAttemptView": models.ScheduledAttempt,
    "SchedulePreview": models.SchedulePreview,
    "PublishResponse": models.PublishResult,
    "PublishBatchAccepted": models.BatchAccepted,
    "PublishBatchRefused": models.BatchRefused,
    "PublishBatchResponse": models.PublishBatchResult,
    "ErrorBody": models.ErrorBody,
    "DeliveryView": models.Delivery,
    "DeliveryItem": models.DeliveryItem,
    "MessageStatus": models.MessageStatus,
    "AttemptView": models.Attempt,
    "DeadLetterView": models.DeadLetter,
    "RetryResponse": models.RetryResult,
    "ReplayResponse": models.ReplayResult,
    "JobView": Job,
    "OrderingKeyView": OrderingKey,
    "OrderingKeyList": OrderingKeyList,
    "JobCounts": JobCounts,
    "PulledMessage": models.PulledMessage,
    "PullResponse": models.PullAndAckResult,
    "ReceiptFailure": models.ReceiptFailure,
    "AckResponse": models.AckResult,
    "NackOutcome": models.NackOutcome,
    "NackResponse": models.NackResult,
    "ExtendResponse": models.ExtendResult,
    "ApiKeyView": models.ApiKey,
    "CreatedApiKey": models.CreatedApiKey,
    "MetricsResponse": models.MetricsResponse,
    "MetricsPoint": models.MetricsPoint,
    "MetricsSummary": models.MetricsSummary,
    "BacklogView": models.BacklogView,
    "PercentilesView": models.PercentilesView,
}


def test_the_models_mirror_the_apis_response_schemas(tenant_a: ApiClient) -> None:
    # Given the running API's own document
    schemas = tenant_a.get("/openapi.json").json()["components"]["schemas"]

    for schema_name, model in MODEL_OF_SCHEMA.items():
        # When
        schema = schemas[schema_name]
        aliases = {field.alias or name: field for name, field in model.model_fields.items()}

        # Then every field of the answer has an attribute, and none the SDK requires may be absent
        assert set(aliases) == set(schema["properties"]), schema_name
        required_by_model = {alias for alias, field in aliases.items() if field.is_required()}
        assert required_by_model <= set(schema.get("required", [])), schema_name


def test_filters_set_shown_and_dry_run_through_the_sdk(client: Client) -> None:
    # Given
    room = client.rooms.create(name="orders")
    big = client.subscriptions.create(
        room.id, type="PULL", filter_policy={"amount": [{"numeric": [">=", 100]}]}
    )

    # When
    published = client.messages.publish(room.id, {"amount": 5}, event_type="order.created")
    tried = client.filters.test(room.id, "order.created", {"amount": 500}, filter_policy={"amount": [0]})
    cleared = client.subscriptions.update(room.id, big.id, filter_policy=None)

    # Then
    assert big.filter_policy == {"amount": [{"numeric": [">=", 100]}]}
    assert [(f.subscription_id, f.reason) for f in published.filtered_out] == [
        (big.id, "payload.amount: 5 is not >= 100")
    ]
    assert client.messages.get(room.id, published.message_id).filtered_out == published.filtered_out
    assert [(s.subscription_id, s.matched) for s in tried.subscriptions] == [(big.id, True)]
    assert tried.candidate is not None
    assert (tried.candidate.matched, tried.candidate.reason) == (
        False,
        "payload.amount: 500 does not match 0",
    )
    assert cleared.filter_policy is None


def test_the_event_type_catalog_through_the_sdk(client: Client) -> None:
    # Given
    schema = {"type": "object", "required": ["orderId"], "properties": {"orderId": {"type": "integer"}}}
    created = client.event_types.create("billing/order:created", schemas={"1": schema}, validation="warn")
    room = client.rooms.create(name="orders")

    # When
    checked = client.event_types.validate("billing/order:created", {"orderId": "x"})
    published = client.messages.publish(room.id, {"orderId": "x"}, event_type="billing/order:created")
    changed = client.event_types.update("billing/order:created", validation="reject", description="Orders.")
    archived = client.event_types.archive("billing/order:created")
    listed = client.event_types.list(include_archived=True)
    restored = client.event_types.restore("billing/order:created")
    exported = client.event_types.export()

    # Then
    assert (created.versions, created.schemas) == (["1"], {"1": schema})
    assert (checked.valid, [e.path for e in checked.errors]) == (False, ["payload.orderId"])
    assert published.schema_errors == ['payload.orderId: "x" is not of type "integer"']
    assert (changed.validation, changed.description) == ("reject", "Orders.")
    assert archived.archived is True
    assert [(t.name, t.archived) for t in listed.items] == [("billing/order:created", True)]
    assert client.event_types.get("billing/order:created") == restored
    assert list(exported["webhooks"]) == ["billing/order:created v1"]
