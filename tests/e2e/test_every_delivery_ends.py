"""Every delivery ends, on the local stack (issue 22): a subscription deleted with deliveries in
flight, publishes racing deletions, and a publish whose worker dies between storing its message
and sending it. This file's stack waits 3 s instead of a minute before the outbox's publish checks
and late sweeps (OutboxSettleSeconds), so that their bound can be waited for here."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from roomcast_dev.stack import LOCAL_PARAMETERS, LocalStack
from roomcast_dev.webhook_receiver import WebhookReceiver, always, statuses
from tests.e2e.conftest import ApiClient, tenant_client, wait_until
from tests.e2e.test_publish_and_pull import publish

SETTLE_SECONDS = 3
# The bound this stack states: the settle time, then an outbox batch (its window is 1 s) and the
# local poller's pace, with room for a loaded machine.
BOUND_SECONDS = SETTLE_SECONDS + 20
FINAL = {"delivered", "dead", "expired", "cleared"}


@pytest.fixture(scope="module")
def settling_stack() -> Iterator[LocalStack]:
    stack = LocalStack(
        function_concurrency=2,
        parameters={**LOCAL_PARAMETERS, "OutboxSettleSeconds": str(SETTLE_SECONDS)},
        stack_name="roomcast-settle",
    )
    stack.start()
    yield stack
    stack.stop()


@pytest.fixture
def client(settling_stack: LocalStack, http: requests.Session) -> ApiClient:
    settling_stack.reset()
    return tenant_client(settling_stack, http, "tenant-a")


def _statuses(client: ApiClient, room_id: str, message_id: str) -> dict[str, str]:
    response = client.get(f"/rooms/{room_id}/messages/{message_id}")
    assert response.status_code == 200, response.text
    return {d["subscriptionId"]: d["status"] for d in response.json()["deliveries"]}


def test_deliveries_of_deleted_subscriptions_end_cleared(client: ApiClient) -> None:
    # Given: a PULL subscription and a PUSH one whose receiver answers 500, retrying once after 3 s
    with WebhookReceiver(statuses(500)) as failing:
        room = client.create_room()
        pull = client.create_subscription(room["id"])
        push = client.create_subscription(
            room["id"], type="PUSH", pushUrl=failing.url(), retryScheduleMs=[3000], deliveryAttempts=2
        )
        message = publish(client, room["id"])["messageId"]
        failing.wait_for_requests(1, 30)

        # When: both are deleted
        for subscription in (pull, push):
            deleted = client.delete(f"/rooms/{room['id']}/subscriptions/{subscription['id']}")
            assert deleted.status_code == 204, deleted.text

        # Then: both deliveries end cleared within the bound, the PUSH one after its one attempt
        ended = wait_until(
            lambda: (s := _statuses(client, room["id"], message)) and set(s.values()) <= FINAL and s,
            "deliveries ended",
            BOUND_SECONDS,
        )
        assert ended == {pull["id"]: "cleared", push["id"]: "cleared"}
        details = client.get(f"/rooms/{room['id']}/messages/{message}").json()["deliveries"]
        assert {d["subscriptionId"]: d["attempts"] for d in details} == {pull["id"]: 0, push["id"]: 1}


def test_publishes_racing_the_deletion_of_their_destinations_all_end(client: ApiClient) -> None:
    # Given: a room with a PUSH and a PULL subscription, and publishes running all the while
    with WebhookReceiver(always()) as receiver:
        room = client.create_room()
        doomed = [
            client.create_subscription(room["id"])["id"],
            client.create_subscription(room["id"], type="PUSH", pushUrl=receiver.url())["id"],
        ]
        stop = threading.Event()
        published: list[str] = []

        def keep_publishing() -> None:
            while not stop.is_set():
                answer = client.post(
                    f"/rooms/{room['id']}/messages", {"eventType": "e", "eventVersion": "1", "payload": {}}
                )
                assert answer.status_code == 202, answer.text
                published.append(answer.json()["messageId"])

        with ThreadPoolExecutor(2) as pool:
            runs = [pool.submit(keep_publishing) for _ in range(2)]
            wait_until(lambda: len(published) >= 4, "publishing")

            # When: both subscriptions are deleted while the publishes go on
            for subscription_id in doomed:
                deleted = client.delete(f"/rooms/{room['id']}/subscriptions/{subscription_id}")
                assert deleted.status_code == 204, deleted.text
            stop.set()
            for run in runs:
                run.result()

        # Then: every delivery of every message (answered 202) ends within the bound
        def open_deliveries() -> dict[str, Any]:
            found = {}
            for message_id in published:
                for subscription_id, status in _statuses(client, room["id"], message_id).items():
                    if status not in FINAL:
                        found[f"{message_id}/{subscription_id}"] = status
            return found

        wait_until(lambda: not open_deliveries(), "every delivery final", BOUND_SECONDS)
        assert open_deliveries() == {}


def test_a_publish_whose_worker_dies_between_storing_and_sending_is_still_delivered(
    settling_stack: LocalStack, client: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: a PUSH subscription, and SQS (moto, in this process) holding the publish's send to the
    # push queue until the publish worker has been killed; the held send is then lost
    from moto.sqs.models import SQSBackend

    with WebhookReceiver(always()) as receiver:
        room = client.create_room()
        subscription = client.create_subscription(room["id"], type="PUSH", pushUrl=receiver.url())
        arrived, released = threading.Event(), threading.Event()
        real_batch = SQSBackend.send_message_batch
        push_queue = settling_stack.output("PushQueueUrl").rsplit("/", 1)[-1]

        def held(backend: SQSBackend, queue_name: str, entries: Any) -> Any:
            if queue_name == push_queue and not released.is_set():
                arrived.set()
                released.wait(30)
                raise RuntimeError("the sender died: this send never happened")
            return real_batch(backend, queue_name, entries)

        monkeypatch.setattr(SQSBackend, "send_message_batch", held)

        # When: the publish stores its message, and its worker dies at the send
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(
                client.post,
                f"/rooms/{room['id']}/messages",
                {"eventType": "e", "eventVersion": "1", "payload": {"order": 7}},
            )
            assert arrived.wait(30), "the publish never sent"
            assert settling_stack.functions["PublishFunction"].kill_worker() is not None
            released.set()
            failed = answer.result()

        # Then: the publisher got a 5xx, yet the stored message is delivered once the check runs
        assert failed.status_code >= 500
        listed = client.get(f"/rooms/{room['id']}/messages").json()["messages"]
        [message_id] = [m["messageId"] for m in listed]
        wait_until(
            lambda: _statuses(client, room["id"], message_id) == {subscription["id"]: "delivered"},
            "delivered by the outbox's check",
            BOUND_SECONDS,
        )
        assert [r.json["messageId"] for r in receiver.requests] == [message_id]
