"""The outbox against moto: a publish whose SQS sends fail is still accepted, and the outbox
function, fed the table's real stream records, sends what was not sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
import time_machine
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from botocore.exceptions import ClientError

from roomcast.messages.ports import MessageExists
from roomcast.messages.sender import EnvelopeSender
from roomcast.messages.store import MessageTable
from roomcast_dev.stream_sources import StreamPoller, matches, stream_record
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def outbox_records(stack_model: StackModel) -> list[dict[str, Any]]:
    """The table's stream records the OutboxFunction's filter passes, shaped as Lambda sends them."""
    table_name = stack_model.tables["Table"]["TableName"]
    stream_arn = boto3.client("dynamodb").describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
    streams = boto3.client("dynamodbstreams")
    (trigger,) = [t for t in stack_model.stream_triggers if t.function_id == "OutboxFunction"]
    found: list[dict[str, Any]] = []
    for shard in streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        for record in streams.get_records(ShardIterator=iterator, Limit=1000)["Records"]:
            if any(matches(record, pattern) for pattern in trigger.filter_patterns):
                found.append(stream_record(dict(record), stream_arn, "us-east-1"))
    return found


def push_queue_bodies(stack_model: StackModel) -> list[dict[str, Any]]:
    queue_url = stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
    received = boto3.client("sqs").receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)
    return [json.loads(m["Body"]) for m in received.get("Messages", [])]


def room_with_push_subscription(manage: Handler) -> tuple[Any, Any]:
    """A room, and a PUSH subscription of it to a port that refuses connections."""
    room = _call(manage, "POST", "/rooms", {"name": "orders"})
    body = {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/"}
    return room, _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", body)


def test_a_publish_during_an_sqs_outage_is_accepted_and_the_outbox_sends_it(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: a room with a PUSH and a PULL subscription, and SQS refusing every send
    manage = function_handler("ManagementFunction")
    room, push = room_with_push_subscription(manage)
    pull = _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PULL"})
    real_batch = EnvelopeSender._send_batch

    def outage(sender: EnvelopeSender, queue_url: str, batch: Any) -> None:
        raise ClientError(
            {"Error": {"Code": "ServiceUnavailable", "Message": "SQS is down"}}, "SendMessageBatch"
        )

    monkeypatch.setattr(EnvelopeSender, "_send_batch", outage)

    # When: published
    publish = function_handler("PublishFunction")
    message = _call(
        publish,
        "POST",
        f"/rooms/{room['id']}/messages",
        {"eventType": "e", "eventVersion": "1", "payload": 7},
    )

    # Then: accepted, nothing on the queues yet, the message marked for the outbox
    assert set(message["destinations"]) == {push["id"], pull["id"]}
    assert push_queue_bodies(stack_model) == []
    records = outbox_records(stack_model)
    assert len(records) == 1
    assert {v["S"] for v in records[0]["dynamodb"]["NewImage"]["unsent"]["L"]} == {push["id"], pull["id"]}

    # When: the outbox function gets the stream record; during the outage its invocation fails
    # (the stream hands the record back), once SQS is back it sends
    outbox = function_handler("OutboxFunction")
    with pytest.raises(BatchProcessingError, match="SQS is down"):
        outbox({"Records": records}, FakeLambdaContext())
    monkeypatch.setattr(EnvelopeSender, "_send_batch", real_batch)
    done = outbox({"Records": records}, FakeLambdaContext())

    # Then: sent to both, the mark removed (no further outbox record), statuses still pending
    assert done["batchItemFailures"] == []
    assert [(b["message_id"], b["subscription_id"]) for b in push_queue_bodies(stack_model)] == [
        (message["messageId"], push["id"])
    ]
    pulled = _call(
        function_handler("PullFunction"), "POST", f"/rooms/{room['id']}/subscriptions/{pull['id']}/pull", {}
    )
    assert [m["messageId"] for m in pulled["messages"]] == [message["messageId"]]
    assert len(outbox_records(stack_model)) == 1
    status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{message['messageId']}")
    assert {d["status"] for d in status["deliveries"]} == {"pending"}


def test_the_outbox_clears_a_destination_whose_subscription_was_deleted(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: a message the publish could not send to its PULL subscription, deleted since
    manage = function_handler("ManagementFunction")
    room = _call(manage, "POST", "/rooms", {"name": "orders"})
    pull = _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PULL"})

    def outage(sender: EnvelopeSender, queue_url: str, batch: Any) -> None:
        raise ClientError({"Error": {"Code": "InternalError", "Message": "down"}}, "SendMessageBatch")

    monkeypatch.setattr(EnvelopeSender, "_send_batch", outage)
    message = _call(
        function_handler("PublishFunction"),
        "POST",
        f"/rooms/{room['id']}/messages",
        {"eventType": "e", "eventVersion": "1", "payload": 7},
    )
    monkeypatch.undo()
    manage = function_handler("ManagementFunction")
    deleted = manage(
        api_event("DELETE", f"/rooms/{room['id']}/subscriptions/{pull['id']}", tenant="acme"),
        FakeLambdaContext(),
    )
    assert deleted["statusCode"] == 204

    # When
    outbox = function_handler("OutboxFunction")
    done = outbox({"Records": outbox_records(stack_model)}, FakeLambdaContext())

    # Then: nothing left to retry, and the delivery ended cleared
    assert done["batchItemFailures"] == []
    status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{message['messageId']}")
    assert [(d["subscriptionId"], d["status"]) for d in status["deliveries"]] == [(pull["id"], "cleared")]


class Crash(BaseException):  # not an Exception: the process dies (powertools catches Exception only)
    """The publish function's process dies here."""


@pytest.mark.parametrize(
    "crash_after_send", [False, True], ids=["killed-before-the-send", "killed-after-the-send"]
)
def test_a_keyed_publish_killed_after_storing_is_one_message_when_retried(
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    monkeypatch: pytest.MonkeyPatch,
    crash_after_send: bool,
) -> None:
    # Given: a room with a PUSH subscription; the publish function dies after storing the message
    manage = function_handler("ManagementFunction")
    room, push = room_with_push_subscription(manage)
    real_try_send = EnvelopeSender.try_send

    def dying(sender: EnvelopeSender, outgoing: Any) -> Any:
        if crash_after_send:
            real_try_send(sender, outgoing)
        raise Crash

    monkeypatch.setattr(EnvelopeSender, "try_send", dying)
    publish = function_handler("PublishFunction")
    body = {"eventType": "e", "eventVersion": "1", "payload": {"order": 42}}
    keyed = {"Idempotency-Key": "order-42"}
    with time_machine.travel(datetime(2026, 11, 23, 12, 0, tzinfo=UTC), tick=False) as clock:
        with pytest.raises(Crash):
            publish(
                api_event("POST", f"/rooms/{room['id']}/messages", body, tenant="acme", headers=keyed),
                FakeLambdaContext(),
            )
        monkeypatch.setattr(EnvelopeSender, "try_send", real_try_send)

        # When: the publisher retries once the dead invocation's in-progress mark has lapsed
        clock.shift(60)
        retried = publish(
            api_event("POST", f"/rooms/{room['id']}/messages", body, tenant="acme", headers=keyed),
            FakeLambdaContext(),
        )

    # Then: accepted, naming the message the first try stored; one message in the room; its
    # envelope on the push queue (twice when the first try had sent it: a duplicate, not a loss)
    assert retried["statusCode"] == 202, retried
    message_id = json.loads(retried["body"])["messageId"]
    listed = _call(manage, "GET", f"/rooms/{room['id']}/messages")["messages"]
    assert [m["messageId"] for m in listed] == [message_id]
    sent = [(b["message_id"], b["subscription_id"]) for b in push_queue_bodies(stack_model)]
    assert sent == [(message_id, push["id"])] * (2 if crash_after_send else 1)


def test_the_outbox_hears_of_new_messages_after_a_retried_ordered_publish_was_refused(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: an ordered subscription, and the outbox on the table's stream as the local stack
    # runs it (a poller holding its shard iterator), caught up with a first message of key a
    manage = function_handler("ManagementFunction")
    room = _call(manage, "POST", "/rooms", {"name": "orders"})
    body = {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/", "ordered": True}
    subscription = _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", body)
    table_name = stack_model.tables["Table"]["TableName"]
    (trigger,) = [t for t in stack_model.stream_triggers if t.function_id == "OutboxFunction"]
    outbox = function_handler("OutboxFunction")
    opened = {"dynamodb": boto3.client("dynamodb"), "dynamodbstreams": boto3.client("dynamodbstreams")}
    poller = StreamPoller(
        trigger,
        table_name,
        "us-east-1",
        opened.__getitem__,
        lambda _, event: outbox(event, FakeLambdaContext()),
    )
    clients = opened["dynamodb"], opened["dynamodbstreams"]
    publish = function_handler("PublishFunction")
    path = f"/rooms/{room['id']}/messages"
    first = _call(
        publish, "POST", path, {"eventType": "e", "eventVersion": "1", "payload": {}, "orderingKey": "a"}
    )
    while poller.poll_once(*clients):
        pass

    # When: a publish retried after its first try stored the message (a publish function killed
    # after storing) is refused by the store — in a transaction, as the message is ordered — and
    # a message of key b follows
    store = MessageTable(table_name)
    tracked = store.get_message("acme", first["messageId"])
    refused = store.put_messages([(tracked.message, tracked.deliveries)], if_new=True)
    assert isinstance(refused.get(first["messageId"]), MessageExists)
    second = _call(
        publish, "POST", path, {"eventType": "e", "eventVersion": "1", "payload": {}, "orderingKey": "b"}
    )
    while poller.poll_once(*clients):
        pass

    # Then: the outbox heard of it and sent it in key b's turn (the emulator's stream went on: a
    # cancelled transaction once left every reader on a stream shard nothing was written to)
    sent = {(b["message_id"], b["subscription_id"]) for b in push_queue_bodies(stack_model)}
    assert (second["messageId"], subscription["id"]) in sent
