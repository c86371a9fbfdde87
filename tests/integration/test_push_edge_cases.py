"""Push delivery edge cases, in-process against moto: a host that stops resolving, and replays
being logged."""

from __future__ import annotations

import dataclasses
import gzip
import json
from collections.abc import Callable
from typing import Any

import boto3

from roomcast.catalog.store import CatalogTable
from roomcast_dev.firehose import FirehoseDelivery
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.integration.push_harness import EventSourceMapping, run_outbox_tasks, webhook_server
from tests.support import FakeLambdaContext, api_event


def _call(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    response = handler(api_event(method, path, body, tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] < 300, response
    return json.loads(response["body"]) if response.get("body") else None


def test_a_host_that_does_not_resolve_at_delivery_time_is_retried_not_dead(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: a subscription whose host stopped resolving after it was accepted (DNS trouble)
    manage = function_handler("ManagementFunction")
    room = _call(manage, "POST", "/rooms", {"name": "dns", "deliveryAttempts": 3})
    created = _call(
        manage,
        "POST",
        f"/rooms/{room['id']}/subscriptions",
        {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/x"},
    )
    repository = CatalogTable(stack_model.tables["Table"]["TableName"])
    current = repository.get_subscription("acme", room["id"], created["id"])
    repository.replace_subscription(
        dataclasses.replace(current, push_url="https://no-such-host.invalid/hook"), current.updated_at
    )
    publish = function_handler("PublishFunction")
    message = _call(
        publish,
        "POST",
        f"/rooms/{room['id']}/messages",
        {"eventType": "e", "eventVersion": "1", "payload": 1},
    )

    # When
    push = function_handler("PushFunction")
    queue = stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"]
    EventSourceMapping(boto3.client("sqs"), queue, push).poll_once()

    # Then: a retry is scheduled, like any network error
    status = _call(manage, "GET", f"/rooms/{room['id']}/messages/{message['messageId']}")
    delivery = status["deliveries"][0]
    assert delivery["status"] == "retrying"
    assert "does not resolve" in delivery["lastError"]
    letters = _call(manage, "GET", f"/rooms/{room['id']}/subscriptions/{created['id']}/dead-letters")
    assert letters["deadLetters"] == []


def test_a_replay_with_an_empty_body_replays_all_and_is_logged(
    stack_model: StackModel, function_handler: Callable[[str], Handler], firehose_delivery: FirehoseDelivery
) -> None:
    with webhook_server([400, 200]) as webhook:
        # Given: a message dead for a subscription whose webhook refused it
        manage = function_handler("ManagementFunction")
        room = _call(manage, "POST", "/rooms", {"name": "replay"})
        subscription = _call(
            manage, "POST", f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": webhook.url()}
        )
        publish = function_handler("PublishFunction")
        _call(
            publish,
            "POST",
            f"/rooms/{room['id']}/messages",
            {"eventType": "e", "eventVersion": "1", "payload": 1},
        )
        push = function_handler("PushFunction")
        mapping = EventSourceMapping(
            boto3.client("sqs"), stack_model.functions["PushFunction"].environment["PUSH_QUEUE_URL"], push
        )
        mapping.poll_once()
        base = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters"
        assert len(_call(manage, "GET", base)["deadLetters"]) == 1

        # When: replay with {} (all), then the push function runs again
        started = _call(manage, "POST", f"{base}/replay", {})
        run_outbox_tasks(stack_model, function_handler("OutboxFunction"))
        mapping.poll_once()

        # Then: its job replayed it, it went out again from attempt 0, and the replay is logged
        assert _call(manage, "GET", f"/jobs/{started['id']}")["counts"]["replayed"] == 1
        assert [json.loads(r.body)["attempt"] for r in webhook.requests] == [0, 0]
        firehose_delivery.flush()
        s3 = boto3.client("s3")
        bucket = stack_model.buckets["LogBucket"]["BucketName"]
        events = [
            json.loads(line)["event"]
            for item in s3.list_objects_v2(Bucket=bucket, Prefix="raw/").get("Contents", [])
            for line in gzip.decompress(
                s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            ).splitlines()
        ]
        assert "replayed" in events
