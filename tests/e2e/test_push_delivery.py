"""PUSH delivery end to end: real webhook servers on loopback, the local stack, real time.

Delays are short (1 s bases) so the file runs in about a minute. Every timing check is a hard
lower bound (a retry never comes early: at most ``EARLY_SECONDS`` of clock granularity). How late
a retry may come is checked on what roomcast decided, not on the clock: the delay the push
function scheduled (the delivery log's ``retry_scheduled``). What the local pipeline adds to it
(whole-second SQS delays, the poller's long poll and 1 s batching window, the invocation, moto) a
busy machine stretches without bound; the exact schedule is held to the second in simulated time
(tests/integration/test_push_simulated_time.py).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import requests
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from roomcast_dev.stack import LocalStack
from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, assert_error, tenant_client
from tests.e2e.delivery_log import log_events
from tests.e2e.test_publish_and_pull import delivery_of, publish, pull_until, status
from tests.e2e.webhook_server import (
    RecordedRequest,
    Reply,
    WebhookReceiver,
    WebhookServers,
    always,
    fail_first,
    per_path,
)

# The fixture lives with the server; naming it here puts it within this module's reach.
webhook_servers = webhook_server.webhook_servers

# Publish → first POST: the publish, the poller's long poll and batching window, a cold worker.
FIRST_DELIVERY_TIMEOUT_SECONDS = 20.0
# What the local pipeline adds to a retry's delay on an idle machine: whole-second SQS delays, the
# 1 s batching window (only ever waited out: never an upper bound).
PIPELINE_SLACK_SECONDS = 1.5
# A retry may never come earlier than its delay; this much is clock granularity between processes.
EARLY_SECONDS = 0.05
STATUS_TIMEOUT_SECONDS = 10.0


# -- helpers ---------------------------------------------------------------------------------------


def push_subscription(
    client: ApiClient, room_id: str, server: WebhookReceiver, **fields: Any
) -> dict[str, Any]:
    return client.create_subscription(
        room_id, **{"type": "PUSH", "pushUrl": server.url("/hook"), "timeoutMs": 2000, **fields}
    )


def wait_for_delivery(
    client: ApiClient,
    room_id: str,
    message_id: str,
    subscription_id: str,
    wanted: str,
    timeout_seconds: float = STATUS_TIMEOUT_SECONDS,
) -> dict[str, Any]:
    """The delivery to ``subscription_id`` once its status is ``wanted`` (polled)."""
    deadline = time.monotonic() + timeout_seconds
    seen: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        seen = [
            d
            for d in status(client, room_id, message_id)["deliveries"]
            if d["subscriptionId"] == subscription_id
        ]
        if seen and seen[0]["status"] == wanted:
            return seen[0]
        time.sleep(0.2)
    raise AssertionError(f"delivery to {subscription_id} not {wanted!r} within {timeout_seconds} s: {seen}")


def verified(secret: str, request: RecordedRequest) -> Any:
    """The body, once ``standardwebhooks`` has verified the request's signature with ``secret``."""
    return Webhook(secret).verify(request.body, dict(request.headers))


def signature_verifies(secret: str, request: RecordedRequest) -> bool:
    try:
        verified(secret, request)
    except WebhookVerificationError:
        return False
    return True


def gaps_seconds(posts: list[RecordedRequest]) -> list[float]:
    return [later.arrived_at - earlier.arrived_at for earlier, later in itertools.pairwise(posts)]


def scheduled_delays(stack: LocalStack, subscription_id: str) -> list[float]:
    """The seconds the push function scheduled after each failed attempt, in attempt order (the
    delivery log's ``retry_scheduled`` records)."""
    records = sorted(log_events(stack, "retry_scheduled", subscription_id), key=lambda r: int(r["attempt"]))
    return [int(r["nextDelayMs"]) / 1000 for r in records]


def dead_letters(client: ApiClient, room_id: str, subscription_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/rooms/{room_id}/subscriptions/{subscription_id}/dead-letters")
    assert response.status_code == 200, response.text
    letters: list[dict[str, Any]] = response.json()["deadLetters"]
    return letters


def monotonic_of(iso_timestamp: str) -> float:
    """A wall-clock ISO timestamp of this machine on the ``time.monotonic()`` scale."""
    return datetime.fromisoformat(iso_timestamp).timestamp() - (time.time() - time.monotonic())


# -- backoff ---------------------------------------------------------------------------------------


def test_a_failing_webhook_is_retried_with_exponential_backoff_until_it_succeeds(
    tenant_a: ApiClient, webhook_servers: WebhookServers, empty_stack: LocalStack
) -> None:
    # Given: 1 s × 2^k between attempts, and a webhook that fails three times before answering 200
    server = webhook_servers(fail_first(3, status=500))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryDelayMultiplier=2.0, deliveryAttempts=3)
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"], correlationId="order-42")
    posts = server.wait_for_requests(4, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS + 7 + 3 * 2)
    delivery = wait_for_delivery(
        tenant_a, room["id"], published["messageId"], subscription["id"], "delivered"
    )

    # Then: four POSTs, each retry scheduled after its backoff delay, and none earlier
    assert len(server.requests) == 4
    assert scheduled_delays(empty_stack, subscription["id"]) == [1.0, 2.0, 4.0]
    for gap, delay in zip(gaps_seconds(posts), [1.0, 2.0, 4.0], strict=True):
        assert gap >= delay - EARLY_SECONDS, (gap, delay)
    # Then: the same signed message each time, counting its attempts
    bodies = [verified(subscription["signingSecret"], request) for request in posts]
    assert [body["attempt"] for body in bodies] == [0, 1, 2, 3]
    assert {request.headers["webhook-id"] for request in posts} == {published["messageId"]}
    assert {request.headers["x-correlation-id"] for request in posts} == {"order-42"}
    assert {body["correlationId"] for body in bodies} == {"order-42"}
    assert bodies[0]["payload"] == {"orderId": 42}
    assert bodies[0]["subscriptionId"] == subscription["id"]
    assert (delivery["attempts"], delivery["nextAttemptAt"]) == (4, None)


def test_retry_after_from_the_subscriber_postpones_the_retry_beyond_the_policy_delay(
    tenant_a: ApiClient, webhook_servers: WebhookServers, empty_stack: LocalStack
) -> None:
    # Given: the policy says 1 s, the webhook says "503, come back in 3 s"
    server = webhook_servers(fail_first(1, status=503, retry_after="3"))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryDelayMultiplier=2.0, deliveryAttempts=2)
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"])
    first, second = server.wait_for_requests(2, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS + 3 + 2)

    # Then: scheduled after the 3 s asked for, not the policy's 1 s, and not earlier
    assert scheduled_delays(empty_stack, subscription["id"]) == [3.0]
    assert second.arrived_at - first.arrived_at >= 3.0 - EARLY_SECONDS
    assert second.json["attempt"] == 1
    wait_for_delivery(tenant_a, room["id"], published["messageId"], subscription["id"], "delivered")


def test_a_redirect_is_not_followed_and_the_webhook_is_retried(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: the hook first answers with a redirect to another path, then with 200
    server = webhook_servers(
        per_path({"/hook": fail_first(1, status=302, headers={"Location": "/elsewhere"})})
    )
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=2)
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"])
    delivery = wait_for_delivery(
        tenant_a,
        room["id"],
        published["messageId"],
        subscription["id"],
        "delivered",
        FIRST_DELIVERY_TIMEOUT_SECONDS,
    )

    # Then
    assert [request.path for request in server.requests] == ["/hook", "/hook"]
    assert delivery["attempts"] == 2


def test_a_webhook_that_answers_after_the_timeout_is_retried(
    tenant_a: ApiClient, webhook_servers: WebhookServers, empty_stack: LocalStack
) -> None:
    # Given: a 1 s request timeout, and a webhook whose first answer takes 2.5 s
    server = webhook_servers(lambda number, request: Reply(200, delay_seconds=2.5 if number == 0 else 0.0))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=2)
    subscription = push_subscription(tenant_a, room["id"], server, timeoutMs=1000)

    # When
    published = publish(tenant_a, room["id"])
    first, second = server.wait_for_requests(2, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS + 1 + 2)
    delivery = wait_for_delivery(
        tenant_a, room["id"], published["messageId"], subscription["id"], "delivered"
    )

    # Then: the retry came after the timeout (1 s) and the backoff delay (1 s), scheduled then
    assert scheduled_delays(empty_stack, subscription["id"]) == [1.0]
    assert second.arrived_at - first.arrived_at >= 1.0 + 1.0 - EARLY_SECONDS
    assert (first.json["attempt"], second.json["attempt"]) == (0, 1)
    assert delivery["attempts"] == 2


# -- endings: dead, disabled, expired ----------------------------------------------------------------


def test_a_permanent_4xx_goes_to_the_dead_letters_after_one_post(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: retries are allowed, but the webhook refuses the message for good
    server = webhook_servers(always(Reply(400, body=b'{"error": "unknown order"}')))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"])
    server.wait_for_requests(1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)
    delivery = wait_for_delivery(tenant_a, room["id"], published["messageId"], subscription["id"], "dead")

    # Then
    assert "400" in delivery["lastError"]
    assert delivery["attempts"] == 1
    [letter] = dead_letters(tenant_a, room["id"], subscription["id"])
    assert letter["messageId"] == published["messageId"]
    assert letter["payload"] == {"orderId": 42}
    assert "400" in letter["reason"]
    # Then: no retry — wait out 3 s, longer than the first retry's delay plus the pipeline
    time.sleep(3.0)
    assert len(server.requests) == 1


def test_410_gone_ends_the_delivery_dead_and_disables_the_subscription(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given
    server = webhook_servers(always(Reply(410)))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"])
    delivery = wait_for_delivery(
        tenant_a,
        room["id"],
        published["messageId"],
        subscription["id"],
        "dead",
        FIRST_DELIVERY_TIMEOUT_SECONDS,
    )
    current = tenant_a.get(f"/rooms/{room['id']}/subscriptions/{subscription['id']}")

    # Then
    assert "410" in delivery["lastError"]
    assert len(server.requests) == 1
    assert current.status_code == 200, current.text
    assert current.json()["status"] == "disabled"


def test_a_message_whose_retries_are_exhausted_ends_dead(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: one redelivery, and a webhook that always fails
    server = webhook_servers(always(Reply(500)))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=1)
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"])
    posts = server.wait_for_requests(2, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS + 1 + 2)
    delivery = wait_for_delivery(tenant_a, room["id"], published["messageId"], subscription["id"], "dead")

    # Then
    assert [request.json["attempt"] for request in posts] == [0, 1]
    assert len(server.requests) == 2
    assert delivery["attempts"] == 2
    assert "500" in delivery["lastError"]
    assert "exhausted" in delivery["lastError"]
    [letter] = dead_letters(tenant_a, room["id"], subscription["id"])
    assert letter["messageId"] == published["messageId"]
    assert letter["attempts"] == 2


def test_a_retry_that_would_fall_past_the_expiry_is_not_made_and_the_message_expires(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: messages expire 8 s after publish; retries wait 1 s, then 8 s. Attempt 0 comes about
    # 1-2 s after publish and attempt 1 a second or two later; attempt 2 would be due at least
    # 1 + 8 s after attempt 0, past the expiry.
    server = webhook_servers(always(Reply(500)))
    room = tenant_a.create_room(
        messageExpirationMs=8000, deliveryDelayMs=1000, deliveryDelayMultiplier=8.0, deliveryAttempts=3
    )
    subscription = push_subscription(tenant_a, room["id"], server)

    # When
    published = publish(tenant_a, room["id"])
    delivery = wait_for_delivery(
        tenant_a, room["id"], published["messageId"], subscription["id"], "expired", 30.0
    )
    expires_at = monotonic_of(status(tenant_a, room["id"], published["messageId"])["expiresAt"])

    # Then: nothing is sent after the expiry (waited out, with the pipeline's time)
    time.sleep(max(0.0, expires_at + PIPELINE_SLACK_SECONDS - time.monotonic()))
    posts = server.requests
    history = tenant_a.get(f"/rooms/{room['id']}/messages/{published['messageId']}/attempts").json()
    started = [monotonic_of(a["startedAt"]) for a in history["attempts"] if a["event"] == "post"]
    assert len(started) == len(posts)
    assert all(at < expires_at for at in started)
    assert delivery["attempts"] == len(posts)
    # Attempts 0 and 1, and attempt 2 not scheduled: the retry past the expiry. On a busy machine
    # attempt 0 may come so late that attempt 1 falls past the expiry (not scheduled either), or is
    # due before it but received after it (then it is not made: expired before delivery).
    attempts = [request.json["attempt"] for request in posts]
    not_scheduled = delivery["lastError"].endswith("; next attempt past expiry")
    assert attempts in ([0, 1], [0]), attempts
    assert not_scheduled or (attempts == [0] and delivery["lastError"] == "expired before delivery"), delivery


# -- failover ----------------------------------------------------------------------------------------


def test_a_dead_webhook_delivery_fails_over_to_another_push_subscription(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: A always fails and has no redeliveries; its failover B answers 200
    broken = webhook_servers(always(Reply(500)))
    healthy = webhook_servers(always())
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    backup = push_subscription(tenant_a, room["id"], healthy)
    primary = push_subscription(
        tenant_a, room["id"], broken, deliveryAttempts=0, failoverSubscriptionId=backup["id"]
    )

    # When
    published = publish(tenant_a, room["id"], destinations=[primary["id"]])
    [handed_over] = healthy.wait_for_requests(1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS + 3)
    to_backup = wait_for_delivery(tenant_a, room["id"], published["messageId"], backup["id"], "delivered")
    to_primary = wait_for_delivery(tenant_a, room["id"], published["messageId"], primary["id"], "dead")

    # Then: B gets the message from attempt 0, signed with B's own secret
    body = verified(backup["signingSecret"], handed_over)
    assert not signature_verifies(primary["signingSecret"], handed_over)
    assert (body["messageId"], body["subscriptionId"], body["attempt"]) == (
        published["messageId"],
        backup["id"],
        0,
    )
    assert len(broken.requests) == 1
    assert to_primary["status"] == "dead"
    assert "failover" in to_primary["lastError"]
    assert backup["id"] in to_primary["lastError"]
    assert to_backup["attempts"] == 1
    assert dead_letters(tenant_a, room["id"], primary["id"]) == []


def test_a_dead_webhook_delivery_fails_over_to_a_pull_subscription(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given
    broken = webhook_servers(always(Reply(500)))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    backup = tenant_a.create_subscription(room["id"])
    primary = push_subscription(
        tenant_a, room["id"], broken, deliveryAttempts=0, failoverSubscriptionId=backup["id"]
    )

    # When
    published = publish(tenant_a, room["id"], destinations=[primary["id"]])
    pulled, _ = pull_until(tenant_a, room["id"], backup["id"], timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)

    # Then
    assert [(m["messageId"], m["attempt"], m["payload"]) for m in pulled] == [
        (published["messageId"], 0, {"orderId": 42})
    ]
    # (the message reaches its new home before the record says so: a puller can be quicker)
    to_primary = wait_for_delivery(tenant_a, room["id"], published["messageId"], primary["id"], "dead")
    assert "failover" in to_primary["lastError"]


# -- dead letters: replay and purge --------------------------------------------------------------------


def _dead_message(
    client: ApiClient, room_id: str, subscription_id: str, server: WebhookReceiver, count_before: int
) -> str:
    """Publish one message the webhook (answering 400) refuses; returns its id once it is dead."""
    published = publish(client, room_id)
    server.wait_for_requests(count_before + 1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)
    wait_for_delivery(client, room_id, published["messageId"], subscription_id, "dead")
    message_id: str = published["messageId"]
    return message_id


def test_replaying_all_dead_letters_delivers_them_again_from_attempt_0(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a message dead after a 400, and then the webhook is fixed
    server = webhook_servers(always(Reply(400)))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    subscription = push_subscription(tenant_a, room["id"], server)
    message_id = _dead_message(tenant_a, room["id"], subscription["id"], server, count_before=0)
    server.respond_with(always())

    # When
    replay = tenant_a.post(f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters/replay")
    job = tenant_a.finished_job(replay)
    again = server.wait_for_request(1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)
    delivery = wait_for_delivery(tenant_a, room["id"], message_id, subscription["id"], "delivered")

    # Then
    assert job["counts"] == {
        "examined": 1,
        "replayed": 1,
        "alreadyReplaying": 0,
        "cleared": None,
        "purged": None,
        "subscriptionsDeleted": None,
        "retried": None,
    }
    body = verified(subscription["signingSecret"], again)
    assert (body["messageId"], body["attempt"]) == (message_id, 0)
    assert again.headers["webhook-id"] == message_id
    assert delivery["attempts"] == 1
    assert dead_letters(tenant_a, room["id"], subscription["id"]) == []
    # and the attempt history keeps the attempt that died before the replay's (appended, not replaced)
    attempts = tenant_a.get(f"/rooms/{room['id']}/messages/{message_id}/attempts").json()["attempts"]
    assert [(a["attempt"], a["event"], a["httpStatus"]) for a in attempts] == [
        (0, "post", 400),
        (0, "post", 200),
    ]


def test_replaying_chosen_dead_letters_delivers_only_those(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: two dead messages, and then the webhook is fixed
    server = webhook_servers(always(Reply(400)))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    subscription = push_subscription(tenant_a, room["id"], server)
    chosen = _dead_message(tenant_a, room["id"], subscription["id"], server, count_before=0)
    left = _dead_message(tenant_a, room["id"], subscription["id"], server, count_before=1)
    server.respond_with(always())

    # When
    replay = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters/replay",
        {"messageIds": [chosen]},
    )
    again = server.wait_for_request(2, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)
    wait_for_delivery(tenant_a, room["id"], chosen, subscription["id"], "delivered")

    # Then
    assert replay.status_code == 200, replay.text
    assert replay.json() == {"replayed": [chosen], "notFound": [], "alreadyReplaying": []}
    assert (again.json["messageId"], again.json["attempt"]) == (chosen, 0)
    assert [letter["messageId"] for letter in dead_letters(tenant_a, room["id"], subscription["id"])] == [
        left
    ]
    assert delivery_of(status(tenant_a, room["id"], left), subscription["id"])["status"] == "dead"


def test_purging_dead_letters_empties_the_list(tenant_a: ApiClient, webhook_servers: WebhookServers) -> None:
    # Given: two dead messages
    server = webhook_servers(always(Reply(400)))
    room = tenant_a.create_room(deliveryDelayMs=1000, deliveryAttempts=3)
    subscription = push_subscription(tenant_a, room["id"], server)
    _dead_message(tenant_a, room["id"], subscription["id"], server, count_before=0)
    _dead_message(tenant_a, room["id"], subscription["id"], server, count_before=1)

    # When
    purge = tenant_a.delete(f"/rooms/{room['id']}/subscriptions/{subscription['id']}/dead-letters")

    # Then
    assert tenant_a.finished_job(purge)["counts"]["purged"] == 2
    assert dead_letters(tenant_a, room["id"], subscription["id"]) == []


# -- signing -------------------------------------------------------------------------------------------


def test_after_a_secret_rotation_webhooks_verify_with_the_old_and_the_new_secret(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given
    server = webhook_servers(always())
    room = tenant_a.create_room()
    subscription = push_subscription(tenant_a, room["id"], server)
    old_secret = subscription["signingSecret"]

    # When
    rotated = tenant_a.post(f"/rooms/{room['id']}/subscriptions/{subscription['id']}/rotate-secret")
    publish(tenant_a, room["id"])
    [request] = server.wait_for_requests(1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)

    # Then
    assert rotated.status_code == 200, rotated.text
    new_secret = rotated.json()["signingSecret"]
    assert new_secret.startswith("whsec_")
    assert new_secret != old_secret
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    assert signature_verifies(old_secret, request)
    assert signature_verifies(new_secret, request)


def test_the_first_webhook_after_a_rotation_is_signed_with_the_new_secret_too(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: the subscription has just received a webhook (so the push function has read it)
    server = webhook_servers(always())
    room = tenant_a.create_room()
    subscription = push_subscription(tenant_a, room["id"], server)
    publish(tenant_a, room["id"])
    server.wait_for_requests(1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)

    # When
    rotated = tenant_a.post(f"/rooms/{room['id']}/subscriptions/{subscription['id']}/rotate-secret")
    publish(tenant_a, room["id"])
    after_rotation = server.wait_for_request(1, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)

    # Then
    assert signature_verifies(rotated.json()["signingSecret"], after_rotation)
    assert signature_verifies(subscription["signingSecret"], after_rotation)


# -- isolation between endpoints -------------------------------------------------------------------------


def test_a_slow_endpoint_does_not_hold_back_the_other_subscription_of_the_same_message(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: one webhook takes 3 s to answer, the other answers at once
    slow = webhook_servers(always(Reply(200, delay_seconds=3.0)))
    fast = webhook_servers(always())
    room = tenant_a.create_room()
    push_subscription(tenant_a, room["id"], slow, timeoutMs=5000)
    push_subscription(tenant_a, room["id"], fast)

    # When
    publish(tenant_a, room["id"])
    fast_request = fast.wait_for_request(0, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)
    slow_request = slow.wait_for_answer(0, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS + 3)

    # Then: the fast webhook came before the slow one answered (its 3 s: the two requests went out
    # together; held back, the fast one would come after it). Not timed from the publish: that is
    # the local pipeline's latency, which a busy machine stretches.
    assert slow_request.answered_at is not None
    assert fast_request.arrived_at < slow_request.answered_at


def test_a_webhook_is_sent_while_another_endpoint_is_still_answering(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a slow webhook (4 s) is busy with a message (unlike the test above, this one does not
    # depend on which of the two deliveries the function starts first)
    slow = webhook_servers(always(Reply(200, delay_seconds=4.0)))
    fast = webhook_servers(always())
    room = tenant_a.create_room()
    slow_subscription = push_subscription(tenant_a, room["id"], slow, timeoutMs=6000)
    fast_subscription = push_subscription(tenant_a, room["id"], fast)
    publish(tenant_a, room["id"], destinations=[slow_subscription["id"]])
    slow.wait_for_request(0, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)

    # When
    publish(tenant_a, room["id"], destinations=[fast_subscription["id"]])
    fast_request = fast.wait_for_request(0, timeout_seconds=FIRST_DELIVERY_TIMEOUT_SECONDS)
    slow_request = slow.wait_for_answer(0, timeout_seconds=5.0)

    # Then
    assert slow_request.answered_at is not None
    assert fast_request.arrived_at < slow_request.answered_at


# -- push URLs refused at subscribe time -------------------------------------------------------------------
# Every address and spelling is covered where the rule lives (tests/unit/test_push_urls.py) and in the
# service (tests/unit/services/test_subscriptions_service.py); here, only what needs the running stack:
# that a deployment's setting (AllowLoopbackPushUrls=false) reaches the function.


@pytest.fixture(scope="module")
def strict_stack() -> Iterator[LocalStack]:
    """A second local stack that, like a deployment, does not allow loopback push URLs."""
    stack = LocalStack(parameters={"AllowLoopbackPushUrls": "false"}, stack_name="roomcast-strict")
    stack.start()
    yield stack
    stack.stop()


@pytest.fixture
def strict_tenant(strict_stack: LocalStack, http: requests.Session) -> ApiClient:
    strict_stack.reset()
    return tenant_client(strict_stack, http, "tenant-x")


def test_without_local_mode_a_push_url_to_loopback_is_refused(strict_tenant: ApiClient) -> None:
    # Given
    room = strict_tenant.create_room()

    # When: a host name that resolves to loopback
    response = strict_tenant.post(
        f"/rooms/{room['id']}/subscriptions", {"type": "PUSH", "pushUrl": "https://localhost/hook"}
    )

    # Then
    assert_error(response, 422, "pushUrl", "loopback")
