"""The delivery log: one PutRecordBatch per invocation to the Firehose stream, gzip NDJSON files in
the log bucket once Firehose delivers, and a failing write endangers nothing."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from typing import Any

import boto3
import pytest

from roomcast_dev.firehose import FirehoseDelivery
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


def test_each_invocation_sends_one_batch_and_firehose_writes_them_as_one_gzip_ndjson_file(
    stack_model: StackModel, function_handler: Callable[[str], Handler], firehose_delivery: FirehoseDelivery
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
        stream = stack_model.delivery_streams["DeliveryLogStream"]["DeliveryStreamName"]
        batches_after_publish = firehose_delivery.batches_received

        # When: the push function delivers the batch of three in one invocation, then Firehose's
        # buffering interval passes
        push = function_handler("PushFunction")
        sqs = boto3.client("sqs")
        mapping = EventSourceMapping(
            sqs, stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"], push
        )
        assert mapping.poll_once() == 3
        batches_after_push = firehose_delivery.batches_received
        objects_before_delivery = _log_objects(bucket)
        firehose_delivery.flush()

        # Then: one PutRecordBatch for the push invocation; nothing in the bucket until Firehose
        # delivered, then one file with both invocations' records, under raw/dt=/hour=
        assert batches_after_push - batches_after_publish == 1
        assert objects_before_delivery == []
        (key,) = _log_objects(bucket)
        assert re.fullmatch(
            rf"raw/dt=\d{{4}}-\d\d-\d\d/hour=\d\d/{stream}-1-[-0-9]{{19}}-[-0-9a-f]{{36}}\.ndjson\.gz", key
        )
        body = boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
        records = [json.loads(line) for line in gzip.decompress(body).decode().splitlines()]
        assert sorted(r["event"] for r in records) == ["attempt"] * 3 + ["delivered"] * 3 + ["published"] * 3
        assert {r["messageId"] for r in records} == {message["messageId"]}
        assert all(r["schemaVersion"] == 1 and r["recordId"] and r["publishedAt"] for r in records)
        assert len({r["recordId"] for r in records}) == len(records)


def test_a_failed_log_write_does_not_stop_or_delay_deliveries(
    stack_model: StackModel,
    function_handler: Callable[[str], Handler],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from roomcast.platform import observability

    logged: list[tuple[str, dict[str, Any]]] = []
    counted: list[tuple[str, float]] = []
    monkeypatch.setattr(observability.logger, "error", lambda message, **kw: logged.append((message, kw)))
    monkeypatch.setattr(observability.logger, "info", lambda message, **kw: logged.append((message, kw)))
    monkeypatch.setattr(
        observability.metrics, "add_metric", lambda name, unit, value: counted.append((name, value))
    )
    with webhook_server([200]) as webhook:
        # Given: the delivery stream is gone (Firehose refuses every batch)
        manage = function_handler("ManagementFunction")
        room_id = _room_with_webhooks(manage, webhook.url(), 2)
        publish = function_handler("PublishFunction")
        stream = stack_model.delivery_streams["DeliveryLogStream"]["DeliveryStreamName"]
        boto3.client("firehose").delete_delivery_stream(DeliveryStreamName=stream)
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
        assert any(message.startswith("delivery log not written to Firehose") for message, _ in logged)
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
