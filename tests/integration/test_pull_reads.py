"""What a pull and an ack read before they change anything (docs/decisions/0026-pull-ack-waits.md):
one strongly consistent read of the room, whose subscriptions version says whether the function's
copy of the subscription still holds — so a change made through the API reaches the very next
request of a container that has the subscription cached. Handlers in-process against moto."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import time_machine

from roomcast_dev.samples import SAMPLE_ROOM_ID, SAMPLE_SUBSCRIPTION_ID, seed_sample_tenant
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

PULL_PATH = f"/rooms/{SAMPLE_ROOM_ID}/subscriptions/{SAMPLE_SUBSCRIPTION_ID}"
MESSAGE = {"eventType": "e", "eventVersion": "1", "payload": 1}


def _answer(handler: Handler, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    response = handler(api_event(method, path, body), FakeLambdaContext())
    return response["statusCode"], json.loads(response["body"] or "null")


def _ok(handler: Handler, method: str, path: str, body: Any = None) -> Any:
    status, answer = _answer(handler, method, path, body)
    assert status < 300, answer
    return answer


def _handlers(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> tuple[Handler, Handler, Handler]:
    manage = function_handler("ManagementFunction")  # the environment the seeding uses
    seed_sample_tenant(
        stack_model.tables["Table"]["TableName"],
        stack_model.functions["ManagementFunction"].environment["PULL_QUEUE_PREFIX"],
    )
    return manage, function_handler("PublishFunction"), function_handler("PullFunction")


def test_a_cached_subscription_reads_only_the_room_and_a_deletion_reaches_the_next_ack_and_pull(
    stack_model: StackModel, function_handler: Callable[[str], Handler], aws_calls: Counter[str]
) -> None:
    # Given: two messages pulled by a container that has read the subscription once already
    manage, publish, pull = _handlers(stack_model, function_handler)
    for _ in range(3):
        _ok(publish, "POST", f"/rooms/{SAMPLE_ROOM_ID}/messages", MESSAGE)
    _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 1})
    aws_calls.clear()
    handed = _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 2})["messages"]
    assert len(handed) == 2
    # a pull of a cached subscription reads the room alone: no read of the subscription or its room's list
    assert (aws_calls["GetItem"], aws_calls["Query"]) == (1, 0)

    # When: the subscription is deleted through the API, then the consumer acks and pulls again
    status, _ = _answer(manage, "DELETE", PULL_PATH)
    assert status == 204
    ack_status, ack_answer = _answer(pull, "POST", f"{PULL_PATH}/ack", {"receipts": [handed[0]["receipt"]]})
    pull_status, pull_answer = _answer(pull, "POST", f"{PULL_PATH}/pull", {})

    # Then: both are 404 naming the subscription, and the ack wrote nothing
    assert (ack_status, pull_status) == (404, 404)
    assert SAMPLE_SUBSCRIPTION_ID in ack_answer["error"]["message"]
    assert SAMPLE_SUBSCRIPTION_ID in pull_answer["error"]["message"]
    message = _ok(manage, "GET", f"/rooms/{SAMPLE_ROOM_ID}/messages/{handed[0]['messageId']}")
    [record] = [d for d in message["deliveries"] if d["subscriptionId"] == SAMPLE_SUBSCRIPTION_ID]
    assert record["status"] != "delivered"


def test_a_changed_ack_wait_reaches_the_next_pull_of_a_container_that_cached_the_old_one(
    stack_model: StackModel, function_handler: Callable[[str], Handler], aws_calls: Counter[str]
) -> None:
    with time_machine.travel(datetime(2026, 11, 22, 9, 0, tzinfo=UTC), tick=False) as clock:
        # Given: a container that pulled one of three messages with an ack wait of 30 s
        manage, publish, pull = _handlers(stack_model, function_handler)
        _ok(manage, "PATCH", PULL_PATH, {"ackWaitMs": 30_000})
        for _ in range(3):
            _ok(publish, "POST", f"/rooms/{SAMPLE_ROOM_ID}/messages", MESSAGE)
        [first] = _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 1})["messages"]

        # When: the ack wait becomes 12 hours, the same container pulls one more, and a minute passes
        _ok(manage, "PATCH", PULL_PATH, {"ackWaitMs": 43_200_000})
        aws_calls.clear()
        [second] = _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 1})["messages"]
        read_again = (aws_calls["GetItem"], aws_calls["Query"])
        clock.shift(60)
        pulled = _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 10})["messages"]
    later = {m["messageId"] for m in pulled}

    # Then: the second pull read the subscriptions again (the room's version moved) and hid its
    # message for 12 hours; the first one's 30 s ran out and it came back
    assert read_again == (1, 1)
    assert first["messageId"] in later
    assert second["messageId"] not in later


def test_a_pull_with_ack_reads_the_room_once_and_answers_what_the_ack_did(
    stack_model: StackModel, function_handler: Callable[[str], Handler], aws_calls: Counter[str]
) -> None:
    # Given: two messages handed out by a container that has read the subscription once, one waiting
    manage, publish, pull = _handlers(stack_model, function_handler)
    for _ in range(3):
        _ok(publish, "POST", f"/rooms/{SAMPLE_ROOM_ID}/messages", MESSAGE)
    handed = _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 2})["messages"]
    plain = _ok(pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 1, "waitSeconds": 0})

    # When: the next pull acks the two
    aws_calls.clear()
    status, answer = _answer(
        pull, "POST", f"{PULL_PATH}/pull", {"maxMessages": 10, "ack": [m["receipt"] for m in handed]}
    )

    # Then: one read of the room for both; the two acked, the queue empty now (the third is in
    # flight), both records delivered; a pull without ack answers them null, one with an empty ack empty
    assert status == 200, answer
    assert (aws_calls["GetItem"], aws_calls["Query"]) == (1, 0)
    assert sorted(answer["acked"]) == sorted(m["messageId"] for m in handed)
    assert (answer["ackFailed"], answer["messages"]) == ([], [])
    assert (plain["acked"], plain["ackFailed"]) == (None, None)
    assert _ok(pull, "POST", f"{PULL_PATH}/pull", {"ack": []}) == {
        "messages": [],
        "acked": [],
        "ackFailed": [],
    }
    for message in handed:
        stored = _ok(manage, "GET", f"/rooms/{SAMPLE_ROOM_ID}/messages/{message['messageId']}")
        [record] = [d for d in stored["deliveries"] if d["subscriptionId"] == SAMPLE_SUBSCRIPTION_ID]
        assert record["status"] == "delivered"
