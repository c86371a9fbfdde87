"""Batch publish (POST /rooms/{roomId}/messages/batch) in-process against moto: each message
answered on its own, the AWS calls of one request, idempotent retries, and the outbox."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import time_machine

from roomcast.messages.sender import EnvelopeSender
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

TENANT = "acme"


def _call(handler: Handler, method: str, path: str, body: Any = None, status: int | None = None) -> Any:
    response = handler(api_event(method, path, body, tenant=TENANT), FakeLambdaContext())
    if status is not None:
        assert response["statusCode"] == status, response
    else:
        assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def _message(order: int, **fields: Any) -> dict[str, Any]:
    return {"eventType": "order.created", "eventVersion": "1", "payload": {"order": order}, **fields}


def push_queue_bodies(stack_model: StackModel) -> list[dict[str, Any]]:
    queue_url = stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
    sqs = boto3.client("sqs")
    bodies: list[dict[str, Any]] = []
    while received := sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", []):
        bodies += [json.loads(m["Body"]) for m in received]
    return bodies


@pytest.fixture
def room(function_handler: Callable[[str], Handler]) -> dict[str, Any]:
    """A room accepting order.created only, with a PUSH and a PULL subscription."""
    manage = function_handler("ManagementFunction")
    created = _call(manage, "POST", "/rooms", {"name": "orders", "eventTypes": [{"name": "order.created"}]})
    room_path = f"/rooms/{created['id']}/subscriptions"
    push = _call(manage, "POST", room_path, {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/"})
    pull = _call(manage, "POST", room_path, {"type": "PULL"})
    return {**created, "push": push["id"], "pull": pull["id"]}


def test_each_message_is_answered_on_its_own_in_request_order(
    room: dict[str, Any], function_handler: Callable[[str], Handler], stack_model: StackModel
) -> None:
    # Given: good messages between one of an event type the room refuses and one that is no message
    publish = function_handler("PublishFunction")
    messages = [
        _message(1),
        _message(2, eventType="order.deleted"),
        {"eventType": "order.created"},
        _message(4, destinations=[room["pull"]]),
    ]

    # When
    answer = _call(publish, "POST", f"/rooms/{room['id']}/messages/batch", {"messages": messages}, 200)

    # Then: two published, two refused with the single publish's error codes and their place named
    results = answer["results"]
    assert [r["status"] for r in results] == [202, 422, 422, 202]
    assert answer["failedCount"] == 2
    assert sorted(results[0]["destinations"]) == sorted([room["push"], room["pull"]])
    assert results[3]["destinations"] == [room["pull"]]
    assert results[1]["error"]["code"] == "unroutable"
    assert results[1]["error"]["details"][0]["field"] == "body.messages.1.eventType"
    assert results[2]["error"]["code"] == "validation_error"
    assert {d["field"] for d in results[2]["error"]["details"]} == {
        "body.messages.2.eventVersion",
        "body.messages.2.payload",
    }
    manage = function_handler("ManagementFunction")
    listed = _call(manage, "GET", f"/rooms/{room['id']}/messages")["messages"]
    assert sorted(m["messageId"] for m in listed) == sorted(
        [results[0]["messageId"], results[3]["messageId"]]
    )
    assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [results[0]["messageId"]]


def test_a_batch_reads_the_room_once_and_writes_and_sends_in_batches(
    room: dict[str, Any], function_handler: Callable[[str], Handler], aws_calls: Counter[str]
) -> None:
    # Given: 60 keyless messages to a PUSH and a PULL subscription
    publish = function_handler("PublishFunction")
    batch = {"messages": [_message(n) for n in range(60)]}

    # When
    aws_calls.clear()
    answer = _call(publish, "POST", f"/rooms/{room['id']}/messages/batch", batch, 200)

    # Then: one room read, one subscription read, 3 writes of 25, 6 + 6 sends of 10, one log write;
    # and once for the whole batch, the publish check (a send) and its sends-done mark (a write),
    # and the catalog's entry for the batch's one event type (a read beside the room's)
    assert answer["failedCount"] == 0
    assert len({r["messageId"] for r in answer["results"]}) == 60
    assert aws_calls["GetItem"] == 1 + 1
    assert aws_calls["Query"] == 1
    assert aws_calls["BatchWriteItem"] == 3 + 1
    assert aws_calls["PutItem"] == 0
    assert aws_calls["SendMessageBatch"] == 12 + 1


def test_a_retried_batch_answers_the_same_ids_and_publishes_nothing_twice(
    room: dict[str, Any], function_handler: Callable[[str], Handler], stack_model: StackModel
) -> None:
    # Given: a batch of keyed messages, published once
    publish = function_handler("PublishFunction")
    path = f"/rooms/{room['id']}/messages/batch"
    batch = {"messages": [_message(n, idempotencyKey=f"order-{n}") for n in range(3)] + [_message(9)]}
    first = _call(publish, "POST", path, batch, 200)
    sent_first = push_queue_bodies(stack_model)

    # When: the publisher retries it, one message now with another payload under its key
    retried_batch = {
        "messages": [*batch["messages"][:2], _message(99, idempotencyKey="order-2"), _message(9)]
    }
    retried = _call(publish, "POST", path, retried_batch, 200)

    # Then: the keyed messages answer the same ids, the changed one is refused, and nothing keyed
    # is stored or sent again (the keyless one is a new message, as a keyless single publish is)
    assert [r["messageId"] for r in retried["results"][:2]] == [r["messageId"] for r in first["results"][:2]]
    assert retried["results"][2]["error"]["code"] == "idempotency_key_reused"
    assert retried["results"][3]["messageId"] != first["results"][3]["messageId"]
    assert len(sent_first) == 4
    assert [b["message_id"] for b in push_queue_bodies(stack_model)] == [retried["results"][3]["messageId"]]
    manage = function_handler("ManagementFunction")
    assert len(_call(manage, "GET", f"/rooms/{room['id']}/messages")["messages"]) == 5


def test_a_key_repeated_in_one_batch_names_one_message(
    room: dict[str, Any], function_handler: Callable[[str], Handler], stack_model: StackModel
) -> None:
    # Given
    publish = function_handler("PublishFunction")
    same = _message(1, idempotencyKey="order-1")
    batch = {"messages": [same, same, _message(2, idempotencyKey="order-1")]}

    # When
    answer = _call(publish, "POST", f"/rooms/{room['id']}/messages/batch", batch, 200)

    # Then
    results = answer["results"]
    assert results[0] == results[1]
    assert results[2]["error"]["code"] == "idempotency_key_reused"
    assert len(push_queue_bodies(stack_model)) == 1


class Crash(BaseException):  # not an Exception: the process dies
    """The publish function's process dies here."""


def test_a_batch_killed_after_storing_is_finished_by_its_retry(
    room: dict[str, Any],
    function_handler: Callable[[str], Handler],
    stack_model: StackModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given: a keyed batch whose publish dies after storing its messages, before any send
    publish = function_handler("PublishFunction")
    path = f"/rooms/{room['id']}/messages/batch"
    batch = {"messages": [_message(n, idempotencyKey=f"order-{n}") for n in range(2)]}
    real_try_send = EnvelopeSender.try_send

    def dying(sender: EnvelopeSender, outgoing: Any) -> Any:
        raise Crash

    monkeypatch.setattr(EnvelopeSender, "try_send", dying)
    with time_machine.travel(datetime(2026, 11, 23, 12, 0, tzinfo=UTC), tick=False) as clock:
        with pytest.raises(Crash):
            publish(api_event("POST", path, batch, tenant=TENANT), FakeLambdaContext())
        monkeypatch.setattr(EnvelopeSender, "try_send", real_try_send)

        # When: retried at once, and again once the dead try can no longer be running
        too_soon = _call(publish, "POST", path, batch, 200)
        clock.shift(31)
        retried = _call(publish, "POST", path, batch, 200)

    # Then: at once it is in progress (409, as a single publish answers); later the retry sends
    assert [r["status"] for r in too_soon["results"]] == [409, 409]
    assert [r["status"] for r in retried["results"]] == [202, 202]
    sent = sorted(b["message_id"] for b in push_queue_bodies(stack_model))
    assert sent == sorted(r["messageId"] for r in retried["results"])


def test_what_sqs_refuses_is_left_to_the_outbox_per_message(
    room: dict[str, Any],
    function_handler: Callable[[str], Handler],
    stack_model: StackModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given: SQS refuses every send to the push queue
    publish = function_handler("PublishFunction")
    real_send_batch = EnvelopeSender._send_batch

    def outage(sender: EnvelopeSender, queue_url: str, batch: Any) -> None:
        if "push" in queue_url.rsplit("/", 1)[-1].lower():
            raise RuntimeError("SQS unavailable")
        real_send_batch(sender, queue_url, batch)

    monkeypatch.setattr(EnvelopeSender, "_send_batch", outage)

    # When
    answer = _call(
        publish, "POST", f"/rooms/{room['id']}/messages/batch", {"messages": [_message(1), _message(2)]}, 200
    )

    # Then: both accepted; each message item names its unsent PUSH destination for the outbox
    assert answer["failedCount"] == 0
    table = boto3.resource("dynamodb").Table(stack_model.tables["Table"]["TableName"])
    for result in answer["results"]:
        item = table.get_item(Key={"PK": f"TENANT#{TENANT}#MSG#{result['messageId']}", "SK": "MSG"})["Item"]
        assert item["outbox"] == "unsent"
        assert item["unsent"] == [room["push"]]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 422, "validation_error"),
        ({"messages": []}, 422, "validation_error"),
        ({"messages": [_message(n) for n in range(101)]}, 422, "validation_error"),
        ({"messages": [1, 2]}, 422, "validation_error"),
        ({"messages": _message(1)}, 422, "validation_error"),
        ({"messages": [_message(1, payload="x" * 600_000), _message(2, payload="y" * 500_000)]}, 413, None),
    ],
    ids=["no-messages", "empty", "over-100", "not-objects", "not-a-list", "body-over-1-MiB"],
)
def test_a_request_that_is_not_a_batch_is_refused_as_a_whole(
    room: dict[str, Any],
    function_handler: Callable[[str], Handler],
    stack_model: StackModel,
    body: dict[str, Any],
    status: int,
    code: str | None,
) -> None:
    # Given
    publish = function_handler("PublishFunction")

    # When
    answer = _call(publish, "POST", f"/rooms/{room['id']}/messages/batch", body, status)

    # Then: the error names the problem; nothing was published
    assert answer["error"]["code"] == (code or "payload_too_large")
    manage = function_handler("ManagementFunction")
    assert _call(manage, "GET", f"/rooms/{room['id']}/messages")["messages"] == []
    assert push_queue_bodies(stack_model) == []
