"""Management checks under concurrent requests, over HTTP against the local stack (issue 10's
attacks): the subscriptions-per-room limit, failover loops, dead-letter replays and signing-secret
rotations hold when requests race, and every refusal is a JSON 4xx, never a 5xx.

The worst interleavings are forced in tests/integration/test_management_races.py; here the
requests simply race, as an attacker's would.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from roomcast.catalog.store import CatalogTable
from roomcast.platform import limits
from roomcast_dev.stack import LocalStack
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, assert_error, wait_until
from tests.e2e.test_publish_and_pull import publish
from tests.e2e.webhook_server import WebhookReceiver, WebhookServers, always, fail_first
from tests.support import seed_copies

pytestmark = pytest.mark.security  # the security regression suite: make test-security

webhook_servers = webhook_server.webhook_servers

TIMEOUT_SECONDS = 30.0
# Long enough for a duplicate webhook to arrive if there were one (poller window, push function).
QUIET_SECONDS = 4.0


def _at_once(*calls: Callable[[], requests.Response]) -> list[requests.Response]:
    """The requests released together, one thread each."""
    start = threading.Barrier(len(calls))

    def one(call: Callable[[], requests.Response]) -> requests.Response:
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(one, calls))


def _no_server_errors(responses: list[requests.Response]) -> None:
    for response in responses:
        assert response.status_code < 500, response.text
        assert response.headers["content-type"].startswith("application/json"), response.text


def _all_subscriptions(client: ApiClient, room_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = {"limit": limits.MAX_PAGE_SIZE, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"/rooms/{room_id}/subscriptions", params=params).json()
        found += page["subscriptions"]
        if not (cursor := page["nextCursor"]):
            return found


def test_twenty_creates_at_the_last_free_place_of_a_room_store_exactly_one(
    empty_stack: LocalStack, tenant_a: ApiClient
) -> None:
    # Given: a room one subscription short of its limit (filled through the store, to be quick)
    room = tenant_a.create_room()
    hook = {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/hook"}
    first = tenant_a.create_subscription(room["id"], **hook)
    repository = CatalogTable(empty_stack.output("TableName"), client=empty_stack.client("dynamodb"))
    template = repository.get_subscription("tenant-a", room["id"], first["id"])
    seed_copies(repository, template, limits.MAX_SUBSCRIPTIONS_PER_ROOM - 2)

    # When: twenty creates at once
    responses = _at_once(*[lambda: tenant_a.post(f"/rooms/{room['id']}/subscriptions", hook)] * 20)

    # Then: exactly one is stored; the others are refused with the limit, as JSON
    _no_server_errors(responses)
    assert sorted(r.status_code for r in responses) == [201] + [409] * 19
    for refused in (r for r in responses if r.status_code == 409):
        assert_error(refused, 409, str(limits.MAX_SUBSCRIPTIONS_PER_ROOM))
        assert refused.json()["error"]["code"] == "limit_exceeded"
    assert len(_all_subscriptions(tenant_a, room["id"])) == limits.MAX_SUBSCRIPTIONS_PER_ROOM
    # and a delete frees a place again
    assert tenant_a.delete(f"/rooms/{room['id']}/subscriptions/{first['id']}").status_code == 204
    assert tenant_a.post(f"/rooms/{room['id']}/subscriptions", hook).status_code == 201


def test_patches_racing_to_close_a_failover_loop_never_both_land(tenant_a: ApiClient) -> None:
    # Given: pairs of subscriptions without failovers
    room = tenant_a.create_room()
    pairs = [
        (tenant_a.create_subscription(room["id"]), tenant_a.create_subscription(room["id"])) for _ in range(4)
    ]

    base = f"/rooms/{room['id']}/subscriptions"

    def make_failover(
        subscription: dict[str, Any], failover: dict[str, Any]
    ) -> Callable[[], requests.Response]:
        return lambda: tenant_a.patch(
            f"{base}/{subscription['id']}", {"failoverSubscriptionId": failover["id"]}
        )

    for first, second in pairs:
        # When: A→B and B→A at once
        responses = _at_once(make_failover(first, second), make_failover(second, first))

        # Then: one lands; the other is a 409 (changed meanwhile) or a 422 (would loop)
        _no_server_errors(responses)
        assert sorted(r.status_code for r in responses) in ([200, 409], [200, 422]), [
            r.text for r in responses
        ]
        stored = [tenant_a.get(f"{base}/{s['id']}").json()["failoverSubscriptionId"] for s in (first, second)]
        assert None in stored


def test_concurrent_replays_of_one_dead_letter_deliver_it_once(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a message dead for a webhook that refused it once and accepts from then on
    server = webhook_servers(fail_first(1, status=400))
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
    letters = f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters"
    message_id = publish(tenant_a, room["id"])["messageId"]
    wait_until(lambda: tenant_a.get(letters).json()["deadLetters"], "dead letter")

    # When: ten replays of it at once
    responses = _at_once(*[lambda: tenant_a.post(f"{letters}/replay", {"messageIds": [message_id]})] * 10)

    # Then: one replayed it; the others say another replay has it, or that it is gone
    _no_server_errors(responses)
    assert {r.status_code for r in responses} == {200}
    answers = [r.json() for r in responses]
    assert [a["replayed"] for a in answers].count([message_id]) == 1
    for answer in answers:
        assert answer["replayed"] + answer["alreadyReplaying"] + answer["notFound"] == [message_id]
    # and the webhook gets it exactly once more
    server.wait_for_requests(2, TIMEOUT_SECONDS)
    time.sleep(QUIET_SECONDS)
    assert [r.json["messageId"] for r in server.requests] == [message_id, message_id]
    assert tenant_a.get(letters).json()["deadLetters"] == []


def _push_subscription(client: ApiClient, servers: WebhookServers) -> tuple[WebhookReceiver, str, str]:
    """A PUSH subscription to a receiver that accepts everything: the receiver, the room's id and
    the subscription's rotate-secret path."""
    server = servers(always())
    room = client.create_room()
    subscription = client.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
    return server, room["id"], f"/rooms/{room['id']}/subscriptions/{subscription['id']}/rotate-secret"


def _signatures_on_the_next_webhook(client: ApiClient, room_id: str, server: WebhookReceiver) -> int:
    publish(client, room_id)
    [request] = server.wait_for_requests(1, TIMEOUT_SECONDS)
    return len(request.headers["webhook-signature"].split())


def test_a_rotation_that_would_make_a_fourth_live_secret_is_refused(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a PUSH subscription with its secret and two rotations (three live secrets)
    server, room_id, rotate = _push_subscription(tenant_a, webhook_servers)
    assert [tenant_a.post(rotate).status_code for _ in range(2)] == [200, 200]

    # When
    refused = tenant_a.post(rotate)

    # Then: 409 naming the limit and when a secret frees a place; webhooks carry three signatures
    body = assert_error(refused, 409, f"at most {limits.MAX_LIVE_SIGNING_SECRETS} live signing secrets")
    assert body["error"]["code"] == "too_many_secrets"
    assert "stops signing at 20" in body["error"]["message"]
    assert _signatures_on_the_next_webhook(tenant_a, room_id, server) == limits.MAX_LIVE_SIGNING_SECRETS


def test_racing_rotations_never_pass_the_live_secret_limit(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a PUSH subscription with its one secret
    server, room_id, rotate = _push_subscription(tenant_a, webhook_servers)

    # When: ten rotations at once
    responses = _at_once(*[lambda: tenant_a.post(rotate)] * 10)

    # Then: at most two went through (three live secrets); the rest are JSON 409s
    _no_server_errors(responses)
    rotated = [r for r in responses if r.status_code == 200]
    assert 1 <= len(rotated) <= limits.MAX_LIVE_SIGNING_SECRETS - 1
    assert {r.status_code for r in responses if r not in rotated} <= {409}
    assert _signatures_on_the_next_webhook(tenant_a, room_id, server) == 1 + len(rotated)


def _retrying(
    client: ApiClient, servers: WebhookServers, count: int
) -> tuple[WebhookReceiver, str, list[str]]:
    """``count`` deliveries retrying an hour from now (their first attempt answered 503): the
    receiver, the subscription's path and the message ids."""
    server = servers(fail_first(count, status=503))
    room = client.create_room(deliveryDelayMs=3_600_000)
    subscription = client.create_subscription(room["id"], type="PUSH", pushUrl=server.url())
    messages = [publish(client, room["id"])["messageId"] for _ in range(count)]
    server.wait_for_requests(count, TIMEOUT_SECONDS)
    wait_until(
        lambda: all(
            client.get(f"/rooms/{room['id']}/messages/{m}").json()["deliveries"][0]["status"] == "retrying"
            for m in messages
        ),
        "all retrying",
    )
    return server, f"/rooms/{room['id']}/subscriptions/{subscription['id']}", messages


def test_concurrent_retry_nows_count_exactly_the_webhooks_they_send(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: five deliveries retrying an hour from now
    server, path, messages = _retrying(tenant_a, webhook_servers, 5)

    # When: six retry-nows at once, three naming the messages, three of all of them (jobs)
    named = {"messageIds": messages}
    responses = _at_once(
        *[lambda: tenant_a.post(f"{path}/deliveries/retry", named)] * 3,
        *[lambda: tenant_a.post(f"{path}/deliveries/retry")] * 3,
    )

    # Then: their counts add up to five, and five webhooks went out (once each)
    _no_server_errors(responses)
    assert [r.status_code for r in responses] == [200] * 3 + [202] * 3
    retried = [m for r in responses[:3] for m in r.json()["messageIds"]]
    by_jobs = sum(tenant_a.finished_job(r)["counts"]["retried"] for r in responses[3:])
    assert sum(r.json()["retried"] for r in responses[:3]) + by_jobs == 5
    assert len(retried) + by_jobs == 5
    server.wait_for_requests(10, TIMEOUT_SECONDS)
    time.sleep(QUIET_SECONDS)
    assert sorted(r.json["messageId"] for r in server.requests[5:]) == sorted(messages)


def test_concurrent_clear_alls_all_succeed_and_count_each_delivery_once(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: five deliveries retrying an hour from now
    _server, path, messages = _retrying(tenant_a, webhook_servers, 5)

    # When: six Clear Alls at once
    responses = _at_once(*[lambda: tenant_a.delete(f"{path}/deliveries")] * 6)

    # Then: every one started a job, and the jobs' counts add up to the five cleared
    _no_server_errors(responses)
    assert [r.status_code for r in responses] == [202] * 6
    assert sum(tenant_a.finished_job(r)["counts"]["cleared"] for r in responses) == 5
    room_id = path.split("/")[2]
    assert {
        tenant_a.get(f"/rooms/{room_id}/messages/{m}").json()["deliveries"][0]["status"] for m in messages
    } == {"cleared"}
