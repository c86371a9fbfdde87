"""An operator's resume of a paused ordering key (issue 48), through the functions against moto: a
resumed dead message leaves no dead letter behind (a replay has nothing to send again); of two
resumes at once one answers 200 and the other 409 `not_paused`, and the message goes once; a key
with reserved characters resumes from its percent-encoded path, as the SDK sends it."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote

import pytest

from roomcast_dev.webhook_receiver import Reply
from tests.integration.push_harness import webhook_server
from tests.integration.test_ordered_delivery import (
    Functions,
    _call,
    _deliver,
    _ordered_subscription,
    functions,
)
from tests.support import FakeLambdaContext, api_event

__all__ = ["functions"]  # the fixture, used by name


def _paused_key(functions: Functions, webhook: Any, key: str) -> tuple[str, str, str]:
    """An ordered subscription whose key ``key`` is paused on a dead message: (room, keys path, dead)."""
    webhook.respond_with(lambda number, request: Reply(500 if request.json["payload"].get("bad") else 200))
    room, subscription = _ordered_subscription(functions.manage, webhook.url(), deliveryAttempts=0)
    body = {"eventType": "e", "eventVersion": "1", "payload": {"bad": True}, "orderingKey": key}
    dead = _call(functions.publish, "POST", f"/rooms/{room['id']}/messages", body)["messageId"]
    _deliver(functions.stream, functions.push)
    keys = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/ordering-keys"
    letters = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters"
    assert [d["messageId"] for d in _call(functions.manage, "GET", letters)["deadLetters"]] == [dead]
    return room["id"], keys, dead


def test_a_resumed_key_leaves_no_dead_letter_to_replay(functions: Functions) -> None:
    with webhook_server([200]) as webhook:
        # Given: a key paused on a dead message, whose endpoint is then fixed
        room_id, keys, dead = _paused_key(functions, webhook, "order:1001")
        webhook.respond_with(lambda number, request: Reply(200))
        letters = keys.replace("/ordering-keys", "/dead-letters")

        # When: resumed without skipping, from the path the SDK sends
        resumed = _call(functions.manage, "POST", f"{keys}/{quote('order:1001', safe='')}/resume", {})
        _deliver(functions.stream, functions.push)

        # Then: delivered once more, and no longer a dead letter: a replay of it sends nothing
        assert resumed["orderingKey"] == "order:1001"
        assert [r.json["messageId"] for r in webhook.requests].count(dead) == 2  # the death, the resume
        assert _call(functions.manage, "GET", letters)["deadLetters"] == []
        replayed = _call(functions.manage, "POST", f"{letters}/replay", {"messageIds": [dead]})
        assert replayed["replayed"] == []
        _deliver(functions.stream, functions.push)
        assert [r.json["messageId"] for r in webhook.requests].count(dead) == 2
        status = _call(functions.manage, "GET", f"/rooms/{room_id}/messages/{dead}")["deliveries"][0][
            "status"
        ]
        assert status == "delivered"


@pytest.mark.parametrize("bodies", [({}, {}), ({"skip": True}, {})])
def test_of_two_resumes_at_once_one_answers_200_and_the_other_409(
    functions: Functions, bodies: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    with webhook_server([200]) as webhook:
        # Given: a paused key
        _, keys, dead = _paused_key(functions, webhook, "k")
        webhook.respond_with(lambda number, request: Reply(200))

        # When: two resumes at once
        def resume(body: dict[str, Any]) -> tuple[int, Any]:
            response = functions.manage(
                api_event("POST", f"{keys}/k/resume", body, tenant="acme"), FakeLambdaContext()
            )
            return response["statusCode"], json.loads(response["body"])

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(resume, bodies))
        _deliver(functions.stream, functions.push)

        # Then: one went through; the other is told the key is not paused; the message went at most once more
        assert sorted(status for status, _ in answers) == [200, 409], answers
        refused = next(body for status, body in answers if status == 409)
        assert refused["error"]["code"] == "not_paused"
        assert [r.json["messageId"] for r in webhook.requests].count(dead) <= 2
