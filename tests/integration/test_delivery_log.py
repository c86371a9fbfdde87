"""The delivery log: one gzip NDJSON object per invocation, and a failing write endangers nothing."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from typing import Any

import boto3
import pytest

from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import EventSourceMapping, webhook_server
from tests.support import FakeLambdaContext, api_event


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"])


def _room_with_webhooks(manage: Handler, url: str, count: int) -> str:
    room = _call(manage, "POST", "/rooms", {"name": "logged"})
    for _ in range(count):
        _call(manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": url})
    return str(room["id"])


def _log_objects(bucket: str) -> list[str]:
    listed = boto3.client("s3").list_objects_v2(Bucket=bucket, Prefix="raw/").get("Contents", [])
    return [item["Key"] for item in listed]


def test_an_invocation_writes_one_gzip_ndjson_object_under_its_hour(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    with webhook_server([200]) as webhook:
        # Given: a message for three webhooks, published
        manage = function_handler("ManagementFunction")
        room_id = _room_with_webhooks(manage, webhook.url(), 3)
        publish = function_handler("PublishFunction")
        message = _call(
            publish,
            "POST",
            f"/rooms/{room_id}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": 1},
        )
        bucket = stack_model.buckets["LogBucket"]["BucketName"]
        published_objects = set(_log_objects(bucket))

        # When: the push function delivers the batch of three in one invocation
        push = function_handler("PushFunction")
        sqs = boto3.client("sqs")
        mapping = EventSourceMapping(
            sqs, stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"], push
        )
        assert mapping.poll_once() == 3

        # Then: the publish wrote one object, the push invocation one more, each under raw/dt=/hour=
        new_objects = set(_log_objects(bucket)) - published_objects
        assert len(published_objects) == 1
        assert len(new_objects) == 1
        key = new_objects.pop()
        assert key.startswith("raw/dt=")
        assert "/hour=" in key
        assert key.endswith(".ndjson.gz")
        body = boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
        records = [json.loads(line) for line in gzip.decompress(body).decode().splitlines()]
        assert {r["event"] for r in records} == {"attempt", "delivered"}
        assert sum(r["event"] == "delivered" for r in records) == 3
        assert {r["messageId"] for r in records} == {message["messageId"]}
        assert all(r["schemaVersion"] == 1 and r["recordId"] and r["publishedAt"] for r in records)
        assert len({r["recordId"] for r in records}) == len(records)


def test_a_failed_log_write_does_not_stop_or_delay_deliveries(
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from roomcast import observability

    logged: list[tuple[str, dict[str, Any]]] = []
    counted: list[tuple[str, float]] = []
    monkeypatch.setattr(observability.logger, "error", lambda message, **kw: logged.append((message, kw)))
    monkeypatch.setattr(observability.logger, "info", lambda message, **kw: logged.append((message, kw)))
    monkeypatch.setattr(
        observability.metrics, "add_metric", lambda name, unit, value: counted.append((name, value))
    )
    with webhook_server([200]) as webhook:
        # Given: the log bucket is gone (S3 refuses every write)
        manage = function_handler("ManagementFunction")
        room_id = _room_with_webhooks(manage, webhook.url(), 2)
        publish = function_handler("PublishFunction")
        s3 = boto3.client("s3")
        bucket = stack_model.buckets["LogBucket"]["BucketName"]
        for key in _log_objects(bucket):
            s3.delete_object(Bucket=bucket, Key=key)
        s3.delete_bucket(Bucket=bucket)
        message = _call(
            publish,
            "POST",
            f"/rooms/{room_id}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": 1},
        )

        # When
        push = function_handler("PushFunction")
        mapping = EventSourceMapping(
            boto3.client("sqs"), stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"], push
        )
        received = mapping.poll_once()

        # Then: both webhooks got the message and it shows delivered (the batch was acknowledged)
        assert received == 2
        assert len(webhook.requests) == 2
        status = _call(manage, "GET", f"/rooms/{room_id}/messages/{message['messageId']}")
        assert {d["status"] for d in status["deliveries"]} == {"delivered"}
        # and the records went to the function's log instead, with the failure counted
        assert any(message.startswith("delivery log not written to S3") for message, _ in logged)
        records = [kw["extra"]["deliveryLog"] for message, kw in logged if message == "delivery-log"]
        assert sorted(r["event"] for r in records if r["messageId"] == message["messageId"]) == [
            "attempt",
            "attempt",
            "delivered",
            "delivered",
            "published",  # the publish function's write failed too
            "published",
        ]
        assert ("DeliveryLogWriteFailed", 2) in counted  # publish: one per destination
        assert ("DeliveryLogWriteFailed", 4) in counted  # push: attempt + delivered, per webhook
